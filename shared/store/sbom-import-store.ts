/**
 * Persistence of SBOM imports: the import records, what an import reads (the product's partition, the
 * dataspace's licenses, packages by purl, vulnerabilities by id) and the writes of an import plan.
 *
 * The writes are transactions of at most 100 items, in order: catalog packages (each create reserves
 * its purl in the same transaction, so a retried or concurrent import never makes a second package of
 * a purl; the use counters of the licenses they name move in the same transaction, summed per license),
 * then vulnerabilities and their links, then the product's partition (product packages, their pointers,
 * analyses), each transaction bumping the product's revision as every write of a product's contents
 * does (so it serialises with the product's deletion). A crash leaves whole transactions behind; the
 * next attempt reads again and writes what is missing.
 *
 * Every item an import puts or updates carries a fresh `importWrite` token and `importProduct`, and
 * every item it deletes is first marked `removedByImport`: shared/domain/change-records.ts maps such
 * changes to no evaluation of the product, whose one evaluation the import record's completion asks for.
 */
import type { LicenseMapping } from '../domain/license-mapping.ts';
import { randomUUID } from 'node:crypto';
import {
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Analysis, License, Package, ProductPackage, Vulnerability } from '../domain/catalog.ts';
import type { Product } from '../domain/product.ts';
import type { ImportPlan, ImportStatus, ImportSummary, SbomImport } from '../domain/sbom-import.ts';
import type { ImportMarks, ImportOutcome } from '../domain/change-records.ts';
import { CATALOG_SPECS, catalogCounterSpace, isCounted, listCounterChanges, objectItem, uniqueItem, vulnerabilityLinkWrites, type CatalogStore, type Reference } from './catalog-store.ts';
import { counterUpdates, filterCounter, isListCounted, listCounterSpace, readCounters, type CounterDeltas } from './counters.ts';
import { analysisItem, analysisPointer, productPackageCounterChanges, productPackageItem, productPackagePointer, toAnalysis, toProductPackage } from './product-package-store.ts';
import { toProduct } from './product-store.ts';
import {
  batchGet,
  cancelledBecause,
  imageItem,
  isConditionFailure,
  itemOfImage,
  isTransactionConflict,
  labelled,
  partitionQueryInput,
  queryAll,
  transact,
  type Item,
  type LabelledItem,
  type StreamImage,
  type TransactItem,
} from './dynamo.ts';

/** What goes into a product's transactions: an item, items that go together, or items with the list counter changes they make. */
type ContentsEntry = TransactItem | TransactItem[] | { readonly items: TransactItem[]; readonly counters: CounterDeltas };

/** Items per transaction (DynamoDB's limit). */
const TRANSACTION_ITEMS = 100;

/** What the import read changed under it (a concurrent write, a purl taken meanwhile): plan again from a fresh read. */
export class ImportRaceError extends Error {}

/** The product went away while the import wrote. */
export class ImportProductGoneError extends Error {}

export const isImportRace = (error: unknown) => error instanceof ImportRaceError || isTransactionConflict(error);

/** The product's partition as an import reads it. */
export interface ProductContents {
  readonly product: Product;
  readonly productPackages: readonly ProductPackage[];
  /** Package uuids of product packages a crashed import marked for removal. */
  readonly markedForRemoval: ReadonlySet<string>;
  readonly analyses: readonly Analysis[];
  /** Product packages the product holds besides `productPackages`, when those are only some of them. */
  readonly othersCount?: number;
}

