/**
 * Persistence of products and their grants. Every write to a product or its grants is a transaction
 * conditioned on the product's revision (`rev`) that the caller read, and bumps it: grants, renames
 * and deletions of one product are serialised without locks, and the indexes that list products
 * (by dataspace, and by viewer) never point at a product that is gone or under an old name.
 */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterChanges, counterSeedItems, counterTotals, counterUpdates, isListCounted, listCounterSpace, productPackageCounters, readCounters } from './counters.ts';
import { keys } from '../keys.ts';
import { ConflictError } from '../domain/errors.ts';
import { compareCodePoints } from '../domain/text.ts';
import { SEARCH_FIELDS, objectMatches } from '../domain/search.ts';
import type { Grant, Principal, Product, ProductPermission } from '../domain/product.ts';
import { GATES, productsByGate, type Gate, type GateFilter } from '../domain/portfolio.ts';
import {
  batchGet,
  cancelledBecause,
  imageItem,
  isConditionFailure,
  isTransactionConflict,
  partitionQueryInput,
  queryAll,
  queryCount,
  queryOffset,
  transact,
  type Item,
  type LabelledItem,
  type StreamImage,
  type TransactItem,
} from './dynamo.ts';
import { addSearch, searchAttributes } from './search-filter.ts';

/** Items deleted per transaction when a product goes (a transaction holds at most 100 items). */
const GRANTS_PER_TRANSACTION = 90;

export interface ProductFilters {
  readonly name?: string | undefined;
  readonly version?: string | undefined;
  /** `?search=`'s folded terms (shared/domain/search.ts), each contained in the name or the version. */
  readonly search?: readonly string[] | undefined;
  /** `?gate=`: the last evaluation's status, or `none` for products never evaluated. */
  readonly gate?: GateFilter | undefined;
}

/** The product changed since it was read: the caller reads it again and retries. */
export class StaleProductError extends Error {
  constructor(uuid: string) {
    super(`Product ${uuid} changed concurrently`);
  }
}

export function isProductRace(error: unknown): boolean {
  return error instanceof StaleProductError || isTransactionConflict(error);
}

