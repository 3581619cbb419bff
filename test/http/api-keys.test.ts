/**
 * Named API keys through the real handlers: create (the secret shown once), list (own, or the
 * dataspace's for a superuser; another dataspace's never), retrieve, revoke (401 from the very next
 * request), expiry (401), the read scope (GET yes, writes 403), last_used_at, the admin CLI's key
 * replacing every other, and the validation and limits (400, nothing stored).
 */
import { describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { generateApiKey, parseApiKey } from '../../shared/auth/api-key.ts';
import { keys } from '../../shared/keys.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { READ_SCOPE_REFUSAL } from '../../shared/domain/api-keys.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, bob: {}, carol: {}, dave: {} } },
  beta: { users: { mallory: { superuser: true }, trent: {} } },
});
const { snapshot } = http;

/** A call with a given key (rather than a team member's). */
const withKey = (token: string, method: string, path: string, body?: unknown) => http.api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
const as = (username: string, method: string, path: string, body?: unknown) => http.call(username, method, path, body);

let counter = 0;
const unique = (prefix = 'key') => `${prefix} ${++counter}`;

/** Creates a key as `username` and answers its body (with `secret`). */
async function aKey(username: string, body: Record<string, unknown> = {}) {
  const created = await as(username, 'POST', '/api/v2/api_keys/', { name: unique(), scope: 'write', ...body });
  expect(created.status, created.text).toBe(201);
  return created.json as { uuid: string; name: string; scope: string; user: string; secret: string; api_url: string; expires_at: string | null; last_used_at: string | null; created_date: string };
}

/** Every result of a list, page after page. */
async function listAll(username: string, query = '') {
  const names: { user: string; name: string }[] = [];
  let url: string | null = `/api/v2/api_keys/?page_size=100${query}`;
  while (url) {
    const page = await as(username, 'GET', url);
    expect(page.status, page.text).toBe(200);
    names.push(...page.json.results.map((key: { user: string; name: string }) => ({ user: key.user, name: key.name })));
    url = page.json.next ? new URL(page.json.next).pathname + new URL(page.json.next).search : null;
  }
  return names;
}

const keyItem = async (secret: string) =>
  (await http.env.doc.send(new GetCommand({ TableName: http.env.tableName, Key: keys.apiKey(parseApiKey(secret)!.keyId), ConsistentRead: true }))).Item!;

