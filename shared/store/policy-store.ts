/**
 * Persistence of the policy engine: the dataspace's rule configuration, a product's violations and
 * evaluation state (in the product's partition, read with it in one Query), and the outbox events an
 * evaluation writes in the same transaction as its violations.
 */
import { GATES, type Gate } from '../domain/portfolio.ts';
import { counterUpdates, listCounterSpace } from './counters.ts';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Analysis, ProductPackage } from '../domain/catalog.ts';
import type { Product } from '../domain/product.ts';
import { RULE_TYPES, type Offender, type PolicyConfig, type RuleType, type Violation, type WaivedRule } from '../domain/policy-rules.ts';
import type { PolicyWaiver } from '../domain/policy-waivers.ts';
import type { Envelope } from '../events/envelope.ts';
import type { DataspaceConfig } from '../domain/change-records.ts';
import { cancelledBecause, imageItem, isConditionFailure, partitionQueryInput, queryAll, transact, type Item, type LabelledItem, type StreamImage, type TransactItem } from './dynamo.ts';
import { TABLE } from '../table.ts';
import { gateCounter, toProduct } from './product-store.ts';
import { toAnalysis, toProductPackage } from './product-package-store.ts';
import { toWaiver } from './policy-waiver-store.ts';

/** How long a published outbox event stays in the table (the stream keeps records 24 hours). */
const OUTBOX_TTL_SECONDS = 7 * 86_400;

/** The product's evaluation state changed since it was read: another evaluation won the race. */
export class StaleEvaluationError extends Error {}

/** The product was deleted while it was evaluated: there is nothing to record. */
export class ProductGoneError extends Error {}