export class ProductStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The product a stream image is of; undefined for an image of another item. */
  static fromImage(image: StreamImage | undefined): Product | undefined {
    const item = imageItem(image, 'Product');
    return item && toProduct(item);
  }

  /** The product and the grants of the given principals, in one BatchGetItem. */
  async getWithGrants(uuid: string, principals: readonly Principal[]): Promise<{ product: Product; grants: Grant[] } | undefined> {
    // Strongly consistent: a grant or revocation applies to the very next request.
    const items = await batchGet(
      this.doc,
      this.tableName,
      [keys.product(uuid), ...principals.map((principal) => keys.grant(uuid, principal))],
      true,
    );
    const productItem = items.find((item) => item.entity === 'Product');
    if (!productItem) return undefined;
    return { product: toProduct(productItem), grants: items.filter((item) => item.entity === 'ProductGrant').map(toGrant) };
  }

  async get(uuid: string): Promise<Product | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.product(uuid), ConsistentRead: true }));
    return result.Item ? toProduct(result.Item) : undefined;
  }

  /** All grants of a product (strongly consistent: the permissions endpoint shows what was just written). */
  async listGrants(uuid: string): Promise<Grant[]> {
    const items = await queryAll(this.doc, {
      ...partitionQueryInput(this.tableName, keys.grantsOfProduct(uuid)),
      ConsistentRead: true,
    });
    return items.map(toGrant);
  }

  /** Creates the product with its creator's grant; a taken name + version is a ConflictError. */
  async create(product: Product, creatorGrant: Grant): Promise<void> {
    const sortKey = keys.productSortKey(product.name, product.version, product.uuid);
    try {
      await this.transact([
        {
          label: 'product',
          item: {
            Put: {
              TableName: this.tableName,
              Item: productItem(product, sortKey),
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        },
        { label: 'name', item: this.putName(product) },
        { label: 'grant', item: { Put: { TableName: this.tableName, Item: grantItem(product, creatorGrant, sortKey) } } },
        { label: 'count', item: this.adjustCount(product.dataspace, 1) },
        ...this.versionCount(undefined, product),
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'name')) throw nameTaken();
      throw error;
    }
  }

  /**
   * Writes new name, version and modification date. When the list order changes, the view grants'
   * index entries follow in the same transaction. `grants` are all the product's grants, read after `before`.
   * Answers the revision the product was stored at.
   */
  async update(before: Product, after: Product, grants: readonly Grant[]): Promise<number> {
    const sortKey = keys.productSortKey(after.name, after.version, after.uuid);
    const renamed = before.name !== after.name || before.version !== after.version;
    const rewrites: LabelledItem[] = renamed
      ? grants
          .filter((grant) => grant.permissions.includes('view_product'))
          .map((grant) => ({ label: 'grant', item: { Put: { TableName: this.tableName, Item: grantItem(after, grant, sortKey) } } }))
      : [];
    let current = before;
    try {
      if (rewrites.length > GRANTS_PER_TRANSACTION) {
        // Too many viewers for one transaction: reserve the new name first (so a taken name changes
        // nothing), then move the viewers' index entries in revision-checked batches, then rename.
        try {
          await this.transact([{ label: 'product', item: bumpRevision(this.tableName, current) }, { label: 'name', item: this.putName(after) }]);
        } catch (error) {
          if (cancelledBecause(error, 'name')) throw nameTaken();
          throw error;
        }
        current = { ...current, rev: current.rev + 1 };
        while (rewrites.length > GRANTS_PER_TRANSACTION) {
          await this.transact([{ label: 'product', item: bumpRevision(this.tableName, current) }, ...rewrites.splice(0, GRANTS_PER_TRANSACTION)]);
          current = { ...current, rev: current.rev + 1 };
        }
      }
      const reserved = current !== before;
      await this.transact([
        {
          label: 'product',
          item: {
            Put: {
              TableName: this.tableName,
              Item: productItem({ ...after, rev: current.rev }, sortKey),
              ...unchangedSince({ ...current, gate: before.gate }),
            },
          },
        },
        ...(renamed
          ? [
              { label: 'old name', item: { Delete: { TableName: this.tableName, Key: keys.productName(before.dataspace, before.name, before.version) } } },
              ...(reserved ? [] : [{ label: 'name', item: this.putName(after) }]),
              ...this.versionCount(before, after),
            ]
          : []),
        ...rewrites,
      ]);
      return current.rev + 1;
    } catch (error) {
      if (error instanceof ConflictError) throw error;
      if (cancelledBecause(error, 'product')) throw new StaleProductError(before.uuid);
      // Only a name not reserved beforehand is put (and checked) here.
      if (cancelledBecause(error, 'name')) throw nameTaken();
      throw error;
    }
  }

  /** Sets a principal's permissions on the product (none: the grant goes), bumping the product's revision. */
  async setGrant(product: Product, principal: Principal, permissions: readonly ProductPermission[]): Promise<void> {
    const sortKey = keys.productSortKey(product.name, product.version, product.uuid);
    const grantWrite: TransactItem =
      permissions.length === 0
        ? { Delete: { TableName: this.tableName, Key: keys.grant(product.uuid, principal) } }
        : { Put: { TableName: this.tableName, Item: grantItem(product, { principal, permissions }, sortKey) } };
    try {
      await this.transact([
        { label: 'product', item: bumpRevision(this.tableName, product) },
        { label: 'grant', item: grantWrite },
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      throw error;
    }
  }

  /**
   * Deletes the product, its name reservation and everything in its partition: grants, product
   * packages and analyses (with their pointers). What one transaction cannot hold is deleted first,
   * in revision-checked transactions, so access and contents only ever shrink.
   */
  async delete(product: Product): Promise<void> {
    const dependents = await queryAll(this.doc, {
      ...partitionQueryInput(this.tableName, keys.productPartition(product.uuid)),
      ConsistentRead: true,
    });
    const deletes: LabelledItem[] = dependents
      .filter((item) => item.entity !== 'Product')
      .flatMap((item): TransactItem[] => [
        { Delete: { TableName: this.tableName, Key: { PK: item.PK, SK: item.SK } } },
        ...(item.entity === 'ProductPackage' || item.entity === 'Analysis'
          ? [{ Delete: { TableName: this.tableName, Key: keys.pointer(item.entity === 'Analysis' ? 'ANALYSIS' : 'PRODUCTPACKAGE', String(item.uuid)) } }]
          : []),
      ])
      .map((item) => ({ label: 'contents', item }));
    // The product packages each transaction deletes leave the product package list's counts with it.
    const counted = new Set(dependents.filter((item) => item.entity === 'ProductPackage' && isListCounted(item)).map((item) => `${String(item.PK)}\u0000${String(item.SK)}`));
    const countedDown = (items: readonly LabelledItem[]): LabelledItem[] => {
      const gone = items.filter(({ item }) => item.Delete && counted.has(`${String(item.Delete.Key!.PK)}\u0000${String(item.Delete.Key!.SK)}`)).length;
      if (gone === 0) return [];
      const deltas = new Map([...productPackageCounters(product.uuid)].map(([counter]) => [counter, { total: -gone }]));
      return counterUpdates(this.tableName, listCounterSpace(product.dataspace, 'PRODUCTPACKAGES'), deltas);
    };
    let current = product;
    try {
      while (deletes.length > GRANTS_PER_TRANSACTION) {
        const chunk = deletes.splice(0, GRANTS_PER_TRANSACTION);
        await this.transact([{ label: 'product', item: bumpRevision(this.tableName, current) }, ...chunk, ...countedDown(chunk)]);
        current = { ...current, rev: current.rev + 1 };
      }
      await this.transact([
        {
          label: 'product',
          item: {
            Delete: {
              TableName: this.tableName,
              Key: keys.product(product.uuid),
              ...unchangedSince(current),
            },
          },
        },
        { label: 'name', item: { Delete: { TableName: this.tableName, Key: keys.productName(product.dataspace, product.name, product.version) } } },
        { label: 'count', item: this.adjustCount(product.dataspace, -1) },
        ...this.versionCount(current, undefined),
        ...deletes,
        ...countedDown(deletes),
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      throw error;
    }
  }

  /** One page of the dataspace's products in list order, with the count: what a superuser sees. */
  async listDataspace(dataspace: string, filters: ProductFilters, offset: number, limit: number): Promise<{ count: number; products: Product[] }> {
    if (filters.gate !== undefined) return this.listGate(dataspace, filters.gate, filters, offset, limit);
    const base = keys.productsOfDataspace(dataspace);
    const input = {
      ...partitionQueryInput(this.tableName, {
        ...base,
        ...(filters.name !== undefined ? { skPrefix: keys.productSortPrefix(filters.name, filters.version) } : {}),
      }),
    };
    if (filters.name === undefined && filters.version !== undefined) {
      // Version alone has no index: a filter over the dataspace's products (a Query, never a Scan).
      input.FilterExpression = '#version = :version';
      input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, '#version': 'version' };
      input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ':version': filters.version };
    }
    // Search is a filter on the same Query: its count reads the range (no counter counts a search).
    const recheck = addSearch(input, SEARCH_FIELDS.products, filters.search ?? []);
    const count =
      recheck !== undefined || filters.name !== undefined
        ? await queryCount(this.doc, input, recheck)
        : filters.version !== undefined
          ? (await readCounters(this.doc, this.tableName, listCounterSpace(dataspace, 'PRODUCTS'), [versionCounter(filters.version)], ['total'])).get(versionCounter(filters.version))!.total
          : await this.productCount(dataspace);
    // Known to hold `count`, the page stops reading once it has the last of them (a filter reads on otherwise).
    const items = offset < count ? await queryOffset(this.doc, input, offset, Math.min(limit, count - offset), recheck) : [];
    return { count, products: items.map(toProduct) };
  }

  /**
   * One page of the products any of the principals may view, with the count. Reads the viewer index
   * entries of those principals only (cost grows with what they can see, not with the dataspace),
   * then the page's products in one BatchGetItem. Each product comes with the principals' grants on it,
   * for the caller's permissions: the index entries are the view grants themselves (GSI1 projects them
   * whole); a principal without one on a page's product may still hold a grant without view (change or
   * delete alone), read by key for those pairs only, so a caller of one principal reads nothing more.
   */
  async listViewable(
    dataspace: string,
    principals: readonly Principal[],
    filters: ProductFilters,
    offset: number,
    limit: number,
  ): Promise<{ count: number; products: { product: Product; grants: Grant[] }[] }> {
    const prefix = filters.name !== undefined ? keys.productSortPrefix(filters.name, filters.version) : undefined;
    const entries = await Promise.all(
      principals.map((principal) => {
        const input = partitionQueryInput(this.tableName, {
          ...keys.viewablePartition(dataspace, principal),
          ...(prefix !== undefined ? { skPrefix: prefix } : {}),
        });
        return queryAll(this.doc, {
          ...input,
          ProjectionExpression: 'GSI1SK, principalType, principal, #permissions',
          ExpressionAttributeNames: { ...input.ExpressionAttributeNames, '#permissions': 'permissions' },
        });
      }),
    );
    const sortKeys = new Set<string>();
    const grantsOf = new Map<string, Grant[]>();
    for (const item of entries.flat()) {
      sortKeys.add(String(item.GSI1SK));
      const uuid = parseSortKey(String(item.GSI1SK)).uuid;
      grantsOf.set(uuid, [...(grantsOf.get(uuid) ?? []), toGrant(item)]);
    }
    let visible = [...sortKeys].map(parseSortKey);
    if (filters.gate !== undefined) {
      // The gate is the product item's: read for the products the principals see, no others.
      const gates = await batchGet(this.doc, this.tableName, visible.map((entry) => keys.product(entry.uuid)));
      const held = new Set(gates.filter((item) => (item.gate ?? 'none') === filters.gate).map((item) => String(item.PK).slice('PRODUCT#'.length)));
      visible = visible.filter((entry) => held.has(entry.uuid));
    }
    if (filters.version !== undefined) visible = visible.filter((entry) => entry.version === filters.version);
    // The viewer index's sort keys hold name and version, the products' search fields: search needs no other read.
    const terms = filters.search ?? [];
    if (terms.length > 0) visible = visible.filter((entry) => objectMatches(entry, SEARCH_FIELDS.products, terms));
    // DynamoDB's order (code points), the order a superuser's list comes in.
    visible.sort((a, b) => compareCodePoints(a.sortKey, b.sortKey));
    const pageEntries = visible.slice(offset, offset + limit);
    const missing = pageEntries.flatMap((entry) =>
      principals.filter((principal) => !grantsOf.get(entry.uuid)?.some((grant) => samePrincipal(grant.principal, principal))).map((principal) => keys.grant(entry.uuid, principal)),
    );
    const items = await batchGet(this.doc, this.tableName, [...pageEntries.map((entry) => keys.product(entry.uuid)), ...missing]);
    for (const item of items.filter((item) => item.entity === 'ProductGrant')) {
      const uuid = String(item.productUuid);
      grantsOf.set(uuid, [...(grantsOf.get(uuid) ?? []), toGrant(item)]);
    }
    const byUuid = new Map(items.filter((item) => item.entity === 'Product').map((item) => [String(item.uuid), toProduct(item)]));
    // A product deleted between the two reads is left out of the page.
    const products = pageEntries.flatMap((entry) => {
      const product = byUuid.get(entry.uuid);
      return product ? [{ product, grants: grantsOf.get(entry.uuid) ?? [] }] : [];
    });
    return { count: visible.length, products };
  }

  /**
   * One page of a gate's products (superusers): the gate's index entries, keys only, then the page's
   * products by key. The gate alone is counted by its counter (`none`: the dataspace's count less the
   * three gates'); with name, version or search, the gate's entries are read and matched on their sort
   * keys, which hold name and version.
   */
  private async listGate(dataspace: string, gate: GateFilter, filters: ProductFilters, offset: number, limit: number): Promise<{ count: number; products: Product[] }> {
    const input = partitionQueryInput(this.tableName, {
      ...keys.productsOfGate(dataspace, gate),
      ...(filters.name !== undefined ? { skPrefix: keys.productSortPrefix(filters.name, filters.version) } : {}),
    });
    const terms = filters.search ?? [];
    let count: number;
    let page: string[];
    if (filters.name === undefined && filters.version === undefined && terms.length === 0) {
      count = (await this.gateCounts(dataspace))[gate];
      page = offset < count ? (await queryOffset(this.doc, { ...input, ProjectionExpression: 'GSI10SK' }, offset, Math.min(limit, count - offset))).map((item) => String(item.GSI10SK)) : [];
    } else {
      let entries = (await queryAll(this.doc, { ...input, ProjectionExpression: 'GSI10SK' })).map((item) => parseSortKey(String(item.GSI10SK)));
      if (filters.version !== undefined) entries = entries.filter((entry) => entry.version === filters.version);
      if (terms.length > 0) entries = entries.filter((entry) => objectMatches(entry, SEARCH_FIELDS.products, terms));
      count = entries.length;
      page = entries.slice(offset, offset + limit).map((entry) => entry.sortKey);
    }
    const uuids = page.map((sortKey) => parseSortKey(sortKey).uuid);
    const items = await batchGet(this.doc, this.tableName, uuids.map((uuid) => keys.product(uuid)));
    const byUuid = new Map(items.map((item) => [String(item.uuid), toProduct(item)]));
    return { count, products: uuids.flatMap((uuid) => byUuid.get(uuid) ?? []) };
  }

  /** The dataspace's products by gate, from the gate counters and its product count. */
  async gateCounts(dataspace: string): Promise<Record<GateFilter, number>> {
    const counters = GATES.map(gateCounter);
    const [total, counted] = await Promise.all([
      this.productCount(dataspace),
      readCounters(this.doc, this.tableName, listCounterSpace(dataspace, 'PRODUCTS'), counters, ['total']),
    ]);
    const of = (gate: Gate) => counted.get(gateCounter(gate))?.total ?? 0;
    return productsByGate(total, { fail: of('fail'), warn: of('warn'), pass: of('pass') });
  }

  /**
   * One page of the dataspace's products, in list order, keys only (the uuid is the sort key's last
   * part): at most `limit`, from `cursor` (a page's `next`) on. A dataspace-wide re-evaluation walks
   * these pages one invocation at a time.
   */
  async uuidsOfDataspacePage(dataspace: string, cursor: string | undefined, limit: number): Promise<{ uuids: string[]; next: string | undefined }> {
    const index = keys.productsOfDataspace(dataspace);
    const start = cursor === undefined ? undefined : (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>);
    // A cursor of another dataspace's list is no cursor of this one.
    if (start !== undefined && start.GSI1PK !== index.indexPK) throw new Error(`A cursor of another list: ${String(start.GSI1PK)}`);
    const page = await this.doc.send(
      new QueryCommand({ ...partitionQueryInput(this.tableName, index), ProjectionExpression: 'GSI1SK', Limit: limit, ExclusiveStartKey: start }),
    );
    return {
      uuids: (page.Items ?? []).map((item) => parseSortKey(String(item.GSI1SK)).uuid),
      next: page.LastEvaluatedKey ? Buffer.from(JSON.stringify(page.LastEvaluatedKey), 'utf8').toString('base64url') : undefined,
    };
  }

  /**
   * Gives the products written before gates their entry in the `none` gate's list (migration): each
   * product item without one, in one conditional update each (a product evaluated or deleted meanwhile
   * is left as it is). Answers how many it gave one.
   */
  async indexLegacyGates(dataspace: string): Promise<number> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.productsOfDataspace(dataspace)), ProjectionExpression: 'PK, SK, GSI10PK' });
    let written = 0;
    for (const item of items) {
      if (item.GSI10PK !== undefined) continue;
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: 'SET GSI10PK = :pk, GSI10SK = GSI1SK',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(GSI10PK)',
            ExpressionAttributeValues: { ':pk': keys.productInGate(dataspace, 'none', '').GSI10PK },
          }),
        );
        written++;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return written;
  }

  /** The uuids of every product the principals may view: their viewer index entries, keys only. */
  async viewableUuids(dataspace: string, principals: readonly Principal[]): Promise<string[]> {
    const entries = await Promise.all(
      principals.map((principal) =>
        queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.viewablePartition(dataspace, principal)), ProjectionExpression: 'GSI1SK' }),
      ),
    );
    return [...new Set(entries.flat().map((item) => parseSortKey(String(item.GSI1SK)).uuid))];
  }

  private async productCount(dataspace: string): Promise<number> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.productCount(dataspace) }));
    return Number(result.Item?.count ?? 0);
  }

  private putName(product: Product): TransactItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.productName(product.dataspace, product.name, product.version),
          entity: 'ProductName',
          productUuid: product.uuid,
        },
        // A retried rename finds its own reservation: only another product's holds the name.
        ConditionExpression: 'attribute_not_exists(PK) OR productUuid = :uuid',
        ExpressionAttributeValues: { ':uuid': product.uuid },
      },
    };
  }

  /**
   * The version filter's counters (sharded: shared/store/counters.ts). The dataspace's own count stays
   * one item (COUNT#PRODUCTS), as before: products are created at a person's pace, not a pipeline's.
   */
  private versionCount(before: Product | undefined, after: Product | undefined): LabelledItem[] {
    const product = (after ?? before)!;
    return counterUpdates(this.tableName, listCounterSpace(product.dataspace, 'PRODUCTS'), counterChanges(productCounters, before, after));
  }

  private adjustCount(dataspace: string, delta: number): TransactItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.productCount(dataspace),
        UpdateExpression: 'SET entity = :entity ADD #count :delta',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':entity': 'ProductCount', ':delta': delta },
      },
    };
  }

  private async transact(items: readonly LabelledItem[]): Promise<void> {
    await transact(this.doc, items);
  }
}