export class SbomImportStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly catalog: CatalogStore,
  ) {}

  // --- stream images ---------------------------------------------------------------------------

  /** The import record a stream image is of, with its outcome; undefined for an image of another item. */
  static fromImage(image: StreamImage | undefined): ImportOutcome | undefined {
    const item = imageItem(image, 'SbomImport');
    return item && { ...toSbomImport(item), changed: item.changed === true };
  }

  /** The marks an import's writes left on the item a stream image is of (see the module's head). */
  static marksOfImage(image: StreamImage): ImportMarks {
    const item = itemOfImage(image);
    const text = (value: unknown) => (value === undefined ? undefined : String(value));
    return { write: text(item.importWrite), product: text(item.importProduct), removal: text(item.removedByImport) };
  }

  // --- import records --------------------------------------------------------------------------

  async get(uuid: string): Promise<SbomImport | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.sbomImport(uuid), ConsistentRead: true }));
    return result.Item ? toSbomImport(result.Item) : undefined;
  }

  /** Stores a new import record (a queued upload, or a finished synchronous import). */
  async create(record: SbomImport, outcome: Outcome = {}): Promise<void> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: importItem(record, outcome), ConditionExpression: 'attribute_not_exists(PK)' }),
    );
  }

  /** Moves a queued (or, retried, a running) import to running; undefined when it had already finished. */
  async start(uuid: string, eTag = ''): Promise<SbomImport | undefined> {
    try {
      const result = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.sbomImport(uuid),
          // A queued import starts with the first upload's document (its ETag); a running one resumes on a
          // redelivery of that same upload's event only, not on another PUT to its URL.
          UpdateExpression: 'SET #status = :running, #etag = if_not_exists(#etag, :etag)',
          ConditionExpression: 'attribute_exists(PK) AND (#status = :queued OR (#status = :running AND (attribute_not_exists(#etag) OR #etag = :etag)))',
          ExpressionAttributeNames: { '#status': 'status', '#etag': 'uploadETag' },
          ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':etag': eTag },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toSbomImport(result.Attributes!);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** Records how a started import ended, unless it had already ended. */
  async finish(record: SbomImport, outcome: Outcome): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: importItem(record, outcome),
          ConditionExpression: 'attribute_exists(PK) AND #status IN (:queued, :running)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued', ':running': 'running' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The write capacity the import's inventory writes consumed (kept on its record for the benchmark). */
  async consumedWriteCapacity(uuid: string): Promise<number> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.sbomImport(uuid), ConsistentRead: true }));
    return Number(result.Item?.consumedWriteCapacity ?? 0);
  }

  // --- what an import reads --------------------------------------------------------------------

  async productContents(productUuid: string): Promise<ProductContents | undefined> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.productPartition(productUuid)), ConsistentRead: true });
    const product = items.find((item) => item.entity === 'Product');
    if (!product) return undefined;
    const productPackages = items.filter((item) => item.entity === 'ProductPackage');
    return {
      product: toProduct(product),
      productPackages: productPackages.map(toProductPackage),
      markedForRemoval: new Set(productPackages.filter((item) => item.removedByImport !== undefined).map((item) => String(item.packageUuid))),
      analyses: items.filter((item) => item.entity === 'Analysis').map(toAnalysis),
    };
  }

  /**
   * What a merge (or a VEX) needs of the product: the product, the product packages of `packageUuids`
   * read by key, the product's analyses, and how many other product packages it holds (from the list
   * counters). Such an import removes nothing, so the others stay as they are unread: its reads follow
   * its document, not the product's size.
   */
  async productContentsOf(productUuid: string, packageUuids: readonly string[]): Promise<ProductContents | undefined> {
    const [productItem, packageItems, analysisItems] = await Promise.all([
      this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.product(productUuid), ConsistentRead: true })).then((result) => result.Item),
      batchGet(this.doc, this.tableName, packageUuids.map((uuid) => keys.productPackage(productUuid, uuid)), true),
      queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.analysesOfProduct(productUuid)), ConsistentRead: true }),
    ]);
    if (!productItem) return undefined;
    const product = toProduct(productItem);
    const counter = filterCounter('product', productUuid);
    const total = (await readCounters(this.doc, this.tableName, listCounterSpace(product.dataspace, 'PRODUCTPACKAGES'), [counter], ['total'])).get(counter)!.total;
    const productPackages = packageItems.filter((item) => item.entity === 'ProductPackage');
    return {
      product,
      productPackages: productPackages.map(toProductPackage),
      markedForRemoval: new Set(productPackages.filter((item) => item.removedByImport !== undefined).map((item) => String(item.packageUuid))),
      analyses: analysisItems.filter((item) => item.entity === 'Analysis').map(toAnalysis),
      // The counter counts the product packages written since list counters began (isListCounted): the
      // others the product holds are those it counts that were not read. (Older ones it does not count
      // are missing from the summary's `unchanged`, as from the list's count, until they are written.)
      othersCount: Math.max(0, total - productPackages.filter(isListCounted).length),
    };
  }

  dataspaceLicenses(dataspace: string): Promise<License[]> {
    return this.catalog.licenses.all(dataspace);
  }

  /** The dataspace's license mappings, applied before ScanCode's rules. */
  licenseMappings(dataspace: string): Promise<LicenseMapping[]> {
    return this.catalog.licenseMappings.all(dataspace);
  }

  packagesByPurl(dataspace: string, purls: readonly string[]): Promise<Map<string, Package>> {
    return this.catalog.packages.getByUnique(dataspace, purls, true);
  }

  packagesByUuid(uuids: readonly string[]): Promise<Package[]> {
    return this.catalog.packages.getMany(uuids, true);
  }

  vulnerabilitiesById(dataspace: string, ids: readonly string[]): Promise<Map<string, Vulnerability>> {
    return this.catalog.vulnerabilities.getByUnique(dataspace, ids, true);
  }

  // --- writing a plan --------------------------------------------------------------------------

  /**
   * Writes the plan; answers the write capacity it consumed. `licenseKeys`: the dataspace's license
   * keys as read (a counter is counted down only on a license that exists).
   */
  async write(plan: ImportPlan, target: { importUuid: string; product: Product; licenseKeys: ReadonlySet<string> }): Promise<number> {
    const writer = new PlanWriter(this.doc, this.tableName, target.importUuid, target.product.uuid, target.product.dataspace);
    await writer.packages(plan.packageWrites, target.licenseKeys);
    for (const write of plan.vulnerabilityWrites) await writer.vulnerability(write.before, write.after, write.links);
    await writer.productContents(plan);
    return writer.consumed;
  }
}

