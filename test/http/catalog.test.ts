import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

const create = async (collection: string, body: unknown, as = 'root') => {
  const response = await call(as, 'POST', `/api/v2/${collection}/`, body);
  expect(response.status, response.text).toBe(201);
  return response.json;
};

describe('usage policies', () => {
  it('are created by superusers, read by everyone of the dataspace, and hidden from others', async () => {
    const policy = await create('usage_policies', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error', description: 'Never' });
    expect(policy).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/usage_policies/${policy.uuid}/`,
      label: 'Prohibited',
      content_type: 'license',
      compliance_alert: 'error',
      description: 'Never',
    });
    expect((await call('alice', 'GET', `/api/v2/usage_policies/${policy.uuid}/`)).json).toEqual(policy);
    expect((await call('alice', 'GET', '/api/v2/usage_policies/')).json.results.map((p: { label: string }) => p.label)).toContain('Prohibited');
    expect((await call('mallory', 'GET', `/api/v2/usage_policies/${policy.uuid}/`)).status).toBe(404);
    expect((await call('mallory', 'GET', '/api/v2/usage_policies/')).json.count).toBe(0);
  });

  it('refuse writes from non-superusers with 403, and from other dataspaces with 404, changing nothing', async () => {
    const policy = await create('usage_policies', { label: 'Guarded', content_type: 'package' });
    const before = await snapshot();
    expect((await call('alice', 'POST', '/api/v2/usage_policies/', { label: 'X', content_type: 'package' })).status).toBe(403);
    expect((await call('alice', 'PATCH', `/api/v2/usage_policies/${policy.uuid}/`, { label: 'Y' })).status).toBe(403);
    expect((await call('alice', 'DELETE', `/api/v2/usage_policies/${policy.uuid}/`)).status).toBe(403);
    expect((await call('mallory', 'PATCH', `/api/v2/usage_policies/${policy.uuid}/`, { label: 'Y' })).status).toBe(404);
    expect((await call('mallory', 'DELETE', `/api/v2/usage_policies/${policy.uuid}/`)).status).toBe(404);
    expect(await snapshot()).toBe(before);
  });

  it('keep labels unique in a dataspace, update and delete', async () => {
    const policy = await create('usage_policies', { label: 'Restricted', content_type: 'package', compliance_alert: 'warning' });
    const duplicate = await call('root', 'POST', '/api/v2/usage_policies/', { label: 'Restricted', content_type: 'license' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json).toEqual({ label: ['Usage policy with this label already exists.'] });
    expect((await call('mallory', 'POST', '/api/v2/usage_policies/', { label: 'Restricted', content_type: 'license' })).status).toBe(201);
    const patched = await call('root', 'PATCH', `/api/v2/usage_policies/${policy.uuid}/`, { compliance_alert: 'error' });
    expect(patched.json).toMatchObject({ label: 'Restricted', compliance_alert: 'error' });
    const put = await call('root', 'PUT', `/api/v2/usage_policies/${policy.uuid}/`, { label: 'Restricted 2', content_type: 'package', compliance_alert: '', description: 'd' });
    expect(put.status).toBe(200);
    expect((await call('root', 'POST', '/api/v2/usage_policies/', { label: 'Restricted', content_type: 'license' })).status).toBe(201);
    expect((await call('root', 'DELETE', `/api/v2/usage_policies/${policy.uuid}/`)).status).toBe(204);
    expect((await call('root', 'GET', `/api/v2/usage_policies/${policy.uuid}/`)).status).toBe(404);
  });

  it.each([
    [{ content_type: 'license' }, { label: ['This field is required.'] }],
    [{ label: 'A', content_type: 'component' }, { content_type: ['"component" is not a valid choice.'] }],
    [{ label: 'A', content_type: 'license', compliance_alert: 'fatal' }, { compliance_alert: ['"fatal" is not a valid choice.'] }],
  ])('refuse %j', async (body, errors) => {
    const response = await call('root', 'POST', '/api/v2/usage_policies/', body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
  });
});

describe('licenses', () => {
  it('carry the label of a license usage policy, never a package one', async () => {
    await create('usage_policies', { label: 'Copyleft', content_type: 'license', compliance_alert: 'warning' });
    await create('usage_policies', { label: 'Package only', content_type: 'package' });
    const license = await create('licenses', { key: 'gpl-2.0', name: 'GNU GPL 2.0', short_name: 'GPL 2.0', spdx_license_key: 'GPL-2.0-only', usage_policy: 'Copyleft' });
    expect(license).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/licenses/${license.uuid}/`,
      key: 'gpl-2.0',
      name: 'GNU GPL 2.0',
      short_name: 'GPL 2.0',
      spdx_license_key: 'GPL-2.0-only',
      license_expression_spdx: 'GPL-2.0-only',
      // gpl-2.0 is a reference license: what the body leaves out comes from it.
      category: 'Copyleft',
      is_exception: false,
      usage_policy: 'Copyleft',
      // And its text, until the dataspace gives it its own.
      text: expect.stringMatching(/^\s*GNU GENERAL PUBLIC LICENSE\s+Version 2, June 1991/),
    });
    const wrong = await call('root', 'POST', '/api/v2/licenses/', { key: 'x11', name: 'X11', usage_policy: 'Package only' });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ usage_policy: ['No license usage policy "Package only" in this dataspace.'] });
    const duplicate = await call('root', 'POST', '/api/v2/licenses/', { key: 'gpl-2.0', name: 'Again' });
    expect(duplicate.json).toEqual({ key: ['License with this key already exists.'] });
    expect((await call('root', 'POST', '/api/v2/licenses/', { key: 'bad key', name: 'x' })).json).toEqual({
      key: ['Use letters, digits and . + _ - only, starting with a letter or digit.'],
    });
    expect((await call('root', 'PATCH', `/api/v2/licenses/${license.uuid}/`, { usage_policy: null })).json.usage_policy).toBeNull();
    expect((await call('alice', 'PATCH', `/api/v2/licenses/${license.uuid}/`, { name: 'no' })).status).toBe(403);
  });
});

