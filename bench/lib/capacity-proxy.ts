/**
 * A proxy in front of DynamoDB Local that asks every data-plane call for its consumed capacity
 * (ReturnConsumedCapacity TOTAL, unless the caller asked for more) and adds it up, in read and write
 * units, whoever made the call: the API's functions, the stream router, the evaluator, the outbox
 * publisher, the webhook functions. So a scenario can put a figure on everything one API call costs
 * the table, the work it sets off in the pipeline included (bench/scenarios/api-capacity.ts).
 *
 * Stream reads (DynamoDB Streams' own API) are not counted: GetRecords made by a Lambda event source
 * mapping are not billed. A TransactWriteItems call's write units are computed from its items
 * (lib/transaction-units.ts): DynamoDB Local reports a transaction as if it had written one item. For
 * that the proxy reads each item before the transaction, and each updated item after it, directly from
 * DynamoDB Local. A BatchGetItem's keys that found nothing are charged as DynamoDB charges them (at
 * least 1 unit a key, 0.5 eventually consistent), which DynamoDB Local does not.
 */
import { DescribeTableCommand, DynamoDBClient, GetItemCommand, type AttributeValue, type TableDescription } from '@aws-sdk/client-dynamodb';
import { startDynamoDbProxy, type DynamoDbProxy, type ProxiedCall } from './dynamodb-proxy.ts';
import { transactionItemUnits, type Image } from './transaction-units.ts';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export interface Consumed {
  readUnits: number;
  writeUnits: number;
  /** Of writeUnits, those of the audit trail's records (the stream router's BatchWriteItem of AuditRecord items). */
  auditWriteUnits: number;
  /** Data-plane calls, by operation. */
  readonly calls: Record<string, number>;
  /**
   * Write units by what was written: the item's `entity`, else its sort key's first part (`COUNT`, …).
   * A BatchWriteItem's units are shared among its requests evenly (DynamoDB reports the call's total).
   */
  readonly writeUnitsBy?: Record<string, number>;
}

/** What a written item is, for writeUnitsBy: its entity, else the first part of its sort key. */
function writtenKind(item: Record<string, AttributeValue> | undefined, key?: Record<string, AttributeValue>): string {
  const entity = item?.entity?.S;
  if (entity) return entity;
  const sk = item?.SK?.S ?? key?.SK?.S;
  return sk ? `SK ${sk.split('#')[0]}` : 'unknown';
}

export interface CapacityProxy extends DynamoDbProxy {
  /** What was consumed since the last reset. */
  consumed(): Consumed;
  reset(): void;
  /** Milliseconds since the last data-plane call was answered (or made, while one is in flight). */
  idleMs(): number;
}

type TransactItem = Record<'Put' | 'Update' | 'Delete' | 'ConditionCheck', { TableName: string; Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> } | undefined>;

