/** The pure rules of named API keys (shared/domain/api-keys.ts), table-driven. */
import { describe, expect, it } from 'vitest';
import { isExpired, isLastUseDue, mayManageKeysOf, mayUseMethod, scopeOf, LAST_USE_RESOLUTION_MS } from '../../shared/domain/api-keys.ts';

describe('mayUseMethod: what a key of each scope may do', () => {
  it.each([
    ['read', 'GET', true],
    ['read', 'HEAD', true],
    ['read', 'get', true],
    ['read', 'POST', false],
    ['read', 'PUT', false],
    ['read', 'PATCH', false],
    ['read', 'DELETE', false],
    ['read', 'OPTIONS', false],
    ['read', '', false],
    ['write', 'GET', true],
    ['write', 'HEAD', true],
    ['write', 'POST', true],
    ['write', 'PUT', true],
    ['write', 'PATCH', true],
    ['write', 'DELETE', true],
  ] as const)('a %s key with %j: %s', (scope, method, allowed) => {
    expect(mayUseMethod(scope, method)).toBe(allowed);
  });
});

describe('scopeOf: the scope of a stored key', () => {
  it.each([
    ['read', 'read'],
    ['write', 'write'],
    [undefined, 'write'],
    ['READ', 'write'],
  ] as const)('%j is %s (a key written before scopes is a write key)', (stored, scope) => {
    expect(scopeOf(stored)).toBe(scope);
  });
});

describe('isExpired', () => {
  const now = new Date('2026-05-01T12:00:00.000Z');
  it.each([
    [undefined, false, 'no expiry: never'],
    ['2026-05-01T12:00:00.001+00:00', false, 'a millisecond ahead'],
    ['2026-05-01T12:00:00.000+00:00', true, 'at its expiry'],
    ['2026-05-01T11:59:59.999Z', true, 'a millisecond past'],
    ['2026-05-01T14:00:00+02:00', true, 'the same instant in another offset'],
    ['2026-05-01T14:00:01+02:00', false, 'a second ahead in another offset'],
    ['not a date', true, 'an expiry that does not parse'],
  ] as [string | undefined, boolean, string][])('%j → %s (%s)', (expiresAt, expired) => {
    expect(isExpired(expiresAt, now)).toBe(expired);
  });
});

describe('isLastUseDue: last_used_at written at most once a minute', () => {
  const now = new Date('2026-05-01T12:00:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString().replace('Z', '+00:00');
  it.each([
    [undefined, true],
    [ago(LAST_USE_RESOLUTION_MS), true],
    [ago(LAST_USE_RESOLUTION_MS + 1), true],
    [ago(LAST_USE_RESOLUTION_MS - 1), false],
    [ago(0), false],
    ['garbage', true],
  ])('last used %j: due %s', (lastUsedAt, due) => {
    expect(isLastUseDue(lastUsedAt, now)).toBe(due);
  });
});

describe('mayManageKeysOf', () => {
  const root = { username: 'root', dataspace: 'acme', isSuperuser: true };
  const alice = { username: 'alice', dataspace: 'acme', isSuperuser: false };
  const mallory = { username: 'mallory', dataspace: 'beta', isSuperuser: true };
  it.each([
    [root, { username: 'alice', dataspace: 'acme' }, true, "a superuser: a user's of their dataspace"],
    [root, { username: 'root', dataspace: 'acme' }, true, 'a superuser: their own'],
    [alice, { username: 'alice', dataspace: 'acme' }, true, 'a user: their own'],
    [alice, { username: 'root', dataspace: 'acme' }, false, "a user: another's, even a superuser's"],
    [mallory, { username: 'alice', dataspace: 'acme' }, false, "a superuser: not another dataspace's"],
    [alice, { username: 'alice', dataspace: 'beta' }, false, 'a key of another dataspace, whatever its name'],
  ])('%o on %o: %s (%s)', (caller, owner, allowed) => {
    expect(mayManageKeysOf(caller, owner)).toBe(allowed);
  });
});
