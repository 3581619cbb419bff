/**
 * The parts of the correlation path and the metrics that can be checked without a stack: which header
 * values are ids, how table writes are stamped (and which are not), that concurrent invocations keep
 * their own ids and their own metrics, and that a message failing its last receive counts as
 * dead-lettered. test/e2e/correlation.test.ts follows one id through the whole local stack.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { carriedCorrelationId, requestCorrelationId, streamCorrelationId } from '../../shared/observability/correlation.ts';
import { stampUpdateExpression, stampingWrites } from '../../shared/observability/write-stamps.ts';
import { currentCorrelationId, instrumented, withCorrelation, withWriteStamps } from '../../shared/observability/invocation.ts';
import { countMetric } from '../../shared/observability/metrics.ts';
import { runAsPartOf } from '../../shared/observability/scope.ts';
import { processQueueBatch } from '../../shared/aws/partial-batch.ts';
import { QUEUES } from '../../shared/resources.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';

describe('the X-Correlation-Id header', () => {
  it.each([
    ['a UUID', '0b6a1d5e-3c1f-4f6e-9a51-2f3f6b0b9e11'],
    ['a W3C traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['an API Gateway request id', 'JbNbRhy2IAMEMbA='],
    ['128 characters', 'x'.repeat(128)],
  ])('takes %s as the id', (_, value) => {
    expect(requestCorrelationId({ 'x-correlation-id': value }, 'request-id')).toEqual({ id: value, valid: true });
  });

  it.each([
    ['empty', ''],
    ['with a space', 'two words'],
    ['129 characters', 'x'.repeat(129)],
    ['with a line break', 'a\nb'],
    ['with a quote', 'a"b'],
    ['non-ASCII', 'é'],
  ])('refuses one %s, and answers with the request id', (_, value) => {
    expect(requestCorrelationId({ 'x-correlation-id': value }, 'request-id')).toEqual({ id: 'request-id', valid: false });
    expect(carriedCorrelationId(value)).toBeUndefined();
  });

  it('uses the request id when no header is given', () => {
    expect(requestCorrelationId({}, 'request-id')).toEqual({ id: 'request-id', valid: true });
    expect(requestCorrelationId(undefined, 'request-id')).toEqual({ id: 'request-id', valid: true });
  });

  it('reads the id a stream record carries from its new image only', () => {
    const image = { correlationId: { S: 'abc' } };
    expect(streamCorrelationId({ eventName: 'MODIFY', dynamodb: { NewImage: image, OldImage: { correlationId: { S: 'old' } } } })).toBe('abc');
    expect(streamCorrelationId({ eventName: 'REMOVE', dynamodb: { OldImage: image } })).toBeUndefined();
    expect(streamCorrelationId({ eventName: 'INSERT', dynamodb: { NewImage: { correlationId: { S: 'not valid' } } } })).toBeUndefined();
  });
});

describe('stamping table writes', () => {
  it.each([
    [undefined, 'SET #correlationId = :correlationId'],
    ['SET #a = :a', 'SET #correlationId = :correlationId, #a = :a'],
    ['ADD #n :one', 'SET #correlationId = :correlationId ADD #n :one'],
    ['REMOVE #gone SET #a = :a', 'REMOVE #gone SET #correlationId = :correlationId, #a = :a'],
    ['ADD #set :one SET #a = :set', 'ADD #set :one SET #correlationId = :correlationId, #a = :set'],
  ])('joins the update expression %j to the SET clause', (expression, stamped) => {
    expect(stampUpdateExpression(expression)).toBe(stamped);
  });

  /** A document client whose send records the commands it would send. */
  function recordingClient() {
    const sent: object[] = [];
    const doc = { send: async (command: object) => void sent.push(command) } as unknown as DynamoDBDocumentClient;
    return { doc: stampingWrites(doc), sent };
  }

  const put = () => new PutCommand({ TableName: 't', Item: { PK: 'a', SK: 'a' } });
  const update = () =>
    new UpdateCommand({ TableName: 't', Key: { PK: 'a', SK: 'a' }, UpdateExpression: 'SET #v = :v', ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':v': 1 } });
  const transaction = () =>
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: 't', Item: { PK: 'b', SK: 'b' } } },
        { Update: { TableName: 't', Key: { PK: 'c', SK: 'c' }, UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': 1 } } },
        { ConditionCheck: { TableName: 't', Key: { PK: 'd', SK: 'd' }, ConditionExpression: 'attribute_exists(PK)' } },
        { Delete: { TableName: 't', Key: { PK: 'e', SK: 'e' } } },
      ],
    });

  it("stamps the puts and updates of a request's route, single and in transactions, and nothing else", async () => {
    const { doc, sent } = recordingClient();
    await withCorrelation('id-1', () => withWriteStamps(async () => {
      await doc.send(put());
      await doc.send(update());
      await doc.send(transaction());
      await doc.send(new DeleteCommand({ TableName: 't', Key: { PK: 'a', SK: 'a' } }));
    }));
    const [stampedPut, stampedUpdate, stampedTransaction, deleted] = sent as [PutCommand, UpdateCommand, TransactWriteCommand, DeleteCommand];
    expect(stampedPut.input.Item).toEqual({ PK: 'a', SK: 'a', correlationId: 'id-1' });
    expect(stampedUpdate.input).toMatchObject({
      // No caller in this work (the service's own), and no audited item: the update drops an earlier write's actor.
      UpdateExpression: 'REMOVE #actor SET #correlationId = :correlationId, #v = :v',
      ExpressionAttributeNames: { '#v': 'v', '#correlationId': 'correlationId', '#actor': 'actor' },
      ExpressionAttributeValues: { ':v': 1, ':correlationId': 'id-1' },
    });
    const items = stampedTransaction.input.TransactItems!;
    expect(items[0]!.Put!.Item).toEqual({ PK: 'b', SK: 'b', correlationId: 'id-1' });
    expect(items[1]!.Update!.UpdateExpression).toBe('REMOVE #actor SET #correlationId = :correlationId ADD #n :one');
    expect(items[2]).toEqual(transaction().input.TransactItems![2]);
    expect(items[3]).toEqual(transaction().input.TransactItems![3]);
    expect(deleted.input).toEqual({ TableName: 't', Key: { PK: 'a', SK: 'a' } });
  });

  it("dates an audited item the service's own work writes, naming no one", async () => {
    const { doc, sent } = recordingClient();
    await withCorrelation('id-6', () => withWriteStamps(async () => {
      await doc.send(new PutCommand({ TableName: 't', Item: { PK: 'PRODUCT#p', SK: 'WAIVER#w', actor: { user: 'earlier' } } }));
      await doc.send(new UpdateCommand({ TableName: 't', Key: { PK: 'PRODUCT#p', SK: 'WAIVER#w' }, UpdateExpression: 'SET #v = :v', ExpressionAttributeNames: { '#v': 'v' }, ExpressionAttributeValues: { ':v': 1 } }));
    }));
    const when = { at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) };
    expect((sent[0] as PutCommand).input.Item).toEqual({ PK: 'PRODUCT#p', SK: 'WAIVER#w', correlationId: 'id-6', actor: when });
    expect((sent[1] as UpdateCommand).input.UpdateExpression).toBe('SET #actor = :actor, #correlationId = :correlationId, #v = :v');
    expect((sent[1] as UpdateCommand).input.ExpressionAttributeValues).toEqual({ ':v': 1, ':correlationId': 'id-6', ':actor': when });
  });

  it('stamps no correlation id outside a stamping piece of work, and drops the actor there', async () => {
    const { doc, sent } = recordingClient();
    await doc.send(new PutCommand({ TableName: 't', Item: { PK: 'a', SK: 'a', actor: { user: 'earlier' } } }));
    await withCorrelation('id-2', async () => doc.send(update()));
    expect((sent[0] as PutCommand).input.Item).toEqual({ PK: 'a', SK: 'a' });
    expect((sent[1] as UpdateCommand).input.UpdateExpression).toBe('REMOVE #actor SET #v = :v');
  });

  it("stamps an API request's actor, and writes a deletion marker in an audited delete's transaction", async () => {
    const { doc, sent } = recordingClient();
    const deleteOf = (PK: string, SK: string) => ({ Delete: { TableName: 't', Key: { PK, SK }, ConditionExpression: 'attribute_exists(PK)' } });
    await withCorrelation('id-3', () => withWriteStamps(async () => {
      await doc.send(put());
      await doc.send(update());
      await doc.send(new TransactWriteCommand({ TransactItems: [deleteOf('WEBHOOK#w', 'WEBHOOK'), deleteOf('X#1', 'X')] }));
      await doc.send(new DeleteCommand({ TableName: 't', Key: { PK: 'RATE#k', SK: 'RATE' } }));
    }, { user: 'alice', key: 'ci' }));
    expect((sent[0] as PutCommand).input.Item).toEqual({ PK: 'a', SK: 'a', correlationId: 'id-3', actor: { user: 'alice', key: 'ci', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) } });
    expect((sent[1] as UpdateCommand).input.UpdateExpression).toBe('SET #actor = :actor, #correlationId = :correlationId, #v = :v');
    expect((sent[1] as UpdateCommand).input.ExpressionAttributeValues).toMatchObject({ ':actor': { user: 'alice', key: 'ci' } });
    // The marker of the audited delete rides in its transaction, after the command's own items; the other item is not audited.
    const items = (sent[2] as TransactWriteCommand).input.TransactItems!;
    expect(items.slice(0, 2)).toEqual([deleteOf('WEBHOOK#w', 'WEBHOOK'), deleteOf('X#1', 'X')]);
    expect(items[2]!.Put!.Item).toMatchObject({ PK: 'DELETEDBY#WEBHOOK#w', SK: 'WEBHOOK', entity: 'DeletionMarker', actor: { user: 'alice', key: 'ci' } });
    expect(items).toHaveLength(3);
    // The rate limiter's item is not audited: deleted alone, no marker.
    expect(sent[3]).toBeInstanceOf(DeleteCommand);
    expect(sent).toHaveLength(4);
  });

  it("stamps a job's writes (an SBOM import's) with the job alone, its deletion markers too, and the caller's writes again after it", async () => {
    const { doc, sent } = recordingClient();
    const deleteOf = (PK: string, SK: string) => ({ Delete: { TableName: 't', Key: { PK, SK }, ConditionExpression: 'attribute_exists(PK)' } });
    await withCorrelation('id-7', () =>
      withWriteStamps(async () => {
        await runAsPartOf('sbom_import:i-1', async () => {
          await doc.send(put());
          await doc.send(new TransactWriteCommand({ TransactItems: [deleteOf('PRODUCT#p', 'PACKAGE#k')] }));
        });
        await doc.send(put());
      }, { user: 'alice', key: 'ci' }),
    );
    expect((sent[0] as PutCommand).input.Item).toMatchObject({ actor: { via: 'sbom_import:i-1' } });
    expect(Object.keys((sent[0] as PutCommand).input.Item!.actor as object)).toEqual(['via']);
    expect((sent[1] as TransactWriteCommand).input.TransactItems![1]!.Put!.Item).toMatchObject({ entity: 'DeletionMarker', actor: { via: 'sbom_import:i-1' } });
    expect((sent[2] as PutCommand).input.Item).toMatchObject({ actor: { user: 'alice', key: 'ci' } });
  });

  it('refuses to delete an audited item outside a transaction, where its marker could not go with it', async () => {
    const { doc, sent } = recordingClient();
    const lone = () => doc.send(new DeleteCommand({ TableName: 't', Key: { PK: 'WEBHOOK#w', SK: 'WEBHOOK' } }));
    const batch = () => doc.send(new BatchWriteCommand({ RequestItems: { t: [{ DeleteRequest: { Key: { PK: 'PRODUCT#p', SK: 'PRODUCT' } } }] } }));
    await withCorrelation('id-4', () => withWriteStamps(async () => {
      await expect(lone()).rejects.toThrow(/in a transaction/);
      await expect(batch()).rejects.toThrow(/in a transaction/);
    }, { user: 'alice' }));
    expect(sent).toHaveLength(0);
    // Outside an API request (a migration, TTL-like clean-up) nothing is audited by marker: allowed.
    await lone();
    expect(sent).toHaveLength(1);
  });

  it('writes the markers just before a transaction that has no room for them', async () => {
    const { doc, sent } = recordingClient();
    const deletes = Array.from({ length: 60 }, (_, i) => ({ Delete: { TableName: 't', Key: { PK: `PRODUCT#p${i}`, SK: 'PRODUCT' } } }));
    await withCorrelation('id-5', () => withWriteStamps(() => doc.send(new TransactWriteCommand({ TransactItems: deletes })), { user: 'alice' }));
    const markers = sent.slice(0, -1) as BatchWriteCommand[];
    expect(markers.every((command) => command instanceof BatchWriteCommand)).toBe(true);
    expect(markers.flatMap((command) => command.input.RequestItems!.t!).map((request) => request.PutRequest!.Item!.PK)).toEqual(deletes.map((d) => `DELETEDBY#${d.Delete.Key.PK}`));
    expect((sent[sent.length - 1] as TransactWriteCommand).input.TransactItems).toHaveLength(60);
  });
});