/**
 * The items one product and its grants are stored as, for bulk loads that bypass the transactions
 * (benchmark seeding): the product, its name reservation and its grants. The count item is the
 * loader's to set.
 */
export function productSeedItems(product: Product, grants: readonly Grant[]): Item[] {
  const sortKey = keys.productSortKey(product.name, product.version, product.uuid);
  return [
    productItem(product, sortKey),
    { ...keys.productName(product.dataspace, product.name, product.version), entity: 'ProductName', productUuid: product.uuid },
    ...grants.map((grant) => grantItem(product, grant, sortKey)),
  ];
}

export function productCountItem(dataspace: string, count: number): Item {
  return { ...keys.productCount(dataspace), entity: 'ProductCount', count };
}

/** The version counters of a dataspace's products, for bulk loads (productCountItem holds their count). */
export function productVersionCountItems(dataspace: string, products: readonly Product[]): Item[] {
  return counterSeedItems(listCounterSpace(dataspace, 'PRODUCTS'), counterTotals(productCounters, products));
}

const versionCounter = (version: string) => `version=${version}`;
/** A gate's counter in the products' list counters (a product never evaluated counts in none). */
export const gateCounter = (gate: Gate) => `gate=${gate}`;

/** The counters a product adds to, besides the dataspace's count: its version's, and its gate's once evaluated. */
function productCounters(product: Product): Map<string, { total: number }> {
  return new Map([[versionCounter(product.version), { total: 1 }], ...(product.gate ? [[gateCounter(product.gate), { total: 1 }] as const] : [])]);
}

