/**
 * The fan-out on DynamoDB Local with real receivers on 127.0.0.1: every subscription is attempted at
 * once, a receiver that does not answer holds up no other and is handed to the deliveries queue, the log
 * is written after the POSTs in batches with a TTL, a duplicated event is not delivered again, and a
 * delivery the fan-out made can be redelivered from the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { WebhookStore } from '../../shared/store/webhook-store.ts';
import { WebhookService, type DeliveryMessage } from '../../shared/services/webhooks.ts';
import { keys } from '../../shared/keys.ts';
import { stableUuid } from '../../shared/domain/identifiers.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import type { Envelope } from '../../shared/events/envelope.ts';

/** A receiver: `/hang` never answers (the time the sender gave up is kept), every other path answers 204. */
class Receiver {
  readonly received: { path: string; at: number; eventId: string }[] = [];
  readonly hangClosedAt: number[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, at: performance.now(), eventId: String(req.headers['webhook-id']) });
        if (path === '/hang') {
          res.on('close', () => this.hangClosedAt.push(performance.now()));
          return;
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The document client, with the name and time of every command sent through it. */
function counting(doc: DynamoDBDocumentClient) {
  const calls: { name: string; at: number }[] = [];
  const client = Object.create(doc) as DynamoDBDocumentClient;
  client.send = ((command: { constructor: { name: string } }) => {
    calls.push({ name: command.constructor.name, at: performance.now() });
    return (doc.send as (c: unknown) => Promise<unknown>)(command);
  }) as DynamoDBDocumentClient['send'];
  return { client, calls };
}

let env: Awaited<ReturnType<typeof useTestTable>>;
const receiver = new Receiver();

beforeAll(async () => {
  env = await useTestTable();
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
});

function setUp(dataspace: string) {
  const { client, calls } = counting(env.doc);
  const store = new WebhookStore(client, env.tableName);
  const queued: DeliveryMessage[] = [];
  const service = new WebhookService({
    store,
    queue: { send: async (messages) => void queued.push(...messages) },
    schedule: { baseSeconds: 60, maxDelaySeconds: 600, maxAttempts: 5, disableAfterSeconds: 3600 },
    allowPrivateTargets: true,
    now: () => new Date(),
    random: () => 0.5,
    firstTryTimeoutMs: 1_000,
  });
  const root: Caller = { username: 'root', email: '', dataspace, isSuperuser: true, groups: [] };
  const subscribe = (path: string) =>
    service.create(root, () => ({ target_url: `${receiver.url}${path}`, events: ['request.added'], is_active: true, description: path }), 'https://api.test');
  const anEvent = (): Envelope => ({ id: randomUUID(), type: 'request.added', version: 1, timestamp: new Date().toISOString(), dataspace, data: {} });
  return { store, service, queued, root, subscribe, anEvent, calls };
}

describe('the fan-out', () => {
  it('attempts every subscription at once: one that never answers holds up none of the others and is handed to the queue', async () => {
    const { store, service, queued, subscribe, anEvent, root } = setUp('fan-hang');
    // Created first, so a fan-out that went one subscription after another would try it first.
    const hanging = await subscribe('/hang');
    const prompt = await Promise.all(['/a', '/b', '/c', '/d'].map((path) => subscribe(path)));
    const event = anEvent();

    const result = await service.fanOut(event);

    expect(result).toMatchObject({ subscriptions: 5, delivered: 4, handedOver: 1, failed: 0 });
    const mine = receiver.received.filter((r) => r.eventId === event.id);
    expect(mine.map((r) => r.path).sort()).toEqual(['/a', '/b', '/c', '/d', '/hang']);
    // Every other receiver had its delivery while the hanging one was still waiting for its answer.
    const hangGaveUp = receiver.hangClosedAt.at(-1)!;
    expect(hangGaveUp).toBeDefined();
    for (const delivery of mine.filter((r) => r.path !== '/hang')) expect(delivery.at).toBeLessThan(hangGaveUp);
    // The slow one goes to the deliveries queue at once (no backoff) for an attempt with the full timeout.
    expect(queued).toEqual([{ webhookUuid: hanging.uuid, deliveryId: stableUuid(`${event.id}|${hanging.uuid}`) }]);
    const log = await service.deliveries(root, hanging.uuid, {}, new URL('https://api.test/x'));
    expect(log.results).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', response_status: null })]);
    expect(log.results[0]!.response).toMatch(/No answer within 1000 ms\n\[handed to the delivery queue/);
    // Slow is not failing: the subscription is not on its way to being switched off.
    expect(await store.get(hanging.uuid)).toMatchObject({ isActive: true, failingSince: null });
    for (const subscription of prompt) {
      const delivered = await service.deliveries(root, subscription.uuid, {}, new URL('https://api.test/x'));
      expect(delivered.results).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', response_status: 204 })]);
    }
  }, 30_000);

  it('writes the log after the POSTs, in BatchWriteItem calls with a TTL: no write of its own per delivery', async () => {
    const { service, subscribe, anEvent, calls } = setUp('fan-batch');
    const subscriptions = [];
    for (let i = 0; i < 30; i++) subscriptions.push(await subscribe(`/batch/${i}`));
    const event = anEvent();
    calls.length = 0;

    expect(await service.fanOut(event)).toMatchObject({ subscriptions: 30, delivered: 30 });

    const names = calls.map((call) => call.name);
    // Before the POSTs, the subscriptions and whether the event was fanned out before; after them, the
    // envelope and 60 rows (a delivery and an attempt each) in calls of 25.
    expect(names.slice(0, 2).sort()).toEqual(['BatchGetCommand', 'QueryCommand']);
    expect(names.slice(2)).toEqual(['BatchWriteCommand', 'BatchWriteCommand', 'BatchWriteCommand']);
    const lastPost = Math.max(...receiver.received.filter((r) => r.eventId === event.id).map((r) => r.at));
    expect(calls.find((call) => call.name === 'BatchWriteCommand')!.at).toBeGreaterThan(lastPost);
    const now = Date.now() / 1000;
    const delivery = (
      await env.doc.send(new GetCommand({ TableName: env.tableName, Key: keys.delivery(subscriptions[7]!.uuid, stableUuid(`${event.id}|${subscriptions[7]!.uuid}`)) }))
    ).Item!;
    expect(delivery).toMatchObject({ attempts: 1, eventId: event.id, deliveredAt: expect.any(String) });
    expect(delivery.expiresAt).toBeGreaterThan(now + 29 * 86_400);
    const eventItem = (await env.doc.send(new GetCommand({ TableName: env.tableName, Key: keys.webhookEvent(event.id) }))).Item!;
    expect(eventItem).toMatchObject({ envelope: event });
    expect(eventItem.expiresAt).toBeGreaterThan(now + 29 * 86_400);
  }, 30_000);

  it('shares the reads of the events it fans out at the same moment', async () => {
    const { service, subscribe, anEvent, calls } = setUp('fan-shared');
    for (let i = 0; i < 3; i++) await subscribe(`/shared/${i}`);
    calls.length = 0;

    const results = await Promise.all(Array.from({ length: 10 }, () => service.fanOut(anEvent())));

    expect(results.every((result) => result.delivered === 3)).toBe(true);
    const names = calls.map((call) => call.name);
    expect(names.filter((name) => name === 'QueryCommand')).toHaveLength(1);
    expect(names.filter((name) => name === 'BatchGetCommand')).toHaveLength(1);
    // 10 envelopes and 60 rows.
    expect(names.filter((name) => name === 'BatchWriteCommand')).toHaveLength(3);
    expect(names.filter((name) => !['QueryCommand', 'BatchGetCommand', 'BatchWriteCommand'].includes(name))).toEqual([]);
  }, 30_000);

  it('does not deliver a duplicated event again, and redelivers from the log what it delivered', async () => {
    const { service, subscribe, anEvent, root, queued } = setUp('fan-dup');
    const subscription = await subscribe('/dup');
    const event = anEvent();
    expect(await service.fanOut(event)).toMatchObject({ delivered: 1 });
    expect(await service.fanOut(event)).toMatchObject({ subscriptions: 1, alreadyMade: 1, delivered: 0 });
    expect(receiver.received.filter((r) => r.eventId === event.id)).toHaveLength(1);

    const [entry] = (await service.deliveries(root, subscription.uuid, {}, new URL('https://api.test/x'))).results;
    await service.redeliver(root, subscription.uuid, entry!.id);
    expect(queued).toEqual([expect.objectContaining({ deliveryId: entry!.id, force: true })]);
    expect(await service.attempt(queued[0]!, 1)).toEqual({ outcome: 'delivered', attempt: 2 });
    expect(receiver.received.filter((r) => r.eventId === event.id)).toHaveLength(2);
  }, 30_000);
});
