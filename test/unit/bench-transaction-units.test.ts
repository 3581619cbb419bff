import { describe, expect, it } from 'vitest';
import type { TableDescription } from '@aws-sdk/client-dynamodb';
import { itemSize, transactionItemUnits } from '../../bench/lib/transaction-units.ts';

const table: TableDescription = {
  KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
  GlobalSecondaryIndexes: [
    { IndexName: 'all', KeySchema: [{ AttributeName: 'G1', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
    { IndexName: 'keys', KeySchema: [{ AttributeName: 'G2', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
  ],
};
const text = (bytes: number) => ({ S: 'x'.repeat(bytes) });

describe('write units of a transaction item, by DynamoDB rules (bench/lib/transaction-units.ts)', () => {
  it('sizes an item by its names and values', () => {
    expect(itemSize({ PK: { S: 'ab' }, n: { N: '123' }, ok: { BOOL: true } })).toBe(2 + 2 + 1 + 3 + 2 + 1);
    expect(itemSize({ m: { M: { a: { S: 'xy' } } } })).toBe(1 + 3 + 1 + 1 + 2);
    expect(itemSize(undefined)).toBe(0);
  });

  it('charges 2 units a KB for the table, rounded up, by the larger image', () => {
    const small = { PK: { S: 'p' }, SK: { S: 's' } };
    expect(transactionItemUnits(table, undefined, small)).toBe(2);
    expect(transactionItemUnits(table, undefined, { ...small, d: text(1500) })).toBe(4);
    expect(transactionItemUnits(table, { ...small, d: text(3000) }, small)).toBe(6);
  });

  it('adds a standard write of the projection for each index the item is in, two when the index key moves', () => {
    const base = { PK: { S: 'p' }, SK: { S: 's' }, d: text(1500) };
    expect(transactionItemUnits(table, undefined, { ...base, G1: { S: 'a' } })).toBe(4 + 2);
    expect(transactionItemUnits(table, undefined, { ...base, G2: { S: 'a' } })).toBe(4 + 1);
    expect(transactionItemUnits(table, { ...base, G1: { S: 'a' } }, { ...base, G1: { S: 'b' } })).toBe(4 + 2 + 2);
    expect(transactionItemUnits(table, { ...base, G1: { S: 'a' } }, undefined)).toBe(4 + 2);
    // A condition check changes nothing in the indexes.
    const checked = { ...base, G1: { S: 'a' } };
    expect(transactionItemUnits(table, checked, checked)).toBe(4);
  });
});
