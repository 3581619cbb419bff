/**
 * Lists answer `count` from counter items kept in the writes' transactions (shared/store/counters.ts):
 * the unfiltered list and each documented equality filter on its own. These tests write through the
 * API (creates, updates that move an object between filter values, deletes, concurrent creates) and
 * check every such count against the objects the unfiltered pages hold, so a write that forgot a
 * counter, or a count read from the wrong counter, shows as a wrong number.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { CATALOG_SPECS, catalogSeedItems, type CatalogObject } from '../../shared/store/catalog-store.ts';
import { partitionQueryInput, queryAll } from '../../shared/store/dynamo.ts';
import { keys } from '../../shared/keys.ts';
import { aPackage } from '../support/factories.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true } } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call } = http;

async function ok(method: string, path: string, body?: unknown, as = 'root') {
  const response = await call(as, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.json;
}

/**
 * Every object of a catalog collection of the dataspace, as stored: read from the table, not through
 * the list, whose pages stop at the count the counters give.
 */
async function stored<K extends 'licenses' | 'packages' | 'vulnerabilities'>(collection: K, dataspace = 'acme') {
  const spec = CATALOG_SPECS[collection];
  const items = await queryAll(http.env.doc, partitionQueryInput(http.env.tableName, keys.catalogOfDataspace(spec.type, dataspace)));
  return items.map((item) => spec.fromItem(item) as CatalogObject<K>);
}

const count = async (collection: string, query = '', as = 'root') => Number((await ok('GET', `/api/v2/${collection}/?page_size=1${query}`, undefined, as)).count);

/** Each documented single-filter count of the package list (for up to `values` values of each field), against the objects themselves. */
async function expectPackageCounts(values = Infinity) {
  const packages = await stored('packages');
  expect(await count('packages')).toBe(packages.length);
  for (const field of ['name', 'version', 'type'] as const) {
    for (const value of [...new Set(packages.map((p) => p[field]))].slice(0, values)) {
      expect(await count('packages', `&${field}=${encodeURIComponent(value)}`), `${field}=${value}`).toBe(packages.filter((p) => p[field] === value).length);
    }
  }
  const unknown = packages.filter((p) => p.licenseKeys.includes('unknown-license-reference')).length;
  expect(await count('packages', '&has_unknown_license=true')).toBe(unknown);
  expect(await count('packages', '&has_unknown_license=false')).toBe(packages.length - unknown);
}

