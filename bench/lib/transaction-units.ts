/**
 * The write units a TransactWriteItems call costs on DynamoDB, computed from its items, because
 * DynamoDB Local reports a transaction's consumed capacity as if it had written one item (measured:
 * 2 units for 1, 10 or 50 small puts, 4 with a global secondary index; 50 for a BatchWriteItem of 25
 * such puts, as DynamoDB charges).
 *
 * DynamoDB's rules, as documented (Developer Guide, "Capacity management for transactions" and "Item
 * sizes and formats"): each item of a transaction is written twice (prepare and commit), so it costs 2
 * write units per KB, rounded up, of the larger of its size before and after; a ConditionCheck is
 * counted here as such a write. A global secondary index the item is in before or after costs a
 * standard write of its projection (1 unit per KB), two when the index key changes (a delete and a put).
 * The sizes before and after are read from the table by the caller (lib/capacity-proxy.ts).
 */
import type { AttributeValue, TableDescription } from '@aws-sdk/client-dynamodb';

export type Image = Record<string, AttributeValue> | undefined;

/** An item's size as DynamoDB counts it: each attribute's name and value, in bytes. */
export function itemSize(item: Image): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS) return value.BS.reduce((sum, b) => sum + b.length, 0);
  if (value.L) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element), 0);
  return 0;
}

/** A number: about one byte per two significant digits, plus one. */
function numberSize(n: string): number {
  const digits = n.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** The item as an index holds it, or undefined when the item is not in the index (a key attribute missing). */
function projected(index: NonNullable<TableDescription['GlobalSecondaryIndexes']>[number], table: TableDescription, item: Image): Image {
  if (!item) return undefined;
  const indexKeys = (index.KeySchema ?? []).map((k) => k.AttributeName!);
  if (!indexKeys.every((name) => item[name] !== undefined)) return undefined;
  const projection = index.Projection?.ProjectionType ?? 'ALL';
  if (projection === 'ALL') return item;
  const keep = new Set([...indexKeys, ...(table.KeySchema ?? []).map((k) => k.AttributeName!), ...(projection === 'INCLUDE' ? (index.Projection?.NonKeyAttributes ?? []) : [])]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => keep.has(name)));
}

/** The write units of one item of a transaction, from its images before and after. */
export function transactionItemUnits(table: TableDescription, before: Image, after: Image): number {
  let units = 2 * kb(Math.max(itemSize(before), itemSize(after)));
  for (const index of table.GlobalSecondaryIndexes ?? []) {
    const old = projected(index, table, before);
    const now = projected(index, table, after);
    if (!old && !now) continue;
    const keys = (index.KeySchema ?? []).map((k) => k.AttributeName!);
    const keyChanged = old && now && keys.some((name) => JSON.stringify(old[name]) !== JSON.stringify(now[name]));
    if (old && now && !keyChanged && JSON.stringify(old) === JSON.stringify(now)) continue;
    if (keyChanged) units += kb(itemSize(old)) + kb(itemSize(now));
    else units += kb(Math.max(itemSize(old), itemSize(now)));
  }
  return units;
}
