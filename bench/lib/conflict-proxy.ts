/**
 * A proxy in front of DynamoDB Local that gives its transactions DynamoDB's isolation: DynamoDB
 * cancels a TransactWriteItems that touches an item another transaction is writing at that moment
 * (cancellation reason TransactionConflict), and refuses a PutItem, UpdateItem or DeleteItem of such
 * an item (TransactionConflictException); and a transaction resent with the token of one it is still
 * applying (the SDK's retry after a timeout) is refused with TransactionInProgressException. DynamoDB
 * Local runs transactions one at a time and does none of this, so write contention cannot be measured
 * on it alone.
 *
 * The model: an item is "being written" from the moment its transaction reaches the proxy until
 * DynamoDB Local has answered it. Everything else is forwarded untouched.
 */
import { startDynamoDbProxy } from './dynamodb-proxy.ts';

type AttributeValue = Record<string, unknown>;
type TransactItem = Record<string, { TableName?: string; Key?: Record<string, AttributeValue>; Item?: Record<string, AttributeValue> }>;

export interface ConflictProxy {
  readonly endpoint: string;
  /** Transactions cancelled and single writes refused for a conflict, and resends refused as in progress, since the start. */
  readonly conflicts: () => { transactions: number; writes: number; inProgress: number };
  stop(): Promise<void>;
}

const itemId = (table: string | undefined, key: Record<string, AttributeValue> | undefined) =>
  `${table ?? ''}\u0000${JSON.stringify(key?.PK ?? null)}\u0000${JSON.stringify(key?.SK ?? null)}`;

/** The items a write names, by table and key. */
function writtenItems(operation: string, body: Record<string, unknown>): string[] {
  if (operation === 'TransactWriteItems') {
    return ((body.TransactItems as TransactItem[] | undefined) ?? []).map((entry) => {
      const [action] = Object.values(entry);
      return itemId(action?.TableName, action?.Key ?? action?.Item);
    });
  }
  if (operation === 'PutItem') return [itemId(body.TableName as string, body.Item as Record<string, AttributeValue>)];
  if (operation === 'UpdateItem' || operation === 'DeleteItem') return [itemId(body.TableName as string, body.Key as Record<string, AttributeValue>)];
  return [];
}

export async function startConflictProxy(target: string): Promise<ConflictProxy> {
  const inFlight = new Map<string, number>();
  const tokensInFlight = new Set<string>();
  const counted = { transactions: 0, writes: 0, inProgress: 0 };

  const proxy = await startDynamoDbProxy(target, (call) => {
    const { operation, parsed } = call;
    const token = operation === 'TransactWriteItems' && typeof parsed.ClientRequestToken === 'string' ? parsed.ClientRequestToken : undefined;
    if (token !== undefined && tokensInFlight.has(token)) {
      counted.inProgress++;
      call.error('TransactionInProgressException', { message: 'The transaction with the given request token is already in progress.' });
      return;
    }
    const items = writtenItems(operation, parsed);
    const busy = items.map((id) => inFlight.has(id));
    if (busy.some(Boolean)) {
      if (operation === 'TransactWriteItems') {
        counted.transactions++;
        call.error('TransactionCanceledException', {
          message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${busy.map((b) => (b ? 'TransactionConflict' : 'None')).join(', ')}]`,
          fields: { CancellationReasons: busy.map((b) => (b ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' })) },
        });
      } else {
        counted.writes++;
        call.error('TransactionConflictException', { message: 'Transaction is ongoing for the item' });
      }
      return;
    }
    // Only transactions hold their items; a single write is atomic on its own.
    const held = operation === 'TransactWriteItems' ? items : [];
    for (const id of held) inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    if (token !== undefined) tokensInFlight.add(token);
    const release = () => {
      if (token !== undefined) tokensInFlight.delete(token);
      for (const id of held) {
        const left = (inFlight.get(id) ?? 1) - 1;
        if (left === 0) inFlight.delete(id);
        else inFlight.set(id, left);
      }
    };
    call.forward((status, headers, reply) => {
      release();
      call.res.writeHead(status, headers);
      call.res.end(reply);
    }, release);
  });

  return { endpoint: proxy.endpoint, conflicts: () => ({ ...counted }), stop: () => proxy.stop() };
}
