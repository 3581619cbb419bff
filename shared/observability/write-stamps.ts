/**
 * The table writes of an API request carry its correlation id (attribute `correlationId`), so that
 * the stream consumers its change wakes can carry it on (correlation.ts), and its actor (attribute
 * `actor`: the caller's username and key name, and when the write was sent), so that the audit writer
 * can say who made the change it sees in the stream, and when (the stream's own time is to the
 * second). Apart from correlation.ts because it needs the DynamoDB document client, which a function
 * without the table does not bundle.
 *
 * The actor on an item always names who made the write that wrote it, or no one: a put or update made
 * outside an API request names no user (the service's own stamped work still says when: actorStamp), or
 * drops the actor (a webhook's deliveries disabling it, the admin CLI, a migration). A delete has no new image to carry it in: an API request's delete of an audited
 * item (shared/keys.ts isAuditedKey) writes that item's deletion marker with it, naming the actor, which
 * the audit writer reads on the REMOVE (see stampingWrites).
 */
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isAuditedKey, keys, type Key } from '../keys.ts';
import { TABLE } from '../table.ts';
import { CORRELATION_ATTRIBUTE } from './correlation.ts';
import { currentScope, type WriteActor } from './scope.ts';

/** The item attribute that names who made the write that wrote the item (shared/domain/audit.ts actorOf). */
export const ACTOR_ATTRIBUTE = 'actor';
/** How long a deletion marker is kept: longer than the table stream keeps a record (24 hours). */
const MARKER_TTL_SECONDS = 2 * 86_400;

/** What the writes of the current piece of work carry: its correlation id when it stamps, its actor when it has one. */
function currentStamps(): Stamps {
  const scope = currentScope();
  return { id: scope?.stampWrites ? scope.correlationId : undefined, actor: scope?.stampWrites ? scope.actor : undefined };
}

interface Stamps {
  readonly id: string | undefined;
  readonly actor: WriteActor | undefined;
}

const NAME = `#${CORRELATION_ATTRIBUTE}`;
const VALUE = `:${CORRELATION_ATTRIBUTE}`;
const ACTOR_NAME = `#${ACTOR_ATTRIBUTE}`;
const ACTOR_VALUE = `:${ACTOR_ATTRIBUTE}`;

type UpdateInput = UpdateCommand['input'];

/**
 * An update expression that also sets the correlation attribute. DynamoDB allows each clause once, so
 * the assignment joins the SET clause when there is one (SET is a reserved word: it can only be the
 * clause keyword, and the service writes clause keywords upper-case), else becomes one.
 */
export function stampUpdateExpression(expression: string | undefined, assignment = `${NAME} = ${VALUE}`): string {
  return joinClause(expression, 'SET', assignment);
}

/** The expression with `part` joined to its `clause` (SET or REMOVE), or that clause added first. */
function joinClause(expression: string | undefined, clause: 'SET' | 'REMOVE', part: string): string {
  if (expression === undefined || expression.trim() === '') return `${clause} ${part}`;
  const match = new RegExp(`(^|\\s)${clause}\\s`).exec(expression);
  if (!match) return `${clause} ${part} ${expression}`;
  const at = match.index + match[0].length;
  return `${expression.slice(0, at)}${part}, ${expression.slice(at)}`;
}