export interface EvaluationState {
  /** Bumped by every evaluation that writes: the optimistic-concurrency token. */
  readonly version: number;
  /** When the last evaluation started reading. */
  readonly evaluatedAt: string | null;
  /**
   * Every change committed before this time is reflected in the last evaluation: its start when it
   * read strongly consistent, earlier by the stale-read margin when it read eventually consistent
   * (shared/services/evaluation.ts). A request seen at or before it is already answered. Null on
   * states written before it existed: evaluatedAt stands in.
   */
  readonly coveredUntil: string | null;
  /** What waivers held back in the last evaluation, by rule (empty on states written before waivers). */
  readonly waived: readonly WaivedRule[];
  /** The violations the last commit wrote (absent on states written before it was kept): see tornRead. */
  readonly violationsWritten?: readonly RuleType[];
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
 * Where the packages behind an active violation are stored: the chunks one evaluation wrote under
 * `id` (keys.violationPackages; the state version it committed and a random part, so that two racing
 * evaluations never write the same keys), and a hash of the list, so that an evaluation finding the
 * same packages writes nothing.
 */
export interface ViolationPackageList {
  readonly id: string;
  readonly hash: string;
}

/** At most this much of a list in one item (far below DynamoDB's 400 KB): a drill-down page reads one or two. */
const CHUNK_BYTES = 32_000;

/**
 * How readViolations answers one commit however evaluations commit while it reads: up to
 * QUICK_READ_ATTEMPTS plain strongly consistent reads (one is almost always enough), then up to
 * SNAPSHOT_ATTEMPTS reads of the state and every violation item in one TransactGetItems (a serializable
 * snapshot: it cannot mix two commits, and is refused while one is writing those items), with a short
 * backoff. Commits without pause (a test's tight loop, under load) once outran five plain reads.
 */
const QUICK_READ_ATTEMPTS = 3;
const SNAPSHOT_ATTEMPTS = 6;

/** The product as an evaluation needs it: for its keys, and for the events it writes. */
export type EvaluatedProduct = Pick<Product, 'uuid' | 'dataspace' | 'name' | 'version' | 'gate'>;

/** The small items an evaluation reads first, strongly consistent: the product and its evaluation state. */
export interface EvaluationHead {
  readonly product: EvaluatedProduct;
  readonly state: EvaluationState;
}

/** What an evaluation reads of its product's partition (readForEvaluation): only the attributes the rules need. */
export interface EvaluationData extends EvaluationHead {
  readonly productPackages: readonly Pick<ProductPackage, 'packageUuid' | 'licenseExpression' | 'licenseKeys' | 'unknownLicenses'>[];
  readonly analyses: readonly Pick<Analysis, 'packageUuid' | 'vulnerabilityId' | 'state'>[];
  readonly violations: readonly Violation[];
  /** The stored package list of each violation that has one. */
  readonly packageLists: ReadonlyMap<RuleType, ViolationPackageList>;
  /** The product's waivers that are not revoked (expired ones included: the rules judge them at their `now`). */
  readonly waivers: readonly PolicyWaiver[];
}

const PACKAGE_PROJECTION = 'packageUuid, licenseExpression, licenseKeys, unknownLicenses';
const ANALYSIS_PROJECTION = 'packageUuid, vulnerabilityId, #state';

/**
 * What an evaluation reads of its product's partition: the attributes the rules, the reconciliation
 * and the events need, and no more (grants, dates, revisions, dependencies stay behind). A projection
 * saves transfer and memory, not read units: DynamoDB charges a Query by the size of the items it
 * reads. (The benchmark's floor reads the whole partition with it.)
 */
export const EVALUATION_PROJECTION = {
  ProjectionExpression: `entity, #uuid, dataspace, #name, #version, ${PACKAGE_PROJECTION}, vulnerabilityId, #state, ruleType, #count, detectedDate, resolvedDate, lastEvaluatedAt, evaluatedAt, coveredUntil`,
  ExpressionAttributeNames: { '#uuid': 'uuid', '#name': 'name', '#version': 'version', '#state': 'state', '#count': 'count' },
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

  /**
   * The product's violations and evaluation state only (what the violations and status endpoints
   * answer); with `waivers`, also its waivers that are not revoked (the violations answer shows those applied).
   *
   * One evaluation's answer, never half of two: a Query and a GetItem are each read-committed, not a
   * snapshot, and a transaction applies its items one by one, so a read may see a commit's state but
   * not yet its violation (or the reverse). The stamps say which (`tornRead`): then the three reads are
   * made again; an evaluation commits at most a few times a second per product, so a second attempt
   * almost always agrees. No read is added to the usual case.
   */
  async readViolations(
    productUuid: string,
    { waivers = false }: { waivers?: boolean } = {},
  ): Promise<{ violations: Violation[]; state: EvaluationState; packageLists: ReadonlyMap<RuleType, ViolationPackageList>; waivers: PolicyWaiver[] }> {
    // Waivers are not written by evaluations: one saved since the last is counted by the next.
    const waiverItems = waivers ? this.readWaivers(productUuid, true) : Promise.resolve([]);
    const answer = async (state: EvaluationState, items: Item[]) => ({
      violations: items.map(toViolation),
      state,
      packageLists: packageListsOf(items),
      waivers: await waiverItems,
    });
    let latest: { state: EvaluationState; items: Item[] } | undefined;
    for (let attempt = 1; attempt <= QUICK_READ_ATTEMPTS; attempt++) {
      const [items, state] = await Promise.all([
        queryAll(this.doc, {
          ...partitionQueryInput(this.tableName, { PK: keys.productPartition(productUuid).PK, skPrefix: 'VIOLATION#' }),
          ConsistentRead: true,
        }),
        this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.policyState(productUuid), ConsistentRead: true })),
      ]);
      latest = { state: toState(state.Item), items };
      if (!tornRead(latest.state, items)) return answer(latest.state, items);
    }
    for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random() / 2)));
      const snapshot = await this.violationSnapshot(productUuid);
      if (snapshot && !tornRead(snapshot.state, snapshot.items)) return answer(snapshot.state, snapshot.items);
      if (snapshot) latest = snapshot;
    }
    // Commits without pause past every attempt: the newest read is answered as it is.
    return answer(latest!.state, latest!.items);
  }

  /**
   * The evaluation state and the product's violation items (one a rule type) in one TransactGetItems:
   * one commit's, never two. Undefined when a commit was writing them (the transaction is refused).
   */
  private async violationSnapshot(productUuid: string): Promise<{ state: EvaluationState; items: Item[] } | undefined> {
    const keysRead = [keys.policyState(productUuid), ...RULE_TYPES.map((type) => keys.violation(productUuid, type))];
    try {
      const result = await this.doc.send(new TransactGetCommand({ TransactItems: keysRead.map((Key) => ({ Get: { TableName: this.tableName, Key } })) }));
      const found = (result.Responses ?? []).map((response) => response.Item);
      return { state: toState(found[0]), items: found.slice(1).filter((item): item is Item => item !== undefined) };
    } catch (error) {
      if (error instanceof Error && (error.name === 'TransactionCanceledException' || error.name === 'TransactionConflictException')) return undefined;
      throw error;
    }
  }

  /** The product's waivers that are not revoked (a few items after the rest of its partition). */
  private async readWaivers(productUuid: string, consistent: boolean): Promise<PolicyWaiver[]> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.waiversOfProduct(productUuid)), ConsistentRead: consistent });
    return items.filter((item) => item.revokedDate === undefined).map(toWaiver);
  }

  /**
   * The product (the fields an evaluation needs) and its evaluation state, strongly consistent: two
   * small items, read before the partition so that a request an evaluation already answered (or a
   * deleted product) costs no partition read. Undefined when the product is gone.
   */
  async readHead(productUuid: string): Promise<EvaluationHead | undefined> {
    let pending: Record<string, unknown>[] = [keys.product(productUuid), keys.policyState(productUuid)];
    const items: Item[] = [];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
      const result = await this.doc.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: pending,
              ConsistentRead: true,
              ProjectionExpression: 'SK, #uuid, dataspace, #name, #version, evaluatedAt, coveredUntil, violationsWritten, #gate',
              ExpressionAttributeNames: { '#uuid': 'uuid', '#name': 'name', '#version': 'version', '#gate': 'gate' },
            },
          },
        }),
      );
      items.push(...(result.Responses?.[this.tableName] ?? []));
      pending = result.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    const product = items.find((item) => item.SK === 'PRODUCT');
    if (!product) return undefined;
    return {
      product: {
        uuid: String(product.uuid),
        dataspace: String(product.dataspace),
        name: String(product.name),
        version: String(product.version ?? ''),
        ...(GATES.includes(product.gate as Gate) ? { gate: product.gate as Gate } : {}),
      },
      state: toState(items.find((item) => item.SK === 'POLICYSTATE')),
    };
  }

  /**
   * The rest of what an evaluation reads, after its head: the product's packages and analyses (the
   * large part: consistent or not, as the evaluation decides) and its violations (always strongly
   * consistent: the reconciliation writes over them, under the state's version read in the head).
   */
  async readForEvaluation(head: EvaluationHead, { consistent }: { consistent: boolean }): Promise<EvaluationData> {
    const pk = keys.productPartition(head.product.uuid).PK;
    const [packages, analyses, violations, waivers] = await Promise.all([
      queryAll(this.doc, { ...partitionQueryInput(this.tableName, { PK: pk, skPrefix: 'PACKAGE#' }), ConsistentRead: consistent, ProjectionExpression: PACKAGE_PROJECTION }),
      queryAll(this.doc, (() => {
        const input = partitionQueryInput(this.tableName, { PK: pk, skPrefix: 'ANALYSIS#' });
        return { ...input, ConsistentRead: consistent, ProjectionExpression: ANALYSIS_PROJECTION, ExpressionAttributeNames: { ...input.ExpressionAttributeNames, '#state': 'state' } };
      })()),
      queryAll(this.doc, { ...partitionQueryInput(this.tableName, { PK: pk, skPrefix: 'VIOLATION#' }), ConsistentRead: true }),
      // As the packages: a change an eventually consistent read may miss is newer than what the evaluation
      // records as covered, so that change's own request is evaluated again (shared/services/evaluation.ts).
      this.readWaivers(head.product.uuid, consistent),
    ]);
    // Violations of another commit than the head's state would be reconciled wrongly, and a commit
    // after the head's would fail on its version anyway: the evaluation starts again.
    if (tornRead(head.state, violations)) throw new StaleEvaluationError();
    return {
      ...head,
      productPackages: packages.map((item) => ({
        packageUuid: String(item.packageUuid),
        licenseExpression: String(item.licenseExpression ?? ''),
        licenseKeys: (item.licenseKeys as string[] | undefined) ?? [],
        unknownLicenses: (item.unknownLicenses as string[] | undefined) ?? [],
      })),
      analyses: analyses.map((item) => ({
        packageUuid: String(item.packageUuid),
        vulnerabilityId: String(item.vulnerabilityId),
        state: (item.state as Analysis['state'] | undefined) ?? null,
      })),
      violations: violations.map(toViolation),
      packageLists: packageListsOf(violations),
      waivers,
    };
  }

  /** Stores the packages behind a violation as list `listId`, in chunks; returns once all are written. */
  async writeViolationPackages(product: Pick<Product, 'uuid' | 'dataspace'>, ruleType: RuleType, listId: string, offenders: readonly Offender[]): Promise<void> {
    const items: Item[] = [];
    let chunk: Offender[] = [];
    let bytes = 0;
    let first = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      items.push({ ...keys.violationPackages(product.uuid, ruleType, listId, first), entity: 'ViolationPackages', dataspace: product.dataspace, offenders: chunk });
      first += chunk.length;
      chunk = [];
      bytes = 0;
    };
    for (const offender of offenders) {
      const size = JSON.stringify(offender).length;
      if (bytes + size > CHUNK_BYTES) flush();
      chunk.push(offender);
      bytes += size;
    }
    flush();
    await this.batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
  }

  /** Deletes a list (superseded, or written by an evaluation that lost its commit). */
  async deleteViolationPackages(productUuid: string, ruleType: RuleType, listId: string): Promise<void> {
    const found = await queryAll(this.doc, {
      ...partitionQueryInput(this.tableName, keys.violationPackagesOf(productUuid, ruleType, listId)),
      ProjectionExpression: 'PK, SK',
    });
    await this.batchWrite(found.map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })));
  }

  /**
   * Packages `offset` to `offset + limit` of a stored list: the chunk holding `offset` (the last one
   * starting at or before it), then the chunks after it, each found by where the one before ends.
   * Strongly consistent: a list is written just before the violation that names it.
   */
  async readViolationPackages(productUuid: string, ruleType: RuleType, list: ViolationPackageList, offset: number, limit: number): Promise<Offender[]> {
    const prefix = keys.violationPackagesOf(productUuid, ruleType, list.id);
    const holding = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': prefix.PK, ':from': prefix.skPrefix, ':to': keys.violationPackages(productUuid, ruleType, list.id, offset).SK },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    let item = holding.Items?.[0];
    if (!item) return [];
    let start = Number(String(item.SK).slice(prefix.skPrefix.length));
    const found: Offender[] = [];
    while (item && found.length < limit) {
      const offenders = item.offenders as Offender[];
      found.push(...offenders.slice(Math.max(0, offset - start), Math.max(0, offset - start) + limit - found.length));
      start += offenders.length;
      if (found.length >= limit) break;
      item = (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.violationPackages(productUuid, ruleType, list.id, start), ConsistentRead: true }))).Item;
      offset = start;
    }
    return found;
  }

  /** BatchWriteItem, 25 requests a call, until none is left unprocessed. */
  private async batchWrite(requests: readonly Record<string, unknown>[]): Promise<void> {
    for (let i = 0; i < requests.length; i += 25) {
      let pending = requests.slice(i, i + 25);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
        const result = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
        pending = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof pending;
      }
    }
  }

  /** The product and its packages, analyses, violations and state: one (paged) Query of its partition. */
  async readProduct(productUuid: string): Promise<ProductData | undefined> {
    // Everything below the violations' package lists, which nothing reading the product needs.
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK < :lists',
      ExpressionAttributeValues: { ':pk': keys.productPartition(productUuid).PK, ':lists': keys.violationPackagesStart },
      ConsistentRead: true,
    });
    const product = items.find((item) => item.entity === 'Product');
    if (!product) return undefined;
    const state = items.find((item) => item.entity === 'PolicyState');
    return {
      product: toProduct(product),
      productPackages: items.filter((item) => item.entity === 'ProductPackage').map(toProductPackage),
      analyses: items.filter((item) => item.entity === 'Analysis').map(toAnalysis),
      violations: items.filter((item) => item.entity === 'Violation').map(toViolation),
      state: toState(state),
    };
  }

  /**
   * Commits an evaluation: its state (if still at the version read), its violation changes and its
   * events, all or nothing. The events are outbox items: the table's stream carries them to the bus,
   * so an evaluation that committed never loses its events and one that did not never sends any.
   */
  async commitEvaluation(
    product: Pick<Product, 'uuid' | 'dataspace' | 'gate'>,
    before: EvaluationState,
    evaluatedAt: string,
    coveredUntil: string,
    violations: readonly Violation[],
    events: readonly Envelope[],
    now: Date,
    packageLists: ReadonlyMap<RuleType, ViolationPackageList> = new Map(),
    waived: readonly WaivedRule[] = [],
    gate?: Gate,
  ): Promise<void> {
    const items: LabelledItem[] = [
      {
        label: 'state',
        item: {
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.policyState(product.uuid),
              entity: 'PolicyState',
              dataspace: product.dataspace,
              productUuid: product.uuid,
              version: before.version + 1,
              evaluatedAt,
              coveredUntil,
              waived,
              // With the violations' stateVersion: what tells a reader it saw this commit whole (tornRead).
              violationsWritten: violations.map((violation) => violation.ruleType),
            },
            ConditionExpression: before.version === 0 ? 'attribute_not_exists(PK)' : '#version = :version',
            ...(before.version === 0 ? {} : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': before.version } }),
          },
        },
      },
      // The product must still exist (a deletion removes its whole partition), with the gate read.
      gate === undefined
        ? { label: 'product', item: { ConditionCheck: { TableName: this.tableName, Key: keys.product(product.uuid), ConditionExpression: 'attribute_exists(PK)' } } }
        : { label: 'product', item: gateWrite(this.tableName, product, gate) },
      // The gates' counters move with it (shared/store/product-store.ts productCounters).
      ...(gate !== undefined && gate !== product.gate
        ? counterUpdates(this.tableName, listCounterSpace(product.dataspace, 'PRODUCTS'), new Map([
          [gateCounter(gate), { total: 1 }],
          ...(product.gate ? [[gateCounter(product.gate), { total: -1 }] as const] : []),
        ]))
        : []),
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
                stateVersion: before.version + 1,
                // Active violations only: a resolved one has no packages to drill down to.
                ...(violation.resolvedDate === null && packageLists.has(violation.ruleType) ? { packageList: packageLists.get(violation.ruleType) } : {}),
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
      // Gone, or its gate changed since the head was read (another evaluation): the retry reads it again.
      if (cancelledBecause(error, 'product')) throw gate === undefined ? new ProductGoneError() : new StaleEvaluationError();
      throw error;
    }
  }
}

