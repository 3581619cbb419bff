/**
 * Resolves change targets to the products to evaluate: a package to the products holding it (one
 * query of the reverse index GSI10), a dataspace to all its products (its product index, keys only).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { keys } from '../keys.ts';
import type { ChangeRecord, ChangeTarget } from '../domain/change-records.ts';
import { partitionQueryInput, queryAll } from './dynamo.ts';

/** A stream record of the table as the domain reads it. */
export function changeRecordOf(record: DynamoDBRecord): ChangeRecord {
  const image = (value: unknown) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);
  return {
    eventName: record.eventName as ChangeRecord['eventName'],
    oldImage: image(record.dynamodb?.OldImage),
    newImage: image(record.dynamodb?.NewImage),
  };
}

export interface ProductRef {
  readonly dataspace: string;
  readonly uuid: string;
}

export class ChangeTargetResolver {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The distinct products the targets affect. */
  async products(targets: readonly ChangeTarget[]): Promise<ProductRef[]> {
    const found = new Map<string, ProductRef>();
    const add = (dataspace: string, uuid: string) => found.set(uuid, { dataspace, uuid });
    const dataspaces = new Set<string>();
    const packages = new Map<string, { dataspace: string; except: Set<string> | undefined }>();
    for (const target of targets) {
      if (target.kind === 'product') add(target.dataspace, target.uuid);
      else if (target.kind === 'package') {
        // A product is left out only when every change of the package in the batch leaves it out.
        const entry = packages.get(target.uuid);
        const except = target.exceptProduct === undefined ? undefined : new Set([target.exceptProduct]);
        if (!entry) packages.set(target.uuid, { dataspace: target.dataspace, except });
        else entry.except = entry.except && except ? new Set([...entry.except].filter((uuid) => except.has(uuid))) : undefined;
      } else dataspaces.add(target.dataspace);
    }
    await Promise.all([
      ...[...packages].map(async ([uuid, { dataspace, except }]) => {
        const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.productsHoldingPackage(uuid)));
        for (const item of items) if (!except?.has(String(item.GSI10SK))) add(dataspace, String(item.GSI10SK));
      }),
      ...[...dataspaces].map(async (dataspace) => {
        const items = await queryAll(this.doc, {
          ...partitionQueryInput(this.tableName, keys.productsOfDataspace(dataspace)),
          ProjectionExpression: 'PK',
        });
        for (const item of items) add(dataspace, String(item.PK).slice('PRODUCT#'.length));
      }),
    ]);
    return [...found.values()];
  }
}
