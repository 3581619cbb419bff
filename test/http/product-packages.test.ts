import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { tableItems } from '../support/snapshot.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {}, stranger: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

let packages: Record<string, { uuid: string; api_url: string; purl: string }>;

beforeAll(async () => {
  packages = {};
  for (const purl of ['pkg:npm/left-pad@1.3.0', 'pkg:pypi/requests@2.31.0', 'pkg:npm/lodash@4.17.20']) {
    const response = await call('root', 'POST', '/api/v2/packages/', { purl });
    expect(response.status).toBe(201);
    packages[purl] = response.json;
  }
  const vulnerability = await call('root', 'POST', '/api/v2/vulnerabilities/', {
    vulnerability_id: 'VCID-lodash',
    risk_score: 9.8,
    affected_packages: [{ package: 'pkg:npm/lodash@4.17.20' }],
  });
  expect(vulnerability.status).toBe(201);
});

async function aProduct(name: string) {
  const product = (await call('alice', 'POST', '/api/v2/products/', { name })).json;
  await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
  return product as { uuid: string; api_url: string };
}

describe('product packages', () => {
  it('are added by who may change the product, listed with the product, and removed', async () => {
    const product = await aProduct('Holder');
    const added = await call('alice', 'POST', '/api/v2/product_packages/', { product: product.api_url, package: packages['pkg:npm/left-pad@1.3.0']!.uuid });
    expect(added.status, added.text).toBe(201);
    expect(added.json).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/product_packages/${added.json.uuid}/`,
      product: product.api_url,
      package: packages['pkg:npm/left-pad@1.3.0']!.api_url,
      license_expression: '',
      license_expression_spdx: '',
      is_deployed: true,
      is_modified: false,
      created_date: expect.stringMatching(/\+00:00$/),
    });
    await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:pypi/requests@2.31.0' });
    const held = await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/`);
    expect(held.json.results.map((p: { purl: string }) => p.purl)).toEqual(['pkg:npm/left-pad@1.3.0', 'pkg:pypi/requests@2.31.0']);
    expect((await call('viewer', 'GET', `/api/v2/product_packages/${added.json.uuid}/`)).status).toBe(200);
    expect((await call('stranger', 'GET', `/api/v2/product_packages/${added.json.uuid}/`)).status).toBe(404);
    expect((await call('stranger', 'GET', `/api/v2/products/${product.uuid}/packages/`)).status).toBe(404);
    const listed = await call('viewer', 'GET', `/api/v2/product_packages/?product=${product.uuid}`);
    expect(listed.json.count).toBe(2);
    expect((await call('stranger', 'GET', '/api/v2/product_packages/')).json.results.map((pp: { product: string }) => pp.product)).not.toContain(product.api_url);
    expect((await call('viewer', 'DELETE', `/api/v2/product_packages/${added.json.uuid}/`)).status).toBe(403);
    expect((await call('alice', 'DELETE', `/api/v2/product_packages/${added.json.uuid}/`)).status).toBe(204);
    expect((await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/`)).json.count).toBe(1);
  });

  it("are listed with the license the product concluded for each ('' where it concluded none)", async () => {
    const product = await aProduct('Concluder');
    const concluded = await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:npm/left-pad@1.3.0', license_expression: 'MIT' });
    expect(concluded.status, concluded.text).toBe(201);
    await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:npm/lodash@4.17.20' });
    const held = await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/`);
    expect(held.status).toBe(200);
    expect(held.json.results.map((p: { purl: string; concluded_license_expression: string; affected_by_vulnerabilities: string[] }) => [p.purl, p.concluded_license_expression, p.affected_by_vulnerabilities])).toEqual([
      ['pkg:npm/left-pad@1.3.0', 'mit', []],
      ['pkg:npm/lodash@4.17.20', '', ['VCID-lodash']],
    ]);
  });

  it('refuse the same package twice, unknown or invisible products and packages, and viewers', async () => {
    const product = await aProduct('Strict');
    const body = { product: product.uuid, package: packages['pkg:npm/left-pad@1.3.0']!.uuid };
    expect((await call('alice', 'POST', '/api/v2/product_packages/', body)).status).toBe(201);
    const before = await snapshot();
    const twice = await call('alice', 'POST', '/api/v2/product_packages/', body);
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({ package: ['This package is already in this product.'] });
    const nowhere = await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:npm/nowhere@1' });
    expect(nowhere.json).toEqual({ package: ['No package "pkg:npm/nowhere@1" in this dataspace.'] });
    const invisible = await call('stranger', 'POST', '/api/v2/product_packages/', body);
    expect(invisible.status).toBe(400);
    expect(invisible.json).toEqual({ product: [`No product "${product.uuid}" that you can see.`] });
    const viewerOnly = await call('viewer', 'POST', '/api/v2/product_packages/', { ...body, package: packages['pkg:pypi/requests@2.31.0']!.uuid });
    expect(viewerOnly.status).toBe(403);
    const crossDataspace = await call('mallory', 'POST', '/api/v2/product_packages/', body);
    expect(crossDataspace.status).toBe(400);
    expect(await snapshot()).toBe(before);
  });

  it('keep a package in a product from being deleted', async () => {
    const product = await aProduct('Keeper');
    await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: packages['pkg:pypi/requests@2.31.0']!.uuid });
    const response = await call('root', 'DELETE', `/api/v2/packages/${packages['pkg:pypi/requests@2.31.0']!.uuid}/`);
    expect(response.status).toBe(400);
    expect(response.json.non_field_errors[0]).toMatch(/is in \d+ product/);
  });

  it('go away with their product', async () => {
    const product = await aProduct('Doomed');
    const pp = (await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: packages['pkg:npm/lodash@4.17.20']!.uuid })).json;
    const analysis = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', { product_package: pp.uuid, vulnerability_id: 'VCID-lodash', state: 'in_triage' });
    expect(analysis.status).toBe(201);
    expect((await call('alice', 'DELETE', `/api/v2/products/${product.uuid}/`)).status).toBe(204);
    expect((await call('root', 'GET', `/api/v2/product_packages/${pp.uuid}/`)).status).toBe(404);
    expect((await call('root', 'GET', `/api/v2/vulnerability_analyses/${analysis.json.uuid}/`)).status).toBe(404);
    const items = (await tableItems(http.env)) as { PK: string; entity: string; expiresAt?: number }[];
    const left = items.filter((item) => item.PK.includes(product.uuid) || item.PK.includes(pp.uuid) || item.PK.includes(analysis.json.uuid));
    // Only the deletion markers the audit trail reads (who deleted them), which expire within two days.
    expect(left.filter((item) => item.entity !== 'DeletionMarker')).toEqual([]);
    // The product, its grants, its product package and its analysis.
    expect(left.length).toBeGreaterThanOrEqual(4);
    expect(left.every((item) => item.PK === `DELETEDBY#PRODUCT#${product.uuid}`)).toBe(true);
    for (const marker of left) expect(marker.expiresAt! - Date.now() / 1000).toBeLessThanOrEqual(2 * 86_400);
  });
});