/**
 * The product's gate, as the evaluation being committed leaves it: the product item's `gate` and its
 * entry in the gate's list (the sort key copied from its list entry, so a rename's is kept), on the
 * condition that the product exists with the gate read.
 */
function gateWrite(tableName: string, product: Pick<Product, 'uuid' | 'dataspace' | 'gate'>, gate: Gate): TransactItem {
  // Unchanged: checked, not written (no stream record, no index write).
  if (gate === product.gate) {
    return { ConditionCheck: { TableName: tableName, Key: keys.product(product.uuid), ConditionExpression: 'attribute_exists(PK) AND #gate = :gate', ExpressionAttributeNames: { '#gate': 'gate' }, ExpressionAttributeValues: { ':gate': gate } } };
  }
  return {
    Update: {
      TableName: tableName,
      Key: keys.product(product.uuid),
      UpdateExpression: 'SET #gate = :gate, GSI10PK = :gatePk, GSI10SK = GSI1SK',
      ConditionExpression: product.gate ? 'attribute_exists(PK) AND #gate = :before' : 'attribute_exists(PK) AND attribute_not_exists(#gate)',
      ExpressionAttributeNames: { '#gate': 'gate' },
      ExpressionAttributeValues: {
        ':gate': gate,
        ':gatePk': keys.productInGate(product.dataspace, gate, '').GSI10PK,
        ...(product.gate ? { ':before': product.gate } : {}),
      },
    },
  };
}

