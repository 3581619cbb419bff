/**
 * The catalog pages of the console in Chromium against `npm start`, with the data of a real SBOM
 * (npm sbom's own output on this repository) and a VEX: licenses and the reference library (Adopt),
 * packages and a package's "Used in products", vulnerabilities with their risk, analyses and affected
 * products; and, with the Go vulnerability database's records loaded (test/fixtures/osv/go), the
 * advisories held, a published advisory's source and "fixed in" versions, on its page and in an inventory. Every page: axe-core (no serious or critical finding), labelled controls, 360 px wide.
 */
/// <reference lib="dom" />
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, accessibilityFindings, screenshot, unlabelledControls, useConsoleStack, widestOutsideTables } from '../support/console-browser.ts';
import { riskBand } from '../../web/src/lib/catalog-display.ts';
import { npmRunAdmin } from '../support/npm-start.ts';
import { eventually } from '../support/local-stack.ts';

const consoleStack = useConsoleStack();
const { root: rootKey, alice: aliceKey } = consoleStack.keys;
const { api, created, loadSbom, newPage, signedInPage } = consoleStack;

/** A real package of npm-sbom-prod.cdx.json, with a scoped (percent-encoded) purl, and the one the VEX affects. */
const SCOPED_PURL = 'pkg:npm/%40aws-lambda-powertools/batch@2.35.0';
const AFFECTED_PURL = 'pkg:npm/uri-js@4.4.1';
const VULNERABILITY_ID = 'CVE-2099-10001';
/** A real Go module version three records of the Go vulnerability database affect; GO-2020-0001 is fixed in 1.6.0. */
const GIN_PURL = 'pkg:golang/github.com/gin-gonic/gin@v1.4.0';
const GIN_ADVISORY = 'GO-2020-0001';

let product: { uuid: string; name: string; version: string };
let sbomLicense: { key: string; name: string };
let goService: { uuid: string; name: string; version: string };

beforeAll(async () => {
  product = await created(rootKey, '/api/v2/products/', { name: 'Parse service', version: '1.0' });
  const imported = await loadSbom(rootKey, product.uuid, 'npm-sbom-prod.cdx.json');
  expect(imported.summary.added).toBe(34);
  const vex = await loadSbom(rootKey, product.uuid, 'vex.cdx.json');
  expect(vex.summary.analyses).toBeGreaterThan(0);
  const granted = await api(rootKey, 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'alice', permissions: ['view_product'] });
  expect(granted.status, JSON.stringify(granted.body)).toBe(200);
  // The license the SBOM declares for a real package, adopted under a policy, so the list shows it in colour.
  await created(rootKey, '/api/v2/usage_policies/', { label: 'Approved', content_type: 'license', compliance_alert: '' });
  await created(rootKey, '/api/v2/usage_policies/', { label: 'Review first', content_type: 'package', compliance_alert: 'warning' });
  const scoped = await api(rootKey, 'GET', `/api/v2/packages/?purl=${encodeURIComponent(SCOPED_PURL)}`);
  expect(scoped.body.count).toBe(1);
  const key = scoped.body.results[0].license_expression as string;
  expect(key).toMatch(/^[a-z0-9.-]+$/);
  sbomLicense = await created(rootKey, '/api/v2/licenses/', { key, usage_policy: 'Approved' });
  const affected = await api(rootKey, 'GET', `/api/v2/packages/?purl=${encodeURIComponent(AFFECTED_PURL)}`);
  const patched = await api(rootKey, 'PATCH', `/api/v2/packages/${affected.body.results[0].uuid}/`, { usage_policy: 'Review first' });
  expect(patched.status).toBe(200);
  // Published advisories, loaded as the README loads them; a product holding a module they affect, linked by the stack's pipeline.
  const advisories = await npmRunAdmin(consoleStack.dataDir, 'vulnerabilities', 'load', 'test/fixtures/osv/go');
  expect(advisories.status, advisories.stderr).toBe(0);
  goService = await created(rootKey, '/api/v2/products/', { name: 'Go service', version: '2.1' });
  const gin = await created<{ uuid: string }>(rootKey, '/api/v2/packages/', { purl: GIN_PURL });
  await created(rootKey, '/api/v2/product_packages/', { product: goService.uuid, package: gin.uuid });
  await eventually(
    async () => (await api<{ affected_by_vulnerabilities: string[] }>(rootKey, 'GET', `/api/v2/packages/${gin.uuid}/`)).body.affected_by_vulnerabilities,
    (ids) => ids.includes(GIN_ADVISORY),
  );
}, 180_000);

