/**
 * API keys used to be one per user, with no name, scope or uuid: a key item (APIKEY#<keyId>) its user
 * item pointed at (`apiKeyId`). Such keys keep working as write keys that never expire, and migrateData
 * (npm start, the admin CLI's `migrate`, the stack's deployment trigger) names them: `default` (or
 * `default-2` when the user made a key of that name meanwhile), scope write, a uuid, the reference and
 * name items, the user's count. Then the API lists and revokes them like any other. Running it again
 * changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { startTestGateway } from '../support/gateway.ts';
import { tableSnapshot } from '../support/snapshot.ts';
import { generateApiKey, parseApiKey } from '../../shared/auth/api-key.ts';
import { keys } from '../../shared/keys.ts';
import { migrateData } from '../../shared/store/migrations.ts';
import { ApiKeyStore } from '../../shared/store/api-key-store.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let api: Awaited<ReturnType<typeof startTestGateway>>;

const get = async (key: { PK: string; SK: string }) => (await env.doc.send(new GetCommand({ TableName: env.tableName, Key: key, ConsistentRead: true }))).Item;

/** A user as the earlier version wrote them, with a key of its layout (what its replaceApiKey wrote). */
async function legacyUser(username: string, dataspace: string, keyCreated: string | undefined, superuser = false): Promise<string> {
  await env.identity.saveUser({ username, email: `${username}@example.com`, dataspace, isSuperuser: superuser, isActive: true, groups: [] }, undefined, new Date('2025-01-02T03:04:05.000Z'));
  const apiKey = generateApiKey();
  const { keyId, hash } = parseApiKey(apiKey)!;
  await env.doc.send(
    new PutCommand({
      TableName: env.tableName,
      Item: { ...keys.apiKey(keyId), entity: 'ApiKey', keyId, keyHash: hash, username, ...(keyCreated === undefined ? {} : { createdDate: keyCreated }) },
    }),
  );
  await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key: keys.user(username), UpdateExpression: 'SET apiKeyId = :id', ExpressionAttributeValues: { ':id': keyId } }));
  return apiKey;
}

const call = (token: string, method: string, path: string, body?: unknown) => api.call(method, path, { token, ...(body !== undefined ? { body } : {}) });

let oldKey: string;
let bothKey: string;
let datelessKey: string;

beforeAll(async () => {
  env = await useTestTable();
  api = await startTestGateway();
  await env.identity.createDataspace('acme', new Date());
  await env.identity.createDataspace('beta', new Date());
  oldKey = await legacyUser('old', 'acme', '2025-06-07T08:09:10.111Z', true);
  datelessKey = await legacyUser('dateless', 'beta', undefined);
  // A user whose legacy key met a key named "default" made through the new API before the migration ran.
  bothKey = await legacyUser('both', 'acme', '2025-06-07T08:09:10.111Z');
  const named = generateApiKey();
  const parsed = parseApiKey(named)!;
  await new ApiKeyStore(env.doc, env.tableName).create({
    keyId: parsed.keyId,
    keyHash: parsed.hash,
    uuid: randomUUID(),
    username: 'both',
    dataspace: 'acme',
    name: 'default',
    scope: 'read',
    createdDate: isoWithOffset(new Date()),
  });
  // A user whose pointer names a key that is gone.
  await env.identity.saveUser({ username: 'ghost', email: 'ghost@example.com', dataspace: 'acme', isSuperuser: false, isActive: true, groups: [] }, undefined, new Date());
  await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key: keys.user('ghost'), UpdateExpression: 'SET apiKeyId = :id', ExpressionAttributeValues: { ':id': 'nothing-here' } }));
});

afterAll(async () => {
  await api?.stop();
});

