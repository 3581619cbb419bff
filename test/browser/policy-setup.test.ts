/**
 * Setting up a policy in the console, as a compliance officer does, in Chromium against `npm start`:
 * usage policies created, edited and deleted (the API's 409 for one in use shown as it says), assigned
 * to licenses and packages several at a time, license categories chosen by checkboxes with the rule's
 * reason following them, and the recommended starting policy previewed, applied and found applied.
 * Every state shown passes axe (no serious or critical finding) and labels every control, at 1280 and
 * 360 px; nothing is wider than a phone.
 */
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NARROW, accessibilityFindings, screenshot, unlabelledControls, useConsoleStack, widestOutsideTables } from '../support/console-browser.ts';

const consoleStack = useConsoleStack({
  licenses: [
    { dataspace: 'acme', key: 'mit' },
    { dataspace: 'acme', key: 'apache-2.0' },
    { dataspace: 'acme', key: 'gpl-3.0' },
  ],
});
const { root: rootKey } = consoleStack.keys;
const { api, created, signedInPage } = consoleStack;

async function expectAccessible(page: Page, what: string): Promise<void> {
  await expect(accessibilityFindings(page), what).resolves.toEqual([]);
  await expect(unlabelledControls(page), what).resolves.toEqual([]);
}

async function expectNarrow(page: Page, what: string): Promise<void> {
  const widest = await widestOutsideTables(page, NARROW.width);
  expect(widest.width, `${what}: ${widest.elements.join('\n')}`).toBeLessThanOrEqual(NARROW.width);
  await expectAccessible(page, `${what} at 360 px`);
}

const policyPage = async (page: Page) => {
  await page.goto(`${consoleStack.stack.apiUrl}/#/policy`);
  await page.getByRole('heading', { name: 'Usage policies' }).waitFor();
  await page.locator('fieldset[data-rule-type="license_policy_error"]').waitFor();
};