const setAttribute = (secret: string, name: string, value: string) =>
  http.env.doc.send(
    new UpdateCommand({
      TableName: http.env.tableName,
      Key: keys.apiKey(parseApiKey(secret)!.keyId),
      UpdateExpression: 'SET #a = :v',
      ExpressionAttributeNames: { '#a': name },
      ExpressionAttributeValues: { ':v': value },
    }),
  );

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe('POST /api/v2/api_keys/', () => {
  it('answers 201 with the key and, this once, its secret, which then authenticates; GET never shows the secret', async () => {
    const created = await as('alice', 'POST', '/api/v2/api_keys/', { name: 'CI deploy', scope: 'write' });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_url: `${http.api.url}/api/v2/api_keys/${created.json.uuid}/`,
      name: 'CI deploy',
      scope: 'write',
      user: 'alice',
      expires_at: null,
      created_date: expect.stringMatching(ISO),
      last_used_at: null,
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(created.headers.get('etag')).toBe('"1"');

    const root = await withKey(created.json.secret, 'GET', '/api/v2/');
    expect(root.status, root.text).toBe(200);

    const one = await as('alice', 'GET', `/api/v2/api_keys/${created.json.uuid}/`);
    expect(one.status, one.text).toBe(200);
    expect(one.json).not.toHaveProperty('secret');
    expect(one.json).toMatchObject({ uuid: created.json.uuid, name: 'CI deploy', scope: 'write', user: 'alice' });
    const list = await as('alice', 'GET', '/api/v2/api_keys/');
    expect(list.text).not.toContain(created.json.secret);
    expect(list.json.results.every((key: object) => !('secret' in key))).toBe(true);
    // Stored as a hash only.
    expect(JSON.stringify(await keyItem(created.json.secret))).not.toContain(created.json.secret);
  });

  it('takes an expiry in the future, with any offset, and answers it in UTC', async () => {
    const at = new Date(Date.now() + 86_400_000);
    const local = `${new Date(at.getTime() + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
    const created = await aKey('bob', { expires_at: local, scope: 'read' });
    expect(created.expires_at).toBe(`${at.toISOString().slice(0, 19)}.000+00:00`);
    expect(created.scope).toBe('read');
  });

  it('lets a superuser make a key for a user of their dataspace, which acts as that user', async () => {
    const created = await aKey('root', { user: 'carol', name: 'made by root' });
    expect(created.user).toBe('carol');
    const product = await withKey(created.secret, 'POST', '/api/v2/products/', { name: unique('Carol product') });
    expect(product.status, product.text).toBe(201);
    expect(product.json.created_by).toBe('carol');
    expect((await listAll('carol')).map((key) => key.name)).toContain('made by root');
  });

  it('refuses a user who is not a superuser naming another user: 403, nothing stored', async () => {
    const before = await snapshot();
    const refused = await as('alice', 'POST', '/api/v2/api_keys/', { name: unique(), scope: 'write', user: 'bob' });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json).toEqual({ detail: 'Only a superuser may create an API key for another user.' });
    expect(await snapshot()).toBe(before);
  });

  it.each([
    ['a user of another dataspace', 'trent'],
    ['an unknown user', 'nobody'],
  ])('refuses a superuser naming %s: 400 {"user": ...}, nothing stored', async (_, user) => {
    const before = await snapshot();
    const refused = await as('root', 'POST', '/api/v2/api_keys/', { name: unique(), scope: 'write', user });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toEqual({ user: [`User "${user}" does not exist in this dataspace.`] });
    expect(await snapshot()).toBe(before);
  });

  it('refuses a name the user already has: 400 {"name": [...]}; another user may take it', async () => {
    await aKey('alice', { name: 'shared name' });
    await aKey('alice', { name: 'Caf\u00e9' });
    const before = await snapshot();
    const again = await as('alice', 'POST', '/api/v2/api_keys/', { name: 'shared name', scope: 'read' });
    expect(again.status, again.text).toBe(400);
    expect(again.json).toEqual({ name: ['You already have an API key with this name.'] });
    // Names are trimmed, and compared in NFC: the same name in another Unicode form is the same name.
    const padded = await as('alice', 'POST', '/api/v2/api_keys/', { name: ' shared name ', scope: 'read' });
    expect(padded.status, padded.text).toBe(400);
    const decomposed = await as('alice', 'POST', '/api/v2/api_keys/', { name: 'Cafe\u0301', scope: 'read' });
    expect(decomposed.json).toEqual({ name: ['You already have an API key with this name.'] });
    const forUser = await as('root', 'POST', '/api/v2/api_keys/', { name: 'shared name', scope: 'read', user: 'alice' });
    expect(forUser.json).toEqual({ name: ['User "alice" already has an API key with this name.'] });
    expect(await snapshot()).toBe(before);
    expect((await aKey('bob', { name: 'shared name' })).user).toBe('bob');
  });

  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  it.each([
    ['no name', { scope: 'write' }, { name: ['This field is required.'] }],
    ['a blank name', { name: '', scope: 'write' }, { name: ['This field may not be blank.'] }],
    ['a name of spaces', { name: '   ', scope: 'write' }, { name: ['This field may not be blank.'] }],
    ['a name of 101 characters', { name: 'x'.repeat(101), scope: 'write' }, { name: ['Ensure this field has no more than 100 characters.'] }],
    ['a name with a control character', { name: 'a\u0001b', scope: 'write' }, { name: ['Control characters are not allowed.'] }],
    ['a name with a zero-width space', { name: 'a\u200bb', scope: 'write' }, { name: [expect.stringContaining('U+200B')] }],
    ['a name that is a number', { name: 7, scope: 'write' }, { name: ['Not a valid string.'] }],
    ['a name that is a list', { name: ['a'], scope: 'write' }, { name: ['Not a valid string.'] }],
    ['no scope', { name: 'n' }, { scope: ['This field is required.'] }],
    ['an unknown scope', { name: 'n', scope: 'admin' }, { scope: ['"admin" is not a valid choice.'] }],
    ['a scope that is an object', { name: 'n', scope: { read: true } }, { scope: [expect.stringContaining('is not a valid choice')] }],
    ['an expiry without an offset', { name: 'n', scope: 'read', expires_at: inAnHour().slice(0, 19) }, { expires_at: ['Enter a valid ISO 8601 date/time with a time zone.'] }],
    ['an expiry that is a date', { name: 'n', scope: 'read', expires_at: '2099-01-01' }, { expires_at: ['Enter a valid ISO 8601 date/time with a time zone.'] }],
    ['an expiry that is a number', { name: 'n', scope: 'read', expires_at: 4_102_444_800 }, { expires_at: [expect.any(String)] }],
    ['an expiry in the past', { name: 'n', scope: 'read', expires_at: '2020-01-01T00:00:00Z' }, { expires_at: ['Ensure this date/time is in the future.'] }],
    ['a user that is not a string', { name: 'n', scope: 'read', user: { username: 'bob' } }, { user: ['Not a valid string.'] }],
    ['an unknown field', { name: 'n', scope: 'read', admin: true }, { admin: ['Unknown field.'] }],
  ])('refuses %s: 400 with the field error, nothing stored', async (_, body, errors) => {
    const before = await snapshot();
    const refused = await as('dave', 'POST', '/api/v2/api_keys/', body);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it.each([
    ['a list', [{ name: 'n', scope: 'read' }]],
    ['a string', '"n"'],
    ['null', 'null'],
    ['nested objects', { name: { name: { name: 'n' } }, scope: 'read' }],
    ['a huge name', { name: 'n'.repeat(200_000), scope: 'read' }],
    ['many fields', Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`f${i}`, i]))],
  ])('answers 400, never 500, to a body that is %s, and stores nothing', async (_, body) => {
    const before = await snapshot();
    const refused = await as('dave', 'POST', '/api/v2/api_keys/', body);
    expect(refused.status, refused.text).toBe(400);
    expect(await snapshot()).toBe(before);
  });

  it('ignores the read-only fields of a key sent back', async () => {
    const got = await aKey('dave');
    const { secret: _secret, ...shown } = got;
    const again = await as('dave', 'POST', '/api/v2/api_keys/', { ...shown, name: unique(), secret: 'mine', last_used_at: null });
    expect(again.status, again.text).toBe(201);
    expect(again.json.uuid).not.toBe(got.uuid);
    expect(again.json.secret).not.toBe('mine');
  });
});

describe('GET /api/v2/api_keys/', () => {
  it('lists a user their own keys only, by name, with last_used_at and without secrets', async () => {
    const b = await aKey('bob', { name: 'bob b' });
    await aKey('bob', { name: 'bob a' });
    await aKey('alice', { name: 'alice only' });
    const list = await as('bob', 'GET', '/api/v2/api_keys/?page_size=100');
    expect(list.status, list.text).toBe(200);
    const names = list.json.results.map((key: { name: string }) => key.name);
    expect(names).toContain('default');
    expect(names.indexOf('bob a')).toBeLessThan(names.indexOf('bob b'));
    expect(names).not.toContain('alice only');
    expect(list.json.results.every((key: { user: string }) => key.user === 'bob')).toBe(true);
    expect(list.json.count).toBe(list.json.results.length);
    expect(list.json.results.find((key: { uuid: string }) => key.uuid === b.uuid)).toEqual({ ...b, secret: undefined, last_used_at: null });
    // Another user's keys are not bob's to list, even by asking.
    expect((await as('bob', 'GET', '/api/v2/api_keys/?user=alice')).json).toMatchObject({ count: 0, results: [] });
  });

  it("lists a superuser every key of the dataspace, each with its user, by user then name; never another dataspace's", async () => {
    await aKey('alice', { name: unique('listed') });
    const mine = await aKey('mallory', { name: 'beta key' });
    const all = await listAll('root');
    const users = new Set(all.map((key) => key.user));
    expect([...users].sort()).toEqual(['alice', 'bob', 'carol', 'dave', 'root']);
    expect(all.map((key) => `${key.user}\u0001${key.name}`)).toEqual(all.map((key) => `${key.user}\u0001${key.name}`).sort());
    expect(all.map((key) => key.name)).not.toContain('beta key');
    expect((await listAll('root', '&user=alice')).every((key) => key.user === 'alice')).toBe(true);
    expect(await listAll('root', '&user=mallory')).toEqual([]);
    // And the other way round: acme's keys are not beta's.
    expect((await listAll('mallory')).map((key) => key.user).sort()).toEqual(['mallory', 'mallory', 'trent']);
    expect((await as('root', 'GET', `/api/v2/api_keys/${mine.uuid}/`)).status).toBe(404);
  });

  it('pages: count, next and previous; a page past the end is 404 "Invalid page."', async () => {
    const first = await as('root', 'GET', '/api/v2/api_keys/?page_size=2');
    expect(first.status, first.text).toBe(200);
    expect(first.json.results).toHaveLength(2);
    expect(first.json.next).toContain('page=2');
    expect(first.json.previous).toBeNull();
    expect((await as('root', 'GET', '/api/v2/api_keys/?page=999')).json).toEqual({ detail: 'Invalid page.' });
  });
});

describe('GET /api/v2/api_keys/{uuid}/', () => {
  it("is 404 for another user's key, another dataspace's key, and a uuid that is none; a superuser of the dataspace sees any", async () => {
    const key = await aKey('alice');
    expect((await as('bob', 'GET', `/api/v2/api_keys/${key.uuid}/`)).json).toEqual({ detail: 'Not found.' });
    expect((await as('mallory', 'GET', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(404);
    expect((await as('alice', 'GET', '/api/v2/api_keys/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
    expect((await as('alice', 'GET', '/api/v2/api_keys/not-a-uuid/')).status).toBe(404);
    const seen = await as('root', 'GET', `/api/v2/api_keys/${key.uuid.toUpperCase()}/`);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.json.user).toBe('alice');
  });
});

describe('DELETE /api/v2/api_keys/{uuid}/', () => {
  it('revokes a key: 204, and the key is 401 on the very next request; the other keys go on', async () => {
    const key = await aKey('alice');
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    const deleted = await as('alice', 'DELETE', `/api/v2/api_keys/${key.uuid}/`);
    expect(deleted.status, deleted.text).toBe(204);
    const refused = await withKey(key.secret, 'GET', '/api/v2/');
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ detail: 'Invalid token.' });
    expect((await as('alice', 'GET', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(404);
    expect((await as('alice', 'DELETE', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(404);
    expect((await as('alice', 'GET', '/api/v2/')).status).toBe(200);
    // Nothing of it is left: its name is free again.
    expect((await aKey('alice', { name: key.name })).name).toBe(key.name);
  });

  it('lets a key revoke itself', async () => {
    const key = await aKey('bob');
    expect((await withKey(key.secret, 'DELETE', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(204);
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(401);
  });

  it("is 404 for another user's key and another dataspace's; a superuser revokes any key of the dataspace", async () => {
    const key = await aKey('carol');
    const before = await snapshot();
    expect((await as('bob', 'DELETE', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(404);
    expect((await as('mallory', 'DELETE', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(404);
    expect(await snapshot()).toBe(before);
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    expect((await as('root', 'DELETE', `/api/v2/api_keys/${key.uuid}/`)).status).toBe(204);
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(401);
  });

  it('honours If-Match: a tag that is not the key\'s is 412 and revokes nothing', async () => {
    const key = await aKey('carol');
    const tag = (await as('carol', 'GET', `/api/v2/api_keys/${key.uuid}/`)).headers.get('etag')!;
    const stale = await http.api.call('DELETE', `/api/v2/api_keys/${key.uuid}/`, { token: http.team.keys.carol, headers: { 'If-Match': '"7"' } });
    expect(stale.status, stale.text).toBe(412);
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    const current = await http.api.call('DELETE', `/api/v2/api_keys/${key.uuid}/`, { token: http.team.keys.carol, headers: { 'If-Match': tag } });
    expect(current.status, current.text).toBe(204);
  });
});

describe('expiry', () => {
  it('a key past its expiry is 401 "Token has expired."', async () => {
    const key = await aKey('alice', { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    await setAttribute(key.secret, 'keyExpiresAt', '2020-01-01T00:00:00.000+00:00');
    const refused = await withKey(key.secret, 'GET', '/api/v2/');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Token');
    expect(refused.json).toEqual({ detail: 'Token has expired.' });
    // Still listed, so that it can be seen and revoked.
    expect((await as('alice', 'GET', `/api/v2/api_keys/${key.uuid}/`)).json.expires_at).toBe('2020-01-01T00:00:00.000+00:00');
  });

  it('a key made to expire in a moment works until then, and is refused from then on', async () => {
    const key = await aKey('alice', { expires_at: new Date(Date.now() + 2_000).toISOString() });
    const until = Date.parse(key.expires_at!);
    const early = await withKey(key.secret, 'GET', '/api/v2/');
    if (Date.now() < until - 200) expect(early.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now()) + 50));
    expect((await withKey(key.secret, 'GET', '/api/v2/')).json).toEqual({ detail: 'Token has expired.' });
  });
});

describe('the read scope', () => {
  it('reads (GET, HEAD), and is refused every write with 403, whatever its user may do, before the body is read', async () => {
    const key = await aKey('root', { scope: 'read' });
    expect((await withKey(key.secret, 'GET', '/api/v2/products/')).status).toBe(200);
    expect((await withKey(key.secret, 'HEAD', '/api/v2/products/')).status).toBe(200);
    expect((await withKey(key.secret, 'GET', '/api/v2/api_keys/')).status).toBe(200);
    const before = await snapshot();
    for (const [method, path, body] of [
      ['POST', '/api/v2/products/', { name: 'Read only' }],
      ['POST', '/api/v2/products/', 'not even JSON'],
      ['POST', '/api/v2/api_keys/', { name: 'escalate', scope: 'write' }],
      ['DELETE', `/api/v2/api_keys/${key.uuid}/`, undefined],
      ['PUT', '/api/v2/policy_rules/', {}],
    ] as const) {
      const refused = await withKey(key.secret, method, path, body);
      expect(refused.status, `${method} ${path}: ${refused.text}`).toBe(403);
      expect(refused.json).toEqual({ detail: READ_SCOPE_REFUSAL });
    }
    expect(await snapshot()).toBe(before);
    // The key still works for reads.
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
  });
});

describe('last_used_at', () => {
  it('is null until the key is used, then the time of its use, written at most once a minute', async () => {
    const key = await aKey('bob');
    expect(key.last_used_at).toBeNull();
    const started = Date.now();
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    const first = (await as('bob', 'GET', `/api/v2/api_keys/${key.uuid}/`)).json.last_used_at as string;
    expect(first).toMatch(ISO);
    expect(Date.parse(first)).toBeGreaterThanOrEqual(started - 1_000);
    expect(Date.parse(first)).toBeLessThanOrEqual(Date.now());
    // Used again within the minute: the recorded use stays.
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    expect((await keyItem(key.secret)).lastUsedAt).toBe(first);
    // A use recorded over a minute ago is brought up to date by the next one.
    await setAttribute(key.secret, 'lastUsedAt', '2020-01-01T00:00:00.000+00:00');
    expect((await withKey(key.secret, 'GET', '/api/v2/')).status).toBe(200);
    const later = (await keyItem(key.secret)).lastUsedAt as string;
    expect(Date.parse(later)).toBeGreaterThanOrEqual(Date.parse(first));
    // Each key its own: the listing key's use is not bob's new key's.
    const list = await as('bob', 'GET', '/api/v2/api_keys/?page_size=100');
    expect(list.json.results.find((k: { uuid: string }) => k.uuid === key.uuid).last_used_at).toBe(later);
  });

  it('a failure to write it never fails the request', async () => {
    const secret = (await aKey('bob')).secret;
    // The same store, on a client whose updates all fail.
    const real = http.env.doc;
    const failing = {
      send: (command: object, options?: object) =>
        command instanceof UpdateCommand
          ? Promise.reject(Object.assign(new Error('boom'), { name: 'InternalServerError' }))
          : real.send(command as Parameters<typeof real.send>[0], options as never),
    } as unknown as DynamoDBDocumentClient;
    const result = await new IdentityStore(failing, http.env.tableName).authenticate(secret, new Date());
    expect(result).toMatchObject({ outcome: 'authenticated', user: { username: 'bob' }, key: { scope: 'write' } });
    expect((await keyItem(secret)).lastUsedAt).toBeUndefined();
  });
});

describe('at most 20 keys a user', () => {
  it('refuses the 21st with 400 non_field_errors, storing nothing; a revoked key makes room', async () => {
    // dave holds his default key and those the validation tests made: fill up to 20.
    const held = (await listAll('dave')).length;
    const made = [];
    for (let i = held; i < 20; i++) made.push(await aKey('dave'));
    expect(await listAll('dave')).toHaveLength(20);
    const before = await snapshot();
    const refused = await as('dave', 'POST', '/api/v2/api_keys/', { name: unique(), scope: 'read' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toEqual({ non_field_errors: ['A user may hold at most 20 API keys: revoke one first.'] });
    expect((await as('root', 'POST', '/api/v2/api_keys/', { name: unique(), scope: 'read', user: 'dave' })).status).toBe(400);
    expect(await snapshot()).toBe(before);
    expect((await as('dave', 'DELETE', `/api/v2/api_keys/${made[0]!.uuid}/`)).status).toBe(204);
    await aKey('dave');
  });
});

describe("the admin CLI's key (replaceApiKey)", () => {
  it("replaces every key of the user with one write key named default; other users' keys go on", async () => {
    const named = await aKey('carol', { name: unique('before the reset') });
    const readKey = await aKey('carol', { scope: 'read' });
    const other = await aKey('alice');
    const fresh = generateApiKey();
    await http.env.identity.replaceApiKey('carol', fresh, new Date());
    for (const old of [named.secret, readKey.secret, http.team.keys.carol!]) expect((await withKey(old, 'GET', '/api/v2/')).status).toBe(401);
    expect((await withKey(other.secret, 'GET', '/api/v2/')).status).toBe(200);
    const list = await withKey(fresh, 'GET', '/api/v2/api_keys/');
    expect(list.json.results).toEqual([expect.objectContaining({ name: 'default', scope: 'write', user: 'carol' })]);
    expect(await http.env.identity.apiKeyCount('carol')).toBe(1);
    // Loading the same key again changes nothing, and keeps the keys made since.
    const since = await withKey(fresh, 'POST', '/api/v2/api_keys/', { name: 'made since', scope: 'read' });
    expect(since.status, since.text).toBe(201);
    await http.env.identity.replaceApiKey('carol', fresh, new Date());
    expect((await withKey(since.json.secret, 'GET', '/api/v2/')).status).toBe(200);
    expect(await http.env.identity.apiKeyCount('carol')).toBe(2);
  });
});

describe('the list filter', () => {
  it('refuses a user filter over 150 characters with 400, and finds no one by an odd one', async () => {
    const long = await as('root', 'GET', `/api/v2/api_keys/?user=${'u'.repeat(151)}`);
    expect(long.status, long.text).toBe(400);
    expect(long.json).toEqual({ user: ['Ensure this field has no more than 150 characters.'] });
    const odd = await as('root', 'GET', `/api/v2/api_keys/?user=${encodeURIComponent('alice\u0001')}`);
    expect(odd.status, odd.text).toBe(200);
    expect(odd.json.count).toBe(0);
  });
});