/**
 * The condition of a write of the product item as read: its revision, and its gate, which an
 * evaluation writes without bumping the revision (a rename must not put back a gate replaced since,
 * nor a deletion take the wrong gate's count down).
 */
function unchangedSince(product: Product) {
  return product.gate
    ? { ConditionExpression: '#rev = :rev AND #gate = :gate', ExpressionAttributeNames: { '#rev': 'rev', '#gate': 'gate' }, ExpressionAttributeValues: { ':rev': product.rev, ':gate': product.gate } }
    : { ConditionExpression: '#rev = :rev AND attribute_not_exists(#gate)', ExpressionAttributeNames: { '#rev': 'rev', '#gate': 'gate' }, ExpressionAttributeValues: { ':rev': product.rev } };
}

/**
 * Bumps the product's revision, which serialises a write with every other write to the product
 * (grants, packages, analyses, deletion): on the revision it was read at, or, with `anyRevision`,
 * whatever it is now, for a write that needs the product to exist and its deletion to see it (a
 * package added), not the product as read. Concurrent adds then never fail each other's condition; a
 * deletion that read the contents before one of them is refused by its own `rev` condition and reads
 * again.
 */
export function bumpRevision(tableName: string, product: Product, options: { anyRevision?: boolean } = {}): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.product(product.uuid),
      UpdateExpression: 'SET #rev = #rev + :one',
      ConditionExpression: options.anyRevision ? 'attribute_exists(PK)' : '#rev = :rev',
      ExpressionAttributeNames: { '#rev': 'rev' },
      ExpressionAttributeValues: options.anyRevision ? { ':one': 1 } : { ':rev': product.rev, ':one': 1 },
    },
  };
}