export async function startCapacityProxy(target: string): Promise<CapacityProxy> {
  let consumed: Consumed = { readUnits: 0, writeUnits: 0, auditWriteUnits: 0, calls: {}, writeUnitsBy: {} };
  const addBy = (counted: Consumed, kind: string, units: number) => {
    const by = counted.writeUnitsBy as Record<string, number>;
    by[kind] = (by[kind] ?? 0) + units;
  };
  let lastActivity = Date.now();
  let inFlight = 0;
  const direct = new DynamoDBClient({ region: 'us-east-1', endpoint: target, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const tables = new Map<string, Promise<TableDescription>>();
  const table = (name: string) => {
    let described = tables.get(name);
    if (!described) tables.set(name, (described = direct.send(new DescribeTableCommand({ TableName: name })).then((answer) => answer.Table!)));
    return described;
  };
  const image = async (tableName: string, key: Record<string, AttributeValue>): Promise<Image> =>
    (await direct.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  /** The write units of a transaction that committed, from its items' images before (read ahead) and after. */
  async function transactionUnits(items: readonly TransactItem[], before: readonly Image[], counted: Consumed): Promise<number> {
    let units = 0;
    for (const [i, item] of items.entries()) {
      const [kind, operation] = operationOf(item);
      const description = await table(operation.TableName);
      const key = keyOf(description, operation);
      const after = kind === 'Put' ? operation.Item : kind === 'Update' ? await image(operation.TableName, key) : kind === 'Delete' ? undefined : before[i];
      const itemUnits = transactionItemUnits(description, before[i], after);
      units += itemUnits;
      addBy(counted, writtenKind(after ?? before[i], key), itemUnits);
    }
    return units;
  }

  const proxy = await startDynamoDbProxy(target, (call) => {
    const read = READS.has(call.operation);
    if (!read && !WRITES.has(call.operation)) return call.forward();
    const counted = consumed;
    inFlight++;
    lastActivity = Date.now();
    const settle = () => {
      inFlight--;
      lastActivity = Date.now();
      counted.calls[call.operation] = (counted.calls[call.operation] ?? 0) + 1;
    };
    if (call.operation === 'TransactWriteItems') return void transaction(call, counted, settle);
    const asked = call.parsed.ReturnConsumedCapacity;
    const body = asked === 'TOTAL' || asked === 'INDEXES' ? call.body : Buffer.from(JSON.stringify({ ...call.parsed, ReturnConsumedCapacity: 'TOTAL' }));
    call.forward(
      (status, headers, answer) => {
        settle();
        const units = reportedUnits(answer) + (call.operation === 'BatchGetItem' && status === 200 ? missingItemUnits(call.parsed, answer) : 0);
        if (read) counted.readUnits += units;
        else {
          counted.writeUnits += units;
          const written = writtenItems(call.operation, call.parsed);
          for (const item of written) addBy(counted, item, units / Math.max(written.length, 1));
        }
        if (call.operation === 'BatchWriteItem' && writesAuditRecords(call.parsed)) counted.auditWriteUnits += units;
        pass(call, status, headers, answer);
      },
      settle,
      body,
    );
  });

  async function transaction(call: ProxiedCall, counted: Consumed, settle: () => void): Promise<void> {
    const items = (call.parsed.TransactItems ?? []) as TransactItem[];
    let before: Image[];
    try {
      before = await Promise.all(
        items.map(async (item) => {
          const [, operation] = operationOf(item);
          return image(operation.TableName, keyOf(await table(operation.TableName), operation));
        }),
      );
    } catch {
      before = items.map(() => undefined);
    }
    call.forward(
      (status, headers, answer) => {
        const done = status === 200 ? transactionUnits(items, before, counted).catch(() => 0) : Promise.resolve(0);
        void done.then((units) => {
          counted.writeUnits += units;
          settle();
          pass(call, status, headers, answer);
        });
      },
      settle,
    );
  }

  return {
    ...proxy,
    async stop() {
      direct.destroy();
      await proxy.stop();
    },
    consumed: () => ({ ...consumed, calls: { ...consumed.calls }, writeUnitsBy: { ...consumed.writeUnitsBy } }),
    reset: () => {
      consumed = { readUnits: 0, writeUnits: 0, auditWriteUnits: 0, calls: {}, writeUnitsBy: {} };
    },
    idleMs: () => (inFlight > 0 ? 0 : Date.now() - lastActivity),
  };
}

/** A transaction item's one operation, with its kind. */
function operationOf(item: TransactItem): [keyof TransactItem, NonNullable<TransactItem['Put']>] {
  return Object.entries(item).find(([, value]) => value !== undefined)! as [keyof TransactItem, NonNullable<TransactItem['Put']>];
}

/** The key of the item a transaction's operation writes (a Put names it through its item). */
function keyOf(table: TableDescription, operation: { Item?: Record<string, AttributeValue>; Key?: Record<string, AttributeValue> }): Record<string, AttributeValue> {
  if (operation.Key) return operation.Key;
  return Object.fromEntries((table.KeySchema ?? []).map((k) => [k.AttributeName!, operation.Item![k.AttributeName!]!]));
}

/**
 * What DynamoDB charges for the keys of a BatchGetItem that found no item, and DynamoDB Local does not:
 * each key is read as a GetItem, which costs at least 1 unit (0.5 eventually consistent), found or not.
 */
function missingItemUnits(request: Record<string, unknown>, answer: Buffer): number {
  try {
    const asked = (request.RequestItems ?? {}) as Record<string, { Keys: unknown[]; ConsistentRead?: boolean }>;
    const parsed = JSON.parse(answer.toString('utf8')) as { Responses?: Record<string, unknown[]>; UnprocessedKeys?: Record<string, { Keys: unknown[] }> };
    let units = 0;
    for (const [name, { Keys, ConsistentRead }] of Object.entries(asked)) {
      const missing = Keys.length - (parsed.Responses?.[name]?.length ?? 0) - (parsed.UnprocessedKeys?.[name]?.Keys.length ?? 0);
      units += Math.max(0, missing) * (ConsistentRead ? 1 : 0.5);
    }
    return units;
  } catch {
    return 0;
  }
}

/** True for a BatchWriteItem that puts audit records only (shared/store/audit-store.ts). */
function writesAuditRecords(request: Record<string, unknown>): boolean {
  const requests = Object.values((request.RequestItems ?? {}) as Record<string, { PutRequest?: { Item?: Record<string, AttributeValue> } }[]>).flat();
  return requests.length > 0 && requests.every((r) => r.PutRequest?.Item?.entity?.S === 'AuditRecord');
}

/** The capacity units DynamoDB Local reported in an answer (0 for an error). */
function reportedUnits(answer: Buffer): number {
  try {
    const parsed = JSON.parse(answer.toString('utf8')) as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] };
    const entries = Array.isArray(parsed.ConsumedCapacity) ? parsed.ConsumedCapacity : parsed.ConsumedCapacity ? [parsed.ConsumedCapacity] : [];
    return entries.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
  } catch {
    return 0;
  }
}

/** The answer as DynamoDB Local gave it (an extra ConsumedCapacity is a field the caller may get anyway). */
function pass(call: ProxiedCall, status: number, headers: Record<string, string | string[]>, answer: Buffer): void {
  headers['content-length'] = String(answer.length);
  call.res.writeHead(status, headers);
  call.res.end(answer);
}

/** The kinds of the items a single or batch write writes (writtenKind), one per item. */
function writtenItems(operation: string, parsed: Record<string, unknown>): string[] {
  if (operation === 'PutItem') return [writtenKind(parsed.Item as Record<string, AttributeValue>)];
  if (operation === 'UpdateItem' || operation === 'DeleteItem') return [writtenKind(undefined, parsed.Key as Record<string, AttributeValue>)];
  if (operation === 'BatchWriteItem') {
    const requests = Object.values((parsed.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: Record<string, AttributeValue> }; DeleteRequest?: { Key: Record<string, AttributeValue> } }[]>).flat();
    return requests.map((request) => writtenKind(request.PutRequest?.Item, request.DeleteRequest?.Key));
  }
  return [];
}
