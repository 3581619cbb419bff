/**
 * The product page with real SBOMs, in Chromium against `npm start`: Upload SBOM through the file picker
 * (a real npm sbom document straight to load_sboms; a real cyclonedx-npm document through the upload URL,
 * PUT by the browser to the S3 emulator's origin with both progress bars), the import summary equal to the
 * API's answer, the inventory (decoded purls, concluded and declared licenses, usage policies in colour
 * and words, vulnerabilities), waivers added and revoked, and both downloads validated by the schemas the
 * export tests use. Accessibility (axe), labels and the 360 px layout on every state shown.
 */
/// <reference lib="dom" />
import { checkCycloneDxXml } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { checkSpdx3 } from '../../shared/sbom/spdx3.ts';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { NARROW, SBOM_FIXTURES, accessibilityFindings, screenshot, unlabelledControls, useConsoleStack, widestOutsideTables } from '../support/console-browser.ts';
import { cycloneDxSchemaErrors, spdxSchemaErrors } from '../support/sbom-validation.ts';

const consoleStack = useConsoleStack({
  usage_policies: [
    { label: 'Approved', dataspace: 'acme', content_type: 'license', compliance_alert: '', description: 'Fine to ship.' },
    { label: 'Restricted', dataspace: 'acme', content_type: 'license', compliance_alert: 'warning' },
    { label: 'Forbidden', dataspace: 'acme', content_type: 'license', compliance_alert: 'error' },
  ],
  licenses: [
    { dataspace: 'acme', key: 'mit', usage_policy: 'Approved' },
    { dataspace: 'acme', key: 'apache-2.0', usage_policy: 'Restricted' },
    { dataspace: 'acme', key: 'unlicense', usage_policy: 'Forbidden' },
  ],
});
const { root: rootKey } = consoleStack.keys;
const { api, created, signedInPage } = consoleStack;

const SMALL = 'npm-sbom-prod.cdx.json'; // npm sbom, CycloneDX 1.5, 34 components (40 KB)
const LARGE = 'cyclonedx-npm-1.6-prod.cdx.json'; // cyclonedx-npm, CycloneDX 1.6, 92 components (161 KB)
const MIDDY = 'pkg:npm/%40middy/core@7.9.2'; // as the API holds it: percent-encoded

async function expectAccessible(page: Page, what: string): Promise<void> {
  await expect(accessibilityFindings(page), what).resolves.toEqual([]);
  await expect(unlabelledControls(page), what).resolves.toEqual([]);
}

/** Picks `fixture` in the file chooser that Upload SBOM opens. */
async function uploadThroughPicker(page: Page, fixture: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Upload SBOM' }).click()]);
  await chooser.setFiles(join(SBOM_FIXTURES, fixture));
}

/** The figures the Import summary shows, by their terms. */
async function shownFigures(page: Page): Promise<Record<string, string>> {
  const summary = page.getByRole('region', { name: 'Import summary' });
  return summary.locator('dd[data-figure]').evaluateAll((cells) => Object.fromEntries(cells.map((cell) => [cell.getAttribute('data-figure'), cell.textContent ?? ''])));
}

function expectSummaryOf(figures: Record<string, string>, answer: any): void {
  const summary = answer.summary;
  expect(figures).toMatchObject({
    added: String(summary.added),
    removed: String(summary.removed),
    unchanged: String(summary.unchanged),
    skipped: String(summary.skipped.length),
    unknown_licenses: String(summary.unknown_licenses.length),
  });
  expect(figures.components).toContain(`${summary.components} (${summary.packages_created} new`);
}

