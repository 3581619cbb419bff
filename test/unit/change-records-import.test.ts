/**
 * The change records of an SBOM import's writes (shared/domain/change-records.ts): marked writes ask
 * for no evaluation of the importing product, the import finishing asks for one, and every other write
 * of the same items maps as it always did. The items are given as stored, and decoded as the stream
 * router decodes them (shared/store/change-targets.ts), import marks included.
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { byImport, changeTargets, type ChangeRecord } from '../../shared/domain/change-records.ts';
import { changeRecordOf } from '../../shared/store/change-targets.ts';

const pp = { entity: 'ProductPackage', dataspace: 'acme', productUuid: 'p1', packageUuid: 'k1', uuid: 'pp1' };
const pkg = { entity: 'Package', dataspace: 'acme', uuid: 'k1', licenseExpression: 'mit', vulnerabilities: {} };
const analysis = { entity: 'Analysis', dataspace: 'acme', productUuid: 'p1', packageUuid: 'k1', vulnerabilityId: 'CVE-1', state: 'in_triage' };
const record = { entity: 'SbomImport', dataspace: 'acme', productUuid: 'p1', uuid: 'i1' };
const marked = { importWrite: 'i1:a:1', importProduct: 'p1' };

type Stored = Record<string, unknown>;
/** The change record of a stream record with these images of the item. */
const change = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', oldImage: Stored | undefined, newImage: Stored | undefined): ChangeRecord =>
  changeRecordOf({
    eventName,
    dynamodb: {
      ...(oldImage ? { OldImage: marshall(oldImage) } : {}),
      ...(newImage ? { NewImage: marshall(newImage) } : {}),
    },
  } as DynamoDBRecord);
const insert = (newImage: Stored): ChangeRecord => change('INSERT', undefined, newImage);
const modify = (oldImage: Stored, newImage: Stored): ChangeRecord => change('MODIFY', oldImage, newImage);
const remove = (oldImage: Stored): ChangeRecord => change('REMOVE', oldImage, undefined);

describe('change records of SBOM imports', () => {
  it.each<[string, ChangeRecord, unknown[]]>([
    ['a product package the import adds', insert({ ...pp, ...marked }), []],
    ['a product package the API adds', insert(pp), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    ['a product package the import marks, then deletes', remove({ ...pp, ...marked, removedByImport: 'i1' }), []],
    ['a product package an import once wrote, deleted by the API', remove({ ...pp, ...marked }), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    ['an analysis the import writes', modify({ ...analysis, ...marked }, { ...analysis, state: 'resolved', importWrite: 'i1:a:2', importProduct: 'p1' }), []],
    ['an analysis the import marks for removal', modify(analysis, { ...analysis, removedByImport: 'i1' }), []],
    ['an analysis an import wrote, changed by the API', modify({ ...analysis, ...marked }, { ...analysis, state: 'resolved' }), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    [
      'a package whose vulnerabilities the import links (other holders only)',
      modify(pkg, { ...pkg, vulnerabilities: { 'CVE-1': { riskScore: 5, linkedDate: 'x' } }, ...marked }),
      [{ kind: 'package', dataspace: 'acme', uuid: 'k1', exceptProduct: 'p1' }],
    ],
    [
      'the same package linked again by the same import (a new token)',
      modify({ ...pkg, ...marked }, { ...pkg, vulnerabilities: { 'CVE-2': { riskScore: 5, linkedDate: 'x' } }, importWrite: 'i1:a:7', importProduct: 'p1' }),
      [{ kind: 'package', dataspace: 'acme', uuid: 'k1', exceptProduct: 'p1' }],
    ],
    [
      'a package an import wrote, linked later by the API (the token stays)',
      modify({ ...pkg, ...marked }, { ...pkg, ...marked, vulnerabilities: { 'CVE-3': { riskScore: 5, linkedDate: 'x' } } }),
      [{ kind: 'package', dataspace: 'acme', uuid: 'k1' }],
    ],
    ['an import that wrote something, finishing', modify({ ...record, status: 'running' }, { ...record, status: 'completed', changed: true }), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    ['a synchronous import stored finished', insert({ ...record, status: 'completed', changed: true }), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    ['an import that failed part-way', modify({ ...record, status: 'running' }, { ...record, status: 'failed', changed: true }), [{ kind: 'product', dataspace: 'acme', uuid: 'p1' }]],
    ['an import that wrote nothing', insert({ ...record, status: 'completed', changed: false }), []],
    ['an import starting', modify({ ...record, status: 'queued' }, { ...record, status: 'running' }), []],
  ])('%s', (_, change, targets) => {
    expect(changeTargets(change)).toEqual(targets);
  });

  it('tells an import write from another', () => {
    expect(byImport(insert({ ...pp, ...marked }))).toBe(true);
    expect(byImport(modify({ ...pp, ...marked }, { ...pp, ...marked }))).toBe(false);
    expect(byImport(modify({ ...pp, ...marked }, pp))).toBe(false);
    expect(byImport(remove(pp))).toBe(false);
  });
});
