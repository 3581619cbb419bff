/**
 * Persistence of the policy engine: the dataspace's rule configuration, a product's violations and
 * evaluation state (in the product's partition, read with it in one Query), and the outbox events an
 * evaluation writes in the same transaction as its violations.
 */
import { BatchGetCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Analysis, ProductPackage } from '../domain/catalog.ts';
import type { Product } from '../domain/product.ts';
import type { PolicyConfig, RuleType, Violation } from '../domain/policy-rules.ts';
import type { Envelope } from '../events/envelope.ts';
import type { DataspaceConfig } from '../domain/change-records.ts';
import { cancelledBecause, imageItem, isConditionFailure, partitionQueryInput, queryAll, transact, type Item, type LabelledItem, type StreamImage } from './dynamo.ts';
import { TABLE } from '../table.ts';
import { toProduct } from './product-store.ts';
import { toAnalysis, toProductPackage } from './product-package-store.ts';

/** How long a published outbox event stays in the table (the stream keeps records 24 hours). */
const OUTBOX_TTL_SECONDS = 7 * 86_400;

/** The product's evaluation state changed since it was read: another evaluation won the race. */
export class StaleEvaluationError extends Error {}

/** The product was deleted while it was evaluated: there is nothing to record. */
export class ProductGoneError extends Error {}

export interface EvaluationState {
  /** Bumped by every evaluation that writes: the optimistic-concurrency token. */
  readonly version: number;
  /** When the last evaluation started reading: it saw every change committed before. */
  readonly evaluatedAt: string | null;
}

/** A product with everything its evaluation reads from its partition. */
export interface ProductData {
  readonly product: Product;
  readonly productPackages: readonly ProductPackage[];
  readonly analyses: readonly Analysis[];
  readonly violations: readonly Violation[];
  readonly state: EvaluationState;
}

/**
 * What an evaluation reads of its product's partition: the attributes the rules, the reconciliation
 * and the events need, and no more (grants, dates and revisions stay behind). A projection saves
 * transfer and memory, not read units: DynamoDB charges a Query by the size of the items it reads.
 */
export const EVALUATION_PROJECTION = {
  ProjectionExpression: 'entity, #uuid, dataspace, #name, version, packageUuid, licenseExpression, licenseKeys, unknownLicenses, vulnerabilityId, #state, ruleType, #count, detectedDate, resolvedDate, lastEvaluatedAt, evaluatedAt',
  ExpressionAttributeNames: { '#uuid': 'uuid', '#name': 'name', '#state': 'state', '#count': 'count' },
} as const;

