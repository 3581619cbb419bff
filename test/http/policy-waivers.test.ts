/**
 * Policy waivers through the real handlers: made by who may change the product, seen by who may view
 * it, listed (filter is_expired), read and revoked under the product; refused with DRF field errors
 * and nothing stored; and what an evaluation makes of them (violation counts, the waivers a violation
 * shows, the status gate's waived counts), evaluated on demand (?wait=true) since no stream runs here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { PolicyWaiverStore } from '../../shared/store/policy-waiver-store.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {}, stranger: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
const PURLS = ['pkg:npm/banned-a@1.0.0', 'pkg:npm/banned-b@1.0.0', 'pkg:npm/banned-c@1.0.0'];
const OUTSIDE = 'pkg:npm/banned-elsewhere@1.0.0';

let packages: Record<string, string>;

beforeAll(async () => {
  expect((await call('root', 'POST', '/api/v2/usage_policies/', { label: 'Banned', content_type: 'package', compliance_alert: 'error' })).status).toBe(201);
  packages = {};
  for (const purl of [...PURLS, OUTSIDE]) {
    const created = await call('root', 'POST', '/api/v2/packages/', { purl, usage_policy: 'Banned' });
    expect(created.status, created.text).toBe(201);
    packages[purl] = created.json.uuid;
  }
  const rules = await call('root', 'PUT', '/api/v2/policy_rules/', { usage_policy_error: { is_active: true } });
  expect(rules.status, rules.text).toBe(200);
});

/** A product of alice's holding the three banned packages, viewable by viewer. */
async function aProduct(name: string) {
  const product = (await call('alice', 'POST', '/api/v2/products/', { name })).json as { uuid: string; api_url: string };
  await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
  for (const purl of PURLS) expect((await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: purl })).status).toBe(201);
  return product;
}

const waiversOf = (product: string) => `/api/v2/products/${product}/policy_waivers/`;
const aWaiver = (overrides: Record<string, unknown> = {}) => ({
  rule_type: 'usage_policy_error',
  package: PURLS[0],
  reason: 'The vendor ships a fix next sprint.',
  expires_at: inDays(30),
  ...overrides,
});

