/**
 * The pure parts behind the console's frame pages: which users a user list shows, the choices of the
 * request selects, a purl as people read it, and the Audit page's copy of the API's filter values.
 */
import { describe, expect, it } from 'vitest';
import { listedUsers, type User } from '../../shared/domain/identity.ts';
import { AUDIT_ACTIONS as API_ACTIONS, AUDITED_OBJECT_TYPES as API_OBJECT_TYPES } from '../../shared/domain/audit.ts';
import { AUDIT_ACTIONS, AUDITED_OBJECT_TYPES, dayBound } from '../../web/src/lib/audit-filters.ts';
import { choiceOptions } from '../../web/src/lib/request-choices.ts';

const aUser = (username: string, overrides: Partial<User> = {}): User => ({
  username,
  email: `${username}@example.com`,
  dataspace: 'acme',
  isSuperuser: false,
  isActive: true,
  groups: [],
  ...overrides,
});

describe('listedUsers', () => {
  const users = [aUser('carol'), aUser('alice', { email: 'Alice@Legal.example' }), aUser('gone', { isActive: false }), aUser('bob')];

  it.each([
    ['no filter: the active ones, by username', {}, ['alice', 'bob', 'carol']],
    ['an exact username', { username: 'bob' }, ['bob']],
    ['an inactive username: none', { username: 'gone' }, []],
    ['a match function (the search)', { matches: (user: User) => user.email.toLowerCase().includes('legal') }, ['alice']],
  ] as const)('%s', (_, filter, expected) => {
    expect(listedUsers(users, filter).map((user) => user.username)).toEqual(expected);
  });
});

describe('the request selects', () => {
  it('offer the known values, and a current value no longer among them', () => {
    expect(choiceOptions(['Low', 'Urgent'], 'Urgent')).toEqual(['Low', 'Urgent']);
    expect(choiceOptions(['alice'], 'departed')).toEqual(['alice', 'departed']);
    expect(choiceOptions(['alice'], null)).toEqual(['alice']);
    expect(choiceOptions(['alice'], '')).toEqual(['alice']);
  });
});

describe('the Audit page filters', () => {
  it("hold the API's object types and actions", () => {
    expect([...AUDITED_OBJECT_TYPES].sort()).toEqual([...API_OBJECT_TYPES].sort());
    expect([...AUDIT_ACTIONS]).toEqual([...API_ACTIONS]);
  });

  it('turn a day into the bounds of that day in UTC', () => {
    expect(dayBound('2026-11-28', false)).toBe('2026-11-28T00:00:00.000Z');
    expect(dayBound('2026-11-28', true)).toBe('2026-11-28T23:59:59.999Z');
    expect(dayBound(undefined, true)).toBeUndefined();
    expect(dayBound('yesterday', false)).toBe('yesterday');
  });
});
