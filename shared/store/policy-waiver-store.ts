/**
 * Persistence of policy waivers: each in its product's partition (keys.waiver), so the product's
 * evaluation reads them with it and a deleted product's waivers go with it. A waiver that has not
 * expired nor been revoked also holds an entry of the expiry index (keys.waiverExpiry), which the
 * expiry job reads and removes when it marks the waiver expired. Revoking keeps the item a week
 * (TTL), marked, so the stream carries who revoked it to the outbox publisher.
 */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { TABLE } from '../table.ts';
import type { Product } from '../domain/product.ts';
import type { RuleType } from '../domain/policy-rules.ts';
import type { PolicyWaiver, WaiverRecord } from '../domain/policy-waivers.ts';
import { cancelledBecause, imageItem, isConditionFailure, partitionQueryInput, queryAll, transact, type Item, type LabelledItem, type StreamImage } from './dynamo.ts';

/** How long a revoked waiver stays in the table (the stream keeps records 24 hours). */
const REVOKED_TTL_SECONDS = 7 * 86_400;

/** The product is gone (or in another dataspace) since it was read. */
export class WaiverProductGoneError extends Error {}
/** The package waived is no longer in the product. */
export class WaiverPackageGoneError extends Error {}

export class PolicyWaiverStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The waiver a stream image is of (revoked or not); undefined for an image of another item. */
  static fromImage(image: StreamImage | undefined): WaiverRecord | undefined {
    const item = imageItem(image, 'PolicyWaiver');
    return item && { ...toWaiver(item), revokedDate: (item.revokedDate as string | undefined) ?? null, revokedBy: (item.revokedBy as string | undefined) ?? null };
  }

  /**
   * Stores a new waiver if its product still exists in its dataspace and (for a package waiver) still
   * holds the package: all or nothing.
   */
  async create(product: Pick<Product, 'uuid' | 'dataspace'>, waiver: PolicyWaiver): Promise<void> {
    const items: LabelledItem[] = [
      {
        label: 'product',
        item: {
          ConditionCheck: {
            TableName: this.tableName,
            Key: keys.product(product.uuid),
            ConditionExpression: 'attribute_exists(PK) AND dataspace = :dataspace',
            ExpressionAttributeValues: { ':dataspace': product.dataspace },
          },
        },
      },
      ...(waiver.packageUuid === null
        ? []
        : [
            {
              label: 'package',
              item: { ConditionCheck: { TableName: this.tableName, Key: keys.productPackage(product.uuid, waiver.packageUuid), ConditionExpression: 'attribute_exists(PK)' } },
            },
          ]),
      {
        label: 'waiver',
        item: {
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.waiver(product.uuid, waiver.uuid),
              ...keys.waiverExpiry(waiver.expiresDate, product.uuid, waiver.uuid),
              entity: 'PolicyWaiver',
              uuid: waiver.uuid,
              dataspace: waiver.dataspace,
              productUuid: waiver.productUuid,
              ruleType: waiver.ruleType,
              packageUuid: waiver.packageUuid,
              packagePurl: waiver.packagePurl,
              reason: waiver.reason,
              expiresDate: waiver.expiresDate,
              createdBy: waiver.createdBy,
              createdDate: waiver.createdDate,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      },
    ];
    try {
      await transact(this.doc, items);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new WaiverProductGoneError();
      if (cancelledBecause(error, 'package')) throw new WaiverPackageGoneError();
      throw error;
    }
  }

  /** The product's waivers that are not revoked, expired ones included, strongly consistent. */
  async ofProduct(productUuid: string): Promise<PolicyWaiver[]> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.waiversOfProduct(productUuid)), ConsistentRead: true });
    return items.filter((item) => item.revokedDate === undefined).map(toWaiver);
  }

  /** One waiver of the product, unless revoked. */
  async get(productUuid: string, uuid: string): Promise<PolicyWaiver | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.waiver(productUuid, uuid), ConsistentRead: true }));
    return Item && Item.revokedDate === undefined ? toWaiver(Item) : undefined;
  }

  /** Revokes the waiver; false when it is gone or was revoked already. */
  async revoke(productUuid: string, uuid: string, by: string, now: Date, at: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.waiver(productUuid, uuid),
          UpdateExpression: 'SET revokedDate = :at, revokedBy = :by, #ttl = :ttl REMOVE GSI10PK, GSI10SK',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(revokedDate)',
          ExpressionAttributeNames: { '#ttl': TABLE.ttlAttribute },
          ExpressionAttributeValues: { ':at': at, ':by': by, ':ttl': Math.floor(now.getTime() / 1000) + REVOKED_TTL_SECONDS },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * The waivers due to be marked expired at `until` (UTC, as keys.waiverExpiry holds it): their keys,
   * oldest expiry first, at most `limit`. The index is eventually consistent: an entry removed a moment
   * ago may still show (markExpired's condition then refuses it).
   */
  async due(until: string, limit: number): Promise<{ productUuid: string; uuid: string }[]> {
    const query = keys.waiversExpiringBy(until);
    const found: { productUuid: string; uuid: string }[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: query.index,
          KeyConditionExpression: 'GSI10PK = :pk AND GSI10SK < :below',
          ExpressionAttributeValues: { ':pk': query.indexPK, ':below': query.below },
          Limit: limit - found.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const [, productUuid, uuid] = String(item.GSI10SK).split('\u0001');
        if (productUuid && uuid) found.push({ productUuid, uuid });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && found.length < limit);
    return found;
  }

  /**
   * Marks the waiver expired and takes it out of the expiry index, once: false when it is gone,
   * revoked, marked already, or not yet expired at `now`. The stream carries the change to the
   * product's evaluation and to the outbox publisher (policy.waiver_expired).
   */
  async markExpired(productUuid: string, uuid: string, at: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.waiver(productUuid, uuid),
          UpdateExpression: 'SET expiredDate = :at REMOVE GSI10PK, GSI10SK',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(expiredDate) AND attribute_not_exists(revokedDate) AND expiresDate <= :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

export function toWaiver(item: Item): PolicyWaiver {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    productUuid: String(item.productUuid),
    ruleType: item.ruleType as RuleType,
    packageUuid: (item.packageUuid as string | null | undefined) ?? null,
    packagePurl: (item.packagePurl as string | null | undefined) ?? null,
    reason: String(item.reason),
    expiresDate: String(item.expiresDate),
    createdBy: String(item.createdBy),
    createdDate: String(item.createdDate),
    expiredDate: (item.expiredDate as string | undefined) ?? null,
  };
}
