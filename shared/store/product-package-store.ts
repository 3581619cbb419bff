/**
 * Persistence of what products hold: product packages and the triage analyses of their
 * vulnerabilities. Both live in the product's partition, so one Query reads a product with its grants,
 * packages and analyses; a pointer item finds each by uuid. Every write also bumps the product's
 * revision, which serialises it with the product's deletion (no orphan survives a delete).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { ConflictError } from '../domain/errors.ts';
import type { Analysis, ProductPackage } from '../domain/catalog.ts';
import type { Product } from '../domain/product.ts';
import { StaleProductError, bumpRevision } from './product-store.ts';
import { counterChanges, counterSeedItems, counterTotals, counterUpdates, filterCounter, isListCounted, listCounterSpace, productPackageCounters, readCounters } from './counters.ts';
import {
  batchGet,
  cancelledBecause,
  imageItem,
  partitionQueryInput,
  queryAll,
  queryCount,
  queryOffset,
  revisionCondition,
  transact,
  type Item,
  type LabelledItem,
  type StreamImage,
} from './dynamo.ts';

/** The analysis changed since it was read. */
export class StaleAnalysisError extends Error {}

/** The product package changed (or went) since it was read. */
export class StaleProductPackageError extends Error {}

export class ProductPackageStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The product package a stream image is of; undefined for an image of another item. */
  static fromImage(image: StreamImage | undefined): ProductPackage | undefined {
    const item = imageItem(image, 'ProductPackage');
    return item && toProductPackage(item);
  }

  /** The analysis a stream image is of; undefined for an image of another item. */
  static analysisFromImage(image: StreamImage | undefined): Analysis | undefined {
    const item = imageItem(image, 'Analysis');
    return item && toAnalysis(item);
  }

  // --- product packages ----------------------------------------------------------------------

  async get(uuid: string): Promise<ProductPackage | undefined> {
    const pointer = await this.pointer('PRODUCTPACKAGE', uuid);
    if (!pointer) return undefined;
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.productPackage(String(pointer.productUuid), String(pointer.packageUuid)) }),
    );
    return result.Item ? toProductPackage(result.Item) : undefined;
  }

  async ofProduct(productUuid: string): Promise<ProductPackage[]> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.packagesOfProduct(productUuid)), ConsistentRead: true });
    return items.map(toProductPackage);
  }

  /**
   * A page of the dataspace's product packages (of one product when given), oldest first, with the
   * count from the list counters (16 shard items, whatever the size).
   */
  async listDataspace(dataspace: string, offset: number, limit: number, productUuid?: string): Promise<{ count: number; items: ProductPackage[] }> {
    const input = partitionQueryInput(this.tableName, keys.productPackagesOfDataspace(dataspace));
    const counter = productUuid === undefined ? 'all' : filterCounter('product', productUuid);
    if (productUuid !== undefined) {
      input.FilterExpression = '#product = :product';
      input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, '#product': 'productUuid' };
      input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ':product': productUuid };
    }
    const count = (await readCounters(this.doc, this.tableName, listCounterSpace(dataspace, 'PRODUCTPACKAGES'), [counter], ['total'])).get(counter)!.total;
    // Known to hold `count`, the page stops reading once it has the last of them.
    const items = offset < count ? await queryOffset(this.doc, input, offset, Math.min(limit, count - offset)) : [];
    return { count, items: items.map(toProductPackage) };
  }

  /** The products that hold a package: one query of the reverse index. */
  async productsHolding(packageUuid: string): Promise<string[]> {
    const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.productsHoldingPackage(packageUuid)));
    return items.map((item) => String(item.GSI10SK));
  }

  /**
   * The product packages of one package in the given products (from productsHolding): read by key, one
   * BatchGetItem per 100, strongly consistent; an index entry whose item has gone since is dropped.
   */
  async ofPackageIn(packageUuid: string, productUuids: readonly string[]): Promise<ProductPackage[]> {
    const items = await batchGet(this.doc, this.tableName, productUuids.map((productUuid) => keys.productPackage(productUuid, packageUuid)), true);
    return items.map(toProductPackage);
  }

  /**
   * Adds the package to the product; the same package twice is a ConflictError. The product's
   * revision is bumped whatever it is (bumpRevision's anyRevision): adds to one product from several
   * processes do not fail each other's condition, and the product's deletion still sees every one.
   */
  async add(product: Product, productPackage: ProductPackage): Promise<void> {
    try {
      await this.transact([
        { label: 'product', item: bumpRevision(this.tableName, product, { anyRevision: true }) },
        {
          label: 'product package',
          item: { Put: { TableName: this.tableName, Item: productPackageItem(productPackage), ConditionExpression: 'attribute_not_exists(PK)' } },
        },
        { label: 'pointer', item: { Put: { TableName: this.tableName, Item: productPackagePointer(productPackage) } } },
        ...this.counted(undefined, productPackage),
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      if (cancelledBecause(error, 'product package')) {
        throw new ConflictError('package', 'This package is already in this product.');
      }
      throw error;
    }
  }

  /**
   * Writes a product package's own fields (its concluded license, is_deployed, is_modified) under
   * its revision, bumping the product's so the write is serialised with the product's deletion.
   */
  async update(product: Product, before: ProductPackage, after: ProductPackage): Promise<void> {
    try {
      await this.transact([
        { label: 'product', item: bumpRevision(this.tableName, product) },
        {
          label: 'product package',
          item: {
            Put: {
              TableName: this.tableName,
              Item: productPackageItem(after),
              // Items written before product packages could change carry no rev: they are at revision 1.
              ConditionExpression: 'attribute_exists(PK) AND (#rev = :rev OR (attribute_not_exists(#rev) AND :rev = :one))',
              ExpressionAttributeNames: { '#rev': 'rev' },
              ExpressionAttributeValues: { ':rev': before.rev, ':one': 1 },
            },
          },
        },
        ...this.counted(before, after),
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      if (cancelledBecause(error, 'product package')) throw new StaleProductPackageError();
      throw error;
    }
  }

  /** Removes the package from the product, with its analyses. */
  async remove(product: Product, productPackage: ProductPackage): Promise<void> {
    const analyses = (await this.analysesOfProduct(product.uuid)).filter((a) => a.productPackageUuid === productPackage.uuid);
    try {
      await this.transact([
        { label: 'product', item: bumpRevision(this.tableName, product) },
        { label: 'product package', item: { Delete: { TableName: this.tableName, Key: keys.productPackage(product.uuid, productPackage.packageUuid) } } },
        { label: 'pointer', item: { Delete: { TableName: this.tableName, Key: keys.pointer('PRODUCTPACKAGE', productPackage.uuid) } } },
        ...analyses.flatMap((analysis) => this.deleteAnalysisItems(analysis)),
        ...this.counted(productPackage, undefined),
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      throw error;
    }
  }

  /** The list counter updates of a product package write (productPackageCounterChanges). */
  private counted(before: ProductPackage | undefined, after: ProductPackage | undefined): LabelledItem[] {
    const dataspace = (after ?? before)!.dataspace;
    return counterUpdates(this.tableName, listCounterSpace(dataspace, 'PRODUCTPACKAGES'), productPackageCounterChanges(before, after));
  }

  // --- analyses ------------------------------------------------------------------------------

  async getAnalysis(uuid: string): Promise<Analysis | undefined> {
    const pointer = await this.pointer('ANALYSIS', uuid);
    if (!pointer) return undefined;
    const result = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.analysis(String(pointer.productUuid), String(pointer.packageUuid), String(pointer.vulnerabilityId)),
        ConsistentRead: true,
      }),
    );
    return result.Item ? toAnalysis(result.Item) : undefined;
  }

  async analysesOfProduct(productUuid: string): Promise<Analysis[]> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.analysesOfProduct(productUuid)), ConsistentRead: true });
    return items.map(toAnalysis);
  }

  async listAnalyses(dataspace: string, offset: number, limit: number): Promise<{ count: number; items: Analysis[] }> {
    const input = partitionQueryInput(this.tableName, keys.analysesOfDataspace(dataspace));
    const count = await queryCount(this.doc, input);
    const items = offset < count ? await queryOffset(this.doc, input, offset, limit) : [];
    return { count, items: items.map(toAnalysis) };
  }

  /** Creates (no `before`), updates or deletes (no `after`) an analysis; one per product package and vulnerability. */
  async writeAnalysis(product: Product, before: Analysis | undefined, after: Analysis | undefined): Promise<void> {
    const items: LabelledItem[] = [{ label: 'product', item: bumpRevision(this.tableName, product) }];
    if (after) {
      items.push({
        label: 'analysis',
        item: {
          Put: {
            TableName: this.tableName,
            Item: analysisItem(after),
            ...revisionCondition(before),
          },
        },
      });
      if (!before) items.push({ label: 'pointer', item: { Put: { TableName: this.tableName, Item: analysisPointer(after) } } });
    } else if (before) {
      items.push(...this.deleteAnalysisItems(before));
    }
    try {
      await this.transact(items);
    } catch (error) {
      if (cancelledBecause(error, 'product')) throw new StaleProductError(product.uuid);
      if (cancelledBecause(error, 'analysis')) {
        if (before) throw new StaleAnalysisError();
        throw new ConflictError('vulnerability_id', 'This product package already has an analysis of this vulnerability.');
      }
      throw error;
    }
  }

  private deleteAnalysisItems(analysis: Analysis): LabelledItem[] {
    return [
      { label: 'analysis', item: { Delete: { TableName: this.tableName, Key: keys.analysis(analysis.productUuid, analysis.packageUuid, analysis.vulnerabilityId) } } },
      { label: 'pointer', item: { Delete: { TableName: this.tableName, Key: keys.pointer('ANALYSIS', analysis.uuid) } } },
    ];
  }

  private async pointer(type: 'PRODUCTPACKAGE' | 'ANALYSIS', uuid: string): Promise<Item | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.pointer(type, uuid), ConsistentRead: true }));
    return result.Item;
  }

  private async transact(items: readonly LabelledItem[]): Promise<void> {
    await transact(this.doc, items);
  }
}

