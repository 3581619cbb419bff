/**
 * One correlation id per path through the service. A client may give it in the X-Correlation-Id
 * header of an API request (else the API Gateway request id is used) and gets it back in the answer's
 * header. The path then carries it on explicitly:
 *
 *   API request ─ table writes (attribute `correlationId`, stamped here) ─ stream record
 *     ─ stream router ─ evaluation message (`correlationId`) ─ evaluator
 *     ─ outbox event and event envelope (`correlation_id`) ─ outbox publisher ─ event bus
 *     ─ webhook fan-out ─ delivery message (`correlationId`) ─ webhook delivery (header X-Correlation-Id)
 *
 * and every log line of every function on it carries `correlation_id` (logger.ts), so one id finds the
 * whole path in the logs (a CloudWatch Logs Insights query over the functions' log groups).
 */
import { PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { currentScope } from './scope.ts';

/** The request and answer header (API Gateway hands handlers lower-cased header names). */
export const CORRELATION_HEADER = 'X-Correlation-Id';

/** The item attribute that names the correlation id of the API request that last wrote the item. */
export const CORRELATION_ATTRIBUTE = 'correlationId';

/**
 * What a given correlation id may be: 1 to 128 characters of letters, digits and `-_.:/+=@~`, which
 * covers UUIDs, W3C trace ids and API Gateway's own request ids, and keeps log lines and headers plain.
 */
export const VALID_CORRELATION_ID = /^[A-Za-z0-9\-_.:/+=@~]{1,128}$/;

export const INVALID_CORRELATION_ID = `Invalid ${CORRELATION_HEADER} header: give 1 to 128 letters, digits or - _ . : / + = @ ~.`;

/**
 * The correlation id of an API request: its header's (`valid: false` when the header is there but
 * malformed, which the API refuses with 400), else the request id.
 */
export function requestCorrelationId(headers: Readonly<Record<string, string | undefined>> | undefined, requestId: string): { id: string; valid: boolean } {
  const given = headers?.[CORRELATION_HEADER.toLowerCase()];
  if (given === undefined) return { id: requestId, valid: true };
  return VALID_CORRELATION_ID.test(given) ? { id: given, valid: true } : { id: requestId, valid: false };
}

/** A correlation id read from a message, an event or an item: kept when well-formed, else none. */
export function carriedCorrelationId(value: unknown): string | undefined {
  return typeof value === 'string' && VALID_CORRELATION_ID.test(value) ? value : undefined;
}

/**
 * The correlation id a stream record carries: the new image's (a REMOVE has none, and the old image's
 * is the id of an earlier write, not of the delete).
 */
export function streamCorrelationId(record: DynamoDBRecord): string | undefined {
  return carriedCorrelationId(record.dynamodb?.NewImage?.[CORRELATION_ATTRIBUTE]?.S);
}

/** The id the writes of the current piece of work carry, when it stamps its writes. */
function stampId(): string | undefined {
  const scope = currentScope();
  return scope?.stampWrites ? scope.correlationId : undefined;
}

const NAME = `#${CORRELATION_ATTRIBUTE}`;
const VALUE = `:${CORRELATION_ATTRIBUTE}`;

type UpdateInput = UpdateCommand['input'];

/**
 * An update expression that also sets the correlation attribute. DynamoDB allows each clause once, so
 * the assignment joins the SET clause when there is one (SET is a reserved word: it can only be the
 * clause keyword, and the service writes clause keywords upper-case), else becomes one.
 */
export function stampUpdateExpression(expression: string | undefined): string {
  const assignment = `${NAME} = ${VALUE}`;
  if (expression === undefined || expression.trim() === '') return `SET ${assignment}`;
  const match = /(^|\s)SET\s/.exec(expression);
  if (!match) return `SET ${assignment} ${expression}`;
  const at = match.index + match[0].length;
  return `${expression.slice(0, at)}${assignment}, ${expression.slice(at)}`;
}

function stampUpdate<U extends Pick<UpdateInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>(update: U, id: string): U {
  return {
    ...update,
    UpdateExpression: stampUpdateExpression(update.UpdateExpression),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, [NAME]: CORRELATION_ATTRIBUTE },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, [VALUE]: id },
  };
}

/** A command as the client's send takes it; only the document client's write commands are rewritten. */
type Command = object;

/** The command with its puts and updates stamped with `id`; any other command as it is. */
function stamped(command: Command, id: string): Command {
  if (command instanceof PutCommand) return new PutCommand({ ...command.input, Item: { ...command.input.Item, [CORRELATION_ATTRIBUTE]: id } });
  if (command instanceof UpdateCommand) return new UpdateCommand(stampUpdate(command.input, id));
  if (command instanceof TransactWriteCommand) {
    return new TransactWriteCommand({
      ...command.input,
      TransactItems: command.input.TransactItems?.map((item) => {
        if (item.Put) return { ...item, Put: { ...item.Put, Item: { ...item.Put.Item, [CORRELATION_ATTRIBUTE]: id } } };
        if (item.Update) return { ...item, Update: stampUpdate(item.Update, id) };
        return item;
      }),
    });
  }
  return command;
}

/**
 * The document client, made to stamp the puts and updates (single or in a transaction) of a piece of
 * work that stamps its writes with its correlation id. Batch writes (an SBOM import's bulk) and deletes
 * carry none: a stream record of a delete has no new image to carry it in.
 */
export function stampingWrites(doc: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = doc.send.bind(doc) as (command: Command, options?: unknown) => Promise<unknown>;
  const stampingSend = (command: Command, options?: unknown): Promise<unknown> => {
    const id = stampId();
    return send(id === undefined ? command : stamped(command, id), options);
  };
  doc.send = stampingSend as DynamoDBDocumentClient['send'];
  return doc;
}
