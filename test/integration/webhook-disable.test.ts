/** A subscription that keeps failing for the configured time is switched off, with an entry in its log. */
import { expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestTable } from '../support/environment.ts';
import { WebhookStore } from '../../shared/store/webhook-store.ts';
import { WebhookService, RetryLaterError, type DeliveryMessage } from '../../shared/services/webhooks.ts';
import { freePort } from '../../bin/local/ports.ts';
import type { Caller } from '../../shared/domain/caller.ts';

it('retries while failing, then switches the subscription off once it has failed for long enough', async () => {
  const env = await useTestTable();
  const store = new WebhookStore(env.doc, env.tableName);
  const queued: DeliveryMessage[] = [];
  let now = new Date('2026-01-01T00:00:00Z');
  const service = new WebhookService({
    store,
    queue: { send: async (messages) => void queued.push(...messages) },
    schedule: { baseSeconds: 1, maxDelaySeconds: 4, maxAttempts: 10, disableAfterSeconds: 3600 },
    allowPrivateTargets: true,
    now: () => now,
    random: () => 0.5,
  });
  const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };
  const down = `http://127.0.0.1:${await freePort()}/hook`;
  const subscription = await service.create(root, () => ({ target_url: down, events: ['request.added'], is_active: true, description: '' }), 'https://api.test');
  const envelope = { id: randomUUID(), type: 'request.added', version: 1 as const, timestamp: now.toISOString(), dataspace: 'acme', data: {} };
  // The fan-out makes the first attempt itself; the failed delivery is queued after its backoff.
  expect(await service.fanOut(envelope)).toMatchObject({ subscriptions: 1, failed: 1, delivered: 0 });
  expect(queued).toEqual([expect.objectContaining({ delaySeconds: expect.any(Number) })]);
  expect(queued[0]!.delaySeconds).toBeGreaterThanOrEqual(0.5);
  // The same event twice makes the same delivery, attempted and queued once.
  expect(await service.fanOut(envelope)).toMatchObject({ subscriptions: 1, alreadyMade: 1, failed: 0 });
  expect(queued).toHaveLength(1);

  // The retry comes after its backoff (the queue's delay).
  now = new Date(now.getTime() + queued[0]!.delaySeconds! * 1000);
  await expect(service.attempt(queued[0]!, 1)).rejects.toBeInstanceOf(RetryLaterError);
  now = new Date(now.getTime() + 1800_000);
  await expect(service.attempt(queued[0]!, 2)).rejects.toBeInstanceOf(RetryLaterError);
  now = new Date(now.getTime() + 1800_000);
  expect(await service.attempt(queued[0]!, 3)).toEqual({ outcome: 'disabled', attempt: 4 });

  expect((await store.get(subscription.uuid))?.isActive).toBe(false);
  const log = await service.deliveries(root, subscription.uuid, {}, new URL('https://api.test/x'));
  expect(log.results.map((a) => [a.attempt, a.outcome])).toEqual([
    [4, 'disabled'],
    [3, 'failed'],
    [2, 'failed'],
    [1, 'failed'],
  ]);
  expect(log.results[0]!.response).toMatch(/switched off/);
  // Further attempts of an inactive subscription are dropped, and so are the fan-outs of new events,
  // until a person switches it back on.
  expect(await service.attempt(queued[0]!, 4)).toEqual({ outcome: 'skipped' });
  expect(await service.fanOut({ ...envelope, id: randomUUID() })).toMatchObject({ subscriptions: 0 });
  await service.update(root, subscription.uuid, () => ({ is_active: true }), 'https://api.test');
  expect((await store.get(subscription.uuid))).toMatchObject({ isActive: true, failingSince: null });
});