/** A dataspace's rule configuration (none stored yet: every rule as its defaults have it). */
function toConfig(item: Item | undefined): PolicyConfig {
  return (item?.rules as PolicyConfig | undefined) ?? {};
}

function toState(item: Item | undefined): EvaluationState {
  return {
    version: Number(item?.version ?? 0),
    evaluatedAt: (item?.evaluatedAt as string | undefined) ?? null,
    coveredUntil: (item?.coveredUntil as string | undefined) ?? null,
    waived: (item?.waived as WaivedRule[] | undefined) ?? [],
    ...(Array.isArray(item?.violationsWritten) ? { violationsWritten: item.violationsWritten as RuleType[] } : {}),
  };
}

/**
 * Whether a product's state and violation items, read apart, mix two commits: a violation written by a
 * commit after the state's, or one the state's commit wrote (violationsWritten) read as it was before.
 * Every commit writes the state with a new version and stamps the violations it writes with it
 * (stateVersion), so one commit read whole always agrees. Items written before the stamps carry
 * none and are taken as read.
 */
export function tornRead(state: EvaluationState, violationItems: readonly Item[]): boolean {
  const stamps = new Map(violationItems.map((item) => [item.ruleType, Number(item.stateVersion ?? 0)]));
  if ([...stamps.values()].some((stamp) => stamp > state.version)) return true;
  return (state.violationsWritten ?? []).some((ruleType) => stamps.get(ruleType) !== state.version);
}

function packageListsOf(violationItems: readonly Item[]): Map<RuleType, ViolationPackageList> {
  const lists = new Map<RuleType, ViolationPackageList>();
  for (const item of violationItems) {
    const list = item.packageList as { id?: unknown; hash?: unknown } | undefined;
    if (item.resolvedDate == null && list && typeof list.id === 'string' && typeof list.hash === 'string') lists.set(item.ruleType as RuleType, { id: list.id, hash: list.hash });
  }
  return lists;
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