/**
 * What writing `after` over `before` moves in the product package list's counters. One written before
 * those counters existed (no `listCounted`) counts nothing down, and is counted as new by its next write.
 */
export function productPackageCounterChanges(before: ProductPackage | undefined, after: ProductPackage | undefined) {
  const countersOf = (pp: ProductPackage) => productPackageCounters(pp.productUuid);
  return counterChanges(countersOf, isListCounted(before) ? before : undefined, after);
}

/** A product package as read; the store's `listCounted` mark rides along, unseen by the domain's type. */
export function toProductPackage(item: Item): ProductPackage {
  const productPackage: ProductPackage = {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    productUuid: String(item.productUuid),
    packageUuid: String(item.packageUuid),
    createdDate: String(item.createdDate),
    // Written before product packages had these fields: revision 1, the package's own license, deployed, not modified.
    rev: Number(item.rev ?? 1),
    licenseExpression: String(item.licenseExpression ?? ''),
    licenseKeys: (item.licenseKeys as string[] | undefined) ?? [],
    declaredLicenseExpression: String(item.declaredLicenseExpression ?? item.licenseExpression ?? ''),
    unknownLicenses: (item.unknownLicenses as string[] | undefined) ?? [],
    isDeployed: item.isDeployed === undefined ? true : item.isDeployed === true,
    isModified: item.isModified === true,
    dependsOn: (item.dependsOn as string[] | undefined) ?? [],
    ...(typeof item.bomSerial === 'string' && typeof item.bomRef === 'string' ? { bomSerial: item.bomSerial, bomRef: item.bomRef } : {}),
  };
  return isListCounted(item) ? Object.assign(productPackage, { listCounted: true }) : productPackage;
}

