/**
 * The throttling state of each API key (and, in a key space of its own, of each source's failed
 * authentications): one item holding the GCRA theoretical arrival time (`tat`, epoch ms), shared by
 * every Lambda instance. A request is admitted by one of two conditional writes and never by a read
 * first, so two instances can never both take the last cell.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys, type EntityType, type Key } from '../keys.ts';
import { TABLE } from '../table.ts';

/** What one request's writes compare and set; shared/http/rate-limit.ts computes it. */
export interface GcraStep {
  /** The request's time, epoch ms. */
  readonly now: number;
  /** Milliseconds one request adds to `tat`. */
  readonly interval: number;
  /** The latest `tat` that still admits a request now. */
  readonly allowAt: number;
  /** TTL of the item, epoch seconds: past any `tat` these writes can set. */
  readonly expiresAt: number;
}

export type TakeResult = { readonly admitted: true } | { readonly admitted: false; readonly tat: number };

/** Where a limiter keeps its items: the key of a limited thing, and the items' entity. */
export interface RateLimitSpace {
  readonly key: (id: string) => Key;
  readonly entity: EntityType;
}

/** Per API key (shared/http/rate-limit.ts). */
export const KEY_RATE_SPACE: RateLimitSpace = { key: keys.rateLimit, entity: 'RateLimit' };
/** Per dataspace, across all its keys (shared/http/rate-limit.ts). */
export const DATASPACE_RATE_SPACE: RateLimitSpace = { key: keys.dataspaceRateLimit, entity: 'DataspaceRateLimit' };
/** Failed authentications per source address (shared/http/auth-failures.ts). */
export const AUTH_FAILURE_SPACE: RateLimitSpace = { key: keys.authFailures, entity: 'AuthFailures' };

export class RateLimitStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly space: RateLimitSpace = KEY_RATE_SPACE,
  ) {}

  /** Takes one request's cell of the key's allowance, or says it is refused, with the `tat` that refused it. */
  async take(keyId: string, step: GcraStep, again = true): Promise<TakeResult> {
    // An idle key (no item, or a `tat` in the past) starts again from now.
    const fresh = await this.update(keyId, {
      UpdateExpression: 'SET #tat = :nowPlusInterval, #ttl = :expiresAt, entity = :entity',
      ConditionExpression: 'attribute_not_exists(#tat) OR #tat < :now',
      ExpressionAttributeValues: {
        ':nowPlusInterval': step.now + step.interval,
        ':now': step.now,
        ':expiresAt': step.expiresAt,
        ':entity': this.space.entity,
      },
    });
    if (fresh.admitted) return fresh;
    // A busy key is admitted while its `tat` leaves room for one more request of the burst.
    const busy = await this.update(keyId, {
      UpdateExpression: 'SET #tat = #tat + :interval, #ttl = :expiresAt',
      ConditionExpression: '#tat <= :allowAt',
      ExpressionAttributeValues: { ':interval': step.interval, ':allowAt': step.allowAt, ':expiresAt': step.expiresAt },
    });
    if (busy.admitted) return busy;
    if (busy.tat !== undefined) return { admitted: false, tat: busy.tat };
    // No `tat` on the refusing item means it vanished between the two writes: the key is idle again.
    if (again) return this.take(keyId, step, false);
    throw new Error('Rate limit: a refused write returned no tat (ReturnValuesOnConditionCheckFailure not honoured?)');
  }

  private async update(
    keyId: string,
    expression: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<{ admitted: true } | { admitted: false; tat: number | undefined }> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.space.key(keyId),
          ...expression,
          ExpressionAttributeNames: { '#tat': 'tat', '#ttl': TABLE.ttlAttribute },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { admitted: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The document client leaves the refused item in DynamoDB's attribute-value form.
      const old = error.Item ? unmarshall(error.Item) : undefined;
      return { admitted: false, tat: typeof old?.tat === 'number' ? old.tat : undefined };
    }
  }
}
