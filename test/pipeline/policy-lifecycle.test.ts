/**
 * The policy rules engine through the real pipeline on the local stack: API writes → DynamoDB Local's
 * stream → stream router → SQS emulator → evaluator → violations and outbox events → outbox
 * publisher → in-process bus. Each step of the violation lifecycle (detected, active, resolved,
 * re-activated), seen from the API and from the bus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;

const { call, ok } = teamApi(() => stack.apiUrl, () => team.keys);

const eventsFor = (product: string, type: string) =>
  stack.bus
    .recentEvents()
    .filter((event) => event['detail-type'] === type && (event.detail as { data: { product: { uuid: string } } }).data.product.uuid === product);

const violations = (product: string) => ok('GET', `/api/v2/products/${product}/policy_violations/`);

beforeAll(async () => {
  stack = await startTestStack();
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } } });
  await ok('POST', '/api/v2/usage_policies/', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error' });
  await ok('POST', '/api/v2/usage_policies/', { label: 'Watch', content_type: 'package', compliance_alert: 'warning' });
  await ok('POST', '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GPL 3', usage_policy: 'Prohibited' });
  await ok('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT' });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('configuration', () => {
  it('lists the nine rules, all off by default, for superusers only', async () => {
    const rules = await ok('GET', '/api/v2/policy_rules/');
    expect(rules.map((rule: { rule_type: string }) => rule.rule_type)).toEqual([
      'usage_policy_error',
      'usage_policy_warning',
      'license_policy_error',
      'license_policy_warning',
      'license_coverage_gap',
      'vulnerability_detected',
      'vulnerability_unresolved',
      'vulnerability_stale',
      'license_unknown',
    ]);
    expect(rules.every((rule: { is_active: boolean }) => !rule.is_active)).toBe(true);
    expect(rules.find((rule: { rule_type: string }) => rule.rule_type === 'vulnerability_stale')).toMatchObject({
      label: 'Vulnerability Stale',
      severity: 'error',
      threshold: 0,
      parameters: { max_days: 30, min_risk_score: 8 },
    });
    expect((await call('GET', '/api/v2/policy_rules/', undefined, 'alice')).status).toBe(403);
    expect((await call('PUT', '/api/v2/policy_rules/', {}, 'alice')).status).toBe(403);
  });

  it.each([
    [{ unknown_rule: {} }, 'unknown_rule'],
    [{ license_coverage_gap: { threshold: -1 } }, 'license_coverage_gap.threshold'],
    [{ vulnerability_detected: { parameters: { min_risk_score: 10.5 } } }, 'vulnerability_detected.parameters.min_risk_score'],
    [{ vulnerability_stale: { parameters: { max_days: 0 } } }, 'vulnerability_stale.parameters.max_days'],
    [{ usage_policy_error: { parameters: { min_risk_score: 5 } } }, 'usage_policy_error.parameters.min_risk_score'],
  ])('refuses %j with a 400 naming %s, and saves nothing', async (body, key) => {
    const before = await ok('GET', '/api/v2/policy_rules/');
    const response = await call('PUT', '/api/v2/policy_rules/', body);
    expect(response.status).toBe(400);
    expect(Object.keys(response.json)).toEqual([key]);
    expect(await ok('GET', '/api/v2/policy_rules/')).toEqual(before);
  });
});

describe('the violation lifecycle, through the pipeline', () => {
  let product: string;
  let pkg: string;

  beforeAll(async () => {
    await ok('PUT', '/api/v2/policy_rules/', {
      license_policy_error: { is_active: true },
      usage_policy_warning: { is_active: true },
      license_coverage_gap: { is_active: true, threshold: 1 },
    });
    product = (await ok('POST', '/api/v2/products/', { name: 'Lifecycle', version: '1' }, 'alice')).uuid;
    await ok('POST', `/api/v2/products/${product}/permissions/`, { user: 'viewer', permissions: ['view_product'] }, 'alice');
    pkg = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/copyleft@1.0.0', license_expression: 'gpl-3.0' })).uuid;
  });

  it('detects a violation when its condition first holds, with one event', async () => {
    expect(await violations(product)).toEqual([]);
    await ok('POST', '/api/v2/product_packages/', { product, package: pkg }, 'alice');
    const active = await eventually(() => violations(product), (list) => list.length === 1);
    expect(active).toEqual([
      {
        rule_type: 'license_policy_error',
        rule_label: 'License Policy Error',
        rule_description: 'Packages whose licenses are assigned a usage policy flagged with an error compliance alert.',
        rule_reason: 'A license the package needs has a usage policy with the error compliance alert (a choice, OR, fires only when every option does).',
        rule_severity: 'error',
        violation_count: 1,
        detected_date: expect.stringMatching(/\+00:00$/),
        waived_count: 0,
        waivers: [],
      },
    ]);
    const detected = await eventually(async () => eventsFor(product, 'policy.violation_detected'), (events) => events.length === 1);
    expect(detected[0]!.source).toBe('compliance-service');
    expect(detected[0]!.detail).toMatchObject({
      type: 'policy.violation_detected',
      dataspace: 'acme',
      data: {
        product: { uuid: product, name: 'Lifecycle', version: '1', api_url: `${stack.apiUrl}/api/v2/products/${product}/` },
        violations: [{ rule_type: 'license_policy_error', rule_label: 'License Policy Error', rule_severity: 'error', violation_count: 1, reactivated: false, expired_waivers: [] }],
        count: 1,
        reason: 'rule_triggered',
        text: 'Policy violations detected for Lifecycle 1\n• License Policy Error: 1 package',
      },
    });
    expect(await ok('GET', `/api/v2/products/${product}/policy_status/`, undefined, 'viewer')).toMatchObject({ status: 'fail', errors: 1, warnings: 0 });
    const behind = await ok('GET', `/api/v2/products/${product}/policy_violations/license_policy_error/packages/`, undefined, 'viewer');
    expect(behind.results).toEqual([
      {
        uuid: pkg,
        api_url: `${stack.apiUrl}/api/v2/packages/${pkg}/`,
        purl: 'pkg:npm/copyleft@1.0.0',
        reasons: ['gpl-3.0'],
        license_expression: 'gpl-3.0',
        concluded: false,
        no_compliant_choice: false,
      },
    ]);
  }, 60_000);

  it('resolves it when the condition disappears, with one resolved event', async () => {
    const [before] = await violations(product);
    await ok('PATCH', `/api/v2/packages/${pkg}/`, { license_expression: 'mit' });
    await eventually(() => violations(product), (list) => list.length === 0);
    const resolved = await eventually(async () => eventsFor(product, 'policy.violation_resolved'), (events) => events.length === 1);
    expect(resolved[0]!.detail).toMatchObject({ data: { resolved_count: 1, violations: [{ rule_type: 'license_policy_error' }] } });
    expect(await ok('GET', `/api/v2/products/${product}/policy_status/`)).toMatchObject({ status: 'pass', errors: 0, warnings: 0 });
    expect((await call('GET', `/api/v2/products/${product}/policy_violations/license_policy_error/packages/`)).status).toBe(404);
    expect(before.detected_date).toBeDefined();
  }, 60_000);

  it('re-activates it in place when it recurs, keeping the original detected date', async () => {
    const firstDetected = (eventsFor(product, 'policy.violation_detected')[0]!.detail as { data: { evaluated_at: string } }).data.evaluated_at;
    // AND: both licenses required, so the prohibited one counts (an OR would leave MIT to choose).
    await ok('PATCH', `/api/v2/packages/${pkg}/`, { license_expression: 'gpl-3.0 AND mit' });
    const [again] = await eventually(() => violations(product), (list) => list.length === 1);
    expect(again.detected_date).toBe(firstDetected);
    const detected = await eventually(async () => eventsFor(product, 'policy.violation_detected'), (events) => events.length === 2);
    expect((detected[1]!.detail as { data: { violations: { reactivated: boolean }[] } }).data.violations[0]!.reactivated).toBe(true);
  }, 60_000);

  it('counts distinct packages, and records a violation only above the threshold', async () => {
    const bare1 = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/bare-one@1.0.0' })).uuid;
    const bare2 = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/bare-two@1.0.0' })).uuid;
    await ok('POST', '/api/v2/product_packages/', { product, package: bare1 }, 'alice');
    // One package without a license: not above the threshold of 1.
    await ok('POST', `/api/v2/products/${product}/evaluate_policy_rules/?wait=true`, undefined, 'alice');
    expect((await violations(product)).map((v: { rule_type: string }) => v.rule_type)).toEqual(['license_policy_error']);
    await ok('POST', '/api/v2/product_packages/', { product, package: bare2 }, 'alice');
    const list = await eventually(() => violations(product), (l) => l.length === 2);
    expect(list.map((v: { rule_type: string; violation_count: number }) => [v.rule_type, v.violation_count])).toEqual([
      ['license_policy_error', 1],
      ['license_coverage_gap', 2],
    ]);
    expect(await ok('GET', `/api/v2/products/${product}/policy_status/`)).toMatchObject({ status: 'fail', errors: 1, warnings: 1 });
  }, 60_000);

  it('resolves the violations of a rule switched off, when the configuration is saved', async () => {
    const resolvedBefore = eventsFor(product, 'policy.violation_resolved').length;
    await ok('PATCH', '/api/v2/policy_rules/', { license_policy_error: { is_active: false } });
    await eventually(() => violations(product), (list) => list.length === 1 && list[0].rule_type === 'license_coverage_gap');
    await eventually(async () => eventsFor(product, 'policy.violation_resolved'), (events) => events.length === resolvedBefore + 1);
    expect(await ok('GET', `/api/v2/products/${product}/policy_status/`)).toMatchObject({ status: 'warn', errors: 0, warnings: 1 });
  }, 60_000);
});

describe('evaluations on demand', () => {
  it('answers 202 when queued, the violations with ?wait=true, and guards who may ask', async () => {
    const product = (await ok('POST', '/api/v2/products/', { name: 'On demand' }, 'alice')).uuid;
    await ok('POST', `/api/v2/products/${product}/permissions/`, { user: 'viewer', permissions: ['view_product'] }, 'alice');
    expect(await call('POST', `/api/v2/products/${product}/evaluate_policy_rules/`, undefined, 'alice')).toEqual({
      status: 202,
      json: { status: 'evaluation queued' },
    });
    const waited = await call('POST', `/api/v2/products/${product}/evaluate_policy_rules/?wait=true`, undefined, 'alice');
    expect(waited).toEqual({ status: 200, json: [] });
    expect((await call('POST', `/api/v2/products/${product}/evaluate_policy_rules/`, undefined, 'viewer')).status).toBe(403);
    const bulk = await call('POST', '/api/v2/products/evaluate_policy_rules/', { products: [product] });
    expect(bulk).toEqual({ status: 202, json: { status: 'evaluation queued', products: 1 } });
    expect((await call('POST', '/api/v2/products/evaluate_policy_rules/', { products: [product] }, 'alice')).status).toBe(403);
    const unknown = await call('POST', '/api/v2/products/evaluate_policy_rules/', { products: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown.status).toBe(400);
  });
});