export function toAnalysis(item: Item): Analysis {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    rev: Number(item.rev ?? 0),
    productUuid: String(item.productUuid),
    productPackageUuid: String(item.productPackageUuid),
    packageUuid: String(item.packageUuid),
    vulnerabilityId: String(item.vulnerabilityId),
    state: (item.state as Analysis['state'] | undefined) ?? null,
    justification: (item.justification as Analysis['justification'] | undefined) ?? null,
    responses: (item.responses as Analysis['responses'] | undefined) ?? [],
    detail: String(item.detail ?? ''),
    createdDate: String(item.createdDate),
    lastModifiedDate: String(item.lastModifiedDate),
  };
}

// --- items ----------------------------------------------------------------------------------

/**
 * The product package in its product's partition, listed in the dataspace and under its package.
 * `rev` is stored as given: add stores 1, update the next revision.
 */
export function productPackageItem(pp: ProductPackage): Item {
  return {
    ...keys.productPackage(pp.productUuid, pp.packageUuid),
    ...keys.productPackageInDataspace(pp.dataspace, pp.createdDate, pp.uuid),
    ...keys.productHoldingPackage(pp.packageUuid, pp.productUuid),
    entity: 'ProductPackage',
    uuid: pp.uuid,
    dataspace: pp.dataspace,
    productUuid: pp.productUuid,
    packageUuid: pp.packageUuid,
    createdDate: pp.createdDate,
    rev: pp.rev,
    licenseExpression: pp.licenseExpression,
    licenseKeys: [...pp.licenseKeys],
    declaredLicenseExpression: pp.declaredLicenseExpression,
    unknownLicenses: [...pp.unknownLicenses],
    isDeployed: pp.isDeployed,
    isModified: pp.isModified,
    dependsOn: [...pp.dependsOn],
    ...(pp.bomSerial !== undefined && pp.bomRef !== undefined ? { bomSerial: pp.bomSerial, bomRef: pp.bomRef } : {}),
    // In the list counters from this write on (productPackageCounterChanges).
    listCounted: true,
  };
}