/** The checks every page passes: no serious or critical axe finding, every control labelled. */
async function accessible(page: Page): Promise<void> {
  expect(await accessibilityFindings(page)).toEqual([]);
  expect(await unlabelledControls(page)).toEqual([]);
}

/** The same route at 360 px: nothing but a table's frame is wider than the screen, and the page passes axe. */
async function narrow(route: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  // Opened at the route itself, then signed in: the console shows the page the address names.
  const page = await newPage(NARROW);
  await page.goto(`${consoleStack.stack.apiUrl}/${route}`);
  await page.getByLabel('API key').fill(rootKey);
  await page.getByLabel('API key').press('Enter');
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await ready(page);
  const widest = await widestOutsideTables(page, NARROW.width);
  expect(widest.elements).toEqual([]);
  expect(widest.width).toBeLessThanOrEqual(NARROW.width);
  await accessible(page);
}

const main = (page: Page) => page.getByRole('main');
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

describe('the catalog pages in Chromium', { timeout: 120_000 }, () => {
  it('Licenses: the dataspace\'s licenses with their policy, the reference library searched, one adopted', async () => {
    const page = await signedInPage(rootKey);
    await nav(page, 'Licenses');
    await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
    const ownTable = page.getByRole('table', { name: 'Licenses of the dataspace' });
    const sbomRow = ownTable.getByRole('row').filter({ hasText: sbomLicense.name });
    await sbomRow.waitFor();
    expect(await sbomRow.textContent()).toContain(sbomLicense.key);
    expect(await sbomRow.textContent()).toContain('Approved');

    await page.getByLabel('Search the reference library').fill('apache-2.0');
    await page.getByRole('button', { name: 'Search the library' }).click();
    const results = page.getByRole('table', { name: /Reference licenses matching/ });
    const adopt = results.getByRole('button', { name: 'Adopt apache-2.0', exact: true });
    await adopt.waitFor();
    await accessible(page);
    await adopt.click();
    await page.getByRole('status').filter({ hasText: 'adopted into the dataspace' }).waitFor();
    const adoptedRow = results.getByRole('row').filter({ has: page.getByText('apache-2.0', { exact: true }) });
    expect(await adoptedRow.textContent()).toContain('Adopted');
    expect(await adoptedRow.getByRole('button').count()).toBe(0);
    await ownTable.getByText('apache-2.0', { exact: true }).waitFor();
    await screenshot(page, 'licenses');
    const answer = await api(rootKey, 'GET', '/api/v2/licenses/?key=apache-2.0');
    expect(answer.body.results.map((l: { spdx_license_key: string }) => l.spdx_license_key)).toEqual(['Apache-2.0']);

    // The dataspace list's filters are the API's.
    await page.getByLabel('Search licenses').fill('apache');
    await page.getByRole('button', { name: 'Filter licenses' }).click();
    await page.waitForURL(/search=apache/);
    await main(page).getByText('1 license').waitFor();
    expect(await ownTable.textContent()).not.toContain(sbomLicense.name);
    await accessible(page);

    await narrow('#/licenses?ref=apache', (narrowPage) => narrowPage.getByRole('table', { name: /Reference licenses matching/ }).getByText('apache-2.0', { exact: true }).waitFor());
  });

  it('Licenses: a user who is not a superuser searches the library but is offered no Adopt', async () => {
    const page = await signedInPage(aliceKey);
    await nav(page, 'Licenses');
    await page.getByLabel('Search the reference library').fill('gpl-3.0');
    await page.getByRole('button', { name: 'Search the library' }).click();
    const results = page.getByRole('table', { name: /Reference licenses matching/ });
    await results.getByText('gpl-3.0', { exact: true }).first().waitFor();
    expect(await main(page).getByRole('button', { name: /Adopt/ }).count()).toBe(0);
    expect(await results.textContent()).toContain('Not adopted');
    await accessible(page);
  });

  it('Packages: searched, purls decoded, and a package\'s page shows its licenses, vulnerability and the products that use it', async () => {
    const page = await signedInPage(rootKey);
    await nav(page, 'Packages');
    await page.getByRole('heading', { name: 'Packages', level: 1 }).waitFor();
    // 34 components and the Go module, 20 a page; the scoped ones read with "@", never "%40".
    await main(page).getByText('35 packages, page 1').waitFor();
    expect(await page.getByRole('table', { name: 'Packages' }).textContent()).not.toContain('%40');
    await accessible(page);
    await screenshot(page, 'packages');
    await main(page).getByRole('link', { name: 'Next page →' }).click();
    await main(page).getByText('35 packages, page 2').waitFor();
    await expect.poll(() => page.getByRole('table', { name: 'Packages' }).getByRole('link').count()).toBe(15);
    await page.getByLabel('Search packages').fill('powertools');
    await page.getByRole('button', { name: 'Filter packages' }).click();
    await page.getByRole('link', { name: 'pkg:npm/@aws-lambda-powertools/batch@2.35.0' }).waitFor();
    expect(await page.getByRole('table', { name: 'Packages' }).textContent()).not.toContain('%40');
    await main(page).getByText('3 packages').waitFor();

    await page.getByLabel('Search packages').fill('uri-js');
    await page.getByRole('button', { name: 'Filter packages' }).click();
    const row = page.getByRole('row').filter({ hasText: AFFECTED_PURL });
    await row.waitFor();
    expect(await row.textContent()).toContain('Review first');
    await row.getByRole('link', { name: AFFECTED_PURL }).click();
    await page.getByRole('heading', { name: 'uri-js 4.4.1', level: 1 }).waitFor();
    const used = page.getByRole('region', { name: 'Used in products' });
    await used.getByRole('link', { name: 'Parse service 1.0' }).waitFor();
    expect(await used.textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    await page.getByRole('region', { name: 'Vulnerabilities' }).getByRole('link', { name: VULNERABILITY_ID }).waitFor();
    await page.getByRole('region', { name: 'Licenses' }).getByText('BSD-2-Clause').first().waitFor();
    await accessible(page);
    await screenshot(page, 'package');

    // The product link leads to the product.
    await used.getByRole('link', { name: 'Parse service 1.0' }).click();
    await page.getByRole('heading', { name: /Parse service/, level: 1 }).waitFor();

    const pkgUuid = (await api(rootKey, 'GET', `/api/v2/packages/?purl=${encodeURIComponent(AFFECTED_PURL)}`)).body.results[0].uuid as string;
    await narrow('#/packages?search=aws', (narrowPage) => narrowPage.getByRole('table', { name: 'Packages' }).getByText(/@aws-sdk/).first().waitFor());
    await narrow(`#/packages/${pkgUuid}`, (narrowPage) => narrowPage.getByRole('region', { name: 'Used in products' }).getByRole('link', { name: 'Parse service 1.0' }).waitFor());
  });

  it('Packages and vulnerabilities: a viewer sees only the products they may view; an unknown package is Not found', async () => {
    const hidden = await created(rootKey, '/api/v2/products/', { name: 'Root only', version: '' });
    await created(rootKey, '/api/v2/product_packages/', { product: hidden.uuid, package: AFFECTED_PURL });
    const pkgUuid = (await api(aliceKey, 'GET', `/api/v2/packages/?purl=${encodeURIComponent(AFFECTED_PURL)}`)).body.results[0].uuid as string;
    const page = await signedInPage(aliceKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/packages/${pkgUuid}`);
    const used = page.getByRole('region', { name: 'Used in products' });
    await used.getByRole('link', { name: 'Parse service 1.0' }).waitFor();
    expect(await used.textContent()).not.toContain('Root only');
    const vulnerability = (await api(aliceKey, 'GET', `/api/v2/vulnerabilities/?vulnerability_id=${VULNERABILITY_ID}`)).body.results[0];
    await page.goto(`${consoleStack.stack.apiUrl}/#/vulnerabilities/${vulnerability.uuid}`);
    const affected = page.getByRole('region', { name: 'Affected products' });
    await affected.getByRole('link', { name: 'Parse service 1.0' }).waitFor();
    expect(await affected.textContent()).not.toContain('Root only');
    await page.goto(`${consoleStack.stack.apiUrl}/#/packages/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').filter({ hasText: 'Not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to the packages' }).waitFor();
    const rootPage = await signedInPage(rootKey);
    await rootPage.goto(`${consoleStack.stack.apiUrl}/#/packages/${pkgUuid}`);
    await rootPage.getByRole('region', { name: 'Used in products' }).getByRole('link', { name: 'Root only' }).waitFor();
  });

  it('Vulnerabilities: the list with risk in words, and a vulnerability with its analysis and the affected product', async () => {
    const vulnerability = (await api(rootKey, 'GET', `/api/v2/vulnerabilities/?vulnerability_id=${VULNERABILITY_ID}`)).body.results[0];
    const risk = `${(vulnerability.risk_score as number).toFixed(1)} ${riskBand(vulnerability.risk_score).label}`;
    const page = await signedInPage(rootKey);
    await nav(page, 'Vulnerabilities');
    await page.getByRole('heading', { name: 'Vulnerabilities', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: VULNERABILITY_ID }) });
    await row.waitFor();
    expect(await row.textContent()).toContain(risk);
    expect(await row.textContent()).toContain('crafted URI');
    await accessible(page);
    await screenshot(page, 'vulnerabilities');

    await row.getByRole('link', { name: VULNERABILITY_ID }).click();
    await page.getByRole('heading', { name: VULNERABILITY_ID, level: 1 }).waitFor();
    const products = page.getByRole('region', { name: 'Affected products' });
    await products.getByRole('link', { name: 'Parse service 1.0' }).waitFor();
    expect(await products.textContent()).toContain(AFFECTED_PURL);
    const analyses = page.getByRole('region', { name: 'Analyses' });
    const analysis = analyses.getByRole('row').filter({ hasText: 'not affected' });
    await analysis.waitFor();
    expect(await analysis.textContent()).toContain('code not reachable');
    expect(await analysis.textContent()).toContain('Parse service 1.0');
    expect(await page.getByRole('main').textContent()).toContain(risk);
    await accessible(page);
    await screenshot(page, 'vulnerability');

    await narrow('#/vulnerabilities', (narrowPage) => narrowPage.getByRole('link', { name: VULNERABILITY_ID }).waitFor());
    await narrow(`#/vulnerabilities/${vulnerability.uuid}`, (narrowPage) => narrowPage.getByRole('region', { name: 'Analyses' }).getByText('not affected').waitFor());
  });

  it('Vulnerabilities: the advisories held, a published advisory with its source and the version that fixes each package, and "fixed in" in the inventory', async () => {
    const page = await signedInPage(rootKey);
    await nav(page, 'Vulnerabilities');
    const held = page.getByRole('region', { name: 'Published advisories' });
    await held.getByText(/Go: 78 records, last loaded/).waitFor();
    expect(await held.textContent()).toContain('(not synced)');
    const typed = page.getByRole('row').filter({ has: page.getByRole('link', { name: VULNERABILITY_ID }) });
    expect(await typed.textContent()).toContain('SBOM or VEX');

    await page.getByLabel('Vulnerability id (exact)').fill(GIN_ADVISORY);
    await page.getByRole('button', { name: 'Find' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: GIN_ADVISORY }) });
    await row.waitFor();
    expect(await row.textContent()).toContain('published advisory');
    await row.getByRole('link', { name: GIN_ADVISORY }).click();
    await page.getByRole('heading', { name: GIN_ADVISORY, level: 1 }).waitFor();
    const affectedRow = page.getByRole('region', { name: 'Affected packages' }).getByRole('row').filter({ hasText: 'gin' });
    await affectedRow.waitFor();
    expect(await affectedRow.textContent()).toMatch(/1\.6\.0.*matched by GO-2020-0001/);
    await page.getByRole('region', { name: 'Affected products' }).getByRole('link', { name: 'Go service 2.1' }).waitFor();
    await accessible(page);
    await screenshot(page, 'vulnerability-advisory');

    // The product's inventory: each vulnerability of the module with the version that fixes it.
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${goService.uuid}/packages`);
    const gin = page.getByRole('table', { name: 'Inventory' }).locator(`tr[data-purl="${GIN_PURL}"]`);
    await gin.getByText(GIN_ADVISORY).waitFor();
    expect(await gin.getByRole('listitem').filter({ hasText: GIN_ADVISORY }).textContent()).toBe(`${GIN_ADVISORY}fixed in 1.6.0`);
    await accessible(page);
    await screenshot(page, 'product-inventory-fixed-in');

    await narrow('#/vulnerabilities', (narrowPage) => narrowPage.getByRole('region', { name: 'Published advisories' }).getByText(/Go: 78 records/).waitFor());
  });
});
