import { beforeEach, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { tableItems } from '../support/snapshot.ts';
import { applyLoadFile, validateLoadFile } from '../../shared/admin/load-file.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { randomUUID } from 'node:crypto';
import { aPackage } from '../support/factories.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;

beforeEach(async () => {
  env = await useTestTable();
});

const allItems = () => tableItems(env);

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
    expect(report.created).toEqual({ dataspaces: 1, groups: 1, users: 2, request_templates: 0, priorities: 0, usage_policies: 0, licenses: 0, vulnerabilities: 0 });
    expect(report.generatedKeys.map((k) => k.username)).toEqual(['root']);
    expect(await env.identity.listMembers('acme', 'legal')).toEqual(['alice']);
    expect((await env.identity.listUsers('acme')).map((u) => [u.username, u.isSuperuser])).toEqual([
      ['alice', false],
      ['root', true],
    ]);
    const alice = await env.identity.authenticate(aliceKey, new Date());
    expect(alice).toMatchObject({ outcome: 'authenticated', user: { username: 'alice', groups: ['legal'] } });
    const root = await env.identity.authenticate(report.generatedKeys[0]!.apiKey, new Date());
    expect(root).toMatchObject({ outcome: 'authenticated', user: { username: 'root', isSuperuser: true } });
  });

  it('changes nothing when run twice', async () => {
    await loadOk(sample());
    const before = await allItems();
    const report = await loadOk(sample());
    expect(report).toEqual({
      created: { dataspaces: 0, groups: 0, users: 0, request_templates: 0, priorities: 0, usage_policies: 0, licenses: 0, vulnerabilities: 0 },
      updatedUsers: 0,
      updatedTemplates: 0,
      updatedCatalog: 0,
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

describe('admin load of names', () => {
  it('stores dataspace, group, template, priority and policy names in NFC: a decomposed spelling is the same name', async () => {
    const nfd = 'Caf\u0065\u0301';
    const nfc = 'Caf\u00e9';
    await loadOk({
      dataspaces: [{ name: nfd }],
      groups: [{ name: `${nfd} team`, dataspace: nfd }],
      users: [{ username: 'cafe', email: 'cafe@example.com', dataspace: nfc, groups: [`${nfc} team`] }],
      request_templates: [{ name: `${nfd} form`, dataspace: nfc, content_type: 'product' }],
      priorities: [{ label: `${nfd} urgent`, dataspace: nfd }],
      usage_policies: [{ label: `${nfd} ok`, dataspace: nfd, content_type: 'license' }],
    });
    expect((await env.identity.getDataspace(nfc))?.name).toBe(nfc);
    expect(await env.identity.getDataspace(nfd)).toBeUndefined();
    expect(await env.identity.listMembers(nfc, `${nfc} team`)).toEqual(['cafe']);
    expect((await env.requests.getTemplateByName(nfc, `${nfc} form`))?.name).toBe(`${nfc} form`);
    expect([...(await env.catalog.usagePolicies.getByUnique(nfc, [`${nfc} ok`])).keys()]).toEqual([`${nfc} ok`]);
    const twice = await validateLoadFile({ dataspaces: [{ name: nfc }], groups: [{ name: `${nfc} team`, dataspace: nfc }, { name: `${nfd} team`, dataspace: nfd }] }, env);
    expect(twice.ok ? [] : twice.problems).toEqual([`$.groups[1]: group "${nfc} team" of "${nfc}" is listed twice`]);
  });

  it('refuses zero-width characters and bidirectional controls in every name, naming each', async () => {
    const validation = await validateLoadFile(
      {
        dataspaces: [{ name: 'ac\u200bme' }],
        groups: [{ name: 'le\u202egal', dataspace: 'acme' }],
        users: [{ username: 'alice', email: 'alice@example.com', dataspace: 'acme', groups: ['\u2066eng'] }],
        request_templates: [{ name: 'fo\ufeffrm', dataspace: 'acme', content_type: 'product' }],
        priorities: [{ label: 'ur\u2060gent', dataspace: 'acme' }],
        usage_policies: [{ label: 'o\u200fk', dataspace: 'acme', content_type: 'license' }],
      },
      env,
    );
    expect(validation.ok ? [] : validation.problems).toEqual([
      '$.dataspaces[0].name: must not hold invisible characters (U+200B): zero-width characters and bidirectional controls are not allowed',
      '$.groups[0].name: must not hold invisible characters (U+202E): zero-width characters and bidirectional controls are not allowed',
      '$.users[0].groups[0]: must not hold invisible characters (U+2066): zero-width characters and bidirectional controls are not allowed',
      '$.request_templates[0].name: must not hold invisible characters (U+FEFF): zero-width characters and bidirectional controls are not allowed',
      '$.priorities[0].label: must not hold invisible characters (U+2060): zero-width characters and bidirectional controls are not allowed',
      '$.usage_policies[0].label: must not hold invisible characters (U+200F): zero-width characters and bidirectional controls are not allowed',
    ]);
  });
});

describe('admin load of policy rules', () => {
  it('saves a dataspace policy_rules once, and names the key of a bad one', async () => {
    const file = { dataspaces: [{ name: 'acme', policy_rules: { vulnerability_stale: { is_active: true, parameters: { max_days: 14 } } } }] };
    const first = await loadOk(file);
    expect(first.updatedCatalog).toBe(1);
    expect((await env.policy.getConfig('acme')).config).toEqual({ vulnerability_stale: { is_active: true, threshold: 0, parameters: { max_days: 14 } } });
    const before = await allItems();
    expect((await loadOk(file)).updatedCatalog).toBe(0);
    expect(await allItems()).toEqual(before);
    const bad = await validateLoadFile({ dataspaces: [{ name: 'acme', policy_rules: { vulnerability_stale: { parameters: { max_days: 0 } } } }] }, env);
    expect(bad.ok ? [] : bad.problems).toEqual(['$.dataspaces[0].policy_rules.vulnerability_stale.parameters.max_days: Must be a whole number of days from 1 to 36500.']);
  });

  it('names a __proto__ rule type of a load file (as JSON.parse reads it) instead of dropping it', async () => {
    const file = JSON.parse('{"dataspaces": [{"name": "acme", "policy_rules": {"__proto__": {"is_active": true}}}]}') as object;
    const checked = await validateLoadFile(file, env);
    expect(checked.ok ? [] : checked.problems).toEqual([expect.stringMatching(/^\$\.dataspaces\[0\]\.policy_rules\.__proto__: Unknown rule type/)]);
  });
});

describe('admin load of the catalog', () => {
  const base = () => ({
    dataspaces: [{ name: 'acme' }],
    usage_policies: [{ label: 'Prohibited', dataspace: 'acme', content_type: 'license', compliance_alert: 'error' }],
  });

  it('creates usage policies and vulnerabilities through the API rules, and changes nothing the second time', async () => {
    await loadOk(base());
    const pkg = await env.catalog.packages.write(undefined, aPackage({ name: 'left-pad', version: '1.3.0' }));
    expect(pkg).toBeUndefined();
    const file = {
      ...base(),
      vulnerabilities: [
        {
          vulnerability_id: 'VCID-1',
          dataspace: 'acme',
          risk_score: 8.5,
          affected_packages: [{ package: 'pkg:npm/left-pad@1.3.0', linked_date: '2025-01-01T00:00:00Z' }],
        },
      ],
    };
    const first = await loadOk(file);
    expect(first.created).toMatchObject({ usage_policies: 0, vulnerabilities: 1 });
    const stored = (await env.catalog.packages.getByUnique('acme', ['pkg:npm/left-pad@1.3.0'])).get('pkg:npm/left-pad@1.3.0')!;
    expect(stored.vulnerabilities).toEqual({ 'VCID-1': { riskScore: 8.5, linkedDate: '2025-01-01T00:00:00.000+00:00' } });
    const before = await allItems();
    const second = await loadOk(file);
    expect(second.created.vulnerabilities + second.updatedCatalog + second.created.usage_policies).toBe(0);
    expect(await allItems()).toEqual(before);
    const rescored = await loadOk({ ...file, vulnerabilities: [{ ...file.vulnerabilities[0]!, risk_score: 9.0 }] });
    expect(rescored.updatedCatalog).toBe(1);
  });

  it('names the JSON path of catalog problems and writes nothing', async () => {
    await loadOk({ dataspaces: [{ name: 'acme' }] });
    const before = await allItems();
    const validation = await validateLoadFile(
      {
        vulnerabilities: [
          { vulnerability_id: 'VCID-2', dataspace: 'acme', risk_score: 11 },
          { vulnerability_id: 'VCID-3', dataspace: 'acme', affected_packages: [{ package: 'pkg:npm/missing@1' }] },
        ],
      },
      env,
    );
    expect(validation.ok ? [] : validation.problems).toEqual([
      '$.vulnerabilities[0].risk_score: Ensure this value is between 0.0 and 10.0.',
      '$.vulnerabilities[1].affected_packages[0].package: no package "pkg:npm/missing@1" in dataspace "acme"',
    ]);
    const policy = await validateLoadFile({ usage_policies: [{ label: 'X', dataspace: 'acme', content_type: 'component' }] }, env);
    expect(policy.ok ? [] : policy.problems).toEqual(['$.usage_policies[0].content_type: Invalid option: expected one of "package"|"license"']);
    expect(await allItems()).toEqual(before);
  });

  it('creates licenses, adopting reference ones by key, keeps category and is_exception, and changes nothing the second time', async () => {
    const file = {
      ...base(),
      licenses: [
        { dataspace: 'acme', key: 'Apache-2.0' },
        { dataspace: 'acme', key: 'gpl-3.0', usage_policy: 'Prohibited' },
        { dataspace: 'acme', key: 'acme-eula', name: 'Acme EULA', category: 'Commercial', is_exception: false },
        { dataspace: 'acme', key: 'acme-linking-exception', name: 'Acme linking exception', category: 'Copyleft Limited', is_exception: true },
      ],
    };
    const first = await loadOk(file);
    expect(first.created).toMatchObject({ usage_policies: 1, licenses: 4 });
    const stored = await env.catalog.licenses.getByUnique('acme', ['apache-2.0', 'gpl-3.0', 'acme-eula', 'acme-linking-exception']);
    expect(stored.get('apache-2.0')).toMatchObject({ name: 'Apache License 2.0', spdxLicenseKey: 'Apache-2.0', category: 'Permissive', isException: false, usagePolicy: null });
    expect(stored.get('gpl-3.0')).toMatchObject({ spdxLicenseKey: 'GPL-3.0-only', category: 'Copyleft', usagePolicy: 'Prohibited' });
    expect(stored.get('acme-eula')).toMatchObject({ name: 'Acme EULA', spdxLicenseKey: '', category: 'Commercial', isException: false });
    expect(stored.get('acme-linking-exception')).toMatchObject({ category: 'Copyleft Limited', isException: true });
    const before = await allItems();
    const second = await loadOk(file);
    expect(second.created.licenses + second.updatedCatalog).toBe(0);
    expect(await allItems()).toEqual(before);
    const changed = await loadOk({ ...file, licenses: [{ dataspace: 'acme', key: 'acme-eula', category: 'Proprietary Free' }] });
    expect(changed.updatedCatalog).toBe(1);
    expect((await env.catalog.licenses.getByUnique('acme', ['acme-eula'])).get('acme-eula')).toMatchObject({ name: 'Acme EULA', category: 'Proprietary Free' });
  });

  it('names the JSON path of license problems, the reference keys included, and writes nothing', async () => {
    await loadOk({ dataspaces: [{ name: 'acme' }] });
    const before = await allItems();
    const validation = await validateLoadFile(
      {
        usage_policies: [{ label: 'Packages only', dataspace: 'acme', content_type: 'package' }],
        licenses: [
          { dataspace: 'acme', key: 'our-own' },
          { dataspace: 'acme', key: 'mit', category: 'Viral' },
          { dataspace: 'acme', key: 'MIT' },
          { dataspace: 'acme', key: 'mit' },
          { dataspace: 'acme', key: 'zlib', usage_policy: 'Packages only' },
          { dataspace: 'nowhere', key: 'isc' },
        ],
      },
      env,
    );
    expect(validation.ok ? [] : validation.problems).toEqual([
      '$.licenses[0].name: required: "our-own" is not a reference license key to adopt',
      '$.licenses[1].category: "Viral" is not a valid choice.',
      '$.licenses[3].key: "mit" is listed twice',
      '$.licenses[4].usage_policy: no license usage policy "Packages only" in dataspace "acme"',
      '$.licenses[5].dataspace: dataspace "nowhere" does not exist',
    ]);
    expect(await allItems()).toEqual(before);
  });
});
