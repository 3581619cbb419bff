/**
 * Waivers through the real pipeline on the local stack: a waiver made through the API lowers its
 * violation's count (the stream re-evaluates the product), and when it expires the stack's scheduler
 * (every second here; every minute on AWS) marks it expired, the product is re-evaluated, and the
 * violation comes back with policy.violation_detected saying a waiver expired, beside
 * policy.waiver_expired. Revoking one brings its package back too, with policy.waiver_revoked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;

const { ok } = teamApi(() => stack.apiUrl, () => team.keys);

type Detail = { type: string; version: number; data: Record<string, any> & { product: { uuid: string } } };
const eventsFor = (product: string, type: string) =>
  stack.bus
    .recentEvents()
    .filter((event) => event['detail-type'] === type && (event.detail as Detail).data.product.uuid === product)
    .map((event) => event.detail as Detail);

const violations = (product: string) => ok('GET', `/api/v2/products/${product}/policy_violations/`, undefined, 'viewer');
const countOf = (list: { rule_type: string; violation_count: number }[]) => list.find((v) => v.rule_type === 'usage_policy_error')?.violation_count ?? 0;

const PURLS = ['pkg:npm/banned-one@1.0.0', 'pkg:npm/banned-two@1.0.0', 'pkg:npm/banned-three@1.0.0'];

/** A webhook receiver on 127.0.0.1: the envelopes delivered to it, with their webhook-id header. */
let receiver: Server;
const delivered: { id: string | undefined; type: string; data: { waiver?: { uuid: string } } }[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      delivered.push({ id: request.headers['webhook-id'] as string | undefined, type: envelope.type, data: envelope.data });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  stack = await startTestStack({ settings: { WAIVER_EXPIRY_INTERVAL_SECONDS: 1 } });
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } } });
  await ok('POST', '/api/v2/usage_policies/', { label: 'Banned', content_type: 'package', compliance_alert: 'error' });
  for (const purl of PURLS) await ok('POST', '/api/v2/packages/', { purl, usage_policy: 'Banned' });
  await ok('PUT', '/api/v2/policy_rules/', { usage_policy_error: { is_active: true } });
  // Subscribers may ask for the waiver events as for any other of the catalog.
  await ok('POST', '/api/v2/webhooks/', {
    target_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/waivers`,
    events: ['policy.waiver_created', 'policy.waiver_revoked', 'policy.waiver_expired'],
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function aProductInViolation(name: string): Promise<string> {
  const product = (await ok('POST', '/api/v2/products/', { name }, 'alice')).uuid as string;
  await ok('POST', `/api/v2/products/${product}/permissions/`, { user: 'viewer', permissions: ['view_product'] }, 'alice');
  for (const purl of PURLS) await ok('POST', '/api/v2/product_packages/', { product, package: purl }, 'alice');
  await eventually(() => violations(product), (list) => countOf(list) === PURLS.length);
  await eventually(async () => eventsFor(product, 'policy.violation_detected'), (events) => events.length === 1);
  return product;
}

describe('a waiver that expires, through the pipeline', () => {
  it('lowers the count while it applies; its expiry brings the violation back with an event saying so', async () => {
    const product = await aProductInViolation('Expiring');
    expect(eventsFor(product, 'policy.violation_detected')[0]).toMatchObject({ version: 2, data: { reason: 'rule_triggered', expired_waivers: [] } });

    // expires_at must lie in the future: a few seconds ahead, enough to see it applied first.
    const expiresAt = new Date(Date.now() + 8_000).toISOString();
    const waiver = await ok('POST', `/api/v2/products/${product}/policy_waivers/`, { rule_type: 'usage_policy_error', package: PURLS[0], reason: 'Fix due', expires_at: expiresAt }, 'alice');
    const waived = await eventually(() => violations(product), (list) => countOf(list) === PURLS.length - 1, 30_000);
    expect(waived).toMatchObject([{ rule_type: 'usage_policy_error', violation_count: 2, waived_count: 1, waivers: [{ uuid: waiver.uuid, package: PURLS[0] }] }]);
    expect(Date.now(), 'the waiver was seen applied before it expired').toBeLessThan(Date.parse(expiresAt));
    const created = await eventually(async () => eventsFor(product, 'policy.waiver_created'), (events) => events.length === 1);
    expect(created[0]!.data).toMatchObject({ waiver: { uuid: waiver.uuid, rule_type: 'usage_policy_error', package: PURLS[0], created_by: 'alice' }, dataspace: 'acme' });
    // Lowering a count detects nothing.
    expect(eventsFor(product, 'policy.violation_detected')).toHaveLength(1);

    // The scheduler marks it expired once its time has passed; the stream re-evaluates the product.
    const back = await eventually(() => violations(product), (list) => countOf(list) === PURLS.length, 60_000);
    expect(back).toMatchObject([{ violation_count: 3, waived_count: 0, waivers: [] }]);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    const detected = await eventually(async () => eventsFor(product, 'policy.violation_detected'), (events) => events.length === 2);
    expect(detected[1]).toMatchObject({
      version: 2,
      data: {
        reason: 'waiver_expired',
        expired_waivers: [waiver.uuid],
        violations: [{ rule_type: 'usage_policy_error', violation_count: 3, reactivated: false, expired_waivers: [waiver.uuid] }],
        count: 1,
      },
    });
    expect(detected[1]!.data.text).toContain('a waiver expired');
    const expired = await eventually(async () => eventsFor(product, 'policy.waiver_expired'), (events) => events.length === 1);
    expect(expired[0]!.data).toMatchObject({ waiver: { uuid: waiver.uuid }, expired_at: expect.stringMatching(/\+00:00$/) });
    expect(Date.parse(expired[0]!.data.expired_at)).toBeGreaterThanOrEqual(Date.parse(expiresAt));

    // And its subscriber was told, signed with the event's id.
    const told = await eventually(
      async () => delivered.filter((d) => d.data.waiver?.uuid === waiver.uuid),
      (list) => list.some((d) => d.type === 'policy.waiver_expired') && list.some((d) => d.type === 'policy.waiver_created'),
      30_000,
    );
    expect(told.every((d) => typeof d.id === 'string')).toBe(true);

    const listed = await ok('GET', `/api/v2/products/${product}/policy_waivers/?is_expired=true`, undefined, 'viewer');
    expect(listed.results.map((w: { uuid: string; is_expired: boolean }) => [w.uuid, w.is_expired])).toEqual([[waiver.uuid, true]]);
    // Marked once: later runs of the scheduler find nothing more to do.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(eventsFor(product, 'policy.waiver_expired')).toHaveLength(1);
    expect(eventsFor(product, 'policy.violation_detected')).toHaveLength(2);
  }, 120_000);

  it('a product-level waiver resolves the violation; revoking it brings the violation back, with policy.waiver_revoked', async () => {
    const product = await aProductInViolation('Revoked');
    const waiver = await ok(
      'POST',
      `/api/v2/products/${product}/policy_waivers/`,
      { rule_type: 'usage_policy_error', reason: 'Accepted for this release', expires_at: new Date(Date.now() + 86_400_000).toISOString() },
      'alice',
    );
    await eventually(() => violations(product), (list) => list.length === 0, 30_000);
    await eventually(async () => eventsFor(product, 'policy.violation_resolved'), (events) => events.length === 1);
    expect(await ok('GET', `/api/v2/products/${product}/policy_status/`, undefined, 'viewer')).toMatchObject({ status: 'pass', errors: 0, waived_errors: 1 });

    await ok('DELETE', `/api/v2/products/${product}/policy_waivers/${waiver.uuid}/`, undefined, 'alice');
    await eventually(() => violations(product), (list) => countOf(list) === PURLS.length, 30_000);
    const detected = await eventually(async () => eventsFor(product, 'policy.violation_detected'), (events) => events.length === 2);
    expect(detected[1]!.data).toMatchObject({ reason: 'rule_triggered', violations: [{ reactivated: true, expired_waivers: [] }] });
    const revoked = await eventually(async () => eventsFor(product, 'policy.waiver_revoked'), (events) => events.length === 1);
    expect(revoked[0]!.data).toMatchObject({ waiver: { uuid: waiver.uuid, package: null }, revoked_by: 'alice' });
    await eventually(async () => delivered.filter((d) => d.data.waiver?.uuid === waiver.uuid && d.type === 'policy.waiver_revoked'), (list) => list.length === 1, 30_000);
  }, 120_000);
});