/** How an import record is stored beside the domain's fields. */
export interface Outcome {
  /** The import wrote something: its finishing asks for the product's evaluation. */
  readonly changed?: boolean;
  readonly consumedWriteCapacity?: number;
}

/** Writes one plan, transaction after transaction, counting the capacity it consumes. */
class PlanWriter {
  consumed = 0;
  private writes = 0;
  /** Distinguishes this attempt's tokens from an earlier attempt's of the same import. */
  private readonly attempt = randomUUID().slice(0, 8);

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly importUuid: string,
    private readonly productUuid: string,
    private readonly dataspace: string,
  ) {}

  /** The marks of one write of an item (see the module's head): a token no other write carries. */
  private mark(): { importWrite: string; importProduct: string } {
    return { importWrite: `${this.importUuid}:${this.attempt}:${++this.writes}`, importProduct: this.productUuid };
  }

  private async transact(items: readonly LabelledItem[]): Promise<void> {
    try {
      const result = await transact(this.doc, items, { ReturnConsumedCapacity: 'TOTAL' });
      for (const consumed of result.ConsumedCapacity ?? []) this.consumed += consumed.WriteCapacityUnits ?? consumed.CapacityUnits ?? 0;
    } catch (error) {
      // Only the transactions of the product's partition check the product (inProduct).
      if (cancelledBecause(error, 'product')) throw new ImportProductGoneError('The product was deleted during the import.');
      if (isConditionFailure(error)) throw new ImportRaceError('A write of the import found what it read changed', { cause: error });
      throw error;
    }
  }

  /** Creates and updates of packages, with their license counters and list counters, as few transactions as fit. */
  async packages(writes: ImportPlan['packageWrites'], licenseKeys: ReadonlySet<string>): Promise<void> {
    const spec = CATALOG_SPECS.packages;
    type Chunk = { items: TransactItem[]; counters: Map<string, { reference: Reference; delta: number }>; lists: Map<string, { total: number }> };
    let chunk: Chunk = { items: [], counters: new Map(), lists: new Map() };
    const flush = async () => {
      if (chunk.items.length === 0) return;
      const dataspace = this.dataspaceOf(writes);
      const counters = [...chunk.counters.values()].filter(({ delta }) => delta !== 0).map(({ reference, delta }) => counterUpdate(this.tableName, dataspace, reference, delta));
      const lists = new Map([...chunk.lists].filter(([, { total }]) => total !== 0));
      const items = [...labelled('package', chunk.items), ...labelled('counter', counters), ...counterUpdates(this.tableName, catalogCounterSpace('PACKAGE', dataspace), lists)];
      chunk = { items: [], counters: new Map(), lists: new Map() };
      await this.transact(items);
    };
    for (const { before, after } of writes) {
      const own: TransactItem[] = [
        {
          Put: {
            TableName: this.tableName,
            Item: { ...objectItem(spec, after), ...this.mark() },
            ...(before
              ? { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': before.rev } }
              : { ConditionExpression: 'attribute_not_exists(PK)' }),
          },
        },
        ...(before ? [] : [{ Put: { TableName: this.tableName, Item: uniqueItem(spec, after, after.purl), ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ];
      const deltas = referenceDeltas(before, after, licenseKeys);
      const lists = listCounterChanges(spec, before, after);
      const newCounters = deltas.filter(({ id }) => !chunk.counters.has(id)).length + [...lists.keys()].filter((counter) => !chunk.lists.has(counter)).length;
      if (chunk.items.length + chunk.counters.size + chunk.lists.size + own.length + newCounters > TRANSACTION_ITEMS) await flush();
      chunk.items.push(...own);
      for (const { id, reference, delta } of deltas) {
        const entry = chunk.counters.get(id) ?? { reference, delta: 0 };
        entry.delta += delta;
        chunk.counters.set(id, entry);
      }
      for (const [counter, { total = 0 }] of lists) chunk.lists.set(counter, { total: (chunk.lists.get(counter)?.total ?? 0) + total });
    }
    await flush();
  }

  private dataspaceOf(writes: ImportPlan['packageWrites']): string {
    return writes[0]!.after.dataspace;
  }

  /**
   * A vulnerability and the links its packages must carry: the links first (at most 99 a transaction),
   * the vulnerability's own item last, so a failure part-way leaves it as it was and a retry relinks.
   */
  async vulnerability(before: Vulnerability | undefined, after: Vulnerability, links: ReadonlyMap<string, { riskScore: number | null; linkedDate: string }>): Promise<void> {
    const updates: TransactItem[] = [...links].map(([packageUuid, link]) => {
      const mark = this.mark();
      return {
        Update: {
          TableName: this.tableName,
          Key: keys.catalogObject('PACKAGE', packageUuid),
          UpdateExpression: 'SET vulnerabilities.#id = :link, #rev = #rev + :one, importWrite = :write, importProduct = :product',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#id': after.vulnerabilityId, '#rev': 'rev' },
          ExpressionAttributeValues: { ':link': link, ':one': 1, ':write': mark.importWrite, ':product': mark.importProduct },
        },
      };
    });
    // The vulnerability's own link items (its affected packages) move with the packages' links.
    updates.push(...vulnerabilityLinkWrites(this.tableName, before, after));
    const spec = CATALOG_SPECS.vulnerabilities;
    const own: TransactItem[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: objectItem(spec, after),
          ...(before
            ? { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': before.rev } }
            : { ConditionExpression: 'attribute_not_exists(PK)' }),
        },
      },
      ...(before ? [] : [{ Put: { TableName: this.tableName, Item: uniqueItem(spec, after, after.vulnerabilityId), ConditionExpression: 'attribute_not_exists(PK)' } }]),
    ];
    own.push(...counterUpdates(this.tableName, catalogCounterSpace('VULNERABILITY', after.dataspace), listCounterChanges(spec, before, after)).map(({ item }) => item));
    while (updates.length + own.length > TRANSACTION_ITEMS) await this.transact(labelled('link', updates.splice(0, TRANSACTION_ITEMS - own.length)));
    await this.transact([...labelled('link', updates), ...labelled('vulnerability', own)]);
  }

  /** Removals (marked, then deleted), product packages, then analyses: transactions that each bump the product. */
  async productContents(plan: ImportPlan): Promise<void> {
    const marks: TransactItem[] = [];
    const deletes: ContentsEntry[] = [];
    const markThenDelete = (key: Record<string, unknown>) => {
      marks.push({
        Update: {
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET removedByImport = :import',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':import': this.importUuid },
        },
      });
      deletes.push({ Delete: { TableName: this.tableName, Key: key } });
    };
    for (const pp of plan.productPackageRemovals) {
      markThenDelete(keys.productPackage(pp.productUuid, pp.packageUuid));
      deletes.push({ items: [{ Delete: { TableName: this.tableName, Key: keys.pointer('PRODUCTPACKAGE', pp.uuid) } }], counters: productPackageCounterChanges(pp, undefined) });
    }
    for (const analysis of plan.analysisRemovals) {
      markThenDelete(keys.analysis(analysis.productUuid, analysis.packageUuid, analysis.vulnerabilityId));
      deletes.push({ Delete: { TableName: this.tableName, Key: keys.pointer('ANALYSIS', analysis.uuid) } });
    }
    await this.inProduct(marks);
    await this.inProduct(deletes);

    const puts: ContentsEntry[] = [];
    for (const { before, after } of plan.productPackageWrites) {
      puts.push({
        counters: productPackageCounterChanges(before, after),
        items: [
        {
          Put: {
            TableName: this.tableName,
            // Rewritten whole: a removal mark left by a crashed import goes with it.
            Item: { ...productPackageItem(after), ...this.mark() },
            ConditionExpression: before ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)',
          },
        },
          ...(before ? [] : [{ Put: { TableName: this.tableName, Item: productPackagePointer(after) } }]),
        ],
      });
    }
    for (const { before, after } of plan.analysisWrites) {
      puts.push([
        {
          Put: {
            TableName: this.tableName,
            Item: { ...analysisItem(after), ...this.mark() },
            ...(before
              ? { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': before.rev } }
              : { ConditionExpression: 'attribute_not_exists(PK)' }),
          },
        },
        ...(before ? [] : [{ Put: { TableName: this.tableName, Item: analysisPointer(after) } }]),
      ]);
    }
    await this.inProduct(puts);
  }

  /**
   * Writes the items (or groups of items that go together) in transactions of the product: each one
   * bumps its revision and fails if it is gone.
   */
  private async inProduct(entries: readonly ContentsEntry[]): Promise<void> {
    let chunk: TransactItem[] = [];
    let counters = new Map<string, Record<string, number>>();
    const flush = async () => {
      if (chunk.length === 0) return;
      const bump: TransactItem = {
        Update: {
          TableName: this.tableName,
          Key: keys.product(this.productUuid),
          UpdateExpression: 'SET #rev = #rev + :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      };
      const moved = new Map([...counters].filter(([, delta]) => Object.values(delta).some((v) => v !== 0)));
      const items = [{ label: 'product', item: bump }, ...labelled('contents', chunk), ...counterUpdates(this.tableName, listCounterSpace(this.dataspace, 'PRODUCTPACKAGES'), moved)];
      chunk = [];
      counters = new Map();
      await this.transact(items);
    };
    for (const entry of entries) {
      const group = Array.isArray(entry) ? entry : 'items' in entry ? entry.items : [entry];
      const deltas: CounterDeltas = !Array.isArray(entry) && 'counters' in entry ? entry.counters : new Map();
      const added = [...deltas.keys()].filter((counter) => !counters.has(counter)).length;
      if (chunk.length + counters.size + group.length + added > TRANSACTION_ITEMS - 1) await flush();
      chunk.push(...group);
      for (const [counter, delta] of deltas) {
        const sum = counters.get(counter) ?? {};
        for (const [attribute, value] of Object.entries(delta)) sum[attribute] = (sum[attribute] ?? 0) + value;
        counters.set(counter, sum);
      }
    }
    await flush();
  }
}

/** The use-counter changes of a package write, as Collection.write counts them (see catalog-store.ts). */
function referenceDeltas(before: Package | undefined, after: Package, licenseKeys: ReadonlySet<string>): { id: string; reference: Reference; delta: number }[] {
  const spec = CATALOG_SPECS.packages;
  const refs = (pkg: Package | undefined) => new Map((pkg ? spec.references!(pkg) : []).map((r) => [`${r.type}\u0000${r.value}\u0000${r.counter}`, r]));
  const old = before && isCounted(before) ? refs(before) : new Map<string, Reference>();
  const now = refs(after);
  const deltas: { id: string; reference: Reference; delta: number }[] = [];
  for (const [id, reference] of now) if (!old.has(id)) deltas.push({ id, reference, delta: 1 });
  for (const [id, reference] of old) {
    // A license deleted since (its reservation gone) is not brought back as a bare counter.
    if (!now.has(id) && (reference.type !== 'LICENSE' || licenseKeys.has(reference.value))) deltas.push({ id, reference, delta: -1 });
  }
  return deltas;
}

function counterUpdate(tableName: string, dataspace: string, reference: Reference, delta: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.catalogUnique(reference.type, dataspace, reference.value),
      UpdateExpression: 'ADD #counter :delta',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#counter': reference.counter },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

// --- import records ---------------------------------------------------------------------------

function importItem(record: SbomImport, outcome: Outcome): Item {
  return {
    ...keys.sbomImport(record.uuid),
    entity: 'SbomImport',
    uuid: record.uuid,
    dataspace: record.dataspace,
    productUuid: record.productUuid,
    ...(record.productName === undefined ? {} : { productName: record.productName }),
    createdBy: record.createdBy,
    createdWithKey: record.createdWithKey ?? null,
    status: record.status,
    format: record.format,
    specVersion: record.specVersion,
    mode: record.mode,
    updateExistingPackages: record.updateExistingPackages,
    errors: [...record.errors],
    createdDate: record.createdDate,
    completedDate: record.completedDate,
    summary: record.summary,
    uploadExpiresAt: record.uploadExpiresAt,
    changed: outcome.changed ?? false,
    consumedWriteCapacity: outcome.consumedWriteCapacity ?? 0,
  };
}

export function toSbomImport(item: Item): SbomImport {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    productUuid: String(item.productUuid),
    ...(typeof item.productName === 'string' ? { productName: item.productName } : {}),
    createdBy: String(item.createdBy ?? ''),
    createdWithKey: typeof item.createdWithKey === 'string' ? item.createdWithKey : null,
    status: item.status as ImportStatus,
    format: (item.format ?? '') as SbomImport['format'],
    specVersion: String(item.specVersion ?? ''),
    mode: item.mode as SbomImport['mode'],
    updateExistingPackages: item.updateExistingPackages === true,
    errors: (item.errors as string[] | undefined) ?? [],
    createdDate: String(item.createdDate),
    completedDate: (item.completedDate as string | null | undefined) ?? null,
    summary: (item.summary as ImportSummary | null | undefined) ?? null,
    uploadExpiresAt: (item.uploadExpiresAt as string | null | undefined) ?? null,
  };
}
