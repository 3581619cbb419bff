/**
 * The table writes of an API request carry its correlation id (attribute `correlationId`), so that
 * the stream consumers its change wakes can carry it on (correlation.ts). Apart from correlation.ts
 * because it needs the DynamoDB document client, which a function without the table does not bundle.
 */
import { PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CORRELATION_ATTRIBUTE } from './correlation.ts';
import { currentScope } from './scope.ts';

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
