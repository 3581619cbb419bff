/**
 * Webhooks: the subscriptions API (superusers of the dataspace), and delivery. An event fans out to
 * one delivery per active subscription (a stable id per event and subscription, so a duplicated event
 * is delivered once). The fan-out makes each delivery's first attempt itself, all of them at once
 * (up to `postConcurrency` POSTs in flight), then writes the log in batches; only what did not succeed
 * goes to the deliveries queue, where each delivery is retried on its own with backoff until the queue
 * gives up (DLQ). A subscription failing for the configured time is switched off.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { isUuid, stableUuid } from '../domain/identifiers.ts';
import {
  PING_EVENT,
  WEBHOOK_EVENT_TYPES,
  retryDelaySeconds,
  shouldDisable,
  type RetrySchedule,
  type Subscription,
  type WebhookEventType,
} from '../domain/webhooks.ts';
import { envelope, type Envelope } from '../events/envelope.ts';
import { retryOnConflict } from '../store/dynamo.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';
import { StaleWebhookError, type Attempt, type DeliveryRecord, type WebhookStore } from '../store/webhook-store.ts';
import { DELIVERY_TIMEOUT_MS, deliver, normalisedTarget, targetProblem, type DeliveryResult } from '../webhooks/sender.ts';
import { isoWithOffset } from '../domain/time.ts';
import { paginate } from './paginate.ts';

export interface DeliveryQueue {
  send(messages: readonly DeliveryMessage[]): Promise<void>;
}

export interface DeliveryMessage {
  readonly webhookUuid: string;
  readonly deliveryId: string;
  /** A redelivery asked for by a person: sent even if the delivery succeeded before. */
  readonly force?: boolean;
  /** The correlation id of the event's path (its envelope's). */
  readonly correlationId?: string;
  /** Not part of the message: how long the queue keeps it hidden first (the backoff after the fan-out's attempt). */
  readonly delaySeconds?: number;
}

/**
 * How long the fan-out waits for an answer before it hands the delivery to the deliveries queue, where
 * it is attempted again at once with the full DELIVERY_TIMEOUT_MS (10 s). Short, so that a slow
 * receiver holds up its fan-out (and the events behind it) for this long at most, not 10 s; long enough
 * for nearly every receiver that answers at all.
 */
export const FIRST_TRY_TIMEOUT_MS = 2_000;
/** Signed POSTs the fan-out keeps in flight at once (per function instance). */
export const POST_CONCURRENCY = 100;
/**
 * How long a fan-out's log may wait while other fan-outs of the same instance are still reading or
 * POSTing: the log goes after the deliveries, not among them, but not indefinitely later.
 */
export const LOG_DEFER_MAX_MS = 5_000;

export interface WebhookServiceDeps {
  readonly store: WebhookStore;
  readonly queue: DeliveryQueue;
  readonly schedule: RetrySchedule;
  readonly allowPrivateTargets: boolean;
  readonly now: () => Date;
  readonly random: () => number;
  /** FIRST_TRY_TIMEOUT_MS unless given (tests). */
  readonly firstTryTimeoutMs?: number;
  /** POST_CONCURRENCY unless given. */
  readonly postConcurrency?: number;
}

/** What a fan-out did: the event's subscriptions, and the outcomes of the first attempts it made. */
export interface FanOutResult {
  readonly subscriptions: number;
  /** Deliveries recorded by an earlier fan-out of the same event, not attempted again. */
  readonly alreadyMade: number;
  readonly delivered: number;
  /** Failed, to be retried after the backoff. */
  readonly failed: number;
  /** No answer within FIRST_TRY_TIMEOUT_MS: attempted again at once by the delivery function. */
  readonly handedOver: number;
  readonly disabled: number;
}

/** A failed attempt that should be tried again after `delaySeconds`. */
export class RetryLaterError extends Error {
  constructor(
    readonly delaySeconds: number,
    /** The attempt that failed (1 for the first). */
    readonly attempt: number,
  ) {
    super(`Retry in ${delaySeconds} s`);
  }
}

/**
 * What one attempt came to, unless it failed and will be retried (RetryLaterError): delivered, or
 * failed for good because the subscription was switched off; skipped when there was nothing to attempt.
 */
export type AttemptOutcome = { readonly outcome: 'delivered' | 'disabled'; readonly attempt: number } | { readonly outcome: 'skipped' };