describe('policy waivers', () => {
  it('are made by who may change the product, listed, filtered, read and revoked', async () => {
    const product = await aProduct('Waived');
    const expiresAt = inDays(30);
    const made = await call('alice', 'POST', waiversOf(product.uuid), aWaiver({ expires_at: expiresAt }));
    expect(made.status, made.text).toBe(201);
    expect(made.json).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/products/${product.uuid}/policy_waivers/${made.json.uuid}/`,
      product: product.api_url,
      rule_type: 'usage_policy_error',
      rule_label: 'Usage Policy Error',
      package: PURLS[0],
      package_uuid: packages[PURLS[0]!],
      reason: 'The vendor ships a fix next sprint.',
      expires_at: new Date(expiresAt).toISOString().replace('Z', '+00:00'),
      is_expired: false,
      created_by: 'alice',
      created_date: expect.stringMatching(/\+00:00$/),
    });
    // By uuid, and without a package: the whole rule, for the product.
    const byUuid = await call('alice', 'POST', waiversOf(product.uuid), aWaiver({ package: packages[PURLS[1]!] }));
    expect(byUuid.json).toMatchObject({ package: PURLS[1], package_uuid: packages[PURLS[1]!] });
    const whole = await call('alice', 'POST', waiversOf(product.uuid), { rule_type: 'usage_policy_warning', reason: 'Accepted for 2.x', expires_at: inDays(1) });
    expect(whole.status, whole.text).toBe(201);
    expect(whole.json).toMatchObject({ package: null, package_uuid: null, rule_type: 'usage_policy_warning' });

    const listed = await call('viewer', 'GET', waiversOf(product.uuid));
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ count: 3, next: null, previous: null });
    expect(listed.json.results.map((w: { uuid: string }) => w.uuid)).toEqual([made.json.uuid, byUuid.json.uuid, whole.json.uuid]);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}?is_expired=false`)).json.count).toBe(3);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}?is_expired=true`)).json.count).toBe(0);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}?page_size=1&page=2`)).json.results.map((w: { uuid: string }) => w.uuid)).toEqual([byUuid.json.uuid]);
    const badFilter = await call('viewer', 'GET', `${waiversOf(product.uuid)}?is_expired=maybe`);
    expect(badFilter.status).toBe(400);
    expect(Object.keys(badFilter.json)).toEqual(['is_expired']);

    expect(await call('viewer', 'GET', `${waiversOf(product.uuid)}${made.json.uuid}/`)).toMatchObject({ status: 200, json: made.json });
    expect((await call('stranger', 'GET', `${waiversOf(product.uuid)}${made.json.uuid}/`)).status).toBe(404);
    expect((await call('stranger', 'GET', waiversOf(product.uuid))).status).toBe(404);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}00000000-0000-4000-8000-000000000000/`)).status).toBe(404);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}not-a-uuid/`)).status).toBe(404);

    expect((await call('viewer', 'DELETE', `${waiversOf(product.uuid)}${made.json.uuid}/`)).status).toBe(403);
    expect((await call('alice', 'DELETE', `${waiversOf(product.uuid)}${made.json.uuid}/`)).status).toBe(204);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}${made.json.uuid}/`)).status).toBe(404);
    expect((await call('alice', 'DELETE', `${waiversOf(product.uuid)}${made.json.uuid}/`)).status).toBe(404);
    expect((await call('viewer', 'GET', waiversOf(product.uuid))).json.count).toBe(2);
  });

  it('list expired ones apart (is_expired), and answer them so', async () => {
    const product = await aProduct('Lapsed');
    // A waiver whose expiry has passed cannot be made through the API: written as the store would have it.
    const store = new PolicyWaiverStore(http.env.doc, http.env.tableName);
    const lapsed = {
      uuid: '7a7a7a7a-0000-4000-8000-000000000001',
      dataspace: 'acme',
      productUuid: product.uuid,
      ruleType: 'usage_policy_error' as const,
      packageUuid: packages[PURLS[2]!]!,
      packagePurl: PURLS[2]!,
      reason: 'Lapsed',
      expiresDate: new Date(Date.now() - 60_000).toISOString().replace('Z', '+00:00'),
      createdBy: 'alice',
      createdDate: new Date(Date.now() - DAY_MS).toISOString().replace('Z', '+00:00'),
      expiredDate: null,
    };
    await store.create({ uuid: product.uuid, dataspace: 'acme' }, lapsed);
    const current = (await call('alice', 'POST', waiversOf(product.uuid), aWaiver())).json;
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}?is_expired=true`)).json.results.map((w: { uuid: string; is_expired: boolean }) => [w.uuid, w.is_expired])).toEqual([
      [lapsed.uuid, true],
    ]);
    expect((await call('viewer', 'GET', `${waiversOf(product.uuid)}?is_expired=false`)).json.results.map((w: { uuid: string }) => w.uuid)).toEqual([current.uuid]);
    // The expired one no longer holds its package back.
    const evaluated = await call('alice', 'POST', `/api/v2/products/${product.uuid}/evaluate_policy_rules/?wait=true`);
    expect(evaluated.json).toMatchObject([{ rule_type: 'usage_policy_error', violation_count: 2, waived_count: 1, waivers: [{ uuid: current.uuid }] }]);
  });

  it.each([
    ['an expiry in the past', aWaiver({ expires_at: new Date(Date.now() - 60_000).toISOString() }), { expires_at: ['Ensure this date/time is in the future.'] }],
    ['an expiry more than a year ahead', aWaiver({ expires_at: inDays(366) }), { expires_at: ['Ensure this date/time is at most 365 days ahead.'] }],
    ['an expiry that is no date', aWaiver({ expires_at: 'next Tuesday' }), { expires_at: ['Enter a valid ISO 8601 date/time with a time zone.'] }],
    ['no expiry', aWaiver({ expires_at: undefined }), { expires_at: ['This field is required.'] }],
    ['an unknown rule type', aWaiver({ rule_type: 'no_such_rule' }), { rule_type: ['"no_such_rule" is not a valid choice.'] }],
    ['a package not in the product', aWaiver({ package: OUTSIDE }), { package: [`No package "${OUTSIDE}" in this product.`] }],
    ['a package of no one', aWaiver({ package: 'pkg:npm/nowhere@0.0.1' }), { package: ['No package "pkg:npm/nowhere@0.0.1" in this product.'] }],
    ['a blank reason', aWaiver({ reason: '   ' }), { reason: ['This field may not be blank.'] }],
    ['no reason', aWaiver({ reason: undefined }), { reason: ['This field is required.'] }],
    ['an unknown field', aWaiver({ approved: true }), { approved: ['Unknown field.'] }],
  ])('refuse %s with a 400 naming the field, and store nothing', async (_, body, errors) => {
    const product = await aProduct(`Refused ${Math.random()}`);
    const before = await snapshot();
    const refused = await call('alice', 'POST', waiversOf(product.uuid), JSON.parse(JSON.stringify(body)));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('refuse wrong types and bodies that are not objects, field by field, storing nothing', async () => {
    const product = await aProduct('Typed');
    const before = await snapshot();
    const typed = await call('alice', 'POST', waiversOf(product.uuid), { rule_type: 5, package: 3, reason: ['why'], expires_at: true });
    expect(typed.status).toBe(400);
    expect(Object.keys(typed.json).sort()).toEqual(['expires_at', 'package', 'reason', 'rule_type']);
    for (const body of [[aWaiver()], 'a string', 42, null]) {
      const refused = await call('alice', 'POST', waiversOf(product.uuid), JSON.stringify(body));
      expect(refused.status, `${JSON.stringify(body)}: ${refused.text}`).toBe(400);
      expect(Object.keys(refused.json)).toEqual(['non_field_errors']);
    }
    expect(await snapshot()).toBe(before);
  });

  it("refuse viewers (403) and another dataspace's callers (404), storing nothing", async () => {
    const product = await aProduct('Guarded');
    const made = (await call('alice', 'POST', waiversOf(product.uuid), aWaiver())).json;
    const before = await snapshot();
    expect((await call('viewer', 'POST', waiversOf(product.uuid), aWaiver())).status).toBe(403);
    expect((await call('viewer', 'DELETE', `${waiversOf(product.uuid)}${made.uuid}/`)).status).toBe(403);
    expect((await call('stranger', 'POST', waiversOf(product.uuid), aWaiver())).status).toBe(404);
    for (const [method, path] of [
      ['POST', waiversOf(product.uuid)],
      ['GET', waiversOf(product.uuid)],
      ['GET', `${waiversOf(product.uuid)}${made.uuid}/`],
      ['DELETE', `${waiversOf(product.uuid)}${made.uuid}/`],
    ] as const) {
      const answer = await call('mallory', method, path, method === 'POST' ? aWaiver() : undefined);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect(await snapshot()).toBe(before);
    // A superuser of the product's dataspace may, as for every product.
    expect((await call('root', 'POST', waiversOf(product.uuid), aWaiver({ package: PURLS[1] }))).status).toBe(201);
  });
});

describe('a deleted product', () => {
  it('takes its waivers with it', async () => {
    const product = await aProduct('Deleted');
    await call('alice', 'POST', waiversOf(product.uuid), aWaiver());
    await call('alice', 'POST', waiversOf(product.uuid), aWaiver({ package: null }));
    const store = new PolicyWaiverStore(http.env.doc, http.env.tableName);
    expect(await store.ofProduct(product.uuid)).toHaveLength(2);
    // Their expiry index entries: due a year from now, until the product goes.
    const dueThen = async () =>
      (await store.due(new Date(Date.now() + 400 * DAY_MS).toISOString().replace('Z', '+00:00'), 1_000)).filter((entry) => entry.productUuid === product.uuid);
    expect(await dueThen()).toHaveLength(2);
    expect((await call('alice', 'DELETE', `/api/v2/products/${product.uuid}/`)).status).toBe(204);
    expect(await store.ofProduct(product.uuid)).toEqual([]);
    expect(await dueThen()).toEqual([]);
  });
});

describe('what an evaluation makes of waivers', () => {
  const evaluate = async (product: string) => {
    const answer = await call('alice', 'POST', `/api/v2/products/${product}/evaluate_policy_rules/?wait=true`);
    expect(answer.status, answer.text).toBe(200);
    return answer.json as { rule_type: string; violation_count: number; waived_count: number; waivers: { uuid: string }[] }[];
  };
  const status = async (product: string) => (await call('viewer', 'GET', `/api/v2/products/${product}/policy_status/`)).json;

  it('a waived package leaves the count, the violation shows its waiver, and waiving them all resolves it', async () => {
    const product = await aProduct('Counted');
    expect(await evaluate(product.uuid)).toMatchObject([{ rule_type: 'usage_policy_error', violation_count: 3, waived_count: 0, waivers: [] }]);
    expect(await status(product.uuid)).toMatchObject({ status: 'fail', errors: 1, warnings: 0, waived_errors: 0, waived_warnings: 0 });

    const first = (await call('alice', 'POST', waiversOf(product.uuid), aWaiver())).json;
    expect(await evaluate(product.uuid)).toEqual([
      expect.objectContaining({
        rule_type: 'usage_policy_error',
        violation_count: 2,
        waived_count: 1,
        waivers: [{ uuid: first.uuid, api_url: first.api_url, package: PURLS[0], reason: first.reason, expires_at: first.expires_at }],
      }),
    ]);
    const viewed = (await call('viewer', 'GET', `/api/v2/products/${product.uuid}/policy_violations/`)).json;
    expect(viewed).toMatchObject([{ violation_count: 2, waived_count: 1, waivers: [{ uuid: first.uuid }] }]);
    const behind = (await call('viewer', 'GET', `/api/v2/products/${product.uuid}/policy_violations/usage_policy_error/packages/`)).json;
    expect(behind.results.map((p: { purl: string }) => p.purl).sort()).toEqual([PURLS[1], PURLS[2]]);

    for (const purl of [PURLS[1], PURLS[2]]) await call('alice', 'POST', waiversOf(product.uuid), aWaiver({ package: purl }));
    expect(await evaluate(product.uuid)).toEqual([]);
    expect(await status(product.uuid)).toMatchObject({ status: 'pass', errors: 0, warnings: 0, waived_errors: 1, waived_warnings: 0 });

    // Revoking one brings its package back.
    expect((await call('alice', 'DELETE', `${waiversOf(product.uuid)}${first.uuid}/`)).status).toBe(204);
    expect(await evaluate(product.uuid)).toMatchObject([{ violation_count: 1, waived_count: 2 }]);
    expect(await status(product.uuid)).toMatchObject({ status: 'fail', errors: 1, waived_errors: 0 });
  });

  it('a product-level waiver resolves the whole rule', async () => {
    const product = await aProduct('Whole');
    expect(await evaluate(product.uuid)).toHaveLength(1);
    await call('alice', 'POST', waiversOf(product.uuid), aWaiver({ package: null }));
    expect(await evaluate(product.uuid)).toEqual([]);
    expect(await status(product.uuid)).toMatchObject({ status: 'pass', waived_errors: 1 });
  });
});
