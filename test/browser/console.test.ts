/**
 * The web console in a real browser (headless Chromium from the npm registry, @sparticuz/chromium, driven by
 * playwright-core; see test/support/chromium.ts) against `npm start`,
 * as a compliance officer uses it: sign in with a key, configure rules, re-evaluate a product and see a
 * red and a yellow violation, run the bulk action, create a request from a template and comment on it.
 * Screenshots of the main pages go to test-output/screenshots/.
 */
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { npmRunAdmin } from '../support/npm-start.ts';
import { eventually } from '../support/local-stack.ts';
import { NARROW, screenshot, unlabelledControls, useConsoleStack } from '../support/console-browser.ts';

const consoleStack = useConsoleStack({
  priorities: [{ label: 'Urgent', dataspace: 'acme' }],
  request_templates: [
    {
      name: 'Package Review',
      dataspace: 'acme',
      description: 'Ask legal to review a package.',
      content_type: 'product',
      is_active: true,
      questions: [
        { label: 'Justification', input_type: 'TextField', is_required: true },
        { label: 'Deadline', input_type: 'DateField', is_required: false },
        { label: 'Commercial use', input_type: 'BooleanField', is_required: false },
      ],
    },
  ],
});
const { root: rootKey, alice: aliceKey, carol: carolKey } = consoleStack.keys;
const { api, created, newPage, signedInPage } = consoleStack;