function nameTaken(): ConflictError {
  return new ConflictError('name', 'Product with this name and version already exists.');
}

function productItem(product: Product, sortKey: string): Item {
  return {
    ...keys.product(product.uuid),
    ...keys.productInDataspace(product.dataspace, sortKey),
    ...keys.productInGate(product.dataspace, product.gate ?? 'none', sortKey),
    ...(product.gate ? { gate: product.gate } : {}),
    entity: 'Product',
    uuid: product.uuid,
    dataspace: product.dataspace,
    name: product.name,
    version: product.version,
    ...searchAttributes(SEARCH_FIELDS.products, product),
    createdBy: product.createdBy,
    createdDate: product.createdDate,
    lastModifiedDate: product.lastModifiedDate,
    rev: product.rev + 1,
  };
}

function grantItem(product: Product, grant: Grant, sortKey: string): Item {
  return {
    ...keys.grant(product.uuid, grant.principal),
    // Only a grant that lets its holder view the product lists it for them.
    ...(grant.permissions.includes('view_product') ? keys.viewer(product.dataspace, grant.principal, sortKey) : {}),
    entity: 'ProductGrant',
    productUuid: product.uuid,
    dataspace: product.dataspace,
    principalType: grant.principal.type,
    principal: grant.principal.name,
    permissions: [...grant.permissions].sort(),
  };
}

export function toProduct(item: Item): Product {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    name: String(item.name),
    version: String(item.version ?? ''),
    createdBy: String(item.createdBy),
    createdDate: String(item.createdDate),
    lastModifiedDate: String(item.lastModifiedDate),
    rev: Number(item.rev ?? 0),
    ...(GATES.includes(item.gate as Gate) ? { gate: item.gate as Gate } : {}),
  };
}

function toGrant(item: Item): Grant {
  return {
    principal: { type: item.principalType === 'group' ? 'group' : 'user', name: String(item.principal) },
    permissions: (item.permissions as ProductPermission[]).slice().sort(),
  };
}

function samePrincipal(a: Principal, b: Principal): boolean {
  return a.type === b.type && a.name === b.name;
}

function parseSortKey(sortKey: string): { sortKey: string; name: string; version: string; uuid: string } {
  const [name = '', version = '', uuid = ''] = sortKey.split('\u0001');
  return { sortKey, name, version, uuid };
}

