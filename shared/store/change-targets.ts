/**
 * The table's stream as the domain reads it: each record decoded, by the stores that own its items,
 * into domain records before and after the change; and change targets resolved to the products to
 * evaluate: a package to the products holding it (by index). A dataspace target is not resolved here:
 * the stream router queues its first fan-out page (shared/services/evaluation-fan-out.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { ChangeRecord, ChangeTarget, EventName, Version } from '../domain/change-records.ts';
import type { StreamImage } from './dynamo.ts';
import { ProductStore } from './product-store.ts';
import { ProductPackageStore } from './product-package-store.ts';
import { CatalogStore } from './catalog-store.ts';
import { PolicyStore } from './policy-store.ts';
import { SbomImportStore } from './sbom-import-store.ts';
import { PolicyWaiverStore } from './policy-waiver-store.ts';

/** A stream record of the table as the domain reads it. */
export function changeRecordOf(record: DynamoDBRecord): ChangeRecord {
  const eventName = record.eventName as EventName;
  const oldImage = record.dynamodb?.OldImage as StreamImage | undefined;
  const newImage = record.dynamodb?.NewImage as StreamImage | undefined;
  /** The change of an entity, when the images are of its items (as `fromImage` of its store decodes them). */
  const as = <E extends string, T>(entity: E, fromImage: (image: StreamImage | undefined) => T | undefined) => {
    const version = (image: StreamImage | undefined): Version<T> | undefined => {
      const decoded = fromImage(image);
      return decoded === undefined ? undefined : { record: decoded, marks: SbomImportStore.marksOfImage(image!) };
    };
    const [before, after] = [version(oldImage), version(newImage)];
    return before || after ? { entity, eventName, before, after } : undefined;
  };
  return (
    as('Product', ProductStore.fromImage) ??
    as('ProductPackage', ProductPackageStore.fromImage) ??
    as('Analysis', ProductPackageStore.analysisFromImage) ??
    as('Package', (image) => CatalogStore.fromImage('packages', image)) ??
    as('License', (image) => CatalogStore.fromImage('licenses', image)) ??
    as('UsagePolicy', (image) => CatalogStore.fromImage('usagePolicies', image)) ??
    as('PolicyConfig', PolicyStore.configFromImage) ??
    as('SbomImport', SbomImportStore.fromImage) ??
    as('PolicyWaiver', PolicyWaiverStore.fromImage) ?? { entity: 'other', eventName }
  );
}

export interface ProductRef {
  readonly dataspace: string;
  readonly uuid: string;
}

export class ChangeTargetResolver {
  private readonly productPackages: ProductPackageStore;

  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    this.productPackages = new ProductPackageStore(doc, tableName);
  }

  /** The distinct products the product and package targets affect (dataspace targets are paged elsewhere). */
  async products(targets: readonly ChangeTarget[]): Promise<ProductRef[]> {
    const found = new Map<string, ProductRef>();
    const add = (dataspace: string, uuid: string) => found.set(uuid, { dataspace, uuid });
    const packages = new Map<string, { dataspace: string; except: Set<string> | undefined }>();
    for (const target of targets) {
      if (target.kind === 'product') add(target.dataspace, target.uuid);
      else if (target.kind === 'package') {
        // A product is left out only when every change of the package in the batch leaves it out.
        const entry = packages.get(target.uuid);
        const except = target.exceptProduct === undefined ? undefined : new Set([target.exceptProduct]);
        if (!entry) packages.set(target.uuid, { dataspace: target.dataspace, except });
        else entry.except = entry.except && except ? new Set([...entry.except].filter((uuid) => except.has(uuid))) : undefined;
      }
    }
    await Promise.all(
      [...packages].map(async ([uuid, { dataspace, except }]) => {
        for (const product of await this.productPackages.productsHolding(uuid)) if (!except?.has(product)) add(dataspace, product);
      }),
    );
    return [...found.values()];
  }
}