export function webhookView(subscription: Subscription, baseUrl: string, withSecret = false) {
  return {
    uuid: subscription.uuid,
    api_url: `${baseUrl}/api/v2/webhooks/${subscription.uuid}/`,
    target_url: subscription.targetUrl,
    events: subscription.events,
    is_active: subscription.isActive,
    description: subscription.description,
    created_date: subscription.createdDate,
    ...(withSecret ? { secret: subscription.secret } : {}),
  };
}

/** A subscription's entity tag: its revision. */
const webhookTag = (subscription: Subscription) => entityTag(subscription.rev);

function attemptView(attempt: Attempt) {
  return {
    id: attempt.deliveryId,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    attempted_at: attempt.at,
    outcome: attempt.outcome,
    response_status: attempt.status,
    duration_ms: attempt.durationMs,
    response: attempt.excerpt,
  };
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export class WebhookService {
  private readonly posts: <T>(task: () => Promise<T>) => Promise<T>;
  private readonly firstTryTimeoutMs: number;
  /** The events of a batch, fanned out at once, share one read of each dataspace's subscriptions... */
  private readonly subscribers: (dataspace: string) => Promise<Subscription[]>;
  /** ...and one BatchGetItem telling which of them were fanned out before. */
  private readonly fannedOut: (eventId: string) => Promise<boolean>;
  /** Fan-outs of this instance between their first read and their last POST. */
  private delivering = 0;
  private readonly waitingForQuiet: (() => void)[] = [];

  constructor(private readonly deps: WebhookServiceDeps) {
    this.posts = limiter(deps.postConcurrency ?? POST_CONCURRENCY);
    this.firstTryTimeoutMs = Math.min(deps.firstTryTimeoutMs ?? FIRST_TRY_TIMEOUT_MS, DELIVERY_TIMEOUT_MS);
    this.subscribers = sharedWhileInFlight((dataspace) => deps.store.subscriptionsOf(dataspace));
    this.fannedOut = gathered(async (eventIds) => {
      const seen = await deps.store.fannedOut(eventIds);
      return new Map(eventIds.map((id) => [id, seen.has(id)]));
    });
  }

  // --- subscriptions -------------------------------------------------------------------------

  private async find(caller: Caller, uuid: string): Promise<Subscription> {
    if (!caller.isSuperuser) throw new ForbiddenError();
    const subscription = isUuid(uuid) ? await this.deps.store.get(uuid.toLowerCase()) : undefined;
    if (!subscription || subscription.dataspace !== caller.dataspace) throw new NotFoundError();
    return subscription;
  }

  /** The target URL in the form it is stored in, or a field error. */
  private async checkTarget(url: string): Promise<string> {
    const problem = await targetProblem(url, { allowPrivate: this.deps.allowPrivateTargets });
    if (problem) throw new ValidationError({ target_url: [problem] });
    const normalised = normalisedTarget(url);
    // Percent-encoding can lengthen a URL past the limit the field promises.
    if (normalised.length > 2000) throw new ValidationError({ target_url: ['Ensure this field has no more than 2000 characters.'] });
    return normalised;
  }

  async list(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    if (!caller.isSuperuser) throw new ForbiddenError();
    return paginate(query, url, (offset, limit) => this.deps.store.list(caller.dataspace, offset, limit), (s) => webhookView(s, baseUrl));
  }

  async retrieve(caller: Caller, uuid: string, baseUrl: string) {
    const subscription = await this.find(caller, uuid);
    return tagged(webhookView(subscription, baseUrl), webhookTag(subscription));
  }

  async create(caller: Caller, readBody: () => { target_url: string; events: WebhookEventType[]; is_active: boolean; description: string }, baseUrl: string) {
    if (!caller.isSuperuser) throw new ForbiddenError();
    const body = readBody();
    const targetUrl = await this.checkTarget(body.target_url);
    const subscription: Subscription = {
      uuid: randomUUID(),
      dataspace: caller.dataspace,
      targetUrl,
      events: [...new Set(body.events)],
      isActive: body.is_active,
      description: body.description,
      secret: newSecret(),
      createdDate: isoWithOffset(this.deps.now()),
      failingSince: null,
      rev: 0,
    };
    await this.deps.store.save(subscription, undefined);
    return tagged(webhookView(subscription, baseUrl, true), entityTag(1));
  }

  async update(
    caller: Caller,
    uuid: string,
    readBody: () => Partial<{ target_url: string; events: WebhookEventType[]; is_active: boolean; description: string }>,
    baseUrl: string,
    ifMatch?: IfMatch,
  ) {
    const saved = await retryOnConflict(async () => {
      const before = await this.find(caller, uuid);
      requireMatch(ifMatch, webhookTag(before));
      const body = readBody();
      const targetUrl = body.target_url === undefined ? before.targetUrl : await this.checkTarget(body.target_url);
      const after: Subscription = {
        ...before,
        targetUrl,
        events: body.events ? [...new Set(body.events)] : before.events,
        isActive: body.is_active ?? before.isActive,
        description: body.description ?? before.description,
        // Switching a subscription back on forgives its past failures.
        failingSince: body.is_active === true ? null : before.failingSince,
      };
      await this.deps.store.save(after, before);
      return after;
    }, (error) => error instanceof StaleWebhookError);
    return tagged(webhookView(saved, baseUrl), entityTag(saved.rev + 1));
  }

  async delete(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const subscription = await this.find(caller, uuid);
      requireMatch(ifMatch, webhookTag(subscription));
      await this.deps.store.delete(subscription);
    }, (error) => error instanceof StaleWebhookError);
  }

  async rotateSecret(caller: Caller, uuid: string, baseUrl: string) {
    const saved = await retryOnConflict(async () => {
      const before = await this.find(caller, uuid);
      const after = { ...before, secret: newSecret() };
      await this.deps.store.save(after, before);
      return after;
    }, (error) => error instanceof StaleWebhookError);
    return tagged(webhookView(saved, baseUrl, true), entityTag(saved.rev + 1));
  }

  /** Sends a test event now and answers how it went (it is logged like any attempt). */
  async ping(caller: Caller, uuid: string) {
    const subscription = await this.find(caller, uuid);
    const at = this.deps.now();
    const event: Envelope = envelope(PING_EVENT, randomUUID(), isoWithOffset(at), subscription.dataspace, {
      webhook: subscription.uuid,
      message: 'Test event from the compliance service.',
    });
    const result = await deliver(subscription.targetUrl, event, subscription.secret, { allowPrivate: this.deps.allowPrivateTargets });
    await this.log(subscription, event.id, event, 1, result, result.ok ? 'delivered' : 'failed');
    return { event_id: event.id, delivered: result.ok, response_status: result.status, duration_ms: result.durationMs, response: result.excerpt };
  }

  async deliveries(caller: Caller, uuid: string, query: Record<string, string | undefined>, url: URL) {
    const subscription = await this.find(caller, uuid);
    return paginate(query, url, (offset, limit) => this.deps.store.attempts(subscription.uuid, offset, limit), attemptView);
  }

  async redeliver(caller: Caller, uuid: string, deliveryId: string) {
    const subscription = await this.find(caller, uuid);
    const delivery = isUuid(deliveryId) ? await this.deps.store.getDelivery(subscription.uuid, deliveryId.toLowerCase()) : undefined;
    if (!delivery) throw new NotFoundError();
    await this.deps.queue.send([{ webhookUuid: subscription.uuid, deliveryId: delivery.deliveryId, force: true, ...correlationOf(delivery.envelope) }]);
    return { status: 'redelivery queued', id: delivery.deliveryId };
  }

  // --- delivery ------------------------------------------------------------------------------

  /**
   * An event from the bus: one delivery per active subscription of its dataspace to its type, each
   * attempted here at once. On the hot path, two reads shared by the events fanned out at the same
   * moment (the dataspace's subscriptions, one Query started after the event arrived, so none is
   * missed; and whether the event was fanned out before, one BatchGetItem), then the POSTs; after
   * them the log, in batches (with the envelope, once), and the queue messages of the deliveries to
   * retry. A duplicated event (or the retry of a fan-out that failed part-way) attempts only the
   * deliveries not recorded yet; two copies fanned out at the very same time may both deliver
   * (at-least-once: receivers deduplicate on webhook-id).
   */
  async fanOut(envelope: Envelope): Promise<FanOutResult> {
    const result = { subscriptions: 0, alreadyMade: 0, delivered: 0, failed: 0, handedOver: 0, disabled: 0 };
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(envelope.type)) return result;
    this.delivering += 1;
    let attempted;
    try {
      attempted = await this.attemptAll(envelope, result);
    } finally {
      this.delivering -= 1;
      if (this.delivering === 0) for (const release of this.waitingForQuiet.splice(0)) release();
    }
    if (attempted.length === 0) return result;
    const now = this.deps.now();
    // The log waits for the other fan-outs' reads and POSTs (for a while at most): on a table that is
    // slow to write, they would queue behind it.
    await this.quiet();

    const records: DeliveryRecord[] = [];
    const attempts: { webhookUuid: string; attempt: Attempt }[] = [];
    const messages: DeliveryMessage[] = [];
    const failingWrites: Promise<void>[] = [];
    for (const { subscription, deliveryId, outcome: sent } of attempted) {
      const message = { webhookUuid: subscription.uuid, deliveryId, ...correlationOf(envelope) };
      let outcome: Attempt['outcome'];
      let note: string | undefined;
      if (sent.ok) {
        outcome = 'delivered';
        result.delivered += 1;
        if (subscription.failingSince !== null) failingWrites.push(this.deps.store.setFailingSince(subscription.uuid, null, false));
      } else if (sent.timedOut && this.firstTryTimeoutMs < DELIVERY_TIMEOUT_MS) {
        // Slow, not failing: the delivery function waits the full timeout for it, on its own message,
        // and this failure does not count towards switching the subscription off.
        outcome = 'failed';
        note = `[handed to the delivery queue: attempted again at once, waiting up to ${DELIVERY_TIMEOUT_MS / 1000} s]`;
        result.handedOver += 1;
        messages.push(message);
      } else {
        const failingSince = subscription.failingSince ?? isoWithOffset(now);
        const disable = shouldDisable(this.deps.schedule, failingSince, now);
        outcome = disable ? 'disabled' : 'failed';
        if (disable || subscription.failingSince === null) failingWrites.push(this.deps.store.setFailingSince(subscription.uuid, failingSince, disable));
        if (disable) {
          result.disabled += 1;
        } else {
          result.failed += 1;
          messages.push({ ...message, delaySeconds: retryDelaySeconds(this.deps.schedule, 1, this.deps.random()) });
        }
      }
      records.push({ deliveryId, webhookUuid: subscription.uuid, eventId: envelope.id, attempts: 1, deliveredAt: sent.ok ? isoWithOffset(now) : null });
      attempts.push({ webhookUuid: subscription.uuid, attempt: this.attemptEntry(subscription, deliveryId, envelope, 1, sent, outcome, now, note) });
    }
    // The deliveries are recorded before their retries are queued: a retry reads its delivery.
    await Promise.all([this.deps.store.writeLog(records, attempts, now, envelope), ...failingWrites]);
    await this.deps.queue.send(messages);
    return result;
  }

  /** The hot path of a fan-out: its subscriptions, whether it was fanned out before, and the POSTs. */
  private async attemptAll(envelope: Envelope, result: { subscriptions: number; alreadyMade: number }) {
    const [all, seenBefore] = await Promise.all([this.subscribers(envelope.dataspace), this.fannedOut(envelope.id)]);
    const subscriptions = all.filter((s) => s.isActive && (s.events as readonly string[]).includes(envelope.type));
    result.subscriptions = subscriptions.length;
    if (subscriptions.length === 0) return [];
    // The same event (a duplicate from the bus or a retry) makes the same delivery.
    let due = subscriptions.map((subscription) => ({ subscription, deliveryId: stableUuid(`${envelope.id}|${subscription.uuid}`) }));
    if (seenBefore) {
      const recorded = await this.deps.store.deliveryStates(due.map((d) => ({ webhookUuid: d.subscription.uuid, deliveryId: d.deliveryId })));
      due = due.filter((d) => !recorded.has(d.deliveryId));
      result.alreadyMade = subscriptions.length - due.length;
    }
    const policy = { allowPrivate: this.deps.allowPrivateTargets };
    const attempted = await Promise.all(
      due.map(async (d) => ({ ...d, outcome: await this.posts(() => deliver(d.subscription.targetUrl, envelope, d.subscription.secret, policy, this.firstTryTimeoutMs)) })),
    );

    return attempted;
  }

  /** Resolves once no fan-out of this instance is reading or POSTing, or after LOG_DEFER_MAX_MS. */
  private quiet(): Promise<void> {
    if (this.delivering === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LOG_DEFER_MAX_MS);
      this.waitingForQuiet.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * One attempt of a delivery. Throws RetryLaterError when it failed and should be tried again;
   * the queue's redrive policy ends it in the DLQ after the last attempt.
   */
  async attempt(message: DeliveryMessage, receiveCount: number): Promise<AttemptOutcome> {
    const skipped = { outcome: 'skipped' } as const;
    const subscription = await this.deps.store.get(message.webhookUuid);
    const delivery = await this.deps.store.getDelivery(message.webhookUuid, message.deliveryId);
    if (!subscription || !delivery) return skipped;
    if (!subscription.isActive && !message.force) return skipped;
    if (delivery.deliveredAt && !message.force) return skipped;
    const attempt = await this.deps.store.nextAttempt(subscription.uuid, delivery.deliveryId);
    if (attempt === undefined) return skipped;
    const result = await deliver(subscription.targetUrl, delivery.envelope, subscription.secret, { allowPrivate: this.deps.allowPrivateTargets });
    const now = this.deps.now();
    if (result.ok) {
      await this.log(subscription, delivery.deliveryId, delivery.envelope, attempt, result, 'delivered');
      await this.deps.store.markDelivered(subscription.uuid, delivery.deliveryId, isoWithOffset(now));
      if (subscription.failingSince !== null) await this.deps.store.setFailingSince(subscription.uuid, null, false);
      return { outcome: 'delivered', attempt };
    }
    const failingSince = subscription.failingSince ?? isoWithOffset(now);
    const disable = shouldDisable(this.deps.schedule, failingSince, now);
    await this.log(subscription, delivery.deliveryId, delivery.envelope, attempt, result, disable ? 'disabled' : 'failed');
    await this.deps.store.setFailingSince(subscription.uuid, failingSince, disable);
    if (disable) return { outcome: 'disabled', attempt };
    throw new RetryLaterError(retryDelaySeconds(this.deps.schedule, Math.max(attempt, receiveCount), this.deps.random()), attempt);
  }

  /** Logs one attempt (through the batched log writer, with whatever else is written at that moment). */
  private async log(subscription: Subscription, deliveryId: string, envelope: Envelope, attempt: number, result: DeliveryResult, outcome: Attempt['outcome']) {
    const now = this.deps.now();
    await this.deps.store.writeLog([], [{ webhookUuid: subscription.uuid, attempt: this.attemptEntry(subscription, deliveryId, envelope, attempt, result, outcome, now) }], now);
  }

  private attemptEntry(
    subscription: Subscription,
    deliveryId: string,
    envelope: Envelope,
    attempt: number,
    result: DeliveryResult,
    outcome: Attempt['outcome'],
    now: Date,
    note?: string,
  ): Attempt {
    const switchedOff = outcome === 'disabled' ? `[subscription switched off after failing since ${subscription.failingSince ?? 'now'}]` : undefined;
    const extra = switchedOff ?? note;
    return {
      id: randomUUID(),
      deliveryId,
      eventId: envelope.id,
      eventType: envelope.type,
      attempt,
      at: isoWithOffset(now),
      status: result.status,
      durationMs: result.durationMs,
      excerpt: extra === undefined ? result.excerpt : `${result.excerpt}\n${extra}`,
      outcome,
    };
  }
}