describe('policy set-up in the console', () => {
  it('creates, edits and deletes usage policies, and shows the 409 of one in use', async () => {
    const page = await signedInPage(rootKey);
    await policyPage(page);
    const form = page.getByRole('form', { name: 'New usage policy' });
    await form.getByLabel('Label').fill('Reviewed');
    await form.getByRole('radio', { name: 'Warning' }).check();
    await form.getByLabel('Description').fill('Looked at by legal.');
    await form.getByRole('button', { name: 'Create usage policy' }).click();
    await page.getByText('Usage policy Reviewed created.').waitFor();
    const row = page.locator('tr[data-policy="Reviewed"]');
    await row.getByText('Looked at by legal.').waitFor();
    const stored = (await api(rootKey, 'GET', '/api/v2/usage_policies/?page_size=100')).body.results.find((p: { label: string }) => p.label === 'Reviewed');
    expect(stored).toMatchObject({ content_type: 'license', compliance_alert: 'warning', description: 'Looked at by legal.' });

    // A label taken: the API's field error, next to the field.
    await form.getByLabel('Label').fill('Reviewed');
    await form.getByRole('button', { name: 'Create usage policy' }).click();
    await expect(page.locator('#usage-policy-label-error').textContent()).resolves.toMatch(/already exists/);

    // Edit: the form fills in, the save is a PATCH.
    await row.getByRole('button', { name: 'Edit Reviewed' }).click();
    const edit = page.getByRole('form', { name: 'Edit Reviewed' });
    await edit.getByLabel('Description').fill('Looked at by legal, twice.');
    await edit.getByRole('button', { name: 'Save usage policy' }).click();
    await page.getByText('Usage policy Reviewed saved.').waitFor();
    await row.getByText('Looked at by legal, twice.').waitFor();

    // In use by a license: the API's 409, said as it says it; then free, deleted.
    const mit = (await api(rootKey, 'GET', '/api/v2/licenses/?key=mit')).body.results[0];
    expect((await api(rootKey, 'PATCH', `/api/v2/licenses/${mit.uuid}/`, { usage_policy: 'Reviewed' })).status).toBe(200);
    await row.getByRole('button', { name: 'Delete Reviewed' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'The usage policy was not deleted.' });
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/in use|used by/i);
    await expectAccessible(page, 'usage policies with a 409');
    await screenshot(page, 'usage-policies');
    expect((await api(rootKey, 'PATCH', `/api/v2/licenses/${mit.uuid}/`, { usage_policy: null })).status).toBe(200);
    await row.getByRole('button', { name: 'Delete Reviewed' }).click();
    await page.getByText('Usage policy Reviewed deleted.').waitFor();
    await expect(page.locator('tr[data-policy="Reviewed"]').count()).resolves.toBe(0);
  }, 120_000);

  it('assigns a usage policy to several licenses and packages at once, and takes it off again', async () => {
    await created(rootKey, '/api/v2/usage_policies/', { label: 'Restricted', content_type: 'license', compliance_alert: 'warning' });
    await created(rootKey, '/api/v2/usage_policies/', { label: 'Banned package', content_type: 'package', compliance_alert: 'error' });
    const pkgs = [];
    for (const name of ['assign-a', 'assign-b', 'assign-c']) pkgs.push(await created(rootKey, '/api/v2/packages/', { purl: `pkg:npm/${name}@1.0.0`, license_expression: 'mit' }));

    const page = await signedInPage(rootKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/licenses`);
    await page.getByRole('checkbox', { name: 'Select apache-2.0' }).check();
    await page.getByRole('checkbox', { name: 'Select gpl-3.0' }).check();
    const licenseForm = page.getByRole('form', { name: 'Assign a usage policy to the licenses selected' });
    // Only the license policies are offered for licenses (the choices load after the form renders).
    await expect.poll(() => licenseForm.getByRole('option').allTextContents()).toEqual(expect.arrayContaining(['None', 'Restricted (warning)']));
    await expect(licenseForm.getByRole('option', { name: 'Banned package (error)' }).count()).resolves.toBe(0);
    await licenseForm.getByLabel('Usage policy for the 2 licenses selected').selectOption('Restricted');
    await licenseForm.getByRole('button', { name: 'Assign usage policy' }).click();
    await page.getByText('2 licenses now have usage policy Restricted.').waitFor();
    const policyOf = async (key: string) => (await api(rootKey, 'GET', `/api/v2/licenses/?key=${key}`)).body.results[0].usage_policy;
    expect([await policyOf('apache-2.0'), await policyOf('gpl-3.0'), await policyOf('mit')]).toEqual(['Restricted', 'Restricted', null]);
    await expectAccessible(page, 'licenses after an assignment');

    // Packages: every row of a filtered page at once.
    await page.goto(`${consoleStack.stack.apiUrl}/#/packages?search=assign-`);
    await page.getByText('pkg:npm/assign-c@1.0.0').waitFor();
    await page.getByRole('checkbox', { name: 'Select every package of this page' }).check();
    const packageForm = page.getByRole('form', { name: 'Assign a usage policy to the packages selected' });
    await packageForm.getByLabel('Usage policy for the 3 packages selected').selectOption('Banned package');
    await packageForm.getByRole('button', { name: 'Assign usage policy' }).click();
    await page.getByText('3 packages now have usage policy Banned package.').waitFor();
    for (const pkg of pkgs) expect((await api(rootKey, 'GET', `/api/v2/packages/${pkg.uuid}/`)).body.usage_policy).toBe('Banned package');
    await screenshot(page, 'packages-assign-policy');

    // And off again: None.
    await page.getByRole('checkbox', { name: 'Select pkg:npm/assign-b@1.0.0' }).check();
    await packageForm.getByLabel('Usage policy for the package selected').selectOption('');
    await packageForm.getByRole('button', { name: 'Assign usage policy' }).click();
    await page.getByText('1 package now has no usage policy.').waitFor();
    expect((await api(rootKey, 'GET', `/api/v2/packages/${pkgs[1].uuid}/`)).body.usage_policy).toBeNull();

    const narrow = await signedInPage(rootKey, NARROW);
    await narrow.goto(`${consoleStack.stack.apiUrl}/#/packages?search=assign-`);
    await narrow.getByText('pkg:npm/assign-c@1.0.0').waitFor();
    await expectNarrow(narrow, 'packages with the assignment form');
  }, 120_000);

  it('chooses license categories by checkboxes, saved as the API takes them, the reason following them', async () => {
    const page = await signedInPage(rootKey);
    await policyPage(page);
    const rule = page.locator('fieldset[data-rule-type="license_policy_error"]');
    const categories = rule.getByRole('group', { name: 'License categories' });
    // Every reference category, and nothing to type.
    await expect(categories.getByRole('checkbox').count()).resolves.toBe(11);
    await expect(rule.getByRole('textbox', { name: 'License categories' }).count()).resolves.toBe(0);
    await categories.getByRole('checkbox', { name: 'Patent License' }).check();
    await categories.getByRole('checkbox', { name: 'Free Restricted' }).check();
    await expect(rule.locator('[data-reason]').textContent()).resolves.toContain('or is in the categories Free Restricted and Patent License');
    await page.getByRole('button', { name: 'Save policy rules' }).click();
    await page.getByText('Policy rules saved.').waitFor();
    const saved = (await api(rootKey, 'GET', '/api/v2/policy_rules/')).body.find((r: { rule_type: string }) => r.rule_type === 'license_policy_error');
    expect(saved.parameters.categories).toEqual(expect.arrayContaining(['Free Restricted', 'Patent License']));

    await categories.getByRole('checkbox', { name: 'Patent License' }).uncheck();
    await page.getByRole('button', { name: 'Save policy rules' }).click();
    await page.getByText('Policy rules saved.').waitFor();
    const after = (await api(rootKey, 'GET', '/api/v2/policy_rules/')).body.find((r: { rule_type: string }) => r.rule_type === 'license_policy_error');
    expect(after.parameters.categories).toContain('Free Restricted');
    expect(after.parameters.categories).not.toContain('Patent License');
    await expectAccessible(page, 'the policy page');

    const narrow = await signedInPage(rootKey, NARROW);
    await policyPage(narrow);
    await expectNarrow(narrow, 'the policy page');
  }, 120_000);

  it('previews the recommended policy, applies it, and then has nothing left to change', async () => {
    const preview = (await api(rootKey, 'GET', '/api/v2/policy_rules/recommended/')).body;
    const page = await signedInPage(rootKey);
    await policyPage(page);
    await page.getByRole('button', { name: 'Start from the recommended policy' }).click();
    const rules = page.getByRole('list', { name: 'Rules of the recommended policy' });
    await rules.getByRole('listitem').first().waitFor();
    // Nothing is written by the preview.
    expect((await api(rootKey, 'GET', '/api/v2/policy_rules/recommended/')).body).toEqual(preview);
    await expect(rules.locator('[data-rule-type="vulnerability_detected"]').textContent()).resolves.toContain('risk score of 7 or more');
    await expectAccessible(page, 'the recommended policy preview');
    await screenshot(page, 'recommended-policy');
    const label = preview.changes === 1 ? 'Apply 1 change' : `Apply ${preview.changes} changes`;
    expect(preview.changes).toBeGreaterThan(0);
    await page.getByRole('button', { name: label }).click();
    await page.getByText(`Recommended policy applied: ${preview.changes} ${preview.changes === 1 ? 'change' : 'changes'}.`).waitFor();
    // The usage policies section and the rule form show what it set.
    await page.locator('tr[data-policy="Prohibited"]').waitFor();
    await expect(page.locator('fieldset[data-rule-type="vulnerability_detected"]').getByLabel('Active').isChecked()).resolves.toBe(true);
    expect((await api(rootKey, 'GET', '/api/v2/policy_rules/recommended/')).body.changes).toBe(0);

    // Idempotent: opened again, nothing to apply.
    const again = await signedInPage(rootKey, NARROW);
    await policyPage(again);
    await again.getByRole('button', { name: 'Start from the recommended policy' }).click();
    await again.getByText('nothing to change').waitFor();
    await expect(again.getByRole('button', { name: /^Apply/ }).count()).resolves.toBe(0);
    await expectNarrow(again, 'the recommended policy, applied');
  }, 120_000);
});
