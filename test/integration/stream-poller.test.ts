/**
 * The local DynamoDB-stream event-source mapping against DynamoDB Local: the DynamoDBStreamEvent it
 * delivers, filter criteria, partial batch responses, retries, bisection, the on-failure
 * destination, and checkpoints that survive a restart.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  UpdateItemCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { startStreamPoller, type StreamPoller, type StreamPollerOptions } from '../../bin/local/stream-poller.ts';
import { createDynamoClient } from '../../shared/aws/clients.ts';
import { dynamodbEndpoint } from '../support/environment.ts';

const REGION = 'eu-west-1';
const suffix = randomUUID().slice(0, 8);
let endpoint: string;
let dynamo: DynamoDBClient;
let workDir: string;
let tableCount = 0;
const pollers: StreamPoller[] = [];
const pollerErrors: unknown[] = [];

/** A table of its own for each test, so each stream starts empty. */
async function aTable(): Promise<string> {
  tableCount++;
  const tableName = `stream-poller-${suffix}-${tableCount}`;
  await ensureTable({ region: REGION, endpoint }, tableName);
  return tableName;
}

type Handler = StreamPollerOptions['handler'];

function startPoller(tableName: string, handler: Handler, options: Partial<StreamPollerOptions> = {}): StreamPoller {
  const poller = startStreamPoller({
    dynamodbEndpoint: endpoint,
    region: REGION,
    tableName,
    startingPosition: 'TRIM_HORIZON',
    batchSize: 10,
    maxRetryAttempts: 5,
    bisectBatchOnError: false,
    pollIntervalMs: 20,
    handler,
    onError: (error) => pollerErrors.push(error),
    ...options,
  });
  pollers.push(poller);
  return poller;
}

/** Records every invocation's item ids; `respond` decides each outcome. */
function recordingHandler(
  respond: (records: DynamoDBRecord[], call: number) => DynamoDBBatchResponse | void = () => undefined,
) {
  const calls: { event: DynamoDBStreamEvent; context: Context }[] = [];
  const handler: Handler = async (event, context) => {
    calls.push({ event, context });
    return respond(event.Records, calls.length);
  };
  const batches = () => calls.map((call) => call.event.Records.map(itemId));
  return { calls, handler, batches };
}

function itemId(record: DynamoDBRecord): string {
  return record.dynamodb?.Keys?.['PK']?.S ?? '?';
}

function failing(...ids: string[]) {
  return (records: DynamoDBRecord[]): DynamoDBBatchResponse => ({
    batchItemFailures: records
      .filter((record) => ids.includes(itemId(record)))
      .map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })),
  });
}

async function put(tableName: string, id: string, attributes: Record<string, { S: string }> = {}): Promise<void> {
  await dynamo.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: id }, SK: { S: 'item' }, ...attributes } }));
}

async function putAll(tableName: string, ...ids: string[]): Promise<void> {
  for (const id of ids) await put(tableName, id);
}

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  endpoint = dynamodbEndpoint();
  dynamo = createDynamoClient({ region: REGION, endpoint });
  workDir = await mkdtemp(join(tmpdir(), 'stream-poller-test-'));
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  expect(pollerErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  dynamo.destroy();
  await rm(workDir, { recursive: true, force: true });
});

