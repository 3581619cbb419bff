/**
 * The table writes of an API request carry its correlation id (attribute `correlationId`), so that
 * the stream consumers its change wakes can carry it on (correlation.ts), and its actor (attribute
 * `actor`: the caller's username and key name, and when the write was sent), so that the audit writer
 * can say who made the change it sees in the stream, and when (the stream's own time is to the second). Apart from correlation.ts because it needs the DynamoDB document client, which
 * a function without the table does not bundle.
 *
 * The actor on an item always names who made the write that wrote it, or is absent: a put or update
 * made outside an API request (an SBOM import, a webhook's deliveries disabling it, the admin CLI, a
 * migration) drops it. A delete has no new image to carry it in: an API request's delete of an audited
 * item (shared/keys.ts isAuditedKey) first writes that item's deletion marker, naming the actor, which
 * the audit writer reads on the REMOVE (written before, not in the delete's transaction, which may
 * already be near DynamoDB's 100 items; a delete that then fails leaves a marker that expires).
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

function stampUpdate<U extends Pick<UpdateInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>(update: U, stamps: Stamps): U {
  let expression = update.UpdateExpression;
  const names: Record<string, string> = { ...update.ExpressionAttributeNames, [ACTOR_NAME]: ACTOR_ATTRIBUTE };
  const values: Record<string, unknown> = { ...update.ExpressionAttributeValues };
  if (stamps.id !== undefined) {
    expression = stampUpdateExpression(expression);
    names[NAME] = CORRELATION_ATTRIBUTE;
    values[VALUE] = stamps.id;
  }
  if (stamps.actor !== undefined) {
    expression = joinClause(expression, 'SET', `${ACTOR_NAME} = ${ACTOR_VALUE}`);
    values[ACTOR_VALUE] = actorValue(stamps.actor);
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
const actorValue = (actor: WriteActor) => ({ user: actor.user, ...(actor.key === undefined ? {} : { key: actor.key }), at: new Date().toISOString() });

function stampItem<I extends Record<string, unknown> | undefined>(item: I, stamps: Stamps): I {
  const { [ACTOR_ATTRIBUTE]: _dropped, ...rest } = item ?? {};
  return {
    ...rest,
    ...(stamps.id === undefined ? {} : { [CORRELATION_ATTRIBUTE]: stamps.id }),
    ...(stamps.actor === undefined ? {} : { [ACTOR_ATTRIBUTE]: actorValue(stamps.actor) }),
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

/** The audited items a command deletes, with their table. */
function auditedDeletes(command: Command): { table: string; key: Key }[] {
  const deletes =
    command instanceof DeleteCommand
      ? [command.input]
      : command instanceof TransactWriteCommand
        ? (command.input.TransactItems ?? []).flatMap((item) => (item.Delete ? [item.Delete] : []))
        : [];
  return deletes.filter((d) => isAuditedKey(d.Key)).map((d) => ({ table: String(d.TableName), key: d.Key as Key }));
}

/**
 * The document client, made to stamp the puts and updates (single or in a transaction) with the
 * correlation id of a piece of work that stamps its writes, and with its actor (or to drop the actor:
 * see the module's head), and to write the deletion markers of an API request's audited deletes. Batch
 * writes (an SBOM import's bulk) are left as they are: an import's items carry no actor.
 */
export function stampingWrites(doc: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = doc.send.bind(doc) as (command: Command, options?: unknown) => Promise<unknown>;
  const stampingSend = async (command: Command, options?: unknown): Promise<unknown> => {
    const stamps = currentStamps();
    if (stamps.actor !== undefined) {
      const deleted = auditedDeletes(command);
      const expiresAt = Math.floor(Date.now() / 1000) + MARKER_TTL_SECONDS;
      for (let i = 0; i < deleted.length; i += 25) {
        const chunk = deleted.slice(i, i + 25);
        const byTable: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> = {};
        for (const { table, key } of chunk) {
          (byTable[table] ??= []).push({
            PutRequest: { Item: { ...keys.deletionMarker(key), entity: 'DeletionMarker', [ACTOR_ATTRIBUTE]: actorValue(stamps.actor), [TABLE.ttlAttribute]: expiresAt } },
          });
        }
        let unprocessed: typeof byTable | undefined = byTable;
        for (let attempt = 0; unprocessed && Object.keys(unprocessed).length > 0; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** Math.min(attempt, 6)));
          const result = (await send(new BatchWriteCommand({ RequestItems: unprocessed }), options)) as { UnprocessedItems?: typeof byTable } | undefined;
          unprocessed = result?.UnprocessedItems;
        }
      }
    }
    return send(stamped(command, stamps), options);
  };
  doc.send = stampingSend as DynamoDBDocumentClient['send'];
  return doc;
}
