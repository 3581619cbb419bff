/**
 * Persistence of webhooks: subscriptions (listed per dataspace through GSI1), each event's envelope
 * (once, for retries and redelivery), the deliveries made to each subscription and the log of every
 * attempt, newest first, which DynamoDB's TTL removes after 30 days. The fan-out writes its deliveries
 * and attempts after its POSTs, in batches (writeLog); a retry writes its own attempt the same way.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Subscription, WebhookEventType } from '../domain/webhooks.ts';
import type { Envelope } from '../events/envelope.ts';
import { TABLE } from '../table.ts';
import { batchGet, isConditionFailure, partitionQueryInput, queryAll, queryCount, queryOffset, revisionCondition, type Item } from './dynamo.ts';
import { BatchWriter } from './batch-writer.ts';

const LOG_TTL_SECONDS = 30 * 86_400;

export interface Attempt {
  readonly id: string;
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly attempt: number;
  readonly at: string;
  /** HTTP status, or null when no answer came. */
  readonly status: number | null;
  readonly durationMs: number;
  readonly excerpt: string;
  readonly outcome: 'delivered' | 'failed' | 'disabled';
}

export interface Delivery {
  readonly deliveryId: string;
  readonly webhookUuid: string;
  readonly envelope: Envelope;
  readonly deliveredAt?: string | null;
}

/** A delivery as the fan-out records it after its first attempt (the envelope is on the event's item). */
export interface DeliveryRecord {
  readonly deliveryId: string;
  readonly webhookUuid: string;
  readonly eventId: string;
  /** Attempts made so far (the next attempt is this plus one). */
  readonly attempts: number;
  readonly deliveredAt: string | null;
}

/** What is known of a delivery already recorded: a duplicated event must not deliver it again. */
export interface DeliveryState {
  readonly attempts: number;
  readonly deliveredAt: string | null;
}

export class StaleWebhookError extends Error {}