describe('startStreamPoller', () => {
  it('delivers INSERT, MODIFY and REMOVE as the DynamoDBStreamEvent Lambda sends', async () => {
    const tableName = await aTable();
    const key = { PK: { S: 'p-1' }, SK: { S: 'item' } };
    await dynamo.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { ...key, name: { S: 'Widget' }, count: { N: '1' }, blob: { B: new Uint8Array([1, 2, 3]) }, tags: { M: { a: { BOOL: true } } } },
      }),
    );
    await dynamo.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #count = :count',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':count': { N: '2' } },
      }),
    );
    await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: key }));
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    const { calls, handler } = recordingHandler();

    const poller = startPoller(tableName, handler, { functionName: 'stream-router', timeoutSeconds: 60 });
    await poller.idle();

    expect(calls).toHaveLength(1);
    const { event, context } = calls[0]!;
    expect(JSON.parse(JSON.stringify(event))).toEqual(event);
    const [insert, modify, remove] = event.Records;
    const image = (count: string) => ({
      ...key,
      name: { S: 'Widget' },
      count: { N: count },
      blob: { B: Buffer.from([1, 2, 3]).toString('base64') },
      tags: { M: { a: { BOOL: true } } },
    });
    const common = {
      eventID: expect.any(String),
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: REGION,
      eventSourceARN: Table?.LatestStreamArn,
    };
    const streamFields = {
      ApproximateCreationDateTime: expect.any(Number),
      Keys: key,
      SequenceNumber: expect.stringMatching(/^\d+$/),
      SizeBytes: expect.any(Number),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    };
    expect(insert).toEqual({ ...common, eventName: 'INSERT', dynamodb: { ...streamFields, NewImage: image('1') } });
    expect(modify).toEqual({ ...common, eventName: 'MODIFY', dynamodb: { ...streamFields, NewImage: image('2'), OldImage: image('1') } });
    expect(remove).toEqual({ ...common, eventName: 'REMOVE', dynamodb: { ...streamFields, OldImage: image('2') } });
    const seconds = insert?.dynamodb?.ApproximateCreationDateTime ?? 0;
    expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(120);
    const sequence = event.Records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequence].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequence);
    expect(new Set(event.Records.map((record) => record.eventID)).size).toBe(3);
    expect(context.functionName).toBe('stream-router');
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(50_000);
  });

  it('hands over every record in order, in batches of at most batchSize', async () => {
    const tableName = await aTable();
    const ids = Array.from({ length: 23 }, (_, index) => `item-${String(index).padStart(2, '0')}`);
    await putAll(tableName, ...ids);
    const { batches, handler } = recordingHandler();

    const poller = startPoller(tableName, handler, { batchSize: 4 });
    await poller.idle();

    expect(batches().flat()).toEqual(ids);
    expect(batches().every((batch) => batch.length > 0 && batch.length <= 4)).toBe(true);
  });

  it('keeps reading records written while it runs', async () => {
    const tableName = await aTable();
    const { batches, handler } = recordingHandler();
    const poller = startPoller(tableName, handler);
    await poller.idle();

    await putAll(tableName, 'a', 'b');
    await poller.idle();
    await put(tableName, 'c');
    await poller.idle();

    expect(batches().flat()).toEqual(['a', 'b', 'c']);
  });

  it('starts at LATEST without a checkpoint: records from before the start are not delivered', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'old-1', 'old-2');
    const { batches, handler } = recordingHandler();
    const poller = startPoller(tableName, handler, { startingPosition: 'LATEST' });
    await poller.idle();

    await put(tableName, 'new-1');
    await poller.idle();

    expect(batches().flat()).toEqual(['new-1']);
  });

  it('drops the records no filter pattern matches before batching', async () => {
    const tableName = await aTable();
    await put(tableName, 'a', { kind: { S: 'product' } });
    await put(tableName, 'b', { kind: { S: 'audit' } });
    await put(tableName, 'c', { kind: { S: 'product' } });
    await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { PK: { S: 'b' }, SK: { S: 'item' } } }));
    await put(tableName, 'd', { kind: { S: 'audit' } });
    const { batches, handler } = recordingHandler();

    const poller = startPoller(tableName, handler, {
      batchSize: 2,
      filterPatterns: [{ dynamodb: { NewImage: { kind: { S: ['product'] } } } }, { eventName: ['REMOVE'] }],
    });
    await poller.idle();

    expect(batches()).toEqual([['a', 'c'], ['b']]);
  });

  it('on a partial batch failure retries from the lowest failed record, never re-delivering earlier ones', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'b', 'c', 'd', 'e');
    const { batches, handler } = recordingHandler((records, call) => (call === 1 ? failing('e', 'c')(records) : undefined));

    const poller = startPoller(tableName, handler);
    await poller.idle();

    expect(batches()).toEqual([
      ['a', 'b', 'c', 'd', 'e'],
      ['c', 'd', 'e'],
    ]);
  });

  it('retries the same batch when the handler throws', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'b', 'c');
    const { batches, handler } = recordingHandler((_, call) => {
      if (call < 3) throw new Error('flaky');
    });

    const poller = startPoller(tableName, handler);
    await poller.idle();

    expect(batches()).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
  });

  it('treats an itemIdentifier that is no sequence number of the batch as a failure of the whole batch', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'b');
    const { batches, handler } = recordingHandler((_, call) =>
      call === 1 ? { batchItemFailures: [{ itemIdentifier: 'not-a-sequence-number' }] } : undefined,
    );

    const poller = startPoller(tableName, handler);
    await poller.idle();

    expect(batches()).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('bisects a failing batch until the failing record is alone, then sends it to onFailure and goes on', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'b', 'c', 'poison', 'e');
    const discarded: { records: DynamoDBRecord[]; error: unknown }[] = [];
    const { batches, handler } = recordingHandler((records) => {
      if (records.some((record) => itemId(record) === 'poison')) throw new Error('poison');
    });

    const poller = startPoller(tableName, handler, {
      batchSize: 4,
      bisectBatchOnError: true,
      maxRetryAttempts: 2,
      onFailure: async (records, error) => {
        discarded.push({ records, error });
      },
    });
    await poller.idle();

    expect(batches()).toEqual([
      ['a', 'b', 'c', 'poison'],
      ['a', 'b'],
      ['c', 'poison'],
      ['c'],
      // Alone now: the first attempt and maxRetryAttempts retries (the count restarts when the checkpoint moves).
      ['poison'],
      ['poison'],
      ['poison'],
      ['e'],
    ]);
    expect(discarded.map((failure) => failure.records.map(itemId))).toEqual([['poison']]);
    expect((discarded[0]?.error as Error).message).toBe('poison');
  });

  it('after maxRetryAttempts sends the failing records to onFailure and continues with the next ones', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'poison', 'c');
    const discarded: DynamoDBRecord[][] = [];
    const { batches, handler } = recordingHandler(failing('poison'));
    const poller = startPoller(tableName, handler, {
      maxRetryAttempts: 2,
      onFailure: async (records) => {
        discarded.push(records);
      },
    });
    await poller.idle();

    await put(tableName, 'later');
    await poller.idle();

    // The first attempt checkpoints 'a'; the retried rest of the batch fails twice more.
    expect(batches()).toEqual([
      ['a', 'poison', 'c'],
      ['poison', 'c'],
      ['poison', 'c'],
      ['later'],
    ]);
    expect(discarded.map((records) => records.map(itemId))).toEqual([['poison', 'c']]);
    expect(discarded[0]?.[0]?.dynamodb?.NewImage).toEqual({ PK: { S: 'poison' }, SK: { S: 'item' } });
  });

  it('resumes after a restart from its checkpoint file, without replaying or skipping a record', async () => {
    const tableName = await aTable();
    const checkpointFile = join(workDir, `${tableName}.json`);
    await putAll(tableName, 'a', 'b', 'c');
    const first = recordingHandler(failing('c'));
    const firstPoller = startPoller(tableName, first.handler, { checkpointFile, maxRetryAttempts: -1 });
    await waitFor(() => first.calls.length >= 3);
    await firstPoller.stop();
    await putAll(tableName, 'd', 'e');

    const second = recordingHandler();
    const secondPoller = startPoller(tableName, second.handler, { checkpointFile });
    await secondPoller.idle();
    await secondPoller.stop();
    await put(tableName, 'f');
    const third = recordingHandler();
    const thirdPoller = startPoller(tableName, third.handler, { checkpointFile });
    await thirdPoller.idle();

    expect(first.batches()[0]).toEqual(['a', 'b', 'c']);
    expect(first.batches().slice(1).flat().every((id) => id === 'c')).toBe(true);
    expect(second.batches().flat()).toEqual(['c', 'd', 'e']);
    expect(third.batches().flat()).toEqual(['f']);
    const saved = JSON.parse(await readFile(checkpointFile, 'utf8')) as { streamArn: string; shards: Record<string, { sequenceNumber?: string }> };
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    expect(saved.streamArn).toBe(Table?.LatestStreamArn);
    expect(Object.values(saved.shards).map((shard) => shard.sequenceNumber)).toContain(
      third.calls[0]?.event.Records[0]?.dynamodb?.SequenceNumber,
    );
  });

  it('without a checkpoint file starts over at startingPosition', async () => {
    const tableName = await aTable();
    await putAll(tableName, 'a', 'b');
    const first = recordingHandler();
    const firstPoller = startPoller(tableName, first.handler);
    await firstPoller.idle();
    await firstPoller.stop();

    const second = recordingHandler();
    const secondPoller = startPoller(tableName, second.handler);
    await secondPoller.idle();

    expect(first.batches().flat()).toEqual(['a', 'b']);
    expect(second.batches().flat()).toEqual(['a', 'b']);
  });
});

describe('attribute values the Streams client decodes oddly', () => {
  it('delivers an empty map as { M: {} } and an empty list as { L: [] }', async () => {
    const tableName = `odd-${randomUUID().slice(0, 8)}`;
    const client = createDynamoClient({ region: 'us-east-1', endpoint: dynamodbEndpoint() });
    await ensureTable({ region: 'us-east-1', endpoint: dynamodbEndpoint() }, tableName);
    const records: DynamoDBRecord[] = [];
    const poller = startStreamPoller({
      dynamodbEndpoint: dynamodbEndpoint(),
      region: 'us-east-1',
      tableName,
      startingPosition: 'TRIM_HORIZON',
      batchSize: 10,
      maxRetryAttempts: 0,
      bisectBatchOnError: false,
      pollIntervalMs: 20,
      handler: async (event) => {
        records.push(...event.Records);
      },
    });
    try {
      await client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: 'a' }, SK: { S: 'b' }, empty: { M: {} }, none: { L: [] } } }));
      const deadline = Date.now() + 10_000;
      while (records.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(records[0]?.dynamodb?.NewImage).toMatchObject({ empty: { M: {} }, none: { L: [] } });
    } finally {
      await poller.stop();
      client.destroy();
    }
  });
});