/** Where a product package's uuid leads (its item's key). */
export function productPackagePointer(pp: ProductPackage): Item {
  return { ...keys.pointer('PRODUCTPACKAGE', pp.uuid), entity: 'Pointer', productUuid: pp.productUuid, packageUuid: pp.packageUuid };
}

/** An analysis at the revision a write gives it. */
export function analysisItem(a: Analysis): Item {
  return {
    ...keys.analysis(a.productUuid, a.packageUuid, a.vulnerabilityId),
    ...keys.analysisInDataspace(a.dataspace, a.createdDate, a.uuid),
    entity: 'Analysis',
    uuid: a.uuid,
    dataspace: a.dataspace,
    productUuid: a.productUuid,
    productPackageUuid: a.productPackageUuid,
    packageUuid: a.packageUuid,
    vulnerabilityId: a.vulnerabilityId,
    state: a.state,
    justification: a.justification,
    responses: [...a.responses],
    detail: a.detail,
    createdDate: a.createdDate,
    lastModifiedDate: a.lastModifiedDate,
    rev: a.rev + 1,
  };
}

/** Where an analysis's uuid leads (its item's key). */
export function analysisPointer(a: Analysis): Item {
  return { ...keys.pointer('ANALYSIS', a.uuid), entity: 'Pointer', productUuid: a.productUuid, packageUuid: a.packageUuid, vulnerabilityId: a.vulnerabilityId };
}

/** What adding a package to a product stores, for bulk loads that bypass the transactions (benchmark seeding). */
export function productPackageSeedItems(pp: ProductPackage, options: { listCounted?: boolean } = {}): Item[] {
  // Not in the list counters unless the loader writes them too (productPackageCountSeedItems) and says so.
  const { listCounted: _listed, ...item } = productPackageItem(pp);
  return [{ ...item, ...(options.listCounted ? { listCounted: true } : {}) }, productPackagePointer(pp)];
}

/** The product package list's counter items of a bulk load's product packages (benchmark seeding). */
export function productPackageCountSeedItems(dataspace: string, productPackages: readonly ProductPackage[]): Item[] {
  return counterSeedItems(listCounterSpace(dataspace, 'PRODUCTPACKAGES'), counterTotals((pp: ProductPackage) => productPackageCounters(pp.productUuid), productPackages));
}

/** What creating an analysis stores, for bulk loads that bypass the transactions (benchmark seeding). */
export function analysisSeedItems(a: Analysis): Item[] {
  return [analysisItem(a), analysisPointer(a)];
}