export class WebhookStore {
  private readonly logWriter: BatchWriter;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.logWriter = new BatchWriter(doc, tableName);
  }

  async get(uuid: string): Promise<Subscription | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.webhook(uuid), ConsistentRead: true }));
    return result.Item ? toSubscription(result.Item) : undefined;
  }

  async list(dataspace: string, offset: number, limit: number): Promise<{ count: number; items: Subscription[] }> {
    const input = partitionQueryInput(this.tableName, keys.webhooksOfDataspace(dataspace));
    const count = await queryCount(this.doc, input);
    return { count, items: offset < count ? (await queryOffset(this.doc, input, offset, limit)).map(toSubscription) : [] };
  }

  /** Every subscription of the dataspace (the fan-out picks the active ones to the event's type). */
  async subscriptionsOf(dataspace: string): Promise<Subscription[]> {
    const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.webhooksOfDataspace(dataspace)));
    return items.map(toSubscription);
  }

  /** Writes the subscription if it is still at `before`'s revision (or new). */
  async save(subscription: Subscription, before: Subscription | undefined): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.webhook(subscription.uuid),
            ...keys.webhookInDataspace(subscription.dataspace, subscription.createdDate, subscription.uuid),
            entity: 'Webhook',
            uuid: subscription.uuid,
            dataspace: subscription.dataspace,
            targetUrl: subscription.targetUrl,
            events: [...subscription.events],
            isActive: subscription.isActive,
            description: subscription.description,
            secret: subscription.secret,
            createdDate: subscription.createdDate,
            failingSince: subscription.failingSince,
            rev: subscription.rev + 1,
          },
          ...revisionCondition(before),
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // A create the SDK resent after losing the first answer fails its own condition: when the
      // stored subscription is this one (its secret is new and random), the write did happen.
      if (!before && (await this.get(subscription.uuid))?.secret === subscription.secret) return;
      throw new StaleWebhookError();
    }
  }

  /**
   * Deletes the subscription if it is still at the revision read (StaleWebhookError otherwise); its
   * deliveries and log are unreachable and expire with their TTL.
   */
  async delete(subscription: Subscription): Promise<void> {
    try {
      // In a transaction, which carries the deletion marker the audit trail reads (shared/observability/write-stamps.ts).
      await this.doc.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: this.tableName, Key: keys.webhook(subscription.uuid), ...revisionCondition(subscription) } }] }));
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      throw new StaleWebhookError();
    }
  }

  /** Marks a delivery delivered; false when it already was (a duplicate message). */
  async markDelivered(webhookUuid: string, deliveryId: string, at: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.delivery(webhookUuid, deliveryId),
          UpdateExpression: 'SET deliveredAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deliveredAt)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Records that a delivery failed (since when) or succeeded (no longer failing). */
  async setFailingSince(uuid: string, failingSince: string | null, disable: boolean): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.webhook(uuid),
        // Switching it off changes what the API shows: a new revision (and so a new ETag).
        UpdateExpression: disable ? 'SET failingSince = :since, isActive = :false ADD #rev :one' : 'SET failingSince = :since',
        ConditionExpression: 'attribute_exists(PK)',
        ...(disable ? { ExpressionAttributeNames: { '#rev': 'rev' } } : {}),
        ExpressionAttributeValues: disable ? { ':since': failingSince, ':false': false, ':one': 1 } : { ':since': failingSince },
      }),
    ).catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  }

  /** Keeps the envelope of a delivery (once: the same delivery id is the same delivery). */
  async recordDelivery(delivery: Delivery, now: Date): Promise<void> {
    await this.doc
      .send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.delivery(delivery.webhookUuid, delivery.deliveryId),
            entity: 'WebhookDelivery',
            deliveryId: delivery.deliveryId,
            webhookUuid: delivery.webhookUuid,
            envelope: delivery.envelope,
            [TABLE.ttlAttribute]: ttl(now),
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /**
   * The events of these that were fanned out before (a duplicate from the bus, or the retry of a
   * fan-out that failed part-way): their WebhookEvent item exists. One BatchGetItem for a whole batch
   * of events; a fanned-out event's deliveries must then be looked up (deliveryStates).
   */
  async fannedOut(eventIds: readonly string[]): Promise<Set<string>> {
    const items = await batchGet(this.doc, this.tableName, eventIds.map((id) => keys.webhookEvent(id)), true);
    return new Set(items.map((item) => (item.envelope as Envelope).id));
  }

  /** The deliveries of these that are recorded already, by delivery id (BatchGetItem, 100 keys a call). */
  async deliveryStates(deliveries: readonly { webhookUuid: string; deliveryId: string }[]): Promise<Map<string, DeliveryState>> {
    const items = await batchGet(this.doc, this.tableName, deliveries.map((d) => keys.delivery(d.webhookUuid, d.deliveryId)), true);
    return new Map(
      items.map((item) => [String(item.deliveryId), { attempts: Number(item.attempts ?? 0), deliveredAt: (item.deliveredAt as string | null | undefined) ?? null }]),
    );
  }

  /**
   * Records deliveries and attempts with BatchWriteItem, together with what other callers write at the
   * same moment (./batch-writer.ts), each row with the log's TTL. Resolves once all are stored.
   */
  async writeLog(
    deliveries: readonly DeliveryRecord[],
    attempts: readonly { webhookUuid: string; attempt: Attempt }[],
    now: Date,
    /** The event's envelope, kept once for all its deliveries (retries and redelivery read it). */
    event?: Envelope,
  ): Promise<void> {
    await this.logWriter.write([
      ...(event ? [{ ...keys.webhookEvent(event.id), entity: 'WebhookEvent', envelope: event, [TABLE.ttlAttribute]: ttl(now) }] : []),
      ...deliveries.map((delivery) => ({
        ...keys.delivery(delivery.webhookUuid, delivery.deliveryId),
        entity: 'WebhookDelivery',
        deliveryId: delivery.deliveryId,
        webhookUuid: delivery.webhookUuid,
        eventId: delivery.eventId,
        attempts: delivery.attempts,
        ...(delivery.deliveredAt === null ? {} : { deliveredAt: delivery.deliveredAt }),
        [TABLE.ttlAttribute]: ttl(now),
      })),
      ...attempts.map(({ webhookUuid, attempt }) => attemptItem(webhookUuid, attempt, now)),
    ]);
  }

  /** A delivery with its envelope: on its own item (recordDelivery), or on its event's (the fan-out's). */
  async getDelivery(webhookUuid: string, deliveryId: string): Promise<Delivery | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.delivery(webhookUuid, deliveryId), ConsistentRead: true }));
    const item = result.Item;
    if (!item) return undefined;
    let envelope = item.envelope as Envelope | undefined;
    if (envelope === undefined && typeof item.eventId === 'string') {
      const event = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.webhookEvent(item.eventId), ConsistentRead: true }));
      envelope = event.Item?.envelope as Envelope | undefined;
    }
    return envelope === undefined ? undefined : { deliveryId, webhookUuid, envelope, deliveredAt: (item.deliveredAt as string | undefined) ?? null };
  }

  async logAttempt(webhookUuid: string, attempt: Attempt, now: Date): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: attemptItem(webhookUuid, attempt, now) }));
  }

  /** The delivery log, newest first. */
  async attempts(webhookUuid: string, offset: number, limit: number): Promise<{ count: number; items: Attempt[] }> {
    const input = { ...partitionQueryInput(this.tableName, keys.attemptsOf(webhookUuid)), ScanIndexForward: false, ConsistentRead: true };
    const count = await queryCount(this.doc, input);
    const items = offset < count ? await queryOffset(this.doc, input, offset, limit) : [];
    return { count, items: items.map(toAttempt) };
  }

  /**
   * Counts one more attempt of a delivery and returns its number (1 for the first), kept on the
   * delivery item itself: one write, whatever the size of the subscription's log. Undefined when the
   * delivery is gone.
   */
  async nextAttempt(webhookUuid: string, deliveryId: string): Promise<number | undefined> {
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.delivery(webhookUuid, deliveryId),
          UpdateExpression: 'ADD attempts :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(result.Attributes?.attempts ?? 1);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

/** When DynamoDB's TTL may remove a log row written now. */
const ttl = (now: Date) => Math.floor(now.getTime() / 1000) + LOG_TTL_SECONDS;

function attemptItem(webhookUuid: string, attempt: Attempt, now: Date): Item {
  return { ...keys.attempt(webhookUuid, attempt.at, attempt.id), entity: 'WebhookAttempt', ...attempt, [TABLE.ttlAttribute]: ttl(now) };
}

function toSubscription(item: Item): Subscription {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    targetUrl: String(item.targetUrl),
    events: (item.events as WebhookEventType[]) ?? [],
    isActive: item.isActive === true,
    description: String(item.description ?? ''),
    secret: String(item.secret),
    createdDate: String(item.createdDate),
    failingSince: (item.failingSince as string | null | undefined) ?? null,
    rev: Number(item.rev ?? 0),
  };
}

function toAttempt(item: Item): Attempt {
  return {
    id: String(item.id),
    deliveryId: String(item.deliveryId),
    eventId: String(item.eventId),
    eventType: String(item.eventType),
    attempt: Number(item.attempt),
    at: String(item.at),
    status: (item.status as number | null | undefined) ?? null,
    durationMs: Number(item.durationMs ?? 0),
    excerpt: String(item.excerpt ?? ''),
    outcome: item.outcome as Attempt['outcome'],
  };
}
