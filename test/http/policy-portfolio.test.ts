/**
 * Products' gates and the policy portfolio through the real handlers: an evaluation (on demand,
 * ?wait=true, since no stream runs here) writes the gate policy_status answers, waivers included;
 * ?gate= lists a gate's products with an exact count, for superusers and for who may view; a wrong
 * gate or day count is a 400 in DRF's format; the portfolio is the superusers' and their dataspace's
 * only. Then the violation items' real stream records, handed to the stream router twice, count once
 * in the portfolio's days and top rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { collectStreamRecords } from '../support/stream-records.ts';
import { makeHandler as makeStreamRouter } from '../../functions/stream-router.ts';
import { ChangeTargetResolver } from '../../shared/store/change-targets.ts';
import { ViolationDayStore } from '../../shared/store/violation-day-store.ts';
import { AuditTrailWriter } from '../../shared/services/audit.ts';
import { AuditStore } from '../../shared/store/audit-store.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, bob: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call } = http;

let stream: ReturnType<typeof collectStreamRecords>;
const products: Record<'failing' | 'warning' | 'passing' | 'never' | 'bobs', { uuid: string }> = {} as never;

const ok = async (as: string, method: string, path: string, body?: unknown) => {
  const response = await call(as, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.json;
};
const evaluate = (uuid: string) => ok('alice', 'POST', `/api/v2/products/${uuid}/evaluate_policy_rules/?wait=true`);

beforeAll(async () => {
  stream = collectStreamRecords(http.env.tableName, [], 'LATEST');
  await ok('root', 'POST', '/api/v2/usage_policies/', { label: 'Banned', content_type: 'package', compliance_alert: 'error' });
  await ok('root', 'POST', '/api/v2/usage_policies/', { label: 'Watch', content_type: 'package', compliance_alert: 'warning' });
  await ok('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/banned@1.0.0', usage_policy: 'Banned' });
  await ok('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/watched@1.0.0', usage_policy: 'Watch' });
  await ok('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/clean@1.0.0' });
  await ok('root', 'PUT', '/api/v2/policy_rules/', { usage_policy_error: { is_active: true }, usage_policy_warning: { is_active: true } });
  const holding = async (name: string, purls: string[], as = 'alice') => {
    const product = await ok(as, 'POST', '/api/v2/products/', { name });
    for (const purl of purls) await ok(as, 'POST', '/api/v2/product_packages/', { product: product.uuid, package: purl });
    return product;
  };
  products.failing = await holding('Failing', ['pkg:npm/banned@1.0.0', 'pkg:npm/watched@1.0.0']);
  products.warning = await holding('Warning', ['pkg:npm/watched@1.0.0', 'pkg:npm/clean@1.0.0']);
  products.passing = await holding('Passing', ['pkg:npm/clean@1.0.0']);
  products.never = await holding('Never evaluated', ['pkg:npm/banned@1.0.0']);
  products.bobs = await holding('Bobs', ['pkg:npm/banned@1.0.0'], 'bob');
  for (const product of [products.failing, products.warning, products.passing]) await evaluate(product.uuid);
  await ok('bob', 'POST', `/api/v2/products/${products.bobs.uuid}/evaluate_policy_rules/?wait=true`);
}, 60_000);
afterAll(async () => {
  await stream?.stop();
});

const names = (page: { results: { name: string }[] }) => page.results.map((product) => product.name);

describe('a product\'s gate', () => {
  it('is what its last evaluation\'s policy_status says, and null before its first', async () => {
    for (const [key, gate] of [['failing', 'fail'], ['warning', 'warn'], ['passing', 'pass']] as const) {
      const product = await ok('alice', 'GET', `/api/v2/products/${products[key].uuid}/`);
      const status = await ok('alice', 'GET', `/api/v2/products/${products[key].uuid}/policy_status/`);
      expect(product.gate).toBe(gate);
      expect(status.status).toBe(gate);
    }
    expect((await ok('alice', 'GET', `/api/v2/products/${products.never.uuid}/`)).gate).toBeNull();
  });

  it('follows a waiver once the product is evaluated again, as policy_status does', async () => {
    const waiver = await ok('alice', 'POST', `/api/v2/products/${products.warning.uuid}/policy_waivers/`, {
      rule_type: 'usage_policy_warning',
      package: 'pkg:npm/watched@1.0.0',
      reason: 'Reviewed: used in tests only.',
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    await evaluate(products.warning.uuid);
    expect((await ok('alice', 'GET', `/api/v2/products/${products.warning.uuid}/`)).gate).toBe('pass');
    expect((await ok('alice', 'GET', `/api/v2/products/${products.warning.uuid}/policy_status/`)).status).toBe('pass');
    await ok('alice', 'DELETE', `/api/v2/products/${products.warning.uuid}/policy_waivers/${waiver.uuid}/`);
    await evaluate(products.warning.uuid);
    expect((await ok('alice', 'GET', `/api/v2/products/${products.warning.uuid}/`)).gate).toBe('warn');
  });

  it('filters the list exactly, with exact counts, for superusers and for who may view', async () => {
    const fail = await ok('root', 'GET', '/api/v2/products/?gate=fail');
    expect(fail.count).toBe(2);
    expect(names(fail)).toEqual(['Bobs', 'Failing']);
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=none'))).toEqual(['Never evaluated']);
    expect((await ok('root', 'GET', '/api/v2/products/?gate=none')).count).toBe(1);
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=warn'))).toEqual(['Warning']);
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=pass'))).toEqual(['Passing']);
    // With another filter, and a page.
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=fail&search=fail'))).toEqual(['Failing']);
    const paged = await ok('root', 'GET', '/api/v2/products/?gate=fail&page_size=1&page=2');
    expect([paged.count, names(paged)]).toEqual([2, ['Failing']]);
    // alice sees her own products only; bob's fails too, but not for her.
    const hers = await ok('alice', 'GET', '/api/v2/products/?gate=fail');
    expect([hers.count, names(hers)]).toEqual([1, ['Failing']]);
    expect(names(await ok('alice', 'GET', '/api/v2/products/?gate='))).toHaveLength(4);
    // Another dataspace's superuser sees none of them.
    expect((await ok('mallory', 'GET', '/api/v2/products/?gate=fail')).count).toBe(0);
  });

  it('keeps its gate and its place in the gate\'s list through a rename', async () => {
    const path = `/api/v2/products/${products.passing.uuid}/`;
    expect((await ok('alice', 'PATCH', path, { name: 'Aardvark' })).gate).toBe('pass');
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=pass'))).toEqual(['Aardvark']);
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=pass&name=Aardvark'))).toEqual(['Aardvark']);
    await ok('alice', 'PATCH', path, { name: 'Passing' });
    expect(names(await ok('root', 'GET', '/api/v2/products/?gate=pass'))).toEqual(['Passing']);
  });

  it('refuses a gate that is none of fail, warn, pass, none with a field error', async () => {
    for (const gate of ['FAIL', 'warning', 'x']) {
      const response = await call('root', 'GET', `/api/v2/products/?gate=${gate}`);
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ gate: [expect.stringContaining('Select a valid choice.')] });
    }
  });
});

describe('GET /api/v2/policy_portfolio/', () => {
  it('answers products by gate, with every day of the window filled in', async () => {
    const portfolio = await ok('root', 'GET', '/api/v2/policy_portfolio/?days=7');
    expect(portfolio.products_by_gate).toEqual({ fail: 2, warn: 1, pass: 1, none: 1 });
    expect(portfolio.days).toHaveLength(7);
    expect(portfolio.days.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
    expect(portfolio.days[0]).toEqual({ date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), detected: 0, resolved: 0, active: 0 });
    expect((await ok('root', 'GET', '/api/v2/policy_portfolio/')).days).toHaveLength(30);
  });

  it('counts a deleted product out of its gate', async () => {
    const doomed = await ok('alice', 'POST', '/api/v2/products/', { name: 'Doomed' });
    await evaluate(doomed.uuid);
    expect((await ok('root', 'GET', '/api/v2/policy_portfolio/?days=1')).products_by_gate).toEqual({ fail: 2, warn: 1, pass: 2, none: 1 });
    await ok('alice', 'DELETE', `/api/v2/products/${doomed.uuid}/`);
    expect((await ok('root', 'GET', '/api/v2/policy_portfolio/?days=1')).products_by_gate).toEqual({ fail: 2, warn: 1, pass: 1, none: 1 });
    expect((await ok('root', 'GET', '/api/v2/products/?gate=pass')).count).toBe(1);
  });

  it('is for superusers, of their own dataspace', async () => {
    expect((await call('alice', 'GET', '/api/v2/policy_portfolio/')).status).toBe(403);
    const beta = await ok('mallory', 'GET', '/api/v2/policy_portfolio/?days=1');
    expect(beta).toEqual({ products_by_gate: { fail: 0, warn: 0, pass: 0, none: 0 }, top_rules: [], days: [expect.objectContaining({ detected: 0, active: 0 })] });
  });

  it('refuses a day count outside 1..365 with a field error', async () => {
    for (const days of ['0', '366', 'abc', '7.5', '-1']) {
      const response = await call('root', 'GET', `/api/v2/policy_portfolio/?days=${days}`);
      expect(response.status, days).toBe(400);
      expect(response.json).toEqual({ days: [expect.any(String)] });
    }
  });

  it('counts the violations\' stream records once each, however often they come', async () => {
    const id = 'MARK#portfolio';
    await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item: { PK: id, SK: id } }));
    const deadline = Date.now() + 15_000;
    while (!stream.seen.some((record) => record.dynamodb?.Keys?.PK?.S === id)) {
      if (Date.now() > deadline) throw new Error('the stream never delivered the marker');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const violations: DynamoDBRecord[] = stream.seen.filter((record) => (record.dynamodb?.NewImage ?? record.dynamodb?.OldImage)?.entity?.S === 'Violation');
    // failing: error + warning; warning: warning, resolved (waived), detected again; bob's: error.
    expect(violations.length).toBeGreaterThanOrEqual(6);
    const router = makeStreamRouter({
      changeTargetResolver: new ChangeTargetResolver(http.env.doc, http.env.tableName),
      evaluationQueue: { send: async () => undefined },
      auditTrail: new AuditTrailWriter({ store: new AuditStore(http.env.doc, http.env.tableName), retentionDays: 400, exporter: { put: async () => undefined } }),
      violationDays: new ViolationDayStore(http.env.doc, http.env.tableName),
    });
    // Delivered twice (a retried batch), the second time in reverse order.
    await router({ Records: violations });
    await router({ Records: [...violations].reverse() });
    const portfolio = await ok('root', 'GET', '/api/v2/policy_portfolio/?days=7');
    const today = portfolio.days.at(-1);
    expect(today).toEqual({ date: new Date().toISOString().slice(0, 10), detected: 5, resolved: 1, active: 4 });
    expect(portfolio.days.slice(0, -1).every((day: { active: number }) => day.active === 0)).toBe(true);
    expect(portfolio.top_rules).toEqual([
      { rule_type: 'usage_policy_error', label: 'Usage Policy Error', severity: 'error', products: 2 },
      { rule_type: 'usage_policy_warning', label: 'Usage Policy Warning', severity: 'warning', products: 2 },
    ]);
  });
});