describe('list counts from counters', () => {
  it('follow package creates, updates between filter values, deletes and concurrent creates', async () => {
    await ok('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT' });
    const created = [];
    for (const [i, purl] of ['pkg:npm/left-pad@1.0.0', 'pkg:npm/left-pad@1.1.0', 'pkg:pypi/requests@2.0.0', 'pkg:maven/org.acme/core@1.0.0'].entries()) {
      created.push(await ok('POST', '/api/v2/packages/', { purl, license_expression: i % 2 === 0 ? 'mit' : 'mit AND SomeVendorLicense' }));
    }
    await expectPackageCounts();
    expect(await count('packages', '&name=left-pad')).toBe(2);
    // Moves between name, version, type and has_unknown_license values at once.
    await ok('PATCH', `/api/v2/packages/${created[0].uuid}/`, { type: 'pypi', name: 'flask', version: '3.0.0', license_expression: 'Unheard-Of-License' });
    await ok('DELETE', `/api/v2/packages/${created[1].uuid}/`);
    await expectPackageCounts();
    // Sixteen at once: each lands on a random shard of each counter; the sum is still exact.
    await Promise.all(Array.from({ length: 16 }, (_, i) => ok('POST', '/api/v2/packages/', { purl: `pkg:npm/burst@${i}.0.0`, license_expression: 'mit' })));
    await expectPackageCounts();
    expect(await count('packages', '&name=burst')).toBe(16);
    // Another dataspace counts none of them.
    expect(await count('packages', '', 'mallory')).toBe(0);
    expect(await count('packages', '&name=burst', 'mallory')).toBe(0);
  });

  it('follow an SBOM import from a real producer (cdxgen), and its re-import', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Imported and counted' });
    const document = readFileSync(new URL('../fixtures/sbom/cdxgen-11-full.cdx.json', import.meta.url));
    const load = async () => {
      const response = await fetch(`${http.api.url}/api/v2/products/${product.uuid}/load_sboms/`, {
        method: 'POST',
        headers: { authorization: `Token ${http.team.keys.root}`, 'content-type': 'application/vnd.cyclonedx+json' },
        body: document,
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as { summary: Record<string, unknown> };
    };
    await load();
    const packages = await stored('packages');
    expect(packages.length).toBeGreaterThan(50);
    await expectPackageCounts(8);
    expect(await count('vulnerabilities')).toBe((await stored('vulnerabilities')).length);
    // Re-importing changes nothing, counts included.
    await load();
    expect(await count('packages')).toBe(packages.length);
    await expectPackageCounts(8);
  }, 120_000);

  it('follow product packages added, removed, imported, and deleted with their product', async () => {
    // What the table holds: the dataspace's product packages, and one product's.
    const held = async (product?: string) => {
      const items = await queryAll(http.env.doc, partitionQueryInput(http.env.tableName, keys.productPackagesOfDataspace('acme')));
      return items.filter((item) => product === undefined || item.productUuid === product).length;
    };
    const expectCounts = async (...products: string[]) => {
      expect(await count('product_packages')).toBe(await held());
      for (const product of products) expect(await count('product_packages', `&product=${product}`), product).toBe(await held(product));
    };
    const [one, two] = [await ok('POST', '/api/v2/products/', { name: 'Holds packages' }), await ok('POST', '/api/v2/products/', { name: 'Holds more' })];
    const pkgs = await Promise.all(['pkg:npm/a@1.0.0', 'pkg:npm/b@1.0.0', 'pkg:npm/c@1.0.0'].map((purl) => ok('POST', '/api/v2/packages/', { purl })));
    const added = [];
    for (const pkg of pkgs) added.push(await ok('POST', '/api/v2/product_packages/', { product: one.api_url, package: pkg.uuid }));
    await ok('POST', '/api/v2/product_packages/', { product: two.api_url, package: pkgs[0].uuid });
    await expectCounts(one.uuid, two.uuid);
    expect(await count('product_packages', `&product=${one.uuid}`)).toBe(3);
    await ok('PATCH', `/api/v2/product_packages/${added[0].uuid}/`, { is_modified: true });
    await ok('DELETE', `/api/v2/product_packages/${added[1].uuid}/`);
    await expectCounts(one.uuid, two.uuid);
    expect(await count('product_packages', `&product=${one.uuid}`)).toBe(2);
    // An import adds the document's packages to the product, and a replacing import removes what it does not name.
    const document = readFileSync(new URL('../fixtures/sbom/cyclonedx-npm-1.6-prod.cdx.json', import.meta.url));
    const load = async (query = '') => {
      const response = await fetch(`${http.api.url}/api/v2/products/${two.uuid}/load_sboms/${query}`, {
        method: 'POST',
        headers: { authorization: `Token ${http.team.keys.root}`, 'content-type': 'application/vnd.cyclonedx+json' },
        body: document,
      });
      expect(response.status, await response.clone().text()).toBe(200);
    };
    await load();
    const imported = await held(two.uuid);
    expect(imported).toBeGreaterThan(10);
    await expectCounts(one.uuid, two.uuid);
    // One more by hand; importing again (mode replace, the default) removes it.
    await ok('POST', '/api/v2/product_packages/', { product: two.api_url, package: pkgs[1].uuid });
    expect(await count('product_packages', `&product=${two.uuid}`)).toBe(imported + 1);
    await load();
    expect(await held(two.uuid)).toBe(imported);
    await expectCounts(one.uuid, two.uuid);
    await ok('DELETE', `/api/v2/products/${two.uuid}/`);
    expect(await held(two.uuid)).toBe(0);
    await expectCounts(one.uuid);
  }, 120_000);

  it('follow license creates, updates and deletes for spdx_license_key, category and is_exception', async () => {
    const gpl = await ok('POST', '/api/v2/licenses/', { key: 'gpl-2.0', name: 'GPL 2.0', spdx_license_key: 'GPL-2.0-only', category: 'Copyleft' });
    await ok('POST', '/api/v2/licenses/', { key: 'classpath', name: 'Classpath', spdx_license_key: 'Classpath-exception-2.0', category: 'Copyleft', is_exception: true });
    const bsd = await ok('POST', '/api/v2/licenses/', { key: 'bsd-new', name: 'BSD', spdx_license_key: 'BSD-3-Clause', category: 'Permissive' });
    const expectLicenseCounts = async () => {
      const licenses = await stored('licenses');
      expect(await count('licenses')).toBe(licenses.length);
      for (const category of ['Copyleft', 'Permissive']) expect(await count('licenses', `&category=${category}`)).toBe(licenses.filter((l) => l.category === category).length);
      for (const flag of [true, false]) expect(await count('licenses', `&is_exception=${flag}`)).toBe(licenses.filter((l) => l.isException === flag).length);
      // Any letter case finds the SPDX id, and counts the same.
      for (const spdx of ['GPL-2.0-only', 'gpl-2.0-ONLY', 'BSD-3-Clause', 'MIT']) {
        expect(await count('licenses', `&spdx_license_key=${spdx}`), spdx).toBe(licenses.filter((l) => l.spdxLicenseKey.toLowerCase() === spdx.toLowerCase()).length);
      }
    };
    await expectLicenseCounts();
    expect(await count('licenses', '&category=Copyleft')).toBeGreaterThanOrEqual(2);
    await ok('PATCH', `/api/v2/licenses/${gpl.uuid}/`, { category: 'Permissive', spdx_license_key: 'MIT' });
    await ok('DELETE', `/api/v2/licenses/${bsd.uuid}/`);
    await expectLicenseCounts();
  });

  it('follow products by version, vulnerabilities and usage policies', async () => {
    const first = await ok('POST', '/api/v2/products/', { name: 'Counted', version: '1.0' });
    await ok('POST', '/api/v2/products/', { name: 'Counted too', version: '1.0' });
    expect(await count('products', '&version=1.0')).toBe(2);
    await ok('PATCH', `/api/v2/products/${first.uuid}/`, { version: '2.0' });
    expect([await count('products', '&version=1.0'), await count('products', '&version=2.0')]).toEqual([1, 1]);
    await ok('DELETE', `/api/v2/products/${first.uuid}/`);
    expect([await count('products', '&version=1.0'), await count('products', '&version=2.0')]).toEqual([1, 0]);

    const policies = await count('usage_policies');
    const policy = await ok('POST', '/api/v2/usage_policies/', { label: 'Counted policy', content_type: 'package' });
    expect(await count('usage_policies')).toBe(policies + 1);
    await ok('DELETE', `/api/v2/usage_policies/${policy.uuid}/`);
    expect(await count('usage_policies')).toBe(policies);

    const vulnerability = await ok('POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-count-1' });
    const vulnerabilities = (await stored('vulnerabilities')).length;
    expect(vulnerabilities).toBeGreaterThan(0);
    expect(await count('vulnerabilities')).toBe(vulnerabilities);
    await ok('DELETE', `/api/v2/vulnerabilities/${vulnerability.uuid}/`);
    expect(await count('vulnerabilities')).toBe(vulnerabilities - 1);
  });

  it('count an object written before counters once it is written again, and never below zero', async () => {
    // A package as a deployment of the previous version left it: no list counters moved, no mark.
    const legacy = aPackage({ dataspace: 'beta', type: 'golang', namespace: 'example.com', name: 'legacy', version: '1.0.0' });
    const [item, reservation] = catalogSeedItems(CATALOG_SPECS.packages, legacy);
    expect(item).not.toHaveProperty('listCounted');
    for (const Item of [item, reservation]) await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item }));
    expect(await count('packages', '', 'mallory')).toBe(0);
    await ok('PATCH', `/api/v2/packages/${legacy.uuid}/`, { version: '1.0.1' }, 'mallory');
    expect([await count('packages', '', 'mallory'), await count('packages', '&version=1.0.1', 'mallory'), await count('packages', '&version=1.0.0', 'mallory')]).toEqual([1, 1, 0]);
    await ok('DELETE', `/api/v2/packages/${legacy.uuid}/`, undefined, 'mallory');
    expect(await count('packages', '', 'mallory')).toBe(0);
  });
});