describe('the product page with real SBOMs', () => {
  it('uploads an SBOM through the picker, shows the import summary, the inventory, waivers, and downloads every format (and loads the XML back)', async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: 'Shop', version: '1.0.0' });
    const page = await signedInPage(rootKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/packages`);
    await page.getByText('This product has no packages yet').waitFor();
    await expect(page.getByRole('group', { name: 'When the SBOM is loaded' }).getByRole('radio', { name: 'Replace' }).isChecked()).resolves.toBe(true);

    // The small path: the document itself to load_sboms, in the mode chosen.
    const loaded = page.waitForResponse((response) => response.url().includes(`/products/${product.uuid}/load_sboms/`) && response.request().method() === 'POST');
    await uploadThroughPicker(page, SMALL);
    const answer = await (await loaded).json();
    expect(answer).toMatchObject({ status: 'completed', mode: 'replace', format: 'cyclonedx' });
    expect(answer.summary.added).toBe(34);
    await page.getByRole('heading', { name: 'Import summary' }).waitFor();
    expectSummaryOf(await shownFigures(page), answer);
    const imported = await api(rootKey, 'GET', `/api/v2/sbom_imports/${answer.uuid}/`);
    expect(imported.body.summary).toEqual(answer.summary);

    // A VEX merged in (the picker again, Merge): vulnerabilities of the product's packages.
    await page.getByRole('radio', { name: 'Merge' }).check();
    const merged = page.waitForResponse((response) => response.url().includes('/load_sboms/?mode=merge'));
    await uploadThroughPicker(page, 'vex.cdx.json');
    expect(await (await merged).json()).toMatchObject({ status: 'completed', mode: 'merge', summary: { removed: 0, vulnerabilities: 3 } });

    // A license concluded for one package, through the API.
    const held = (await api(rootKey, 'GET', `/api/v2/product_packages/?product=${product.uuid}&page_size=100`)).body.results as { uuid: string; package: string }[];
    const middy = (await api(rootKey, 'GET', `/api/v2/packages/?purl=${encodeURIComponent(MIDDY)}`)).body.results[0];
    const middyHeld = held.find((pp) => pp.package === middy.api_url)!;
    expect((await api(rootKey, 'PATCH', `/api/v2/product_packages/${middyHeld.uuid}/`, { license_expression: 'unlicense' })).status).toBe(200);

    await page.reload();
    const inventory = page.getByRole('table', { name: 'Inventory' });
    const middyRow = inventory.locator(`tr[data-purl="${MIDDY}"]`);
    await middyRow.waitFor();
    // The purl decoded for reading; never the encoded form.
    await expect(middyRow.locator('td').first().textContent()).resolves.toBe('pkg:npm/@middy/core@7.9.2');
    await expect(inventory.textContent()).resolves.not.toContain('%40');
    // Concluded (the product's) and declared (the package's) marks.
    await expect(middyRow.locator('td').nth(1).textContent()).resolves.toBe('Unlicense concluded');
    const zodRow = inventory.locator('tr[data-purl="pkg:npm/zod@4.6.7"]');
    // Licenses by SPDX id, the ScanCode key on hover.
    await expect(zodRow.locator('td').nth(1).textContent()).resolves.toBe('MIT declared');
    await expect(zodRow.locator('td').nth(1).locator('code').getAttribute('title')).resolves.toBe('ScanCode keys: mit');
    // Usage policies in words and colour: green Approved, red Forbidden (from the compliance alert).
    const approved = zodRow.locator('.policy', { hasText: 'MIT: Approved' });
    await expect(approved.getAttribute('title')).resolves.toBe('license key: mit');
    await expect(approved.getAttribute('data-tone')).resolves.toBe('ok');
    await expect(approved.evaluate((element) => getComputedStyle(element).backgroundColor)).resolves.toBe('rgb(230, 244, 234)');
    const forbidden = middyRow.locator('.policy', { hasText: 'Unlicense: Forbidden' });
    await expect(forbidden.getAttribute('data-tone')).resolves.toBe('error');
    await expect(forbidden.evaluate((element) => getComputedStyle(element).backgroundColor)).resolves.toBe('rgb(253, 236, 234)');
    await expect(inventory.locator('.policy-warning').first().textContent()).resolves.toContain('Apache-2.0: Restricted');
    // Vulnerabilities with their ids and risk.
    await expect(middyRow.locator('td').nth(3).textContent()).resolves.toContain('GHSA-9x9x-test-0002');
    const uriRow = inventory.locator('tr[data-purl="pkg:npm/uri-js@4.4.1"]');
    await expect(uriRow.locator('td').nth(3).textContent()).resolves.toMatch(/CVE-2099-10001.*risk \d+\.\d/);
    const count = (await api(rootKey, 'GET', `/api/v2/products/${product.uuid}/packages/`)).body.count as number;
    expect(count).toBe(34);
    await expect(page.getByText(`${count} packages`).first().isVisible()).resolves.toBe(true);
    await expectAccessible(page, 'inventory');
    await screenshot(page, 'product-inventory');

    // The inventory's filters, as the API filters it, kept in the address.
    const filters = page.getByRole('search', { name: 'Inventory' });
    await filters.getByLabel('Vulnerable').selectOption('true');
    await filters.getByRole('button', { name: 'Filter the inventory' }).click();
    await expect.poll(() => page.url()).toContain('vulnerable=true');
    const vulnerable = (await api(rootKey, 'GET', `/api/v2/products/${product.uuid}/packages/?vulnerable=true`)).body;
    expect(vulnerable.count).toBeGreaterThan(0);
    expect(vulnerable.count).toBeLessThan(34);
    await expect.poll(() => inventory.locator('tbody tr').count()).toBe(vulnerable.count);
    await filters.getByLabel('Name or purl').fill('zod');
    await filters.getByLabel('Vulnerable').selectOption('');
    await filters.getByRole('button', { name: 'Filter the inventory' }).click();
    await expect.poll(() => inventory.locator('tbody tr').count()).toBe(1);
    await zodRow.waitFor();
    await expectAccessible(page, 'inventory filtered');
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/packages`);
    await middyRow.waitFor();

    // A waiver: added for the vulnerable package (its decoded purl is what the form takes too), then revoked.
    const waivers = page.getByRole('region', { name: 'Waivers' });
    await waivers.getByText('No waivers').waitFor();
    await page.getByLabel('Rule', { exact: true }).selectOption({ label: 'Vulnerability Detected' });
    await page.getByLabel('Package URL', { exact: true }).fill(MIDDY);
    await page.getByLabel('Reason', { exact: true }).fill('Only in the build tooling.');
    await page.getByRole('button', { name: 'Add waiver' }).click();
    await waivers.getByText(/^Waiver added: Vulnerability Detected for pkg:npm\/@middy\/core@7\.9\.2/).waitFor();
    const listed = (await api(rootKey, 'GET', `/api/v2/products/${product.uuid}/policy_waivers/`)).body.results;
    expect(listed).toMatchObject([{ rule_type: 'vulnerability_detected', package: MIDDY, reason: 'Only in the build tooling.', is_expired: false }]);
    const waiverRow = waivers.getByRole('row', { name: /Vulnerability Detected/ });
    await expect(waiverRow.textContent()).resolves.toContain('pkg:npm/@middy/core@7.9.2');
    await expectAccessible(page, 'waivers');
    await waivers.getByRole('button', { name: 'Revoke the waiver of Vulnerability Detected for pkg:npm/@middy/core@7.9.2' }).click();
    await waivers.getByText(/^Waiver revoked/).waitFor();
    await waivers.getByText('No waivers').waitFor();
    expect((await api(rootKey, 'GET', `/api/v2/products/${product.uuid}/policy_waivers/`)).body.count).toBe(0);

    // Download SBOM, both formats: saved files that validate, with every package.
    const cdx = await download(page, 'cyclonedx');
    expect(cdx.name).toBe('Shop-1.0.0.cdx.json');
    expect(cdx.document).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(cdx.document.components).toHaveLength(count);
    expect(await cycloneDxSchemaErrors(cdx.document, '1.6')).toBeNull();
    const spdx = await download(page, 'spdx');
    expect(spdx.name).toBe('Shop-1.0.0.spdx.json');
    expect(spdx.document.spdxVersion).toBe('SPDX-2.3');
    const purls = spdx.document.packages.flatMap((p: { externalRefs?: { referenceType: string; referenceLocator: string }[] }) =>
      (p.externalRefs ?? []).filter((ref) => ref.referenceType === 'purl').map((ref) => ref.referenceLocator),
    );
    expect(purls).toHaveLength(count);
    expect(spdxSchemaErrors(spdx.document)).toBeNull();
    await page.getByText('Downloaded Shop-1.0.0.spdx.json.').waitFor();
    // And as CycloneDX XML and SPDX 3.0.1, each valid against its schema.
    const xml = await download(page, 'cyclonedx-xml');
    expect(xml.name).toBe('Shop-1.0.0.cdx.xml');
    expect(await checkCycloneDxXml(xml.text, '1.6')).toEqual([]);
    const spdx3 = await download(page, 'spdx3');
    expect(spdx3.name).toBe('Shop-1.0.0.spdx3.json');
    expect(checkSpdx3(spdx3.document).errors).toEqual([]);
    // The XML picked in Upload SBOM goes back as CycloneDX XML: every package unchanged.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Upload SBOM' }).click()]);
    await chooser.setFiles({ name: 'Shop-1.0.0.cdx.xml', mimeType: 'application/xml', buffer: Buffer.from(xml.text) });
    const summary = page.getByRole('region', { name: 'Import summary' });
    await summary.getByText('Shop-1.0.0.cdx.xml', { exact: false }).waitFor();
    expect(await shownFigures(page)).toMatchObject({ added: '0', removed: '0', unchanged: String(count) });

    // Download attribution: the notice with every (deployed) package and each license's text once.
    await page.getByLabel('Attribution format').selectOption('html');
    const [notice] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download attribution' }).click()]);
    expect(notice.suggestedFilename()).toBe('Shop-1.0.0.attribution.html');
    const html = readFileSync(await notice.path(), 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    for (const purl of purls) expect(html, purl).toContain(purl.replace(/&/g, '&amp;'));
    // MIT's section once, however many packages name it (the text is shared by the MIT family's other licenses).
    expect(html.split('id="license-mit"').length - 1).toBe(1);
    expect(html).toMatch(/id="license-mit"><h3>MIT License[^<]*<span class="key">\(MIT\)<\/span><\/h3><pre>Permission is hereby granted, free of charge/);
    await page.getByText('Downloaded Shop-1.0.0.attribution.html.').waitFor();
  }, 180_000);

  it('uploads a larger SBOM through the upload URL, to the bucket origin, with upload and import progress', async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: 'Large', version: '2' });
    const page = await signedInPage(rootKey);
    // Above 100 KB goes through the upload URL on this page view (the documented setting; the threshold is 1 MB).
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/packages?direct_upload_max_bytes=100000`);
    await page.getByText('This product has no packages yet').waitFor();
    const puts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT') puts.push(request.url());
    });
    const started = page.waitForResponse((response) => response.url().includes(`/products/${product.uuid}/sbom_uploads/`));
    await uploadThroughPicker(page, LARGE);
    const upload = await (await started).json();
    expect(upload).toMatchObject({ status: 'queued', mode: 'replace' });
    await page.getByRole('progressbar', { name: 'Upload progress' }).waitFor();
    await page.getByRole('progressbar', { name: 'Import progress' }).waitFor();
    await screenshot(page, 'product-upload-progress');
    await page.getByRole('heading', { name: 'Import summary' }).waitFor({ timeout: 90_000 });
    // The browser PUT the file to the presigned URL, on the bucket's origin (not the console's), with no key.
    expect(puts).toHaveLength(1);
    expect(new URL(puts[0]!).origin).toBe(new URL(upload.upload.url).origin);
    expect(new URL(puts[0]!).origin).not.toBe(new URL(consoleStack.stack.apiUrl).origin);
    const done = (await api(rootKey, 'GET', `/api/v2/sbom_imports/${upload.uuid}/`)).body;
    expect(done).toMatchObject({ status: 'completed', format: 'cyclonedx', spec_version: '1.6' });
    const components = (JSON.parse(readFileSync(join(SBOM_FIXTURES, LARGE), 'utf8')) as { components: unknown[] }).components.length;
    expect(done.summary.components).toBeGreaterThanOrEqual(components);
    expect(done.summary.added).toBe((await api(rootKey, 'GET', `/api/v2/products/${product.uuid}/packages/`)).body.count);
    expectSummaryOf(await shownFigures(page), done);
    await expectAccessible(page, 'import summary');
    // The inventory was read again, and pages as the API pages (50 a page).
    const pager = page.getByRole('navigation', { name: 'packages pages' });
    await expect(pager.textContent()).resolves.toContain(`${done.summary.added} packages, page 1`);
    await pager.getByRole('link', { name: 'Next page →' }).click();
    await page.getByRole('navigation', { name: 'packages pages' }).getByText(`${done.summary.added} packages, page 2`).waitFor();
    await expect(page.getByRole('table', { name: 'Inventory' }).locator('tbody tr').count()).resolves.toBe(done.summary.added - 50);

    // Skipped components with their reasons, and unknown licenses, as the import answered them.
    await page.getByRole('radio', { name: 'Merge' }).check();
    const loaded = page.waitForResponse((response) => response.url().includes('/load_sboms/?mode=merge'));
    await uploadThroughPicker(page, 'edge-cases.cdx.json');
    const edge = await (await loaded).json();
    expect(edge.summary.skipped.length).toBeGreaterThan(0);
    expect(edge.summary.unknown_licenses.length).toBeGreaterThan(0);
    await page.getByRole('heading', { name: 'Import summary' }).waitFor();
    expectSummaryOf(await shownFigures(page), edge);
    const skippedRows = await page.getByRole('region', { name: 'Skipped components (scrolls sideways)' }).locator('tbody tr').evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)),
    );
    expect(skippedRows.map(([, reason]) => reason)).toEqual(edge.summary.skipped.map((skip: { reason: string }) => skip.reason));
    // Each by its purl (or name and version) as a person reads it, not its bom-ref.
    expect(skippedRows.map(([name]) => name)).toContain('pkg:npm/many-licenses@1.0.0');
    expect(skippedRows.map(([name]) => name)).not.toContain('again-many-licenses');
    await expect(page.getByRole('list', { name: 'Unknown licenses' }).getByRole('listitem').allTextContents()).resolves.toEqual(edge.summary.unknown_licenses);
    await expectAccessible(page, 'skipped and unknown');
    await page.getByRole('heading', { name: 'Import summary' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'product-import-summary');
  }, 180_000);

  it('keeps the compliance tab, and lays every tab out within 360 px', async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: `Narrow${'x'.repeat(40)}`, version: '1' });
    await consoleStack.loadSbom(rootKey, product.uuid, SMALL);
    await consoleStack.loadSbom(rootKey, product.uuid, 'vex.cdx.json');
    const page = await signedInPage(rootKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/compliance`);
    await page.getByRole('button', { name: 'Re-evaluate' }).click();
    await page.getByText(/^Evaluation finished/).waitFor({ timeout: 60_000 });
    await expectAccessible(page, 'compliance');
    await screenshot(page, 'product-compliance');

    const narrow = await signedInPage(rootKey, NARROW);
    for (const tab of ['packages', 'details', 'compliance']) {
      await narrow.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/${tab}`);
      await narrow.getByRole('button', { name: 'Download SBOM' }).waitFor();
      if (tab === 'packages') await narrow.locator('tr[data-purl="pkg:npm/zod@4.6.7"]').waitFor();
      const widest = await widestOutsideTables(narrow, NARROW.width);
      expect(widest.width, `${tab}: ${widest.elements.join('\n')}`).toBeLessThanOrEqual(NARROW.width);
      // The SBOM panel leaves the tabs on the first screen.
      const tabs = await narrow.getByRole('navigation', { name: 'Product sections' }).boundingBox();
      expect(tabs!.y + tabs!.height, `${tab}: the tabs end at ${tabs!.y + tabs!.height} px`).toBeLessThanOrEqual(NARROW.height);
      await expectAccessible(narrow, `${tab} at 360 px`);
    }
  }, 180_000);

  it("offers a viewer no write action (upload, add, waive, re-evaluate, permissions), and offers change once it is granted", async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: 'Viewed', version: '1.0' });
    await consoleStack.loadSbom(rootKey, product.uuid, SMALL);
    await created(rootKey, `/api/v2/products/${product.uuid}/policy_waivers/`, {
      rule_type: 'license_policy_error',
      package: null,
      reason: 'Reviewed by legal.',
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    });
    const granted = await api(rootKey, 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'alice', permissions: ['view_product'] });
    expect(granted.status).toBe(200);
    const { alice: aliceKey } = consoleStack.keys;
    const writes = ['Upload SBOM', 'Add package', 'Add waiver', 'Re-evaluate'];

    for (const size of [undefined, NARROW]) {
      const page = await signedInPage(aliceKey, size);
      await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/packages`);
      // Read only, but all of it: the inventory, the waiver and both downloads.
      await page.locator('tr[data-purl="pkg:npm/zod@4.6.7"]').waitFor();
      await page.getByRole('cell', { name: 'Reviewed by legal.' }).waitFor();
      await page.getByRole('button', { name: 'Download SBOM' }).waitFor();
      await page.getByRole('button', { name: 'Download attribution' }).waitFor();
      for (const name of writes) await expect(page.getByRole('button', { name, exact: true }).count(), name).resolves.toBe(0);
      await expect(page.getByRole('button', { name: /^Revoke/ }).count()).resolves.toBe(0);
      await expect(page.getByRole('navigation', { name: 'Product sections' }).getByRole('link').allTextContents()).resolves.toEqual(['Details', 'Packages', 'Compliance']);
      await expectAccessible(page, `viewer's packages tab${size ? ' at 360 px' : ''}`);
      if (size) {
        const widest = await widestOutsideTables(page, NARROW.width);
        expect(widest.width, widest.elements.join('\n')).toBeLessThanOrEqual(NARROW.width);
      }
      await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/compliance`);
      await page.getByRole('heading', { name: 'Policy violations' }).waitFor();
      await expect(page.getByRole('button', { name: 'Re-evaluate' }).count()).resolves.toBe(0);
      if (!size) await screenshot(page, 'product-viewer');
      await page.close();
    }

    // Granted change_product: the writes appear (the permissions tab stays the creator's and superusers').
    expect((await api(rootKey, 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'alice', permissions: ['change_product'] })).status).toBe(200);
    const page = await signedInPage(aliceKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/packages`);
    await page.getByRole('button', { name: 'Upload SBOM' }).waitFor();
    for (const name of ['Add package', 'Add waiver']) await page.getByRole('button', { name, exact: true }).waitFor();
    await page.getByRole('button', { name: /^Revoke/ }).first().waitFor();
    await expect(page.getByRole('navigation', { name: 'Product sections' }).getByRole('link').allTextContents()).resolves.toEqual(['Details', 'Packages', 'Compliance']);
    await page.close();
  }, 180_000);
});

async function download(page: Page, format: 'cyclonedx' | 'cyclonedx-xml' | 'spdx' | 'spdx3'): Promise<{ name: string; document: any; text: string; path: string }> {
  await page.getByLabel('Download format').selectOption(format);
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download SBOM' }).click()]);
  const path = await file.path();
  const text = readFileSync(path, 'utf8');
  return { name: file.suggestedFilename(), document: format === 'cyclonedx-xml' ? undefined : JSON.parse(text), text, path };
}