describe('packages', () => {
  beforeAll(async () => {
    await create('licenses', { key: 'mit', name: 'MIT' });
    await create('licenses', { key: 'apache-2.0', name: 'Apache 2.0' });
    await create('licenses', { key: 'classpath-exception-2.0', name: 'Classpath exception' });
    await create('usage_policies', { label: 'Approved', content_type: 'package' });
  });

  it('are created from a purl, or from parts, and always answer the canonical purl', async () => {
    const fromPurl = await create('packages', { purl: 'pkg:npm/%40angular/core@16.0.0', license_expression: 'mit or apache-2.0', usage_policy: 'Approved' });
    expect(fromPurl).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/packages/${fromPurl.uuid}/`,
      type: 'npm',
      namespace: '@angular',
      name: 'core',
      version: '16.0.0',
      purl: 'pkg:npm/%40angular/core@16.0.0',
      filename: '',
      download_url: '',
      md5: '',
      sha1: '',
      sha256: '',
      sha512: '',
      description: '',
      homepage_url: '',
      copyright: '',
      supplier: '',
      license_expression: 'mit OR apache-2.0',
      declared_license_expression: 'mit or apache-2.0',
      license_expression_spdx: 'MIT OR Apache-2.0',
      unknown_licenses: [],
      resolved_from: [],
      usage_policy: 'Approved',
      risk_score: null,
      affected_by_vulnerabilities: [],
      vulnerabilities: [],
    });
    const fromParts = await create('packages', { type: 'pypi', name: 'Django', version: '4.2', download_url: 'https://example.com/django.tgz' });
    expect(fromParts.purl).toBe('pkg:pypi/django@4.2');
    expect(fromParts.download_url).toBe('https://example.com/django.tgz');
  });

  it.each([
    [{ purl: 'not-a-purl' }, 'purl'],
    [{ name: 'nameless-type' }, 'purl'],
    [{ purl: 'pkg:npm/left-pad@1.0.0', name: 'right-pad' }, 'name'],
    [{ purl: 'pkg:npm/x@1', license_expression: 'mit\u0000' }, 'license_expression'],
    [{ purl: 'pkg:npm/x@3', usage_policy: 'Copyleft' }, 'usage_policy'],
    [{ purl: 'pkg:npm/x@4', download_url: 'ftp://example.com/x' }, 'download_url'],
    [{ purl: 'pkg:npm/x@5', md5: 'abc' }, 'md5'],
    [{ purl: 'pkg:npm/x@6', sha1: 'g'.repeat(40) }, 'sha1'],
    [{ purl: 'pkg:npm/x@7', sha256: 'a'.repeat(63) }, 'sha256'],
    [{ purl: 'pkg:npm/x@8', sha512: 'a'.repeat(129) }, 'sha512'],
    [{ purl: 'pkg:npm/x@9', homepage_url: 'javascript:alert(1)' }, 'homepage_url'],
    [{ purl: 'pkg:npm/x@10', description: 'x'.repeat(10_001) }, 'description'],
    [{ purl: 'pkg:npm/x@11', supplier: 'a\u0007b' }, 'supplier'],
  ])('refuse %j with a %s error and store nothing', async (body, field) => {
    const before = await snapshot();
    const response = await call('root', 'POST', '/api/v2/packages/', body);
    expect(response.status, response.text).toBe(400);
    expect(Object.keys(response.json)).toEqual([field]);
    expect(await snapshot()).toBe(before);
  });

  it('keep the hashes, description, homepage, copyright and supplier an SBOM carries, the digests in lower case', async () => {
    const sha256 = 'A'.repeat(64);
    const created = await create('packages', {
      purl: 'pkg:npm/described@1.0.0',
      md5: '0123456789abcdef0123456789ABCDEF',
      sha1: 'a'.repeat(40),
      sha256,
      sha512: 'f'.repeat(128),
      description: 'Does one thing well.',
      homepage_url: 'https://example.com/described',
      copyright: 'Copyright (c) 2024 Example Ltd.',
      supplier: 'Example Ltd.',
    });
    expect(created).toMatchObject({
      md5: '0123456789abcdef0123456789abcdef',
      sha1: 'a'.repeat(40),
      sha256: 'a'.repeat(64),
      sha512: 'f'.repeat(128),
      description: 'Does one thing well.',
      homepage_url: 'https://example.com/described',
      copyright: 'Copyright (c) 2024 Example Ltd.',
      supplier: 'Example Ltd.',
    });
    const patched = await call('root', 'PATCH', `/api/v2/packages/${created.uuid}/`, { sha1: '', supplier: 'Other Ltd.' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ sha1: '', supplier: 'Other Ltd.', md5: '0123456789abcdef0123456789abcdef', description: 'Does one thing well.' });
  });

  it('keep the license keys that resolve to nothing as unknown licenses, never refusing them', async () => {
    const pkg = await create('packages', { purl: 'pkg:npm/y@1', license_expression: '(mit OR foo) AND bar WITH classpath-exception-2.0' });
    expect(pkg).toMatchObject({
      license_expression: '(mit OR unknown-license-reference) AND unknown-license-reference WITH classpath-exception-2.0',
      unknown_licenses: ['foo', 'bar'],
    });
  });

  it('keep the purl unique, and filter on purl, name, version and type', async () => {
    await create('packages', { purl: 'pkg:maven/org.apache/commons-io@2.11.0' });
    await create('packages', { purl: 'pkg:maven/org.apache/commons-io@2.12.0' });
    await create('packages', { purl: 'pkg:npm/commons-io@2.11.0' });
    const duplicate = await call('root', 'POST', '/api/v2/packages/', { type: 'maven', namespace: 'org.apache', name: 'commons-io', version: '2.11.0' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json).toEqual({ purl: ['Package with this purl already exists.'] });
    const purls = async (query: string) => (await call('alice', 'GET', `/api/v2/packages/?${query}&page_size=100`)).json.results.map((p: { purl: string }) => p.purl);
    expect(await purls('name=commons-io')).toEqual(['pkg:maven/org.apache/commons-io@2.11.0', 'pkg:maven/org.apache/commons-io@2.12.0', 'pkg:npm/commons-io@2.11.0']);
    expect(await purls('name=commons-io&type=npm')).toEqual(['pkg:npm/commons-io@2.11.0']);
    expect(await purls('version=2.11.0&type=maven')).toEqual(['pkg:maven/org.apache/commons-io@2.11.0']);
    expect(await purls(`purl=${encodeURIComponent('pkg:maven/org.apache/commons-io@2.12.0')}`)).toEqual(['pkg:maven/org.apache/commons-io@2.12.0']);
    expect(await purls('purl=garbage')).toEqual([]);
    expect((await call('mallory', 'GET', '/api/v2/packages/?name=commons-io')).json.count).toBe(0);
  });

  it('take a purl of up to 1,500 bytes (past the 1,024 of an index sort key), list it in order, and find it by name and purl', async () => {
    // Qualifiers can be long (a download URL, checksums): 1,400 bytes here.
    const long = (n: number) => `pkg:generic/long-one@1.0.${n}?download_url=${encodeURIComponent(`https://example.com/${'d'.repeat(1_300)}.tgz`)}`;
    const first = await call('root', 'POST', '/api/v2/packages/', { purl: long(1) });
    expect(first.status, first.text).toBe(201);
    expect(Buffer.byteLength(first.json.purl)).toBeGreaterThan(1_350);
    const second = await call('root', 'POST', '/api/v2/packages/', { purl: long(2) });
    expect(second.status, second.text).toBe(201);
    const named = await call('alice', 'GET', '/api/v2/packages/?name=long-one');
    expect(named.json.results.map((p: { purl: string }) => p.purl)).toEqual([first.json.purl, second.json.purl]);
    const byPurl = await call('alice', 'GET', `/api/v2/packages/?purl=${encodeURIComponent(first.json.purl)}`);
    expect(byPurl.json.count).toBe(1);
    const tooLong = await call('root', 'POST', '/api/v2/packages/', { purl: `pkg:generic/x@1?q=${'e'.repeat(1_600)}` });
    expect(tooLong.status).toBe(400);
  });

  it('update by parts or purl, and recompute the purl', async () => {
    const pkg = await create('packages', { purl: 'pkg:gem/rails@7.0.0' });
    const patched = await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { version: '7.1.0', license_expression: 'mit' });
    expect(patched.json).toMatchObject({ version: '7.1.0', purl: 'pkg:gem/rails@7.1.0', license_expression: 'mit' });
    const cleared = await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { license_expression: '' });
    expect(cleared.json.license_expression).toBe('');
    expect((await call('root', 'DELETE', `/api/v2/packages/${pkg.uuid}/`)).status).toBe(204);
  });
});

describe('vulnerabilities', () => {
  it('link packages by uuid or purl, score them, and keep each package told', async () => {
    const a = await create('packages', { purl: 'pkg:npm/vuln-a@1.0.0' });
    const b = await create('packages', { purl: 'pkg:npm/vuln-b@1.0.0' });
    const vulnerability = await create('vulnerabilities', {
      vulnerability_id: 'VCID-1234',
      aliases: ['CVE-2026-0001'],
      summary: 'Bad',
      risk_score: 7.5,
      affected_packages: [{ package: a.uuid, linked_date: '2026-01-01T00:00:00Z' }, { package: 'pkg:npm/vuln-b@1.0.0' }],
    });
    expect(vulnerability).toMatchObject({
      vulnerability_id: 'VCID-1234',
      aliases: ['CVE-2026-0001'],
      risk_score: 7.5,
      // Typed in: no advisory matched these links, and none says what fixes the packages.
      source: 'manual',
      affected_packages: [
        { package: a.api_url, purl: 'pkg:npm/vuln-a@1.0.0', linked_date: '2026-01-01T00:00:00.000+00:00', fixed_versions: [], matched_by: null },
        { package: b.api_url, purl: 'pkg:npm/vuln-b@1.0.0', linked_date: expect.stringMatching(/\+00:00$/), fixed_versions: [], matched_by: null },
      ],
    });
    expect((await call('alice', 'GET', `/api/v2/packages/${a.uuid}/`)).json).toMatchObject({ risk_score: 7.5, affected_by_vulnerabilities: ['VCID-1234'] });
    const second = await create('vulnerabilities', { vulnerability_id: 'VCID-9', risk_score: 9.1, affected_packages: [{ package: a.uuid }] });
    expect((await call('alice', 'GET', `/api/v2/packages/${a.uuid}/`)).json).toMatchObject({ risk_score: 9.1, affected_by_vulnerabilities: ['VCID-1234', 'VCID-9'] });
    // Rescore and unlink: the packages follow; a package linked before keeps its linked date.
    const updated = await call('root', 'PATCH', `/api/v2/vulnerabilities/${vulnerability.uuid}/`, { risk_score: 3.0, affected_packages: [{ package: a.uuid }] });
    expect(updated.json.affected_packages).toEqual([{ package: a.api_url, purl: a.purl, linked_date: '2026-01-01T00:00:00.000+00:00', fixed_versions: [], matched_by: null }]);
    expect((await call('alice', 'GET', `/api/v2/packages/${b.uuid}/`)).json).toMatchObject({ risk_score: null, affected_by_vulnerabilities: [] });
    expect((await call('root', 'DELETE', `/api/v2/vulnerabilities/${second.uuid}/`)).status).toBe(204);
    expect((await call('alice', 'GET', `/api/v2/packages/${a.uuid}/`)).json).toMatchObject({ risk_score: 3, affected_by_vulnerabilities: ['VCID-1234'] });
    const stillLinked = await call('root', 'DELETE', `/api/v2/packages/${a.uuid}/`);
    expect(stillLinked.status).toBe(400);
    expect(stillLinked.json.non_field_errors[0]).toMatch(/VCID-1234/);
  });

  it.each([
    [{ vulnerability_id: 'V-1', risk_score: 10.5 }, { risk_score: ['Ensure this value is between 0.0 and 10.0.'] }],
    [{ vulnerability_id: 'V-1', risk_score: 7.25 }, { risk_score: ['Ensure there is no more than 1 decimal place.'] }],
    [{ vulnerability_id: 'V-1', risk_score: '7' }, { risk_score: ['A valid number is required.'] }],
    [{ vulnerability_id: 'V 1' }, { vulnerability_id: ['Use letters, digits and . _ : - only.'] }],
    [{ vulnerability_id: 'V-1', affected_packages: [{ package: 'pkg:npm/nowhere@1' }] }, { affected_packages: ['[0]: no package "pkg:npm/nowhere@1" in this dataspace.'] }],
    [{ vulnerability_id: 'V-1', affected_packages: [{ package: 'pkg:npm/vuln-a@1.0.0', linked_date: 'yesterday' }] }, { 'affected_packages': ['Enter a valid ISO 8601 date/time with a time zone.'] }],
  ])('refuse %j', async (body, errors) => {
    const before = await snapshot();
    const response = await call('root', 'POST', '/api/v2/vulnerabilities/', body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('keep ids unique, are written by superusers only, and never cross dataspaces', async () => {
    await create('vulnerabilities', { vulnerability_id: 'VCID-UNIQUE' });
    expect((await call('root', 'POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-UNIQUE' })).json).toEqual({
      vulnerability_id: ['Vulnerability with this vulnerability_id already exists.'],
    });
    expect((await call('alice', 'POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-A' })).status).toBe(403);
    const theirs = await create('packages', { purl: 'pkg:npm/theirs@1' }, 'mallory');
    const response = await call('root', 'POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-X', affected_packages: [{ package: theirs.uuid }] });
    expect(response.status).toBe(400);
  });
});