export class PolicyStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The dataspace's rule configuration a stream image is of; undefined for an image of another item. */
  static configFromImage(image: StreamImage | undefined): DataspaceConfig | undefined {
    const item = imageItem(image, 'PolicyConfig');
    return item && { dataspace: String(item.dataspace), config: toConfig(item) };
  }

  async getConfig(dataspace: string): Promise<{ config: PolicyConfig; rev: number }> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.policyConfig(dataspace), ConsistentRead: true }));
    return { config: toConfig(result.Item), rev: Number(result.Item?.rev ?? 0) };
  }

  /** Saves the configuration if it is still at `rev`; false when another save came first. */
  async saveConfig(dataspace: string, config: PolicyConfig, rev: number, now: string): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.policyConfig(dataspace), entity: 'PolicyConfig', dataspace, rules: config, rev: rev + 1, lastModifiedDate: now },
          ConditionExpression: 'attribute_not_exists(PK) OR #rev = :rev',
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':rev': rev },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The product's violations and evaluation state only (what the violations and status endpoints answer). */
  async readViolations(productUuid: string): Promise<{ violations: Violation[]; state: EvaluationState }> {
    const [items, state] = await Promise.all([
      queryAll(this.doc, {
        ...partitionQueryInput(this.tableName, { PK: keys.productPartition(productUuid).PK, skPrefix: 'VIOLATION#' }),
        ConsistentRead: true,
      }),
      this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.policyState(productUuid), ConsistentRead: true })),
    ]);
    return {
      violations: items.map(toViolation),
      state: { version: Number(state.Item?.version ?? 0), evaluatedAt: (state.Item?.evaluatedAt as string | undefined) ?? null },
    };
  }

  /**
   * Whether the product exists, and its evaluation state: two small items, read before the partition
   * so that a request an evaluation already answered (or a deleted product) costs no partition read.
   */
  async readHead(productUuid: string): Promise<EvaluationState | undefined> {
    const result = await this.doc.send(
      new BatchGetCommand({
        RequestItems: { [this.tableName]: { Keys: [keys.product(productUuid), keys.policyState(productUuid)], ConsistentRead: true, ProjectionExpression: 'SK, version, evaluatedAt' } },
      }),
    );
    // Two keys are far below BatchGetItem's limits; an unprocessed one (throttling) reads as "go on".
    const items = result.Responses?.[this.tableName] ?? [];
    if ((result.UnprocessedKeys?.[this.tableName]?.Keys?.length ?? 0) > 0) return { version: 0, evaluatedAt: null };
    if (!items.some((item) => item.SK === 'PRODUCT')) return undefined;
    const state = items.find((item) => item.SK === 'POLICYSTATE');
    return { version: Number(state?.version ?? 0), evaluatedAt: (state?.evaluatedAt as string | undefined) ?? null };
  }

  /** The product and its packages, analyses, violations and state: one (paged) Query of its partition. */
  async readProduct(productUuid: string): Promise<ProductData | undefined> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.productPartition(productUuid)), ConsistentRead: true });
    const product = items.find((item) => item.entity === 'Product');
    if (!product) return undefined;
    const state = items.find((item) => item.entity === 'PolicyState');
    return {
      product: toProduct(product),
      productPackages: items.filter((item) => item.entity === 'ProductPackage').map(toProductPackage),
      analyses: items.filter((item) => item.entity === 'Analysis').map(toAnalysis),
      violations: items.filter((item) => item.entity === 'Violation').map(toViolation),
      state: { version: Number(state?.version ?? 0), evaluatedAt: (state?.evaluatedAt as string | undefined) ?? null },
    };
  }

  /**
   * Commits an evaluation: its state (if still at the version read), its violation changes and its
   * events, all or nothing. The events are outbox items: the table's stream carries them to the bus,
   * so an evaluation that committed never loses its events and one that did not never sends any.
   */
  async commitEvaluation(
    product: Product,
    before: EvaluationState,
    evaluatedAt: string,
    violations: readonly Violation[],
    events: readonly Envelope[],
    now: Date,
  ): Promise<void> {
    const items: LabelledItem[] = [
      {
        label: 'state',
        item: {
          Put: {
            TableName: this.tableName,
            Item: { ...keys.policyState(product.uuid), entity: 'PolicyState', dataspace: product.dataspace, productUuid: product.uuid, version: before.version + 1, evaluatedAt },
            ConditionExpression: before.version === 0 ? 'attribute_not_exists(PK)' : '#version = :version',
            ...(before.version === 0 ? {} : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': before.version } }),
          },
        },
      },
      // The product must still exist (a deletion removes its whole partition).
      { label: 'product', item: { ConditionCheck: { TableName: this.tableName, Key: keys.product(product.uuid), ConditionExpression: 'attribute_exists(PK)' } } },
      ...violations.map(
        (violation): LabelledItem => ({
          label: 'violation',
          item: {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.violation(product.uuid, violation.ruleType),
                entity: 'Violation',
                dataspace: product.dataspace,
                productUuid: product.uuid,
                ruleType: violation.ruleType,
                count: violation.count,
                detectedDate: violation.detectedDate,
                resolvedDate: violation.resolvedDate,
                lastEvaluatedAt: violation.lastEvaluatedAt,
              },
            },
          },
        }),
      ),
      ...events.map(
        (event): LabelledItem => ({
          label: 'event',
          item: {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.outboxEvent(event.id),
                entity: 'OutboxEvent',
                dataspace: event.dataspace,
                eventType: event.type,
                envelope: event,
                [TABLE.ttlAttribute]: Math.floor(now.getTime() / 1000) + OUTBOX_TTL_SECONDS,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        }),
      ),
    ];
    try {
      await transact(this.doc, items);
    } catch (error) {
      if (cancelledBecause(error, 'state')) throw new StaleEvaluationError();
      if (cancelledBecause(error, 'product')) throw new ProductGoneError();
      throw error;
    }
  }
}

/** A dataspace's rule configuration (none stored yet: every rule as its defaults have it). */
function toConfig(item: Item | undefined): PolicyConfig {
  return (item?.rules as PolicyConfig | undefined) ?? {};
}

function toViolation(item: Item): Violation {
  return {
    ruleType: item.ruleType as RuleType,
    count: Number(item.count),
    detectedDate: String(item.detectedDate),
    resolvedDate: (item.resolvedDate as string | null | undefined) ?? null,
    lastEvaluatedAt: String(item.lastEvaluatedAt),
  };
}
