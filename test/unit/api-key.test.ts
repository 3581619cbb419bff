import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, hashesMatch, isWellFormedApiKey, parseApiKey } from '../../shared/auth/api-key.ts';

describe('API keys', () => {
  it('are 43 base64url characters (32 random bytes) and never repeat', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    }
  });

  it.each([
    ['generated key', generateApiKey(), true],
    ['64 hex characters', 'a'.repeat(64), true],
    ['42 characters', 'a'.repeat(42), false],
    ['a space inside', `${'a'.repeat(30)} ${'b'.repeat(30)}`, false],
    ['non-ASCII', `${'a'.repeat(43)}é`, false],
    ['empty', '', false],
    ['129 characters', 'a'.repeat(129), false],
  ])('%s is well formed: %s', (_, key, expected) => {
    expect(isWellFormedApiKey(key)).toBe(expected);
    expect(parseApiKey(key) !== undefined).toBe(expected);
  });

  it('are looked up by their first 12 characters and stored as a SHA-256 hash only', () => {
    const key = generateApiKey();
    const parsed = parseApiKey(key)!;
    expect(parsed.keyId).toBe(key.slice(0, 12));
    expect(parsed.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.hash).not.toContain(key.slice(12));
  });

  it('match only the same key', () => {
    const key = generateApiKey();
    const other = key.slice(0, 12) + generateApiKey().slice(12);
    expect(hashesMatch(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesMatch(hashApiKey(key), hashApiKey(other))).toBe(false);
    expect(hashesMatch(hashApiKey(key), 'abcd')).toBe(false);
  });
});
