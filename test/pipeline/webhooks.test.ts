/**
 * Webhooks end to end on the local stack, with real HTTP receivers on 127.0.0.1: events reach their
 * subscribers signed (Standard Webhooks), failures are retried with backoff and logged, a receiver
 * that stays down leaves the delivery in the DLQ, and redeliver sends it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, load, type Team } from '../support/factories.ts';
import { freePort } from '../../bin/local/ports.ts';
import { readRunningStack } from '../../bin/local/stack-file.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** performance.now() when it arrived. */
  readonly at: number;
  /** For a path that never answers: when the sender gave up on it. */
  closedAt?: number;
}

/**
 * A webhook receiver: answers each path with the next status of its script (then the last one); a path
 * of `hanging` never answers (each request records when the sender gave up).
 */
async function startReceiver(port: number, scripts: Record<string, number[]>, hanging: readonly string[] = []) {
  const received: Received[] = [];
  const served = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const entry: Received = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      received.push(entry);
      if (hanging.includes(path)) {
        res.on('close', () => (entry.closedAt = performance.now()));
        return;
      }
      const script = scripts[path] ?? [200];
      const n = served.get(path) ?? 0;
      served.set(path, n + 1);
      res.writeHead(script[Math.min(n, script.length - 1)]!, { 'content-type': 'text/plain' }).end(`answer ${n + 1} for ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let receiverUrl: string;

const { call, ok } = teamApi(() => stack.apiUrl, () => team.keys);

beforeAll(async () => {
  stack = await startTestStack({ settings: { WEBHOOK_RETRY_BASE_SECONDS: 1, WEBHOOK_RETRY_MAX_DELAY_SECONDS: 2, WEBHOOK_MAX_ATTEMPTS: 3 } });
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {} } } });
  await load(stack.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
  const port = await freePort();
  receiverUrl = `http://127.0.0.1:${port}`;
  receiver = await startReceiver(port, { '/flaky': [500, 500, 200] }, ['/hang']);
}, 120_000);
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
});

