/**
 * A stream record becomes a change record of domain records (shared/store/change-targets.ts): each
 * image decoded by the store that owns its item, with the marks an SBOM import left on it, so the
 * change-record rules (shared/domain/change-records.ts) never read DynamoDB attributes.
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { changeRecordOf } from '../../shared/store/change-targets.ts';
import { changeTargets } from '../../shared/domain/change-records.ts';

const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>) =>
  ({
    eventName,
    dynamodb: {
      ...(oldImage ? { OldImage: marshall(oldImage, { removeUndefinedValues: true }) } : {}),
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) } : {}),
    },
  }) as DynamoDBRecord;

const productItem = {
  PK: 'PRODUCT#p1',
  SK: 'PRODUCT',
  GSI1PK: 'DS#acme#PRODUCTS',
  GSI1SK: 'One\u0001\u0001p1',
  entity: 'Product',
  uuid: 'p1',
  dataspace: 'acme',
  name: 'One',
  version: '',
  createdBy: 'alice',
  createdDate: '2026-01-01T00:00:00+00:00',
  lastModifiedDate: '2026-01-01T00:00:00+00:00',
  rev: 2,
};

describe('stream records as change records', () => {
  it('decodes a product item into the domain product, keys and store attributes left behind', () => {
    const change = changeRecordOf(record('MODIFY', productItem, { ...productItem, name: 'Two', rev: 3 }));
    expect(change).toEqual({
      entity: 'Product',
      eventName: 'MODIFY',
      before: {
        record: { uuid: 'p1', dataspace: 'acme', name: 'One', version: '', createdBy: 'alice', createdDate: productItem.createdDate, lastModifiedDate: productItem.lastModifiedDate, rev: 2 },
        marks: { write: undefined, product: undefined, removal: undefined },
      },
      after: {
        record: { uuid: 'p1', dataspace: 'acme', name: 'Two', version: '', createdBy: 'alice', createdDate: productItem.createdDate, lastModifiedDate: productItem.lastModifiedDate, rev: 3 },
        marks: { write: undefined, product: undefined, removal: undefined },
      },
    });
    expect(changeTargets(change)).toEqual([{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]);
  });

  it('a revision bump alone (a grant written) changes no field the rules read', () => {
    expect(changeTargets(changeRecordOf(record('MODIFY', productItem, { ...productItem, rev: 3 })))).toEqual([]);
  });

  it("reads an import's marks from the item", () => {
    const pp = { PK: 'PRODUCT#p1', SK: 'PACKAGE#k1', entity: 'ProductPackage', uuid: 'pp1', dataspace: 'acme', productUuid: 'p1', packageUuid: 'k1', createdDate: 'x' };
    const change = changeRecordOf(record('INSERT', undefined, { ...pp, importWrite: 'i1:a:1', importProduct: 'p1' }));
    expect(change).toMatchObject({ entity: 'ProductPackage', eventName: 'INSERT', after: { record: { uuid: 'pp1', productUuid: 'p1' }, marks: { write: 'i1:a:1', product: 'p1' } } });
    expect(change.entity !== 'other' && change.before).toBeUndefined();
  });

  it('decodes a policy configuration into its dataspace and rules', () => {
    const config = { PK: 'DS#acme', SK: 'POLICYCONFIG', entity: 'PolicyConfig', dataspace: 'acme', rev: 1 };
    const change = changeRecordOf(record('INSERT', undefined, { ...config, rules: { license_coverage_gap: { is_active: true } } }));
    expect(change).toMatchObject({ entity: 'PolicyConfig', after: { record: { dataspace: 'acme', config: { license_coverage_gap: { is_active: true } } } } });
  });

  it('an item no evaluation reads is "other", and maps to nothing', () => {
    const grant = { PK: 'PRODUCT#p1', SK: 'GRANT#USER#bob', entity: 'ProductGrant', dataspace: 'acme', productUuid: 'p1' };
    const change = changeRecordOf(record('INSERT', undefined, grant));
    expect(change).toEqual({ entity: 'other', eventName: 'INSERT' });
    expect(changeTargets(change)).toEqual([]);
    expect(changeRecordOf(record('INSERT', undefined, { PK: 'MARK#1', SK: 'MARK#1' }))).toEqual({ entity: 'other', eventName: 'INSERT' });
  });
});
