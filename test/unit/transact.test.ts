/**
 * Transactions of labelled items (shared/store/dynamo.ts): a cancellation is read by what its items
 * stand for, not by their positions, so adding or reordering items keeps its meaning.
 */
import { describe, expect, it } from 'vitest';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { cancelledBecause, failedLabels, labelled, transact, type LabelledItem } from '../../shared/store/dynamo.ts';

/**
 * A client whose transactions fail as DynamoDB's do: one reason per item, in item order, a Put of a
 * key in `taken` failing its condition, every other item with `otherCode` (None: it would have succeeded).
 */
function fakeClient(taken: ReadonlySet<string>, otherCode = 'None') {
  const sent: unknown[][] = [];
  const client = {
    send: async (command: unknown) => {
      if (!(command instanceof TransactWriteCommand)) throw new Error('only transactions');
      const items = command.input.TransactItems ?? [];
      sent.push(items);
      const reasons = items.map((item) => ({ Code: taken.has(String(item.Put?.Item?.PK)) ? 'ConditionalCheckFailed' : otherCode }));
      if (reasons.some((reason) => reason.Code !== 'None')) {
        throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });
      }
      return { $metadata: {} };
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

const put = (label: string, PK: string): LabelledItem => ({
  label,
  item: { Put: { TableName: 't', Item: { PK, SK: PK }, ConditionExpression: 'attribute_not_exists(PK)' } },
});

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('transact', () => {
  it('sends the items in the order given and answers what DynamoDB answered', async () => {
    const { client, sent } = fakeClient(new Set());
    const output = await transact(client, [put('product', 'P'), put('name', 'N')], { ReturnConsumedCapacity: 'TOTAL' });
    expect(output).toEqual({ $metadata: {} });
    expect(sent).toEqual([[put('product', 'P').item, put('name', 'N').item]]);
  });

  it('names the items whose condition failed by their labels', async () => {
    const { client } = fakeClient(new Set(['N']));
    const error = await failureOf(transact(client, [put('product', 'P'), put('name', 'N'), put('grant', 'G')]));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect([...failedLabels(error)]).toEqual(['name']);
    expect(cancelledBecause(error, 'name')).toBe(true);
    expect(cancelledBecause(error, 'product')).toBe(false);
  });

  it('keeps the meaning of a cancellation when items are reordered or added in front', async () => {
    const { client } = fakeClient(new Set(['N']));
    const orders = [
      [put('product', 'P'), put('name', 'N'), put('grant', 'G')],
      [put('name', 'N'), put('grant', 'G'), put('product', 'P')],
      [put('audit', 'A'), put('grant', 'G'), put('product', 'P'), put('name', 'N')],
    ];
    for (const items of orders) {
      const error = await failureOf(transact(client, items));
      expect([...failedLabels(error)], items.map((i) => i.label).join(', ')).toEqual(['name']);
      expect(cancelledBecause(error, 'product')).toBe(false);
    }
  });

  it('reports a label once however many of its items failed, and every failed label', async () => {
    const { client } = fakeClient(new Set(['U1', 'U2', 'O']));
    const error = await failureOf(transact(client, [put('object', 'O'), put('use', 'U1'), put('reserve', 'R'), put('use', 'U2')]));
    expect([...failedLabels(error)].sort()).toEqual(['object', 'use']);
  });

  it('reads other reason codes when asked', async () => {
    const { client } = fakeClient(new Set(), 'TransactionConflict');
    const error = await failureOf(transact(client, [put('product', 'P'), put('name', 'N')]));
    expect([...failedLabels(error)]).toEqual([]);
    expect([...failedLabels(error, 'TransactionConflict')]).toEqual(['product', 'name']);
  });

  it('labels nothing of an error it did not see, or that was no cancellation', async () => {
    const foreign = new TransactionCanceledException({ message: 'x', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] });
    expect([...failedLabels(foreign)]).toEqual([]);
    expect([...failedLabels(new ConditionalCheckFailedException({ message: 'x', $metadata: {} }))]).toEqual([]);
    expect([...failedLabels(undefined)]).toEqual([]);
    const broken = { send: async () => Promise.reject(new Error('network')) } as unknown as DynamoDBDocumentClient;
    const error = await failureOf(transact(broken, [put('product', 'P')]));
    expect((error as Error).message).toBe('network');
    expect(cancelledBecause(error, 'product')).toBe(false);
  });

  it('labels a list of items with one label', () => {
    const items = [put('x', 'A').item, put('x', 'B').item];
    expect(labelled('counter', items)).toEqual([
      { label: 'counter', item: items[0] },
      { label: 'counter', item: items[1] },
    ]);
  });
});
