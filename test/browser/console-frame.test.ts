/**
 * The console's frame and the pages around the products (issue 19), in Chromium against `npm start`:
 * the header saying who is signed in, requests with priority and assignee chosen from the API, the
 * Policy page (rules, the save bar never over a field, the dataspace's waivers), webhook management
 * (enable, disable, rotate, delete) and the Audit page listing real events. Every page is checked with
 * axe-core, for unlabelled controls, and at 360 px for sideways scrolling; screenshots of each.
 */
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually } from '../support/local-stack.ts';
import { NARROW, accessibilityFindings, screenshot, unlabelledControls, useConsoleStack, widestOutsideTables } from '../support/console-browser.ts';

const consoleStack = useConsoleStack({
  priorities: [
    { label: 'Urgent', dataspace: 'acme' },
    { label: 'Low', dataspace: 'acme' },
  ],
  request_templates: [
    {
      name: 'Package Review',
      dataspace: 'acme',
      description: 'Ask legal to review a package.',
      content_type: 'product',
      is_active: true,
      questions: [{ label: 'Justification', input_type: 'TextField', is_required: true }],
    },
  ],
});
const { root: rootKey, alice: aliceKey } = consoleStack.keys;
const { api, created, loadSbom, newPage, signedInPage } = consoleStack;
const url = (route: string) => `${consoleStack.stack.apiUrl}/${route}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A purl of the real SBOM, percent-encoded as cyclonedx-npm writes it. */
const SCOPED_PURL = 'pkg:npm/%40aws-cdk/asset-awscli-v1@2.2.292';

/** axe (0 serious or critical), every control labelled, and (on a narrow page) nothing wider than the screen. */
async function checkPage(page: Page, what: string, width?: number): Promise<void> {
  await expect(accessibilityFindings(page), `${what}: axe`).resolves.toEqual([]);
  await expect(unlabelledControls(page), `${what}: labels`).resolves.toEqual([]);
  if (width !== undefined) {
    const widest = await widestOutsideTables(page, width);
    expect(widest.width, `${what}: ${widest.elements.join('\n')}`).toBeLessThanOrEqual(width);
  }
}

/** The same route at 360 px, signed in with `key`, once `ready` shows. */
async function checkNarrow(key: string, route: string, ready: string, what: string): Promise<Page> {
  const narrow = await signedInPage(key, NARROW);
  await narrow.goto(url(route));
  await narrow.getByText(ready).first().waitFor();
  await checkPage(narrow, `${what} at 360 px`, NARROW.width);
  return narrow;
}

/** A product of `key`'s with the packages of a real SBOM (cyclonedx-npm, this repository's production dependencies). */
async function aProductWithSbom(key: string, name: string): Promise<{ uuid: string }> {
  const product = await created<{ uuid: string }>(key, '/api/v2/products/', { name, version: '1.0' });
  await loadSbom(key, product.uuid, 'cyclonedx-npm-1.6-prod.cdx.json');
  return product;
}

describe('the console frame in Chromium', () => {
  it('signs in, says who is signed in and in which dataspace, and signs out', async () => {
    const page = await newPage();
    await page.goto(url(''));
    await page.getByLabel('API key').waitFor();
    await checkPage(page, 'sign-in');
    await screenshot(page, 'sign-in');
    const narrow = await newPage(NARROW);
    await narrow.goto(url(''));
    await narrow.getByLabel('API key').waitFor();
    await checkPage(narrow, 'sign-in at 360 px', NARROW.width);

    await page.getByLabel('API key').fill(aliceKey);
    await page.getByLabel('API key').press('Enter');
    const banner = page.getByRole('banner');
    await banner.getByText('Signed in as alice (acme)').waitFor();
    // alice is no superuser: users/me says so, and the superusers' pages are not offered.
    expect(await page.getByRole('link', { name: 'Audit', exact: true }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Policy', exact: true }).count()).toBe(0);
    await banner.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    const root = await signedInPage(rootKey);
    await root.getByRole('banner').getByText('Signed in as root (acme)').waitFor();
    for (const name of ['Products', 'Requests', 'Licenses', 'Packages', 'Vulnerabilities', 'Policy', 'Webhooks', 'Audit']) {
      await root.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).waitFor();
    }
    // The header fits a 360 px screen.
    const rootNarrow = await signedInPage(rootKey, NARROW);
    await rootNarrow.getByText('Signed in as root (acme)').waitFor();
    expect((await widestOutsideTables(rootNarrow, NARROW.width)).width).toBeLessThanOrEqual(NARROW.width);
  }, 120_000);

  it('follows an address changed while the first page is being drawn, before its listeners are in', async () => {
    const page = await newPage();
    await page.goto(url(''));
    await page.getByLabel('API key').fill(rootKey);
    // The moment the main navigation is in the document (a microtask after the render's commit, a frame
    // before its effects run), the address changes, as a test's page.goto(#/route) right after
    // sign-in did: the hashchange fires before the router listens for it.
    await page.evaluate(() => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector('nav[aria-label="Main"]')) return;
        observer.disconnect();
        location.hash = '#/portfolio';
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByLabel('API key').press('Enter');
    // Drawn at once when the router reads the address again as it starts listening; before that fix the
    // page stayed on Products whatever the address said.
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
    expect(page.url()).toMatch(/#\/portfolio$/);
  });

  it('creates a request with a priority and an assignee chosen from the API, shows its product by name, and changes both', async () => {
    const product = await aProductWithSbom(aliceKey, 'Frame App');
    const page = await signedInPage(aliceKey);
    await page.goto(url('#/requests/new'));
    await page.getByRole('heading', { level: 1, name: 'New request' }).waitFor();
    const priority = page.getByLabel('Priority', { exact: true });
    const assignee = page.getByLabel('Assignee', { exact: true });
    // The selects hold what the API lists: the dataspace's priorities and users.
    await expect.poll(() => priority.locator('option').allTextContents()).toEqual(['No priority', 'Low', 'Urgent']);
    await expect.poll(() => assignee.locator('option').allTextContents()).toEqual(['Unassigned', 'alice', 'carol', 'root']);
    await page.getByLabel('Template').selectOption({ label: 'Package Review' });
    await page.getByLabel('Title').fill('Review the CDK assets');
    await priority.selectOption('Urgent');
    await assignee.selectOption('carol');
    await page.getByLabel('Product', { exact: true }).selectOption({ label: 'Frame App 1.0' });
    await page.getByLabel(/Justification/).fill('Shipped in the installer');
    await checkPage(page, 'new request');
    await checkNarrow(aliceKey, '#/requests/new', 'Create request', 'new request');
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByRole('heading', { level: 1, name: 'Review the CDK assets' }).waitFor();
    const uuid = page.url().split('/').pop()!;
    expect((await api(aliceKey, 'GET', `/api/v2/requests/${uuid}/`)).body).toMatchObject({ priority: 'Urgent', assignee: 'carol' });

    // The product by its name, never its uuid.
    const details = page.locator('dl.details').first();
    await details.getByRole('link', { name: 'Frame App 1.0' }).waitFor();
    expect(await details.innerText()).not.toMatch(UUID);
    expect(await details.getByRole('link', { name: 'Frame App 1.0' }).getAttribute('href')).toBe(`#/products/${product.uuid}`);

    // The request's edit: both selects, filled from the API, saved with PATCH.
    await page.getByLabel('Priority', { exact: true }).selectOption('Low');
    await page.getByLabel('Assignee', { exact: true }).selectOption('root');
    await page.getByRole('button', { name: 'Save priority and assignee' }).click();
    await page.getByText('Priority and assignee saved.').waitFor();
    expect((await api(aliceKey, 'GET', `/api/v2/requests/${uuid}/`)).body).toMatchObject({ priority: 'Low', assignee: 'root' });
    await expect.poll(() => details.innerText()).toMatch(/Assignee\s+root/);
    // Status changes and comments as before.
    await page.getByLabel('Status', { exact: true }).selectOption('closed');
    await page.getByRole('button', { name: 'Change status' }).click();
    await expect.poll(async () => (await api(aliceKey, 'GET', `/api/v2/requests/${uuid}/`)).body.status).toBe('closed');
    await page.getByLabel('Add a comment').fill('Assigned to root.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Comment added.').waitFor();
    await checkPage(page, 'request');
    await screenshot(page, 'request');
    await checkNarrow(aliceKey, `#/requests/${uuid}`, 'Save priority and assignee', 'request');

    // The list's filters are selects of the same choices.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    const filters = page.getByRole('form', { name: 'Filter and order the requests' });
    await expect.poll(() => filters.getByLabel('Assignee').locator('option').allTextContents()).toEqual(['Any', 'alice', 'carol', 'root']);
    await filters.getByLabel('Priority').selectOption('Low');
    await filters.getByLabel('Assignee').selectOption('root');
    await filters.getByLabel('Status').selectOption('closed');
    // Applying puts the filters in the address, and the form is drawn again from it: wait for that form,
    // or a choice made next lands in the form being replaced.
    const applied = await filters.getByLabel('Priority').elementHandle();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction((select) => !select?.isConnected, applied);
    await page.getByRole('link', { name: 'Review the CDK assets' }).waitFor();
    expect(page.url()).toContain('priority=Low');
    expect(page.url()).toContain('assignee=root');
    await filters.getByLabel('Priority').selectOption('Urgent');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No requests match.').waitFor();
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'Review the CDK assets' }).waitFor();
    await checkPage(page, 'requests');
    await screenshot(page, 'requests');
    await checkNarrow(aliceKey, '#/requests', 'Review the CDK assets', 'requests');
  }, 180_000);

  it('keeps every field of the policy rules clear of the save bar, wraps rule titles, and lists the waivers', async () => {
    const product = await aProductWithSbom(rootKey, 'Waived App');
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    await created(rootKey, `/api/v2/products/${product.uuid}/policy_waivers/`, {
      rule_type: 'usage_policy_error',
      package: SCOPED_PURL,
      reason: 'The vendor ships a fix next sprint.',
      expires_at: inDays(30),
    });
    await created(rootKey, `/api/v2/products/${product.uuid}/policy_waivers/`, { rule_type: 'license_unknown', reason: 'Licenses being reviewed.', expires_at: inDays(2) });

    const page = await signedInPage(rootKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Policy', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Policy' }).waitFor();
    // Every rule of the engine, the newest (License Unknown) and Vulnerability Stale's parameters included.
    await expect.poll(() => page.locator('fieldset[data-rule-type]').count()).toBe(9);
    await page.locator('fieldset[data-rule-type="license_unknown"]').getByLabel('Threshold').waitFor();
    await page.locator('fieldset[data-rule-type="vulnerability_stale"]').getByLabel('Maximum days').waitFor();

    // The waivers: product name, rule, the purl decoded, expiry; soonest first; no uuid anywhere.
    const waivers = page.getByRole('table', { name: 'Waivers' });
    const rows = waivers.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/Waived App 1\.0\s+License Unknown\s+All packages/);
    expect(await rows.nth(1).innerText()).toMatch(/Waived App 1\.0\s+Usage Policy Error\s+pkg:npm\/@aws-cdk\/asset-awscli-v1@2\.2\.292/);
    expect(await waivers.innerText()).not.toMatch(UUID);
    expect(await waivers.innerText()).not.toContain('%40');

    // The save bar never covers a field: each of the last fields, focused (as Tab does) or scrolled to, sits above the bar.
    const bar = page.locator('.sticky-actions');
    const form = page.locator('form.with-sticky-actions');
    const lastFields = form.locator('input');
    const assertClear = async (p: Page, label: string) => {
      const inputs = p.locator('form.with-sticky-actions input');
      const count = await inputs.count();
      for (const index of [count - 1, count - 2, count - 3]) {
        const field = inputs.nth(index);
        await field.focus();
        const [fieldBox, barBox] = [await field.boundingBox(), await p.locator('.sticky-actions').boundingBox()];
        expect(fieldBox && barBox, label).toBeTruthy();
        expect(fieldBox!.y + fieldBox!.height, `${label}: field ${index} ends below the bar's top`).toBeLessThanOrEqual(barBox!.y);
        await field.evaluate((element) => element.scrollIntoView({ block: 'end' }));
        const [after, barAfter] = [await field.boundingBox(), await p.locator('.sticky-actions').boundingBox()];
        expect(after!.y + after!.height, `${label}: field ${index} scrolled to`).toBeLessThanOrEqual(barAfter!.y);
      }
    };
    expect(await lastFields.count()).toBeGreaterThan(10);
    await bar.waitFor();
    await assertClear(page, 'desktop');
    await checkPage(page, 'policy');
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'policy');

    const narrow = await checkNarrow(rootKey, '#/policy', 'Save policy rules', 'policy');
    await assertClear(narrow, '360 px');
    // Long rule titles wrap inside their box.
    const overflowing = await narrow.evaluate(() =>
      [...document.querySelectorAll('fieldset.rule')].filter((fieldset) => {
        const legend = fieldset.querySelector('legend')!;
        return legend.getBoundingClientRect().right > fieldset.getBoundingClientRect().right + 1 || fieldset.getBoundingClientRect().right > 360;
      }).length,
    );
    expect(overflowing).toBe(0);
    await narrow.getByRole('table', { name: 'Waivers' }).locator('tbody tr').nth(1).waitFor();
  }, 180_000);

  it('enables, disables, rotates the secret of and deletes a webhook, with a confirm step', async () => {
    const webhook = await created<{ uuid: string; secret: string }>(rootKey, '/api/v2/webhooks/', {
      target_url: 'http://127.0.0.1:9/frame-hook',
      events: ['request.added'],
      description: 'Frame receiver',
    });
    const page = await signedInPage(rootKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'http://127.0.0.1:9/frame-hook' }).waitFor();
    await checkPage(page, 'webhooks');
    await screenshot(page, 'webhooks');
    await checkNarrow(rootKey, '#/webhooks', 'http://127.0.0.1:9/frame-hook', 'webhooks');

    await page.getByRole('link', { name: 'http://127.0.0.1:9/frame-hook' }).click();
    await page.getByRole('heading', { level: 1, name: 'Frame receiver' }).waitFor();
    const isActive = async () => (await api(rootKey, 'GET', `/api/v2/webhooks/${webhook.uuid}/`)).body.is_active as boolean;
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('Subscription disabled').waitFor();
    await page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
    expect(await isActive()).toBe(false);
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('Subscription enabled.').waitFor();
    await page.getByRole('button', { name: 'Disable', exact: true }).waitFor();
    expect(await isActive()).toBe(true);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.locator('code.secret');
    await shown.waitFor();
    const secret = (await shown.textContent())!.trim();
    expect(secret.length).toBeGreaterThan(20);
    expect(secret).not.toBe(webhook.secret);
    // Shown once: the API never answers it again.
    expect((await api(rootKey, 'GET', `/api/v2/webhooks/${webhook.uuid}/`)).body.secret ?? null).toBeNull();
    await checkPage(page, 'webhook');
    await screenshot(page, 'webhook');
    await checkNarrow(rootKey, `#/webhooks/${webhook.uuid}`, 'Send a ping', 'webhook');

    // Delete asks first; Cancel keeps it.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await api(rootKey, 'GET', `/api/v2/webhooks/${webhook.uuid}/`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('group', { name: /Delete this subscription\?/ }).waitFor();
    await checkPage(page, 'webhook, confirming deletion');
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('Subscription deleted.').waitFor();
    expect((await api(rootKey, 'GET', `/api/v2/webhooks/${webhook.uuid}/`)).status).toBe(404);
    // The list drawn from its answer (the notice shows before it), then without the deleted subscription.
    await page.getByRole('region', { name: 'Subscriptions, scrollable' }).waitFor();
    expect(await page.getByRole('link', { name: 'http://127.0.0.1:9/frame-hook' }).count()).toBe(0);
  }, 180_000);

  it('lists real audit events to superusers, by name, with filters', async () => {
    const product = await created<{ uuid: string }>(rootKey, '/api/v2/products/', { name: 'Audited App', version: '2.0' });
    await api(rootKey, 'PATCH', `/api/v2/products/${product.uuid}/`, { version: '2.1' });
    // The records are written from the table's stream: wait until the API lists both.
    await eventually(
      async () => (await api(rootKey, 'GET', `/api/v2/audit_events/?object=${product.uuid}`)).body.results ?? [],
      (results: unknown[]) => results.length >= 2,
    );
    const page = await signedInPage(rootKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit events' });
    await table.getByRole('link', { name: 'Audited App 2.1' }).first().waitFor();

    const filters = page.getByRole('form', { name: 'Filter the audit events' });
    await filters.getByLabel('Object type').selectOption('product');
    await filters.getByLabel('User').selectOption('root');
    await filters.getByLabel('Action').selectOption('update');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.url()).toContain('action=update');
    const rows = table.locator('tbody tr');
    // Once the filtered page is in: every row an update by root, the product's among them.
    const actions = () => rows.evaluateAll((trs) => trs.map((tr) => tr.children[2]?.textContent ?? ''));
    await expect.poll(async () => [...new Set(await actions())]).toEqual(['update']);
    expect((await rows.allInnerTexts()).join('\n')).toMatch(/root[\s\S]*update[\s\S]*Audited App 2\.1[\s\S]*version: 2\.0 → 2\.1/);
    expect(await table.innerText()).not.toMatch(UUID);
    await checkPage(page, 'audit');
    await screenshot(page, 'audit');
    await checkNarrow(rootKey, '#/audit', 'Audited App', 'audit');

    // An SBOM import: one row, by name, with what it did in words; its packages are no rows of their own.
    const shop = await created<{ uuid: string }>(rootKey, '/api/v2/products/', { name: 'Audited Shop', version: '3.0' });
    const imported = await loadSbom<{ uuid: string; summary: { added: number; added_purls: string[] } }>(rootKey, shop.uuid, 'npm-sbom-prod.cdx.json');
    expect(imported.summary.added).toBe(34);
    await eventually(
      async () => (await api(rootKey, 'GET', `/api/v2/audit_events/?object=${imported.uuid}`)).body.results ?? [],
      (results: unknown[]) => results.length === 1,
    );
    await page.goto(url('#/audit?object_type=sbom_import'));
    const importRow = table.locator('tbody tr').filter({ hasText: 'SBOM import into Audited Shop 3.0' });
    await importRow.waitFor();
    const importText = await importRow.innerText();
    expect(importText).toMatch(/added: 34/);
    expect(importText).toMatch(/added purls: pkg:npm\/[^\n]* and 29 more/);
    expect(importText).not.toMatch(UUID);
    // By a purl it added, typed in the object filter: that package's own records only (the import wrote it: none).
    const purl = imported.summary.added_purls[0]!;
    await page.goto(url('#/audit'));
    await filters.getByLabel('Object (name, purl or uuid)').fill(purl);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No audit events match.').waitFor();
    await checkPage(page, 'audit after an import');
    await screenshot(page, 'audit-import');

    // A bad filter is the API's 400, shown; a non-superuser gets the API's refusal.
    await page.goto(url('#/audit?since=yesterday'));
    await page.getByRole('alert').waitFor();
    const alice = await signedInPage(aliceKey);
    await alice.goto(url('#/audit'));
    await alice.getByRole('alert').waitFor();
  }, 180_000);
});
