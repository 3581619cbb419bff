/**
 * The rate limiters' writes, through the real limiter store on DynamoDB Local, reach no table-stream
 * consumer of EVENT_SOURCES when the local stream poller runs each with its declared filter criteria,
 * while the records each consumer is for still reach it.
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { startStreamPoller, type StreamPoller } from '../../bin/local/stream-poller.ts';
import { createDocumentClient, createDynamoClient } from '../../shared/aws/clients.ts';
import { keys } from '../../shared/keys.ts';
import { EVENT_SOURCES, withoutLimiterItems, type EventSourceDefinition } from '../../shared/resources.ts';
import { AUTH_FAILURE_SPACE, KEY_RATE_SPACE, RateLimitStore, type GcraStep } from '../../shared/store/rate-limit-store.ts';
import { dynamodbEndpoint } from '../support/environment.ts';

const REGION = 'eu-west-1';
type StreamSource = Extract<EventSourceDefinition, { kind: 'table-stream' }>;
const streamSources = EVENT_SOURCES.filter((source): source is StreamSource => source.kind === 'table-stream');

let dynamo: DynamoDBClient;
let tableName: string;
const errors: unknown[] = [];
/** The partition keys each consumer was handed, by consumer. */
const seen = new Map<string, string[]>();

async function consume(name: string, filterPatterns: readonly Record<string, unknown>[] | undefined): Promise<void> {
  const handed: string[] = [];
  seen.set(name, handed);
  const poller: StreamPoller = startStreamPoller({
    dynamodbEndpoint: dynamodbEndpoint(),
    region: REGION,
    tableName,
    startingPosition: 'TRIM_HORIZON',
    batchSize: 100,
    maxRetryAttempts: 0,
    bisectBatchOnError: false,
    pollIntervalMs: 20,
    ...(filterPatterns ? { filterPatterns } : {}),
    handler: async (event) => {
      handed.push(...event.Records.map((record: DynamoDBRecord) => record.dynamodb?.Keys?.['PK']?.S ?? '?'));
    },
    onError: (error) => errors.push(error),
  });
  try {
    await poller.idle();
  } finally {
    await poller.stop();
  }
}

const step = (now: number): GcraStep => ({ now, interval: 200, allowAt: now + 4_000, expiresAt: Math.ceil(now / 1000) + 60 });
const isLimiterKey = (pk: string) => pk.startsWith('RATE#') || pk.startsWith('AUTHFAIL#');

beforeAll(async () => {
  const endpoint = dynamodbEndpoint();
  tableName = `stream-filters-${randomUUID().slice(0, 8)}`;
  await ensureTable({ region: REGION, endpoint }, tableName);
  dynamo = createDynamoClient({ region: REGION, endpoint });
  const doc = createDocumentClient(dynamo);

  // The limiters as the API functions use them: a fresh item, then an admitted request on it.
  const rates = new RateLimitStore(doc, tableName, KEY_RATE_SPACE);
  const failures = new RateLimitStore(doc, tableName, AUTH_FAILURE_SPACE);
  const now = Date.now();
  for (const at of [now, now + 1]) {
    expect(await rates.take('key-1', step(at))).toEqual({ admitted: true });
    expect(await failures.take('192.0.2.1', step(at))).toEqual({ admitted: true });
  }
  // What TTL does a minute later.
  await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { PK: { S: keys.rateLimit('key-1').PK }, SK: { S: keys.rateLimit('key-1').SK } } }));
  // And records the consumers are for, plus a key kind no consumer knows yet.
  const put = (key: { PK: string; SK: string }, entity: string) =>
    dynamo.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: key.PK }, SK: { S: key.SK }, entity: { S: entity }, dataspace: { S: 'acme' }, uuid: { S: 'p-1' } } }));
  await put(keys.product('p-1'), 'Product');
  await put(keys.outboxEvent('e-1'), 'OutboxEvent');
  await put({ PK: 'NEWKIND#1', SK: 'NEWKIND' }, 'NewKind');

  await consume('(no filter)', undefined);
  await consume('(filters only the limiters)', withoutLimiterItems());
  for (const source of streamSources) await consume(source.function, source.filterPatterns);
});

afterAll(() => {
  dynamo?.destroy();
});

describe('the limiter items on the table stream', () => {
  it('are there: a mapping without filters is handed every one of them', () => {
    expect(errors).toEqual([]);
    const all = seen.get('(no filter)') ?? [];
    // Two writes each, and the removal of one.
    expect(all.filter((pk) => pk.startsWith('RATE#'))).toHaveLength(3);
    expect(all.filter((pk) => pk.startsWith('AUTHFAIL#'))).toHaveLength(2);
  });

  it('reach no stream consumer of EVENT_SOURCES', () => {
    expect(streamSources.length).toBeGreaterThan(0);
    for (const source of streamSources) expect((seen.get(source.function) ?? []).filter(isLimiterKey), source.function).toEqual([]);
  });

  it('are all the exclusion alone drops: every other key kind, a new one too, goes through', () => {
    expect(seen.get('(filters only the limiters)')).toEqual([keys.product('p-1').PK, keys.outboxEvent('e-1').PK, 'NEWKIND#1']);
  });

  it('leave each consumer what it is for', () => {
    expect(seen.get('stream-router')).toEqual([keys.product('p-1').PK]);
    expect(seen.get('outbox-publisher')).toEqual([keys.outboxEvent('e-1').PK]);
  });
});
