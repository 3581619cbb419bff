/**
 * What DejaCode (DRF) clients rely on, guarded on every route of the table:
 * - a GET body PUT back with one change answers 200, the read-only fields ignored;
 * - a field the object does not have is a 400 naming it, and changes nothing;
 * - a page past the end is 404 {"detail": "Invalid page."}.
 * Each table is checked against the route table, so a new route must join it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/routes/index.ts';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });
const { call, snapshot } = http;

/** The objects the routes' path parameters name, made once for the file. */
const made: Record<string, string> = {};

const ok = async (method: string, path: string, body?: unknown) => {
  const response = await call('root', method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.json;
};

beforeAll(async () => {
  await load(http.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product', questions: [] }] });
  made.product = (await ok('POST', '/api/v2/products/', { name: 'DRF', version: '1.0' })).uuid;
  made.usage_policy = (await ok('POST', '/api/v2/usage_policies/', { label: 'Refused', content_type: 'license', compliance_alert: 'error' })).uuid;
  made.license = (await ok('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT', usage_policy: 'Refused' })).uuid;
  made.license_mapping = (await ok('POST', '/api/v2/license_mappings/', { text: 'The MIT Licence', license_expression: 'mit' })).uuid;
  made.package = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/drf@1.0.0', license_expression: 'mit' })).uuid;
  made.vulnerability = (
    await ok('POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-drf', risk_score: 5, affected_packages: [{ package: 'pkg:npm/drf@1.0.0' }] })
  ).uuid;
  made.product_package = (await ok('POST', '/api/v2/product_packages/', { product: made.product, package: made.package })).uuid;
  made.vulnerability_analysis = (
    await ok('POST', '/api/v2/vulnerability_analyses/', { product_package: made.product_package, vulnerability_id: 'VCID-drf', state: 'in_triage' })
  ).uuid;
  made.request = (await ok('POST', '/api/v2/requests/', { title: 'Review DRF', request_template: 'Review' })).uuid;
  // A violation, so that its packages list exists.
  await ok('PUT', '/api/v2/policy_rules/', { license_policy_error: { is_active: true } });
  const evaluated = await ok('POST', `/api/v2/products/${made.product}/evaluate_policy_rules/?wait=true`);
  expect(JSON.stringify(evaluated)).toContain('license_policy_error');
  made.webhook = (await ok('POST', '/api/v2/webhooks/', { target_url: 'https://8.8.8.8/hook', events: ['request.added'] })).uuid;
});

/** A route path with its parameters filled from `made` (the collection's own object for {uuid}). */
function fill(path: string): string {
  const collection = /^\/api\/v2\/(\w+)\//.exec(path)![1]!;
  const own: Record<string, string> = {
    products: 'product',
    requests: 'request',
    usage_policies: 'usage_policy',
    licenses: 'license',
    license_mappings: 'license_mapping',
    packages: 'package',
    vulnerabilities: 'vulnerability',
    product_packages: 'product_package',
    vulnerability_analyses: 'vulnerability_analysis',
    webhooks: 'webhook',
  };
  return path.replace('{uuid}', made[own[collection]!]!).replace('{rule_type}', 'license_policy_error').replace('{id}', '00000000-0000-4000-8000-000000000000');
}

/** One change per PUT route, which the answer and the next GET must show. */
const PUT_CHANGES: Record<string, Record<string, unknown>> = {
  '/api/v2/products/{uuid}/': { version: '2.0' },
  '/api/v2/requests/{uuid}/': { title: 'Review DRF again' },
  '/api/v2/usage_policies/{uuid}/': { description: 'Fine to use' },
  '/api/v2/licenses/{uuid}/': { name: 'MIT License' },
  '/api/v2/license_mappings/{uuid}/': { text: 'Expat License' },
  '/api/v2/packages/{uuid}/': { filename: 'drf-1.0.0.tgz' },
  '/api/v2/vulnerabilities/{uuid}/': { summary: 'A flaw in drf' },
  '/api/v2/vulnerability_analyses/{uuid}/': { detail: 'Looked at it' },
  '/api/v2/product_packages/{uuid}/': { is_modified: true },
  '/api/v2/webhooks/{uuid}/': { description: 'For DRF clients' },
  '/api/v2/policy_rules/': {},
};