describe('invocations running at once', () => {
  let written: string[];
  beforeEach(() => {
    written = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  const emfLines = () =>
    written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"CloudWatchMetrics"'))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[]; Dimensions: string[][] }[] } });

  it('keep their own correlation ids and publish their own metrics, each when it ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((open) => (release = open));
    const seen: Record<string, (string | undefined)[]> = { a: [], b: [] };
    const handler = instrumented(async (event: { name: 'a' | 'b'; metric: 'Evaluations' | 'EventsPublished' }) =>
      withCorrelation(`id-${event.name}`, async () => {
        seen[event.name]!.push(currentCorrelationId());
        countMetric(event.metric, 2);
        if (event.name === 'a') await gate;
        seen[event.name]!.push(currentCorrelationId());
      }),
    );
    const a = handler({ name: 'a', metric: 'Evaluations' }, lambdaContext('fn-a', 1_000));
    await handler({ name: 'b', metric: 'EventsPublished' }, lambdaContext('fn-b', 1_000));
    // b ended while a still runs: b's metrics alone are out.
    expect(emfLines().map((line) => [line.EventsPublished, line.Evaluations])).toEqual([[2, undefined]]);
    release();
    await a;
    expect(emfLines().map((line) => [line.EventsPublished, line.Evaluations])).toEqual([
      [2, undefined],
      [undefined, 2],
    ]);
    expect(seen).toEqual({ a: ['id-a', 'id-a'], b: ['id-b', 'id-b'] });
    expect(emfLines()[0]).toMatchObject({ service: 'compliance-service', _aws: { CloudWatchMetrics: [{ Namespace: 'ComplianceService' }] } });
  });

  it('count a message that fails its last receive as dead-lettered, with its queue as the dimension', async () => {
    const message = (id: string, receives: number) => ({
      messageId: id,
      receiptHandle: id,
      body: '{}',
      attributes: { ApproximateReceiveCount: String(receives), SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
      awsRegion: 'us-east-1',
    });
    const last = QUEUES.webhookDeliveries.maxReceiveCount;
    const batch: SQSEvent = { Records: [message('early', last - 1), message('last', last), message('fine', last)] };
    const handler = instrumented((event: SQSEvent) =>
      processQueueBatch('webhookDeliveries', event, undefined, async (record) => {
        if (record.messageId !== 'fine') throw new Error('target down');
      }),
    );
    expect(await handler(batch, lambdaContext('fn', 1_000))).toEqual({ batchItemFailures: [{ itemIdentifier: 'early' }, { itemIdentifier: 'last' }] });
    const lines = emfLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ DeadLettered: 1, Queue: 'webhookDeliveries' });
    expect(lines[0]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'Queue']]);
  });
});
