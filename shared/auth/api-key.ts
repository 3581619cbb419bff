/**
 * API keys: generated from 32 random bytes, stored only as a SHA-256 hash, looked up by a key id
 * (the key's first 12 characters) and then compared in constant time. A key holds enough entropy
 * that a fast hash is the right one; a password hash would only slow every request down.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** base64url alphabet; 43 characters carry 32 bytes. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{43,128}$/;
const KEY_ID_LENGTH = 12;

export interface ParsedApiKey {
  readonly keyId: string;
  readonly hash: string;
}

export function generateApiKey(): string {
  return randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function parseApiKey(key: string): ParsedApiKey | undefined {
  if (!isWellFormedApiKey(key)) return undefined;
  return { keyId: key.slice(0, KEY_ID_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of the same length. */
export function hashesMatch(expectedHex: string, actualHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(actualHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