describe('the web console in Chromium', () => {
  it('signs in with a key kept for the tab only, refuses a wrong one, and serves the console with its security headers', async () => {
    const home = await fetch(`${consoleStack.stack.apiUrl}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(home.headers.get('x-frame-options')).toBe('DENY');

    const page = await newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${consoleStack.stack.apiUrl}/`);
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Invalid token.');

    // Keyboard only: focus the field, type, Enter.
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(rootKey);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Policy', exact: true }).waitFor();

    const stored = await page.evaluate(() => ({ session: Object.values(sessionStorage), local: Object.values(localStorage), cookie: document.cookie }));
    expect(stored).toEqual({ session: [rootKey], local: [], cookie: '' });
    expect(requested.some((url) => url.includes(rootKey))).toBe(false);
    expect(page.url()).not.toContain(rootKey);

    // A reload keeps the session; signing out forgets the key.
    await page.reload();
    await page.getByRole('link', { name: 'Policy', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('sends a user whose key was replaced back to sign-in, with the reason, and lets the new key in', async () => {
    const page = await signedInPage(carolKey);
    const replaced = await npmRunAdmin(consoleStack.dataDir, 'create-api-key', 'carol');
    expect(replaced.status, replaced.stderr).toBe(0);
    const newKey = /the old key no longer works\): (\S+)/.exec(replaced.stdout)![1]!;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    await page.getByText('The API no longer accepts your key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.getByLabel('API key').fill(newKey);
    await page.getByLabel('API key').press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  }, 60_000);

  it('configures two rules with the API validation shown at the field, and a re-evaluation shows a red and a yellow violation', async () => {
    const page = await signedInPage(rootKey);
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    const errorRule = page.locator('fieldset[data-rule-type="license_policy_error"]');
    const gapRule = page.locator('fieldset[data-rule-type="license_coverage_gap"]');
    await errorRule.getByLabel('Active').check();
    await gapRule.getByLabel('Active').check();
    // A wrong value is refused in the browser, before any request, with the API's own message next to its field.
    const puts: string[] = [];
    page.on('request', (request) => request.method() === 'PUT' && puts.push(request.url()));
    await gapRule.getByLabel('Threshold').fill('1.5');
    await page.getByRole('button', { name: 'Save policy rules' }).click();
    const thresholdError = page.locator('#rule-license_coverage_gap-threshold-error');
    await expect(thresholdError.textContent()).resolves.toContain('Must be a whole number from 0 to 1000000.');
    expect(await gapRule.getByLabel('Threshold').getAttribute('aria-invalid')).toBe('true');
    expect(puts).toEqual([]);
    expect((await api(rootKey, 'GET', '/api/v2/policy_rules/')).body.filter((rule: any) => rule.is_active)).toEqual([]);

    await gapRule.getByLabel('Threshold').fill('0');
    await page.getByRole('button', { name: 'Save policy rules' }).click();
    await page.getByText('Policy rules saved.').waitFor();
    await screenshot(page, 'policy-validation');
    const rules = (await api(rootKey, 'GET', '/api/v2/policy_rules/')).body as { rule_type: string; is_active: boolean }[];
    expect(rules.filter((rule) => rule.is_active).map((rule) => rule.rule_type).sort()).toEqual(['license_coverage_gap', 'license_policy_error']);

    // The catalog and the product's packages, through the API.
    await created(rootKey, '/api/v2/usage_policies/', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error' });
    await created(rootKey, '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GNU GPL 3.0', usage_policy: 'Prohibited' });
    await created(rootKey, '/api/v2/packages/', { purl: 'pkg:npm/copyleft-lib@1.0.0', license_expression: 'gpl-3.0' });
    await created(rootKey, '/api/v2/packages/', { purl: 'pkg:npm/mystery@2.0.0' });
    const product = await created(rootKey, '/api/v2/products/', { name: 'Toolkit', version: '1.0' });
    await created(rootKey, '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:npm/copyleft-lib@1.0.0' });
    await created(rootKey, '/api/v2/product_packages/', { product: product.uuid, package: 'pkg:npm/mystery@2.0.0' });

    await page.getByRole('link', { name: 'Products' }).click();
    await page.getByRole('link', { name: 'Toolkit' }).click();
    await page.getByRole('heading', { level: 1, name: /Toolkit/ }).waitFor();
    await page.getByRole('link', { name: 'Compliance' }).click();
    const reevaluate = page.getByRole('button', { name: /Re-evaluate|Evaluating/ });
    await reevaluate.click();
    await page.getByText('Evaluation finished: 1 error, 1 warning.').waitFor();
    expect(await reevaluate.textContent()).toBe('Re-evaluate');

    const items = page.getByRole('list', { name: 'Active policy violations' }).getByRole('listitem');
    await items.nth(1).waitFor();
    await expect(items.count()).resolves.toBe(2);
    const [first, second] = [items.nth(0), items.nth(1)];
    // Errors first, in red, and saying so in words; then the warning, in yellow.
    expect(await first.getAttribute('data-rule-type')).toBe('license_policy_error');
    expect(await first.textContent()).toMatch(/Error.*License Policy Error.*1 package/);
    expect(await second.getAttribute('data-rule-type')).toBe('license_coverage_gap');
    expect(await second.textContent()).toMatch(/Warning.*License Coverage Gap.*1 package/);
    const background = (item: typeof first) => item.evaluate((element) => getComputedStyle(element).backgroundColor);
    expect(await background(first)).toBe('rgb(253, 236, 234)');
    expect(await background(second)).toBe('rgb(255, 245, 204)');
    expect(await page.getByText('Fail: at least one error violation').count()).toBe(1);

    // Drill down to the package and why it is there.
    await first.getByRole('button', { name: 'Show the packages in violation' }).click();
    await first.getByText('pkg:npm/copyleft-lib@1.0.0').waitFor();
    expect(await first.textContent()).toContain('(gpl-3.0)');
    await screenshot(page, 'compliance');

    // The same tab on a narrow screen.
    const narrow = await signedInPage(rootKey, { width: 375, height: 800 });
    await narrow.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/compliance`);
    // Once seen to time out in a full run (not reproduced since): a failure says what the page showed.
    await narrow
      .getByRole('list', { name: 'Active policy violations' })
      .waitFor()
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nThe narrow page showed:\n${await narrow.locator('body').innerText().catch(() => '(unreadable)')}`);
      });
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(narrow, 'compliance-narrow');
  }, 120_000);

  it('runs the bulk action "Evaluate policy rules" on two selected products', async () => {
    const one = await created(rootKey, '/api/v2/products/', { name: 'Bulk One', version: '1' });
    const two = await created(rootKey, '/api/v2/products/', { name: 'Bulk Two', version: '1' });
    const evaluatedAt = async (uuid: string) => (await api(rootKey, 'GET', `/api/v2/products/${uuid}/policy_status/`)).body.evaluated_at as string | null;
    // Creating a product evaluates it once; wait for that, so the bulk action's own runs can be seen.
    const both = async () => ({ a: await evaluatedAt(one.uuid), b: await evaluatedAt(two.uuid) });
    const before = await eventually(both, ({ a, b }) => a !== null && b !== null);

    const page = await signedInPage(rootKey);
    await page.getByLabel('Select Bulk One 1').check();
    await page.getByLabel('Select Bulk Two 1').check();
    await page.getByRole('button', { name: 'Evaluate policy rules' }).click();
    await page.getByText('Evaluation queued for 2 products.').waitFor();
    await screenshot(page, 'products');
    await eventually(both, ({ a, b }) => a! > before.a! && b! > before.b!);
    expect(await page.getByLabel('Select Bulk One 1').isChecked()).toBe(false);

    // A non-superuser is not offered the action (the API refuses it to them).
    const alice = await signedInPage(aliceKey);
    await alice.getByRole('cell', { name: 'No products yet.' }).waitFor();
    expect(await alice.getByRole('button', { name: 'Evaluate policy rules' }).count()).toBe(0);
    expect(await alice.getByRole('link', { name: 'Policy', exact: true }).count()).toBe(0);

    // Reached by their address, the superusers' pages say so and offer no form; a request alice only sees
    // offers her no status or assignment change, but comments.
    for (const [route, heading] of [['#/policy', 'Policy'], ['#/webhooks', 'Webhooks']] as const) {
      await alice.goto(`${consoleStack.stack.apiUrl}/${route}`);
      await alice.getByText("are set by the dataspace's superusers", { exact: false }).or(alice.getByText("managed by the dataspace's superusers", { exact: false })).waitFor();
      await expect(alice.getByRole('heading', { level: 1, name: heading }).count()).resolves.toBe(1);
      await expect(alice.getByRole('button').filter({ hasNotText: 'Sign out' }).count()).resolves.toBe(0);
    }
    const request = await created<{ uuid: string }>(rootKey, '/api/v2/requests/', {
      title: 'Seen, not changed',
      request_template: 'Package Review',
      serialized_data: { Justification: 'Because.' },
    });
    await alice.goto(`${consoleStack.stack.apiUrl}/#/requests/${request.uuid}`);
    await alice.getByRole('heading', { level: 1, name: 'Seen, not changed' }).waitFor();
    await alice.getByRole('button', { name: 'Add comment' }).waitFor();
    await expect(alice.getByRole('button', { name: 'Change status' }).count()).resolves.toBe(0);
    await expect(alice.getByLabel('Status', { exact: true }).count()).resolves.toBe(0);
  }, 90_000);

  it('keeps the search form, the selection and the route in step with the address', async () => {
    await created(rootKey, '/api/v2/products/', { name: 'Step One', version: '1' });
    await created(rootKey, '/api/v2/products/', { name: 'Step Two', version: '1' });
    const page = await signedInPage(rootKey);
    await page.getByLabel('Select Step One 1').check();
    await page.getByLabel('Name (exact)').fill('Step Two');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Step Two' }).waitFor();
    // A new search starts a new selection: nothing unseen is evaluated by the bulk action.
    await page.getByText('0 selected').waitFor();
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'Step One' }).waitFor();
    expect(await page.getByLabel('Name (exact)').inputValue()).toBe('');
    await page.goBack();
    await page.getByText('1 product', { exact: true }).waitFor();
    expect(await page.getByLabel('Name (exact)').inputValue()).toBe('Step Two');
    // A broken address is a page that says so, not a blank one.
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/%E0`);
    await page.getByText('Not found.').waitFor();
  }, 60_000);

  it("grants and revokes a user's permissions from the product's Permissions tab", async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: 'Shared', version: '2' });
    expect((await api(aliceKey, 'GET', `/api/v2/products/${product.uuid}/`)).status).toBe(404);
    const page = await signedInPage(rootKey);
    await page.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/permissions`);
    await page.getByLabel('Username').fill('nobody');
    await page.getByRole('button', { name: 'Grant' }).click();
    await expect(page.locator('#permission-target-error').textContent()).resolves.toContain('User "nobody" does not exist in this dataspace.');
    await page.getByLabel('Username').fill('alice');
    await page.getByRole('button', { name: 'Grant' }).click();
    await page.getByText('Permissions assigned (user alice).').waitFor();
    // The notice comes once the table shows the new holder, not before.
    expect(await page.getByRole('cell', { name: 'User alice' }).count()).toBe(1);
    expect((await api(aliceKey, 'GET', `/api/v2/products/${product.uuid}/`)).status).toBe(200);

    // Alice sees the product now, but not its permissions (only superusers and the creator manage them).
    const alice = await signedInPage(aliceKey);
    await alice.goto(`${consoleStack.stack.apiUrl}/#/products/${product.uuid}/permissions`);
    await alice.getByText("Only superusers and the product's creator (root) manage its permissions.").waitFor();

    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Permissions removed (user alice).').waitFor();
    expect((await api(aliceKey, 'GET', `/api/v2/products/${product.uuid}/`)).status).toBe(404);
  }, 60_000);

  it('creates a request from a template form, filters the list, and adds a comment', async () => {
    const page = await signedInPage(aliceKey);
    // A route changes after the click returns, and the request list has a "Template" filter of its own:
    // wait for each page's heading before using its controls.
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.getByRole('link', { name: 'New request' }).click();
    await page.getByRole('heading', { level: 1, name: 'New request' }).waitFor();
    await page.getByLabel('Template').selectOption({ label: 'Package Review' });
    await page.getByLabel('Title').fill('Review copyleft-lib');
    await page.getByLabel('Priority').selectOption('Urgent');
    // The template's required question, left empty, is refused with the API's words.
    await page.getByRole('button', { name: 'Create request' }).click();
    await expect(page.locator('#request-answers-error').textContent()).resolves.toContain('"Justification" is required.');
    await page.getByLabel(/Justification/).fill('Shipped in the installer');
    await page.getByLabel('Deadline').fill('2026-12-31');
    await page.getByLabel('Commercial use').check();
    await page.getByRole('button', { name: 'Create request' }).click();
    await page.getByRole('heading', { name: 'Review copyleft-lib' }).waitFor();
    const uuid = page.url().split('/').pop()!;
    const request = (await api(aliceKey, 'GET', `/api/v2/requests/${uuid}/`)).body;
    expect(request).toMatchObject({ title: 'Review copyleft-lib', priority: 'Urgent', serialized_data: { Justification: 'Shipped in the installer', Deadline: '2026-12-31', 'Commercial use': true } });

    // An empty comment is the API's 400, shown at the field; a real one is stored and shown.
    await page.getByRole('button', { name: 'Add comment' }).click();
    await expect(page.locator('#comment-text-error').textContent()).resolves.toContain('This field may not be blank.');
    await page.getByLabel('Add a comment').fill('Legal approved this.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Comment added.').waitFor();
    await page.getByText('Legal approved this.').waitFor();
    const comments = (await api(aliceKey, 'GET', `/api/v2/requests/${uuid}/`)).body.comments;
    expect(comments).toMatchObject([{ username: 'alice', text: 'Legal approved this.' }]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Requests' }).click();
    const filters = page.getByRole('form', { name: 'Filter and order the requests' });
    await filters.getByLabel('Status').selectOption('closed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No requests match.').waitFor();
    await filters.getByLabel('Status').selectOption('open');
    await filters.getByLabel('Order by').selectOption('title');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'Review copyleft-lib' }).waitFor();
    expect(page.url()).toContain('ordering=title');
  }, 60_000);

  it('manages a webhook: subscribe, ping, and see the delivery log', async () => {
    const page = await signedInPage(rootKey);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Target URL (https)').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.locator('#webhook-target-error').waitFor();
    // A local receiver (npm start allows loopback targets).
    const { createServer } = await import('node:http');
    const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', () => done()));
    try {
      const port = (receiver.address() as { port: number }).port;
      await page.getByLabel('Target URL (https)').fill(`http://127.0.0.1:${port}/hook`);
      await page.getByLabel('Description').fill('Local receiver');
      await page.getByLabel('request.added').check();
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await page.getByText('Its signing secret is shown this once').waitFor();
      await page.getByRole('link', { name: `http://127.0.0.1:${port}/hook` }).click();
      await page.getByRole('button', { name: 'Send a ping' }).click();
      await page.getByText(/Ping delivered: 204/).waitFor();
      // A real event reaches the receiver, shows in the log, and can be sent again.
      const webhookUuid = page.url().split('/').pop()!;
      await created(rootKey, '/api/v2/requests/', { title: 'Hook me', request_template: 'Package Review', serialized_data: { Justification: 'x' } });
      const attempts = async () => (await api(rootKey, 'GET', `/api/v2/webhooks/${webhookUuid}/deliveries/`)).body.results.filter((d: any) => d.event_type === 'request.added');
      await eventually(attempts, (found) => found.length === 1);
      await page.reload();
      await page.getByRole('button', { name: /^Redeliver request\.added/ }).click();
      await page.getByText('Delivery of request.added queued again.').waitFor();
      await eventually(attempts, (found) => found.length === 2);
      } finally {
      await new Promise((done) => receiver.close(done));
    }
  }, 60_000);

  it('gives every form control a non-empty label, on every page once its data is in', async () => {
    const product = await created(rootKey, '/api/v2/products/', { name: 'Labelled', version: '1' });
    const request = await created(rootKey, '/api/v2/requests/', { title: 'Labelled request', request_template: 'Package Review', serialized_data: { Justification: 'x' } });
    const webhook = await created(rootKey, '/api/v2/webhooks/', { target_url: 'http://127.0.0.1:9/hook', events: ['request.added'] });
    const page = await signedInPage(rootKey);
    const pages: [string, string][] = [
      ['#/products', 'Select Labelled 1'],
      [`#/products/${product.uuid}/packages`, 'Package URL or uuid (from the catalog)'],
      [`#/products/${product.uuid}/permissions`, 'Username'],
      ['#/requests', 'Order by'],
      [`#/requests/${request.uuid}`, 'Add a comment'],
      ['#/policy', 'Save policy rules'],
      [`#/webhooks/${webhook.uuid}`, 'Send a ping'],
      ['#/webhooks', 'Target URL (https)'],
    ];
    for (const [route, ready] of pages) {
      await page.goto(`${consoleStack.stack.apiUrl}/${route}`);
      await page.getByLabel(ready).or(page.getByRole('button', { name: ready })).first().waitFor();
      await expect(unlabelledControls(page), route).resolves.toEqual([]);
    }
    // The template form's questions too.
    await page.goto(`${consoleStack.stack.apiUrl}/#/requests/new`);
    await page.getByLabel('Template').selectOption({ label: 'Package Review' });
    await page.getByLabel('Commercial use').waitFor();
    await expect(unlabelledControls(page), 'new request').resolves.toEqual([]);
  }, 60_000);

  it('never scrolls sideways on a 360 px screen, whatever the length of names, titles, URLs and comments', async () => {
    const long = 'x'.repeat(60);
    const product = await created(rootKey, '/api/v2/products/', { name: `Long${long}`, version: '1' });
    const request = await created(rootKey, '/api/v2/requests/', { title: `Review ${long}`, request_template: 'Package Review', serialized_data: { Justification: `https://example.com/${long}` } });
    expect((await api(rootKey, 'POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: `See https://example.com/${long}${long}` })).status).toBe(201);
    const webhook = await created(rootKey, '/api/v2/webhooks/', { target_url: `http://127.0.0.1:9/${long}${long}`, events: ['request.added'] });
    const page = await signedInPage(rootKey, NARROW);
    for (const [route, text] of [
      [`#/products/${product.uuid}`, `Long${long}`],
      [`#/products/${product.uuid}/compliance`, 'Re-evaluate'],
      [`#/requests/${request.uuid}`, 'See https://'],
      [`#/webhooks/${webhook.uuid}`, 'Send a ping'],
      ['#/policy', 'Save policy rules'],
      ['#/requests', 'Order by'],
    ] as const) {
      await page.goto(`${consoleStack.stack.apiUrl}/${route}`);
      await page.getByText(text).first().waitFor();
      const widest = await page.evaluate(() => {
        const wide = [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > 360 && !element.closest('.table-wrap'));
        return { width: document.documentElement.scrollWidth, elements: wide.slice(-3).map((element) => element.outerHTML.slice(0, 120)) };
      });
      expect(widest.width, `${route}: ${widest.elements.join('\n')}`).toBeLessThanOrEqual(NARROW.width);
    }
    // The requests' "Order by" takes the width of the screen (its options were cut when it sat beside another field).
    const order = await page.getByLabel('Order by').boundingBox();
    expect(order!.width).toBeGreaterThan(NARROW.width * 0.75);
    expect(order!.x + order!.width).toBeLessThanOrEqual(NARROW.width);
  }, 60_000);
});
