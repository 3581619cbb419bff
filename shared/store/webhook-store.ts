/**
 * Persistence of webhooks: subscriptions (listed per dataspace through GSI1), the deliveries made to
 * each (the envelope kept for redelivery) and the log of every attempt, newest first, which DynamoDB's
 * TTL removes after 30 days.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Subscription, WebhookEventType } from '../domain/webhooks.ts';
import type { Envelope } from '../events/envelope.ts';
import { TABLE } from '../table.ts';
import { isConditionFailure, partitionQueryInput, queryAll, queryCount, queryOffset, revisionCondition, type Item } from './dynamo.ts';

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

export class StaleWebhookError extends Error {}

export class WebhookStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(uuid: string): Promise<Subscription | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.webhook(uuid), ConsistentRead: true }));
    return result.Item ? toSubscription(result.Item) : undefined;
  }

  async list(dataspace: string, offset: number, limit: number): Promise<{ count: number; items: Subscription[] }> {
    const input = partitionQueryInput(this.tableName, keys.webhooksOfDataspace(dataspace));
    const count = await queryCount(this.doc, input);
    return { count, items: offset < count ? (await queryOffset(this.doc, input, offset, limit)).map(toSubscription) : [] };
  }

  /** Every active subscription of the dataspace to this event type. */
  async subscribers(dataspace: string, eventType: string): Promise<Subscription[]> {
    const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.webhooksOfDataspace(dataspace)));
    return items.map(toSubscription).filter((s) => s.isActive && (s.events as readonly string[]).includes(eventType));
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
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.webhook(subscription.uuid), ...revisionCondition(subscription) }));
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
            [TABLE.ttlAttribute]: Math.floor(now.getTime() / 1000) + LOG_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async getDelivery(webhookUuid: string, deliveryId: string): Promise<Delivery | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.delivery(webhookUuid, deliveryId), ConsistentRead: true }));
    return result.Item
      ? { deliveryId, webhookUuid, envelope: result.Item.envelope as Envelope, deliveredAt: (result.Item.deliveredAt as string | undefined) ?? null }
      : undefined;
  }

  async logAttempt(webhookUuid: string, attempt: Attempt, now: Date): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.attempt(webhookUuid, attempt.at, attempt.id),
          entity: 'WebhookAttempt',
          ...attempt,
          [TABLE.ttlAttribute]: Math.floor(now.getTime() / 1000) + LOG_TTL_SECONDS,
        },
      }),
    );
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