const routes = (test: (route: (typeof ROUTES)[number]) => boolean) => ROUTES.filter(test).map((route) => [`${route.method} ${route.path}`, route] as const);
const putRoutes = routes((route) => route.method === 'PUT');
const bodyRoutes = routes((route) => route.body !== undefined);
const pagedRoutes = routes((route) => route.method === 'GET' && route.query !== undefined && 'page' in route.query.shape);

describe('a GET body PUT back with one change', () => {
  it('has a change for every PUT route of the table', () => {
    expect(putRoutes.map(([, route]) => route.path).sort()).toEqual(Object.keys(PUT_CHANGES).sort());
  });

  it.each(putRoutes.filter(([, route]) => route.path !== '/api/v2/policy_rules/'))('%s answers 200 with the change, the read-only fields ignored', async (_, route) => {
    const path = fill(route.path);
    const got = await ok('GET', path);
    const change = PUT_CHANGES[route.path]!;
    const response = await call('root', 'PUT', path, { ...got, ...change });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject(change);
    expect(await ok('GET', path)).toMatchObject(change);
  });

  it('PUT /api/v2/policy_rules/ takes back the rule list GET answers, labels, reasons and severities ignored', async () => {
    const got = (await ok('GET', '/api/v2/policy_rules/')) as { rule_type: string; is_active: boolean; threshold: number; reason: string }[];
    const changed = got.map((rule) => (rule.rule_type === 'license_coverage_gap' ? { ...rule, is_active: true, threshold: rule.threshold + 2 } : rule));
    const response = await call('root', 'PUT', '/api/v2/policy_rules/', changed);
    expect(response.status, response.text).toBe(200);
    // The reason follows the configuration: the new threshold is in it.
    const answered = changed.map((rule) => (rule.rule_type === 'license_coverage_gap' ? { ...rule, reason: `A package has no license expression. It fires when more than ${rule.threshold} packages do.` } : rule));
    expect(response.json).toEqual(answered);
    expect(await ok('GET', '/api/v2/policy_rules/')).toEqual(answered);
  });

  it('PUT /api/v2/policy_rules/ names an entry of a list that is no rule by its index, and changes nothing', async () => {
    const before = await snapshot();
    const response = await call('root', 'PUT', '/api/v2/policy_rules/', [1, { rule_type: 'license_policy_error', is_active: true }]);
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ '[0]': ['Expected a rule object with a rule_type.'] });
    expect(await snapshot()).toBe(before);
  });
});

describe('a field the object does not have', () => {
  it.each(bodyRoutes)('%s answers 400 naming it, and changes nothing', async (_, route) => {
    const path = fill(route.path);
    const got = route.method === 'PUT' || route.method === 'PATCH' ? await ok('GET', path) : {};
    // A list (the policy rules) has no fields: the unknown one goes into an empty object.
    const base = Array.isArray(got) ? {} : got;
    const before = await snapshot();
    const response = await call('root', route.method, path, { ...base, no_such_field: 1 });
    expect(response.status, response.text).toBe(400);
    const errors = route.wrapErrors ? response.json.errors : response.json;
    expect(errors.no_such_field, response.text).toEqual([expect.any(String)]);
    expect(await snapshot()).toBe(before);
  });
});

describe('a page past the end', () => {
  it('is checked on a list route of each area', () => {
    expect(pagedRoutes.length).toBeGreaterThanOrEqual(12);
  });

  it.each(pagedRoutes)('%s?page=999 answers 404 "Invalid page."', async (_, route) => {
    const response = await call('root', 'GET', `${fill(route.path)}?page=999`);
    expect(response.status, response.text).toBe(404);
    expect(response.json).toEqual({ detail: 'Invalid page.' });
  });
});