describe('keys written before keys were named', () => {
  it('authenticate as write keys that never expire, before the migration', async () => {
    const result = await env.identity.authenticate(oldKey, new Date('2100-01-01T00:00:00Z'));
    expect(result).toEqual({ outcome: 'authenticated', user: expect.objectContaining({ username: 'old' }), key: { scope: 'write' } });
    const created = await call(oldKey, 'POST', '/api/v2/products/', { name: 'Made by an old key' });
    expect(created.status, created.text).toBe(201);
    expect(await env.identity.apiKeyCount('old')).toBe(1);
  });

  it('are named by the migration: default, write, a uuid, their reference and name items, the count; the pointer goes', async () => {
    const report = await migrateData(env.doc, env.tableName, { now: new Date('2026-01-01T00:00:00.000Z') });
    expect(report.apiKeysNamed).toBe(3);

    const { keyId } = parseApiKey(oldKey)!;
    const item = (await get(keys.apiKey(keyId)))!;
    expect(item).toMatchObject({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'default',
      scope: 'write',
      dataspace: 'acme',
      username: 'old',
      createdDate: '2025-06-07T08:09:10.111+00:00',
      ...keys.apiKeyInDataspace('acme', 'old', 'default'),
    });
    expect(item).not.toHaveProperty('keyExpiresAt');
    expect(await get(keys.apiKeyRef(String(item.uuid)))).toMatchObject({ keyId, username: 'old', dataspace: 'acme' });
    expect(await get(keys.apiKeyName('old', 'default'))).toMatchObject({ keyId, uuid: item.uuid });
    const user = (await get(keys.user('old')))!;
    expect(user.apiKeyCount).toBe(1);
    expect(user).not.toHaveProperty('apiKeyId');

    // A key without a date of its own is dated when its user was made.
    const dateless = (await get(keys.apiKey(parseApiKey(datelessKey)!.keyId)))!;
    expect(dateless).toMatchObject({ name: 'default', dataspace: 'beta', createdDate: '2025-01-02T03:04:05.000+00:00' });

    // The name taken meanwhile: the old key is default-2, and the user holds both.
    const both = (await get(keys.apiKey(parseApiKey(bothKey)!.keyId)))!;
    expect(both.name).toBe('default-2');
    expect((await get(keys.user('both')))!.apiKeyCount).toBe(2);

    // A pointer to nothing is dropped, and counts nothing.
    const ghost = (await get(keys.user('ghost')))!;
    expect(ghost).not.toHaveProperty('apiKeyId');
    expect(ghost).not.toHaveProperty('apiKeyCount');
  });

  it('changes nothing when run again', async () => {
    const before = await tableSnapshot(env);
    const again = await migrateData(env.doc, env.tableName);
    expect(again).toEqual({ requestCountersFolded: 0, catalogLookupsWritten: 0, apiKeysNamed: 0, productGatesIndexed: 0, advisoryKeysWritten: 0, packagesReresolved: 0 });
    expect(await tableSnapshot(env)).toBe(before);
  });

  it('are then listed, read and revoked through the API like any other key', async () => {
    expect((await call(oldKey, 'GET', '/api/v2/')).status).toBe(200);
    const list = await call(oldKey, 'GET', '/api/v2/api_keys/');
    expect(list.status, list.text).toBe(200);
    const names = list.json.results.map((key: { user: string; name: string; scope: string }) => `${key.user}/${key.name}/${key.scope}`);
    expect(names).toEqual(['both/default/read', 'both/default-2/write', 'old/default/write']);
    const own = list.json.results.find((key: { user: string }) => key.user === 'old');
    expect(own).toMatchObject({ created_date: '2025-06-07T08:09:10.111+00:00', expires_at: null });
    expect(own.last_used_at).not.toBeNull();
    const revoked = await call(oldKey, 'DELETE', `/api/v2/api_keys/${own.uuid}/`);
    expect(revoked.status, revoked.text).toBe(204);
    expect((await call(oldKey, 'GET', '/api/v2/')).json).toEqual({ detail: 'Invalid token.' });
    expect(await env.identity.apiKeyCount('old')).toBe(0);
    // The other keys go on.
    expect((await call(bothKey, 'GET', '/api/v2/')).status).toBe(200);
  });
});
