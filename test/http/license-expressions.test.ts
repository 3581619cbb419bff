/**
 * License expressions as the world writes them, through the HTTP API: SPDX ids (deprecated ones and
 * LicenseRef- too), reference keys and catalog keys in any letter case, WITH exceptions from the
 * reference library, free text and unknown symbols kept, never refused; the answers' declared, SPDX
 * and unknown fields; the unknown-license filters; the in-use counters of licenses named through
 * their SPDX ids; and the concluded expression of a product package.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

let counter = 0;
const purl = (stem: string) => `pkg:npm/${stem}-${++counter}@1.0.0`;

const create = async (collection: string, body: unknown, as = 'root') => {
  const response = await call(as, 'POST', `/api/v2/${collection}/`, body);
  expect(response.status, response.text).toBe(201);
  return response.json;
};

const aPackage = (licenseExpression: string, extra: Record<string, unknown> = {}) => create('packages', { purl: purl('lic'), license_expression: licenseExpression, ...extra });

let licenses: Record<string, { uuid: string }>;

beforeAll(async () => {
  await create('usage_policies', { label: 'Approved', content_type: 'license' });
  licenses = {
    // The dataspace's MIT, with its SPDX key; its GPL 3.0 without one (the reference's is answered).
    mit: await create('licenses', { key: 'mit', name: 'MIT License', spdx_license_key: 'MIT', usage_policy: 'Approved' }),
    gpl: await create('licenses', { key: 'gpl-3.0', name: 'GNU GPL 3.0' }),
    // A license of its own, which the reference library does not know.
    acme: await create('licenses', { key: 'acme-eula', name: 'ACME EULA' }),
  };
});

describe('package license expressions', () => {
  it.each([
    // as written, canonical (keys), SPDX form
    ['MIT', 'mit', 'MIT'],
    ['mit or APACHE-2.0', 'mit OR apache-2.0', 'MIT OR Apache-2.0'],
    ['Apache-2.0 AND (MIT OR GPL-3.0-only)', 'apache-2.0 AND (mit OR gpl-3.0)', 'Apache-2.0 AND (MIT OR GPL-3.0-only)'],
    ['GPL-2.0+', 'gpl-2.0-plus', 'GPL-2.0-or-later'],
    ['gpl-3.0+', 'gpl-3.0-plus', 'GPL-3.0-or-later'],
    ['LicenseRef-scancode-public-domain', 'public-domain', 'LicenseRef-scancode-public-domain'],
    ['BSD-3-Clause', 'bsd-new', 'BSD-3-Clause'],
    ['ACME-EULA', 'acme-eula', 'LicenseRef-dejacode-acme-eula'],
    // WITH: the exception comes from the reference library; no dataspace license needed.
    ['GPL-2.0-only WITH Classpath-exception-2.0', 'gpl-2.0 WITH classpath-exception-2.0', 'GPL-2.0-only WITH Classpath-exception-2.0'],
    ['Apache-2.0 WITH LLVM-exception', 'apache-2.0 WITH llvm-exception', 'Apache-2.0 WITH LLVM-exception'],
  ])('%s is stored as %s and answered in SPDX form as %s', async (written, canonical, spdx) => {
    const pkg = await aPackage(written);
    const expected = { license_expression: canonical, declared_license_expression: written, license_expression_spdx: spdx, unknown_licenses: [] };
    expect(pkg).toMatchObject(expected);
    expect((await call('viewer', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json).toMatchObject(expected);
  });

  it.each([
    // free text that is no expression: kept whole as one unknown license
    ['SEE LICENSE IN LICENSE.md', 'unknown-license-reference', 'LicenseRef-scancode-unknown-license-reference', ['SEE LICENSE IN LICENSE.md']],
    ['Custom: see https://example.com/terms', 'unknown-license-reference', 'LicenseRef-scancode-unknown-license-reference', ['Custom: see https://example.com/terms']],
    // symbols that resolve to nothing, the rest of the expression kept
    ['MIT OR LicenseRef-acme-internal', 'mit OR unknown-license-reference', 'MIT OR LicenseRef-scancode-unknown-license-reference', ['LicenseRef-acme-internal']],
    ['(mit OR foo) AND bar WITH classpath-exception-2.0', '(mit OR unknown-license-reference) AND unknown-license-reference WITH classpath-exception-2.0', '(MIT OR LicenseRef-scancode-unknown-license-reference) AND LicenseRef-scancode-unknown-license-reference WITH Classpath-exception-2.0', ['foo', 'bar']],
    // syntax that does not parse is free text too
    ['MIT AND', 'unknown-license-reference', 'LicenseRef-scancode-unknown-license-reference', ['MIT AND']],
    // a license name matched whole
    ['MIT License', 'mit', 'MIT', []],
  ])('%j is accepted (201), never refused: %s, unknown %j', async (written, canonical, spdx, unknown) => {
    const pkg = await aPackage(written);
    expect(pkg).toMatchObject({ license_expression: canonical, declared_license_expression: written, license_expression_spdx: spdx, unknown_licenses: unknown });
  });

  it('NOASSERTION and NONE say nothing: no expression, the words kept as declared', async () => {
    expect(await aPackage('NOASSERTION')).toMatchObject({ license_expression: '', declared_license_expression: 'NOASSERTION', license_expression_spdx: '', unknown_licenses: [] });
  });

  it('takes declared_license_expression alone and resolves it; given beside license_expression it is kept as written', async () => {
    const alone = await create('packages', { purl: purl('declared'), declared_license_expression: 'Apache-2.0 OR MIT' });
    expect(alone).toMatchObject({ license_expression: 'apache-2.0 OR mit', declared_license_expression: 'Apache-2.0 OR MIT', license_expression_spdx: 'Apache-2.0 OR MIT' });
    const both = await create('packages', { purl: purl('both'), license_expression: 'MIT', declared_license_expression: 'MIT or GPL, see README' });
    expect(both).toMatchObject({ license_expression: 'mit', declared_license_expression: 'MIT or GPL, see README', unknown_licenses: [] });
    const blank = await create('packages', { purl: purl('blank'), license_expression: '', declared_license_expression: 'GPL-3.0-only' });
    expect(blank).toMatchObject({ license_expression: 'gpl-3.0', declared_license_expression: 'GPL-3.0-only' });
    const patched = await call('root', 'PATCH', `/api/v2/packages/${alone.uuid}/`, { declared_license_expression: 'see COPYING' });
    expect(patched.json).toMatchObject({ license_expression: 'unknown-license-reference', declared_license_expression: 'see COPYING', unknown_licenses: ['see COPYING'] });
    const cleared = await call('root', 'PATCH', `/api/v2/packages/${alone.uuid}/`, { license_expression: '' });
    expect(cleared.json).toMatchObject({ license_expression: '', declared_license_expression: '', license_expression_spdx: '', unknown_licenses: [] });
  });

  it('a GET sent back as a PUT changes nothing: the canonical expression keeps what it was written as', async () => {
    const pkg = await aPackage('MIT OR LicenseRef-acme-internal');
    const { uuid: _uuid, api_url: _url, ...body } = (await call('root', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json;
    const put = await call('root', 'PUT', `/api/v2/packages/${pkg.uuid}/`, body);
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ ...pkg, filename: pkg.filename });
    // Sending only the canonical expression back keeps the declared text and unknowns too.
    const again = await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { license_expression: 'mit OR unknown-license-reference' });
    expect(again.json).toMatchObject({ declared_license_expression: 'MIT OR LicenseRef-acme-internal', unknown_licenses: ['LicenseRef-acme-internal'] });
  });

  it("answers the SPDX form with the licenses' SPDX keys as they are now", async () => {
    const license = await create('licenses', { key: 'acme-oss', name: 'ACME OSS' });
    const pkg = await aPackage('acme-oss AND mit');
    expect(pkg.license_expression_spdx).toBe('LicenseRef-dejacode-acme-oss AND MIT');
    expect((await call('root', 'PATCH', `/api/v2/licenses/${license.uuid}/`, { spdx_license_key: 'LicenseRef-acme-oss' })).status).toBe(200);
    expect((await call('viewer', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json.license_expression_spdx).toBe('LicenseRef-acme-oss AND MIT');
    const listed = (await call('viewer', 'GET', `/api/v2/packages/?name=${encodeURIComponent(pkg.name)}`)).json.results;
    expect(listed.map((p: { license_expression_spdx: string }) => p.license_expression_spdx)).toEqual(['LicenseRef-acme-oss AND MIT']);
  });

  it('still refuses what is no text (control characters) and more than 40 licenses, storing nothing', async () => {
    const before = await snapshot();
    const control = await call('root', 'POST', '/api/v2/packages/', { purl: purl('ctl'), license_expression: 'MIT\u0007' });
    expect(control.json).toEqual({ license_expression: ['Control characters are not allowed.'] });
    const many = Array.from({ length: 41 }, (_, i) => `LicenseRef-x${i}`).join(' AND ');
    const tooMany = await call('root', 'POST', '/api/v2/packages/', { purl: purl('many'), declared_license_expression: many });
    expect(tooMany.json).toEqual({ declared_license_expression: ['Ensure this expression names no more than 40 licenses.'] });
    expect(await snapshot()).toBe(before);
  });
});

describe('finding the unknown licenses', () => {
  it('filters packages on has_unknown_license and unknown_license (exactly as written)', async () => {
    const free = await aPackage('SEE LICENSE IN COPYING.txt');
    const symbol = await aPackage('MIT AND LicenseRef-findme');
    const known = await aPackage('MIT');
    const names = async (query: string) =>
      new Set((await call('viewer', 'GET', `/api/v2/packages/?page_size=100&${query}`)).json.results.map((p: { uuid: string }) => p.uuid));
    const unknown = await names('has_unknown_license=true');
    expect(unknown.has(free.uuid) && unknown.has(symbol.uuid)).toBe(true);
    expect(unknown.has(known.uuid)).toBe(false);
    const clean = await names('has_unknown_license=false');
    expect(clean.has(known.uuid)).toBe(true);
    expect(clean.has(free.uuid) || clean.has(symbol.uuid)).toBe(false);
    expect([...(await names(`unknown_license=${encodeURIComponent('LicenseRef-findme')}`))]).toEqual([symbol.uuid]);
    expect([...(await names(`unknown_license=${encodeURIComponent('SEE LICENSE IN COPYING.txt')}`))]).toEqual([free.uuid]);
    expect([...(await names('unknown_license=licenseref-findme'))]).toEqual([]);
    // With the purl filter too.
    expect([...(await names(`purl=${encodeURIComponent(symbol.purl)}&has_unknown_license=true`))]).toEqual([symbol.uuid]);
    expect([...(await names(`purl=${encodeURIComponent(symbol.purl)}&has_unknown_license=false`))]).toEqual([]);
    // Another dataspace's packages are not found.
    expect((await call('mallory', 'GET', '/api/v2/packages/?has_unknown_license=true')).json.count).toBe(0);
  });

  it('refuses has_unknown_license other than true or false', async () => {
    const response = await call('viewer', 'GET', '/api/v2/packages/?has_unknown_license=yes');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ has_unknown_license: ['"yes" is not a valid choice; use true or false.'] });
  });
});

describe('in-use counters: only the dataspace licenses an expression names', () => {
  const refused = async (uuid: string, detail: string) => {
    const before = await snapshot();
    const response = await call('root', 'DELETE', `/api/v2/licenses/${uuid}/`);
    expect(response.status, response.text).toBe(409);
    expect(response.json).toEqual({ detail });
    expect(await snapshot()).toBe(before);
  };

  it('a license named through its SPDX id (MIT → mit) or in another case (ACME-eula) cannot be deleted while used', async () => {
    const own = await create('licenses', { key: 'own-spdx', name: 'Own', spdx_license_key: 'LicenseRef-Own-1' });
    const pkg = await aPackage('licenseref-own-1 OR LicenseRef-unheard-of');
    expect(pkg.license_expression).toBe('own-spdx OR unknown-license-reference');
    await refused(own.uuid, 'This license is still used by 1 object: 1 package.');
    const cased = await aPackage('OWN-SPDX');
    await refused(own.uuid, 'This license is still used by 2 objects: 2 packages.');
    expect((await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { license_expression: 'Apache-2.0' })).status).toBe(200);
    expect((await call('root', 'DELETE', `/api/v2/packages/${cased.uuid}/`)).status).toBe(204);
    expect((await call('root', 'DELETE', `/api/v2/licenses/${own.uuid}/`)).status).toBe(204);
  });

  it('reference keys and unknown licenses count on nothing; a reference license adopted later is counted once the expression is written again', async () => {
    const pkg = await aPackage('ISC AND LicenseRef-not-there');
    expect(pkg).toMatchObject({ license_expression: 'isc AND unknown-license-reference', unknown_licenses: ['LicenseRef-not-there'] });
    // Adopted after the package named it: not counted, so it can go; the key then means the reference license again.
    const adopted = await create('licenses', { key: 'isc', name: 'ISC License' });
    expect((await call('root', 'DELETE', `/api/v2/licenses/${adopted.uuid}/`)).status).toBe(204);
    expect((await call('viewer', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json).toMatchObject({ license_expression: 'isc AND unknown-license-reference', license_expression_spdx: 'ISC AND LicenseRef-scancode-unknown-license-reference' });
    // Adopted again, and the expression written again: counted from then on.
    const again = await create('licenses', { key: 'isc', name: 'ISC License' });
    expect((await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { license_expression: pkg.license_expression })).status).toBe(200);
    await refused(again.uuid, 'This license is still used by 1 object: 1 package.');
  });
});

describe('product packages: the license concluded for the product', () => {
  let product: { uuid: string; api_url: string };
  let gplPackage: { uuid: string };

  beforeAll(async () => {
    product = await create('products', { name: 'Concluding' }, 'alice');
    expect((await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] })).status).toBe(200);
    gplPackage = await aPackage('GPL-3.0-only OR MIT');
  });

  it('is set on creation in any form, with is_deployed and is_modified, and answered in SPDX form', async () => {
    const pp = await create('product_packages', { product: product.uuid, package: gplPackage.uuid, license_expression: 'mit', is_deployed: false, is_modified: true }, 'alice');
    expect(pp).toMatchObject({ license_expression: 'mit', license_expression_spdx: 'MIT', is_deployed: false, is_modified: true });
    expect((await call('viewer', 'GET', `/api/v2/product_packages/${pp.uuid}/`)).json).toEqual(pp);
    const listed = (await call('viewer', 'GET', `/api/v2/product_packages/?product=${product.uuid}`)).json.results;
    expect(listed).toEqual([pp]);
  });

  it('defaults to the package’s own (empty), deployed, not modified; PATCH and PUT change it; the product and package stay', async () => {
    const other = await aPackage('Apache-2.0');
    const pp = await create('product_packages', { product: product.uuid, package: other.uuid }, 'alice');
    expect(pp).toMatchObject({ license_expression: '', license_expression_spdx: '', is_deployed: true, is_modified: false });
    const path = `/api/v2/product_packages/${pp.uuid}/`;
    const patched = await call('alice', 'PATCH', path, { license_expression: 'GPL-2.0-only WITH Classpath-exception-2.0' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ license_expression: 'gpl-2.0 WITH classpath-exception-2.0', license_expression_spdx: 'GPL-2.0-only WITH Classpath-exception-2.0', is_deployed: true });
    const free = await call('alice', 'PATCH', path, { license_expression: 'as agreed with the vendor' });
    expect(free.json).toMatchObject({ license_expression: 'unknown-license-reference' });
    // A GET sent back as a PUT, changed: the read-only fields are dropped, the product and package may be sent as they are.
    const { uuid: _u, api_url: _a, created_date: _c, license_expression_spdx: _s, ...body } = free.json;
    const put = await call('alice', 'PUT', path, { ...body, license_expression: '', is_deployed: false });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ license_expression: '', is_deployed: false, is_modified: false, product: product.api_url });
    const before = await snapshot();
    const moved = await call('alice', 'PATCH', path, { product: gplPackage.uuid, package: gplPackage.uuid });
    expect(moved.status).toBe(400);
    expect(moved.json).toEqual({ product: ['The product of a product package cannot be changed.'], package: ['The package of a product package cannot be changed.'] });
    expect((await call('alice', 'PATCH', path, { is_deployed: 'no' })).json).toEqual({ is_deployed: ['Must be a valid boolean.'] });
    expect((await call('viewer', 'PATCH', path, { is_modified: true })).status).toBe(403);
    expect((await call('mallory', 'PATCH', path, { is_modified: true })).status).toBe(404);
    expect(await snapshot()).toBe(before);
  });
});

describe("licenses recognised with ScanCode's rules", () => {
  it('resolves a name in a write, and says which rule did', async () => {
    const pkg = await create('packages', { purl: purl('named'), declared_license_expression: 'ALv2 OR MIT' });
    expect(pkg).toMatchObject({
      license_expression: 'apache-2.0 OR mit',
      declared_license_expression: 'ALv2 OR MIT',
      license_expression_spdx: 'Apache-2.0 OR MIT',
      unknown_licenses: [],
      resolved_from: [{ written: 'ALv2', license_expression: 'apache-2.0', by: 'name', rule: 'apache-2.0_388.RULE' }],
    });
    expect((await call('viewer', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json.resolved_from).toEqual(pkg.resolved_from);
  });

  it("resolves a real Maven SBOM's free-text names and URLs on import, and lists them in the summary", async () => {
    const product = await create('products', { name: 'Dropwizard', version: '1.3.15' });
    const document = JSON.parse(readFileSync(new URL('../fixtures/sbom/licenses/maven-dropwizard-1.3.15.cdx.json', import.meta.url), 'utf8'));
    const response = await call('root', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, document);
    expect(response.status, response.text).toBe(200);
    const summary = response.json.summary;
    // Without ScanCode's rules 20 of its 167 components kept an unknown license (test/unit/license-recognition-real.test.ts).
    expect(summary.unknown_licenses).toEqual([]);
    expect(summary.resolved_licenses).toEqual(
      expect.arrayContaining([
        { written: 'Eclipse Distribution License (EDL), Version 1.0', license_expression: 'bsd-new', by: 'name', rule: 'bsd-new_803.RULE' },
        // The same name beside two URLs: each rule that recognised it.
        { written: 'GNU Lesser General Public License', license_expression: 'lgpl-2.1', by: 'url', rule: 'lgpl-2.1_21.RULE' },
        { written: 'GNU Lesser General Public License', license_expression: 'lgpl-2.1', by: 'url', rule: 'lgpl-2.1_316.RULE' },
      ]),
    );
    const h2 = (await call('root', 'GET', `/api/v2/packages/?purl=${encodeURIComponent('pkg:maven/com.h2database/h2@1.4.197?type=jar')}`)).json.results[0];
    expect(h2).toMatchObject({ license_expression: 'mpl-2.0 OR epl-1.0', unknown_licenses: [] });
    expect(h2.resolved_from.map((r: { written: string }) => r.written)).toEqual(['MPL 2.0', 'EPL 1.0']);
  });
});