describe('subscriptions', () => {
  it('are managed by superusers; the secret is shown on create and rotate only', async () => {
    const created = await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/managed`, events: ['request.added'], description: 'CI' });
    expect(created).toMatchObject({ target_url: `${receiverUrl}/managed`, events: ['request.added'], is_active: true, description: 'CI' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const read = await ok('GET', `/api/v2/webhooks/${created.uuid}/`);
    expect(read.secret).toBeUndefined();
    expect((await ok('GET', '/api/v2/webhooks/')).results.every((w: { secret?: string }) => w.secret === undefined)).toBe(true);
    const rotated = await ok('POST', `/api/v2/webhooks/${created.uuid}/rotate_secret/`);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await call('GET', '/api/v2/webhooks/', undefined, 'alice')).status).toBe(403);
    expect((await call('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/x`, events: [] })).json).toEqual({ events: ['This list may not be empty.'] });
    expect((await call('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/x`, events: ['nope'] })).json).toEqual({ events: ['"nope" is not a valid choice.'] });
    expect((await call('POST', '/api/v2/webhooks/', { target_url: 'ftp://example.com/', events: ['request.added'] })).json).toEqual({
      target_url: ['The target URL must use https.'],
    });
    expect((await call('DELETE', `/api/v2/webhooks/${created.uuid}/`)).status).toBe(204);
    expect((await call('GET', `/api/v2/webhooks/${created.uuid}/`)).status).toBe(404);
  });

  it('ping sends a signed test event and answers the result', async () => {
    const created = await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/ping`, events: ['request.added'] });
    const result = await ok('POST', `/api/v2/webhooks/${created.uuid}/ping/`);
    expect(result).toMatchObject({ delivered: true, response_status: 200, response: 'answer 1 for /ping' });
    const got = receiver.received.find((r) => r.path === '/ping')!;
    expect(new Webhook(created.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'webhook.ping' });
  });
});

describe('delivery', () => {
  it('delivers a violation detected and resolved once each, signed with the subscription secret', async () => {
    const sub = await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/policy`, events: ['policy.violation_detected', 'policy.violation_resolved'] });
    await ok('PUT', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true } });
    const product = (await ok('POST', '/api/v2/products/', { name: 'Hooked' })).uuid;
    const pkg = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/hooked@1.0.0' })).uuid;
    await ok('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT' });
    await ok('POST', '/api/v2/product_packages/', { product, package: pkg });
    const mine = () => receiver.received.filter((r) => r.path === '/policy' && JSON.parse(r.body).data.product.uuid === product);
    await eventually(async () => mine(), (list) => list.length === 1, 30_000);
    await ok('PATCH', `/api/v2/packages/${pkg}/`, { license_expression: 'mit' });
    await eventually(async () => mine(), (list) => list.length === 2, 30_000);
    // Quiet for a moment: nothing is delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [detected, resolved] = mine();
    expect(mine()).toHaveLength(2);
    const verifier = new Webhook(sub.secret);
    expect(verifier.verify(detected!.body, detected!.headers as Record<string, string>)).toMatchObject({ type: 'policy.violation_detected' });
    expect(verifier.verify(resolved!.body, resolved!.headers as Record<string, string>)).toMatchObject({ type: 'policy.violation_resolved' });
    expect(detected!.headers['webhook-id']).toBe(JSON.parse(detected!.body).id);
    const wrong = new Webhook(`whsec_${Buffer.from('not the secret, not at all').toString('base64')}`);
    expect(() => wrong.verify(detected!.body, detected!.headers as Record<string, string>)).toThrow();
  }, 90_000);

  it('delivers to every other subscriber while one of them never answers, and hands that one to the queue', async () => {
    // Subscribed first: a delivery that went one subscription after another would try it first.
    const hanging = await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/hang`, events: ['request.updated'] });
    const paths = ['/prompt/1', '/prompt/2', '/prompt/3'];
    for (const path of paths) await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}${path}`, events: ['request.updated'] });
    const request = await ok('POST', '/api/v2/requests/', { title: 'Hanging receiver', request_template: 'Review' }, 'alice');
    await ok('PATCH', `/api/v2/requests/${request.uuid}/`, { title: 'Hanging receiver, again' });
    await ok('PATCH', `/api/v2/requests/${request.uuid}/`, { title: 'Hanging receiver, once more' });
    const ofRequest = (path: string) => receiver.received.filter((r) => r.path === path && JSON.parse(r.body).data.request.uuid === request.uuid);
    const hung = await eventually(
      async () => ofRequest('/hang'),
      (list) => new Set(list.map((r) => r.headers['webhook-id'])).size === 2 && list.every((r) => r.closedAt !== undefined),
      30_000,
    );
    const events = [...new Set(hung.map((r) => String(r.headers['webhook-id'])))];
    for (const path of paths) {
      const got = ofRequest(path);
      expect(got.map((r) => r.headers['webhook-id']).sort(), path).toEqual([...events].sort());
      // Each arrived while the hanging receiver still held the first request of the same event.
      for (const delivery of got) {
        const firstHung = hung.find((r) => r.headers['webhook-id'] === delivery.headers['webhook-id'])!;
        expect(delivery.at, path).toBeLessThan(firstHung.closedAt!);
      }
    }
    // The fan-out gave up on it first, then the delivery function tried again at once (not after the
    // backoff), with the full timeout; the log shows both.
    await eventually(async () => ofRequest('/hang'), (list) => list.length >= 4, 30_000);
    const log = await eventually(
      () => ok('GET', `/api/v2/webhooks/${hanging.uuid}/deliveries/`),
      (page) => page.count >= 4,
      30_000,
    );
    const first = log.results.filter((a: { attempt: number }) => a.attempt === 1);
    expect(first).toHaveLength(2);
    for (const attempt of first) expect(attempt).toMatchObject({ outcome: 'failed', response_status: null, response: expect.stringMatching(/handed to the delivery queue/) });
  }, 90_000);

  it('retries a receiver that answers 500 twice: the third attempt delivers, and the log shows all three', async () => {
    const sub = await ok('POST', '/api/v2/webhooks/', { target_url: `${receiverUrl}/flaky`, events: ['request.added'] });
    const request = await ok('POST', '/api/v2/requests/', { title: 'Flaky delivery', request_template: 'Review' }, 'alice');
    const log = await eventually(
      () => ok('GET', `/api/v2/webhooks/${sub.uuid}/deliveries/`),
      (page) => page.results.some((a: { outcome: string }) => a.outcome === 'delivered'),
      30_000,
    );
    expect(log.results.map((a: { attempt: number; outcome: string; response_status: number }) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [3, 'delivered', 200],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    expect(log.results[0]).toMatchObject({ event_type: 'request.added', response: 'answer 3 for /flaky' });
    const delivered = receiver.received.filter((r) => r.path === '/flaky');
    expect(delivered).toHaveLength(3);
    expect(JSON.parse(delivered[2]!.body).data.request.uuid).toBe(request.uuid);
    expect(new Set(delivered.map((r) => r.headers['webhook-id'])).size).toBe(1);
  }, 60_000);

  it('leaves a delivery to a receiver that is down in the DLQ after the configured attempts, and redelivers it later', async () => {
    const port = await freePort();
    const sub = await ok('POST', '/api/v2/webhooks/', { target_url: `http://127.0.0.1:${port}/late`, events: ['request_comment.added'] });
    const request = await ok('POST', '/api/v2/requests/', { title: 'Nobody home', request_template: 'Review' }, 'alice');
    await ok('POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: 'Are you there?' }, 'alice');
    const log = await eventually(() => ok('GET', `/api/v2/webhooks/${sub.uuid}/deliveries/`), (page) => page.count === 3, 30_000);
    expect(log.results.every((a: { outcome: string; response_status: null }) => a.outcome === 'failed' && a.response_status === null)).toBe(true);
    const running = readRunningStack(stack.dataDir)!;
    const sqs = createSqsClient({ region: running.region, endpoint: running.sqsEndpoint });
    try {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'webhook-deliveries-dlq' }));
      // The DLQ also holds the deliveries an earlier test left to a receiver that never answers: this one's is among them.
      const dead: Record<string, unknown>[] = [];
      await eventually(
        async () => dead.push(...((await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }))).Messages ?? []).map((m) => JSON.parse(m.Body!))),
        () => dead.some((body) => body.webhookUuid === sub.uuid),
        20_000,
      );
      expect(dead.filter((body) => body.webhookUuid === sub.uuid)).toEqual([expect.objectContaining({ webhookUuid: sub.uuid, deliveryId: log.results[0].id })]);
    } finally {
      sqs.destroy();
    }
    const late = await startReceiver(port, {});
    try {
      expect(await ok('POST', `/api/v2/webhooks/${sub.uuid}/deliveries/${log.results[0].id}/redeliver/`)).toEqual({ status: 'redelivery queued', id: log.results[0].id });
      await eventually(async () => late.received, (list) => list.length === 1, 20_000);
      expect(JSON.parse(late.received[0]!.body)).toMatchObject({ type: 'request_comment.added', data: { comment: { text: 'Are you there?', username: 'alice' } } });
      const after = await ok('GET', `/api/v2/webhooks/${sub.uuid}/deliveries/`);
      expect(after.results[0]).toMatchObject({ attempt: 4, outcome: 'delivered' });
    } finally {
      await late.stop();
    }
  }, 90_000);
});
