import { beforeEach, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { applyLoadFile, validateLoadFile } from '../../shared/admin/load-file.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { randomUUID } from 'node:crypto';

let env: Awaited<ReturnType<typeof useTestTable>>;

beforeEach(async () => {
  env = await useTestTable();
});

/** Every item of the test table (a Scan is fine in a test; no request path scans). */
async function allItems() {
  const result = await env.doc.send(new ScanCommand({ TableName: env.tableName, ConsistentRead: true }));
  return (result.Items ?? []).sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

const aliceKey = generateApiKey();
const sample = (): { dataspaces: { name: string }[]; groups: { name: string; dataspace: string }[]; users: Record<string, unknown>[] } => ({
  dataspaces: [{ name: 'acme' }],
  groups: [{ name: 'legal', dataspace: 'acme' }],
  users: [
    { username: 'alice', email: 'alice@example.com', dataspace: 'acme', is_superuser: false, groups: ['legal'], api_key: aliceKey },
    { username: 'root', email: 'root@example.com', dataspace: 'acme', is_superuser: true },
  ],
});

async function loadOk(file: unknown) {
  const validation = await validateLoadFile(file, env);
  if (!validation.ok) throw new Error(validation.problems.join('\n'));
  return applyLoadFile(validation.file, env, { now: new Date(), generateKey: generateApiKey, newUuid: randomUUID });
}

describe('admin load', () => {
  it('creates dataspaces, groups, users with memberships and keys', async () => {
    const report = await loadOk(sample());
    expect(report.created).toEqual({ dataspaces: 1, groups: 1, users: 2, request_templates: 0, priorities: 0 });
    expect(report.generatedKeys.map((k) => k.username)).toEqual(['root']);
    expect(await env.identity.listMembers('acme', 'legal')).toEqual(['alice']);
    expect((await env.identity.listUsers('acme')).map((u) => [u.username, u.isSuperuser])).toEqual([
      ['alice', false],
      ['root', true],
    ]);
    const alice = await env.identity.authenticate(aliceKey);
    expect(alice).toMatchObject({ outcome: 'authenticated', user: { username: 'alice', groups: ['legal'] } });
    const root = await env.identity.authenticate(report.generatedKeys[0]!.apiKey);
    expect(root).toMatchObject({ outcome: 'authenticated', user: { username: 'root', isSuperuser: true } });
  });

  it('changes nothing when run twice', async () => {
    await loadOk(sample());
    const before = await allItems();
    const report = await loadOk(sample());
    expect(report).toEqual({
      created: { dataspaces: 0, groups: 0, users: 0, request_templates: 0, priorities: 0 },
      updatedUsers: 0,
      updatedTemplates: 0,
      generatedKeys: [],
    });
    expect(await allItems()).toEqual(before);
  });

  it('updates a user in place and brings memberships in line', async () => {
    await loadOk(sample());
    const file = sample();
    file.users[0] = { ...file.users[0]!, groups: [], email: 'alice@new.example.com' };
    const report = await loadOk(file);
    expect(report.updatedUsers).toBe(1);
    expect(await env.identity.listMembers('acme', 'legal')).toEqual([]);
    expect(await env.identity.getUser('alice')).toMatchObject({ email: 'alice@new.example.com', groups: [] });
  });

  it.each([
    ['an unknown top-level key', { dataspace: [] }, ['$: Unrecognized key: "dataspace"']],
    ['a bad email', { users: [{ username: 'bob', email: 'nope', dataspace: 'acme' }] }, ['$.users[0].email: Invalid email address']],
    ['a missing field', { groups: [{ name: 'legal' }] }, ['$.groups[0].dataspace: Invalid input: expected string, received undefined']],
    ['a name with #', { dataspaces: [{ name: 'a#b' }] }, [expect.stringMatching(/^\$\.dataspaces\[0\]\.name: must be/)]],
    ['a short api_key', { dataspaces: [{ name: 'acme' }], users: [{ username: 'bob', email: 'b@example.com', dataspace: 'acme', api_key: 'abc' }] }, [expect.stringMatching(/^\$\.users\[0\]\.api_key: must be at least 43/)]],
    ['an unknown dataspace', { users: [{ username: 'bob', email: 'b@example.com', dataspace: 'nowhere' }] }, ['$.users[0].dataspace: dataspace "nowhere" does not exist']],
    ['an unknown group', { dataspaces: [{ name: 'acme' }], users: [{ username: 'bob', email: 'b@example.com', dataspace: 'acme', groups: ['ghosts'] }] }, ['$.users[0].groups[0]: group "ghosts" does not exist in dataspace "acme"']],
    ['a group of another dataspace', { dataspaces: [{ name: 'acme' }, { name: 'beta' }], groups: [{ name: 'legal', dataspace: 'beta' }], users: [{ username: 'bob', email: 'b@example.com', dataspace: 'acme', groups: ['legal'] }] }, ['$.users[0].groups[0]: group "legal" does not exist in dataspace "acme"']],
    ['a duplicate user', { dataspaces: [{ name: 'acme' }], users: [{ username: 'bob', email: 'b@example.com', dataspace: 'acme' }, { username: 'bob', email: 'c@example.com', dataspace: 'acme' }] }, ['$.users[1].username: "bob" is listed twice']],
  ])('refuses %s, naming its JSON path, and writes nothing', async (_, file, problems) => {
    const validation = await validateLoadFile(file, env);
    expect(validation.ok).toBe(false);
    expect(validation.ok ? [] : validation.problems).toEqual(problems);
    expect(await allItems()).toEqual([]);
  });

  it('reports every problem of a file at once', async () => {
    const validation = await validateLoadFile(
      { users: [{ username: 'x y', email: 'bad', dataspace: 'acme' }], groups: [{ name: 'g', dataspace: 'none' }] },
      env,
    );
    expect(validation.ok ? [] : validation.problems).toHaveLength(2);
  });

  it('refuses to move a user to another dataspace, and a key another user holds', async () => {
    await loadOk(sample());
    const validation = await validateLoadFile(
      {
        dataspaces: [{ name: 'beta' }],
        users: [
          { username: 'alice', email: 'alice@example.com', dataspace: 'beta' },
          { username: 'bob', email: 'bob@example.com', dataspace: 'beta', api_key: aliceKey },
        ],
      },
      env,
    );
    expect(validation.ok ? [] : validation.problems).toEqual([
      '$.users[0].dataspace: user "alice" already belongs to dataspace "acme"',
      '$.users[1].api_key: this key cannot be used (its first 12 characters are taken); choose another',
    ]);
  });
});