function stampUpdate<U extends Pick<UpdateInput, 'Key' | 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>(update: U, stamps: Stamps): U {
  let expression = update.UpdateExpression;
  const names: Record<string, string> = { ...update.ExpressionAttributeNames, [ACTOR_NAME]: ACTOR_ATTRIBUTE };
  const values: Record<string, unknown> = { ...update.ExpressionAttributeValues };
  if (stamps.id !== undefined) {
    expression = stampUpdateExpression(expression);
    names[NAME] = CORRELATION_ATTRIBUTE;
    values[VALUE] = stamps.id;
  }
  const actor = actorStamp(stamps, update.Key);
  if (actor !== undefined) {
    expression = joinClause(expression, 'SET', `${ACTOR_NAME} = ${ACTOR_VALUE}`);
    values[ACTOR_VALUE] = actor;
  } else {
    expression = joinClause(expression, 'REMOVE', ACTOR_NAME);
  }
  return {
    ...update,
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/** The actor as an item holds it, with when the write was sent (the audit record's date, to the millisecond). */
/**
 * The actor attribute of a write. A job's write (an SBOM import's) carries the job alone: the audit trail
 * records the job once and skips its writes, so who and when would be bytes on every item it writes
 * (and on their index copies) that nothing reads.
 */
const actorValue = (actor: WriteActor) =>
  actor.via !== undefined
    ? { via: actor.via }
    : { user: actor.user, ...(actor.key === undefined ? {} : { key: actor.key }), at: new Date().toISOString() };

/**
 * What a write's `actor` becomes: the API caller's; for an audited item written by the service's own
 * stamped work (the waiver expiry job, an import no one is named for) no user, but when (so its audit
 * record is dated to the millisecond, not by the stream's coarser clock); otherwise nothing (removed).
 */
function actorStamp(stamps: Stamps, key: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (stamps.actor !== undefined) return actorValue(stamps.actor);
  // Only on the items the audit trail records: an evaluation's own items stay as small as they were.
  return stamps.id !== undefined && isAuditedKey(key) ? { at: new Date().toISOString() } : undefined;
}

function stampItem<I extends Record<string, unknown> | undefined>(item: I, stamps: Stamps): I {
  const { [ACTOR_ATTRIBUTE]: _dropped, ...rest } = item ?? {};
  const actor = actorStamp(stamps, item);
  return {
    ...rest,
    ...(stamps.id === undefined ? {} : { [CORRELATION_ATTRIBUTE]: stamps.id }),
    ...(actor === undefined ? {} : { [ACTOR_ATTRIBUTE]: actor }),
  } as I;
}

/** A command as the client's send takes it; only the document client's write commands are rewritten. */
type Command = object;

/** The command with its puts and updates stamped; any other command as it is. */
function stamped(command: Command, stamps: Stamps): Command {
  if (command instanceof PutCommand) return new PutCommand({ ...command.input, Item: stampItem(command.input.Item, stamps) });
  if (command instanceof UpdateCommand) return new UpdateCommand(stampUpdate(command.input, stamps));
  if (command instanceof TransactWriteCommand) {
    return new TransactWriteCommand({
      ...command.input,
      TransactItems: command.input.TransactItems?.map((item) => {
        if (item.Put) return { ...item, Put: { ...item.Put, Item: stampItem(item.Put.Item, stamps) } };
        if (item.Update) return { ...item, Update: stampUpdate(item.Update, stamps) };
        return item;
      }),
    });
  }
  return command;
}

/** DynamoDB's limit of items in one TransactWriteItems. */
const MAX_TRANSACTION_ITEMS = 100;

/** The audited items a transaction deletes, with their table. */
function auditedDeletes(command: TransactWriteCommand): { table: string; key: Key }[] {
  return (command.input.TransactItems ?? [])
    .flatMap((item) => (item.Delete && isAuditedKey(item.Delete.Key) ? [{ table: String(item.Delete.TableName), key: item.Delete.Key as Key }] : []));
}

/** True when a command outside a transaction deletes an audited item: its marker could not be written with it. */
function deletesAuditedAlone(command: Command): boolean {
  if (command instanceof DeleteCommand) return isAuditedKey(command.input.Key);
  if (command instanceof BatchWriteCommand) {
    return Object.values(command.input.RequestItems ?? {}).some((requests) => requests.some((request) => request.DeleteRequest && isAuditedKey(request.DeleteRequest.Key)));
  }
  return false;
}

/**
 * The document client, made to stamp the puts and updates (single or in a transaction) with the
 * correlation id of a piece of work that stamps its writes, and with its actor (or to drop the actor:
 * see the module's head), and to write the deletion markers of an API request's audited deletes. Batch
 * writes are left as they are.
 *
 * A marker is written in the delete's own transaction, so that a delete refused (its condition failed:
 * a stale ETag, an object still in use) leaves nothing behind. The API deletes audited items only in
 * transactions; a lone DeleteItem or a batch delete of one is refused here, so that none slips in. A
 * transaction with no room left for its markers (a product's contents, deleted 90 at a time) has them
 * written just before it instead: such a transaction only follows an accepted delete.
 */
export function stampingWrites(doc: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = doc.send.bind(doc) as (command: Command, options?: unknown) => Promise<unknown>;
  const stampingSend = async (command: Command, options?: unknown): Promise<unknown> => {
    const stamps = currentStamps();
    const sending = stamped(command, stamps);
    if (stamps.actor === undefined) return send(sending, options);
    if (deletesAuditedAlone(command)) throw new Error('An audited item must be deleted in a transaction, which carries its deletion marker (shared/observability/write-stamps.ts)');
    if (!(sending instanceof TransactWriteCommand)) return send(sending, options);
    const expiresAt = Math.floor(Date.now() / 1000) + MARKER_TTL_SECONDS;
    const markers = auditedDeletes(sending).map(({ table, key }) => ({
      TableName: table,
      Item: { ...keys.deletionMarker(key), entity: 'DeletionMarker', [ACTOR_ATTRIBUTE]: actorValue(stamps.actor!), [TABLE.ttlAttribute]: expiresAt },
    }));
    if (markers.length === 0) return send(sending, options);
    const items = sending.input.TransactItems ?? [];
    if (items.length + markers.length <= MAX_TRANSACTION_ITEMS) {
      // After the command's own items: the indexes of its cancellation reasons stay those of its items.
      return send(new TransactWriteCommand({ ...sending.input, TransactItems: [...items, ...markers.map((Put) => ({ Put }))] }), options);
    }
    for (let i = 0; i < markers.length; i += 25) {
      const byTable: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> = {};
      for (const { TableName, Item } of markers.slice(i, i + 25)) (byTable[TableName] ??= []).push({ PutRequest: { Item } });
      let unprocessed: typeof byTable | undefined = byTable;
      for (let attempt = 0; unprocessed && Object.keys(unprocessed).length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** Math.min(attempt, 6)));
        const result = (await send(new BatchWriteCommand({ RequestItems: unprocessed }), options)) as { UnprocessedItems?: typeof byTable } | undefined;
        unprocessed = result?.UnprocessedItems;
      }
    }
    return send(sending, options);
  };
  doc.send = stampingSend as DynamoDBDocumentClient['send'];
  return doc;
}