describe('vulnerability analyses', () => {
  let product: { uuid: string; api_url: string };
  let pp: { uuid: string; api_url: string };
  beforeAll(async () => {
    product = await aProduct('Triaged');
    pp = (await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: packages['pkg:npm/lodash@4.17.20']!.uuid })).json;
  });

  it('record one triage per product package and vulnerability', async () => {
    const created = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', {
      product_package: pp.api_url,
      vulnerability_id: 'VCID-lodash',
      state: 'not_affected',
      justification: 'code_not_reachable',
      responses: ['will_not_fix'],
      detail: 'We never call merge().',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/vulnerability_analyses/${created.json.uuid}/`,
      product_package: pp.api_url,
      vulnerability_id: 'VCID-lodash',
      state: 'not_affected',
      justification: 'code_not_reachable',
      responses: ['will_not_fix'],
      detail: 'We never call merge().',
      created_date: expect.stringMatching(/\+00:00$/),
      last_modified_date: created.json.created_date,
    });
    const again = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', { product_package: pp.uuid, vulnerability_id: 'VCID-lodash', state: 'exploitable' });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ vulnerability_id: ['This product package already has an analysis of this vulnerability.'] });
    expect((await call('viewer', 'GET', `/api/v2/vulnerability_analyses/${created.json.uuid}/`)).status).toBe(200);
    expect((await call('stranger', 'GET', `/api/v2/vulnerability_analyses/${created.json.uuid}/`)).status).toBe(404);
    expect((await call('viewer', 'PATCH', `/api/v2/vulnerability_analyses/${created.json.uuid}/`, { state: 'resolved' })).status).toBe(403);
    const patched = await call('alice', 'PATCH', `/api/v2/vulnerability_analyses/${created.json.uuid}/`, { state: 'resolved', justification: null });
    expect(patched.json).toMatchObject({ state: 'resolved', justification: null, responses: ['will_not_fix'] });
    const moved = await call('alice', 'PATCH', `/api/v2/vulnerability_analyses/${created.json.uuid}/`, { vulnerability_id: 'VCID-other' });
    expect(moved.json).toEqual({ vulnerability_id: ['The vulnerability of an analysis cannot be changed.'] });
    const listed = await call('viewer', 'GET', `/api/v2/vulnerability_analyses/?product=${product.uuid}`);
    expect(listed.json.results.map((a: { uuid: string }) => a.uuid)).toEqual([created.json.uuid]);
    expect((await call('alice', 'DELETE', `/api/v2/vulnerability_analyses/${created.json.uuid}/`)).status).toBe(204);
    expect((await call('alice', 'GET', `/api/v2/vulnerability_analyses/${created.json.uuid}/`)).status).toBe(404);
  });

  it.each([
    [{ vulnerability_id: 'VCID-lodash' }, { non_field_errors: ['Give at least one of state, justification, responses or detail.'] }],
    [{ vulnerability_id: 'VCID-nope', state: 'in_triage' }, { vulnerability_id: ['Vulnerability "VCID-nope" does not affect the package of this product package.'] }],
    [{ vulnerability_id: 'VCID-lodash', state: 'fixed' }, { state: ['"fixed" is not a valid choice.'] }],
    [{ vulnerability_id: 'VCID-lodash', justification: 'because' }, { justification: ['"because" is not a valid choice.'] }],
    [{ vulnerability_id: 'VCID-lodash', responses: ['pray'] }, { responses: ['"pray" is not a valid choice.'] }],
  ])('refuse %j and store nothing', async (body, errors) => {
    const before = await snapshot();
    const response = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', { product_package: pp.uuid, ...body });
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('are written only by who may change the product, and not across dataspaces', async () => {
    const body = { product_package: pp.uuid, vulnerability_id: 'VCID-lodash', state: 'in_triage' };
    expect((await call('viewer', 'POST', '/api/v2/vulnerability_analyses/', body)).status).toBe(403);
    expect((await call('stranger', 'POST', '/api/v2/vulnerability_analyses/', body)).status).toBe(400);
    expect((await call('mallory', 'POST', '/api/v2/vulnerability_analyses/', body)).status).toBe(400);
  });

  it('refuse a package the vulnerability does not affect', async () => {
    const other = (await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: packages['pkg:npm/left-pad@1.3.0']!.uuid })).json;
    const response = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', { product_package: other.uuid, vulnerability_id: 'VCID-lodash', state: 'in_triage' });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json)).toEqual(['vulnerability_id']);
  });
});

describe('product packages of one package (?package=)', () => {
  it('name the products that use it, only those the caller may view, counted exactly', async () => {
    const lodash = packages['pkg:npm/lodash@4.17.20']!;
    const shared = await aProduct('Uses lodash');
    const hidden = (await call('root', 'POST', '/api/v2/products/', { name: 'Root uses lodash' })).json as { uuid: string; api_url: string };
    const other = await aProduct('Uses left-pad only');
    for (const product of [shared, hidden]) {
      expect((await call('root', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: lodash.uuid })).status).toBe(201);
    }
    expect((await call('root', 'POST', '/api/v2/product_packages/', { product: other.uuid, package: 'pkg:npm/left-pad@1.3.0' })).status).toBe(201);

    const asRoot = await call('root', 'GET', `/api/v2/product_packages/?package=${lodash.uuid}`);
    expect(asRoot.status, asRoot.text).toBe(200);
    const rootProducts = asRoot.json.results.map((pp: { product: string }) => pp.product);
    expect(rootProducts).toEqual(expect.arrayContaining([shared.api_url, hidden.api_url]));
    expect(rootProducts).not.toContain(other.api_url);
    expect(asRoot.json.count).toBe(asRoot.json.results.length);
    expect(asRoot.json.results.every((pp: { package: string }) => pp.package === lodash.api_url)).toBe(true);

    // The viewer sees the product shared with them, not root's own.
    const asViewer = await call('viewer', 'GET', `/api/v2/product_packages/?package=${encodeURIComponent('pkg:npm/lodash@4.17.20')}`);
    expect(asViewer.status, asViewer.text).toBe(200);
    const viewerProducts = asViewer.json.results.map((pp: { product: string }) => pp.product);
    expect(viewerProducts).toContain(shared.api_url);
    expect(viewerProducts).not.toContain(hidden.api_url);
    expect(asViewer.json.count).toBe(viewerProducts.length);
    expect((await call('stranger', 'GET', `/api/v2/product_packages/?package=${lodash.uuid}`)).json).toEqual({ count: 0, next: null, previous: null, results: [] });

    // With ?product=, the one product package; pages keep the filter.
    const one = await call('root', 'GET', `/api/v2/product_packages/?package=${lodash.api_url}&product=${hidden.uuid}`);
    expect(one.json.count).toBe(1);
    expect(one.json.results[0].product).toBe(hidden.api_url);
    const paged = await call('root', 'GET', `/api/v2/product_packages/?package=${lodash.uuid}&page_size=1`);
    expect(paged.json.results).toHaveLength(1);
    expect(paged.json.next).toContain(`package=${lodash.uuid}`);
  });

  it('answer a 400 for a package not in the dataspace, another dataspace\'s as if it did not exist', async () => {
    const lodash = packages['pkg:npm/lodash@4.17.20']!;
    const fromBeta = await call('mallory', 'GET', `/api/v2/product_packages/?package=${lodash.uuid}`);
    expect(fromBeta.status).toBe(400);
    expect(fromBeta.json).toEqual({ package: [`No package "${lodash.uuid}" in this dataspace.`] });
    const nowhere = await call('root', 'GET', '/api/v2/product_packages/?package=pkg:npm/nowhere@1');
    expect(nowhere.status).toBe(400);
    expect(nowhere.json).toEqual({ package: ['No package "pkg:npm/nowhere@1" in this dataspace.'] });
    expect((await call('root', 'GET', '/api/v2/product_packages/?package=not-a-thing')).status).toBe(400);
  });
});

describe("a product's inventory, filtered", () => {
  it('filters by name or purl, license (the concluded one when set), usage policy, unknown license and vulnerability, and answers SPDX ids', async () => {
    expect((await call('root', 'POST', '/api/v2/usage_policies/', { label: 'Inventory review', content_type: 'package', compliance_alert: 'warning' })).status).toBe(201);
    const mit = await call('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/inv-mit@1.0.0', license_expression: 'mit', usage_policy: 'Inventory review' });
    const odd = await call('root', 'POST', '/api/v2/packages/', { purl: 'pkg:pypi/inv-odd@2.0.0', license_expression: 'Some Odd Licence' });
    expect([mit.status, odd.status]).toEqual([201, 201]);
    const product = await aProduct('Inventory');
    for (const pkg of [mit.json, odd.json, packages['pkg:npm/lodash@4.17.20']!]) {
      expect((await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: pkg.uuid })).status).toBe(201);
    }
    // Concluded for this product: apache-2.0 instead of lodash's own.
    const lodashHeld = (await call('alice', 'GET', `/api/v2/product_packages/?product=${product.uuid}&package=${packages['pkg:npm/lodash@4.17.20']!.uuid}`)).json.results[0];
    expect((await call('alice', 'PATCH', `/api/v2/product_packages/${lodashHeld.uuid}/`, { license_expression: 'apache-2.0' })).status).toBe(200);
    const purls = async (query: string) => {
      const response = await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/?${query}`);
      expect(response.status, response.text).toBe(200);
      return (response.json.results as { purl: string }[]).map((pkg) => pkg.purl);
    };
    expect(await purls('')).toEqual(['pkg:npm/inv-mit@1.0.0', 'pkg:npm/lodash@4.17.20', 'pkg:pypi/inv-odd@2.0.0']);
    expect(await purls('search=INV')).toEqual(['pkg:npm/inv-mit@1.0.0', 'pkg:pypi/inv-odd@2.0.0']);
    expect(await purls('search=pypi')).toEqual(['pkg:pypi/inv-odd@2.0.0']);
    expect(await purls('license=MIT')).toEqual(['pkg:npm/inv-mit@1.0.0']);
    expect(await purls('license=apache-2.0')).toEqual(['pkg:npm/lodash@4.17.20']);
    expect(await purls('usage_policy=Inventory%20review')).toEqual(['pkg:npm/inv-mit@1.0.0']);
    expect(await purls('has_unknown_license=true')).toEqual(['pkg:pypi/inv-odd@2.0.0']);
    expect(await purls('vulnerable=true')).toEqual(['pkg:npm/lodash@4.17.20']);
    expect(await purls('vulnerable=false&has_unknown_license=false')).toEqual(['pkg:npm/inv-mit@1.0.0']);
    const lodash = (await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/?vulnerable=true`)).json.results[0];
    expect(lodash).toMatchObject({ concluded_license_expression: 'apache-2.0', concluded_license_expression_spdx: 'Apache-2.0' });
    const bad = await call('viewer', 'GET', `/api/v2/products/${product.uuid}/packages/?vulnerable=yes`);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ vulnerable: ['"yes" is not a valid choice; use true or false.'] });
  });
});