/**
 * A read that callers asking for the same key while it is in flight share; the next caller after it
 * ends reads again (nothing is cached, so nothing can be stale beyond the read itself).
 */
function sharedWhileInFlight<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const inFlight = new Map<string, Promise<T>>();
  return (key) => {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = read(key).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
}

/** Keys asked for within one turn of the event loop, looked up together in one call. */
function gathered<V>(lookUp: (keys: string[]) => Promise<Map<string, V>>): (key: string) => Promise<V> {
  let batch: { keys: string[]; result: Promise<Map<string, V>> } | undefined;
  return async (key) => {
    if (!batch) {
      const keys: string[] = [];
      const result = new Promise<Map<string, V>>((resolve, reject) =>
        setImmediate(() => {
          batch = undefined;
          lookUp([...new Set(keys)]).then(resolve, reject);
        }),
      );
      batch = { keys, result };
    }
    batch.keys.push(key);
    const values = await batch.result;
    return values.get(key) as V;
  };
}

/** Runs at most `concurrency` tasks at once; the others wait their turn, in order. */
function limiter(concurrency: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A task that ends hands its slot straight to the next one waiting.
    if (running < concurrency) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** The delivery message's correlation field, from the event's envelope. */
function correlationOf(envelope: Envelope): Pick<DeliveryMessage, 'correlationId'> {
  return envelope.correlation_id === undefined ? {} : { correlationId: envelope.correlation_id };
}
