/**
 * The request events stay bounded whatever the number of comments: the outbox publisher, on DynamoDB
 * Local, makes them from the stream images of the items the service wrote, and publishes them through
 * the service's EventBridge publisher to the local bus, which refuses what EventBridge refuses (a
 * PutEvents call over 256 KB). Ten of the longest comments already pass 256 KB: version 1, which embedded
 * every comment, could not be published.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { InProcessEventBus, type DeliveredEvent } from '../../bin/local/event-bus.ts';
import { makeHandler } from '../../functions/outbox-publisher.ts';
import { parseConfig } from '../../shared/config.ts';
import { EVENT_TYPES, type EventType } from '../../shared/events/catalog.ts';
import { EventBridgePublisher } from '../../shared/events/eventbridge-publisher.ts';
import { REQUEST_EVENT_VERSION } from '../../shared/events/request-events.ts';
import { EVENT_BUS } from '../../shared/resources.ts';
import { keys } from '../../shared/keys.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import { RequestService } from '../../shared/services/requests.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';

/**
 * The most a request event may take: the request's own fields (notes of 10,000 characters, answers of
 * 20,000 bytes and the rest) and twice a comment of at most 10,000 characters (about 30 KB).
 */
const EVENT_BOUND_BYTES = 128 * 1024;
const PUT_EVENTS_LIMIT_BYTES = 256 * 1024;

let env: Awaited<ReturnType<typeof useTestTable>>;
let requests: RequestService;
const alice: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
const baseUrl = 'https://api.example.com';
/** The longest comment there is: 10,000 characters of three UTF-8 bytes each. */
const longest = (i: number) => `${String(i).padStart(4, '0')}${'€'.repeat(9_996)}`;

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { alice: {} } } });
  await load(env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
  const products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  requests = new RequestService({ requests: env.requests, identity: env.identity, products, now: () => new Date(), newUuid: randomUUID });
});

let sequence = 0;
/** The stream record DynamoDB writes for `item` (NEW_AND_OLD_IMAGES; the publisher reads the new image). */
function aRecord(eventName: 'INSERT' | 'MODIFY', item: Record<string, unknown>): DynamoDBRecord {
  sequence += 1;
  return {
    eventID: `event-${sequence}`,
    eventName,
    eventSource: 'aws:dynamodb',
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${env.tableName}/stream/2026-01-01T00:00:00.000`,
    dynamodb: { SequenceNumber: String(sequence).padStart(21, '0'), NewImage: marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue> },
  };
}

const itemOf = async (key: { PK: string; SK: string }) => (await env.doc.send(new GetCommand({ TableName: env.tableName, Key: key, ConsistentRead: true }))).Item!;
const commentItems = async (uuid: string) =>
  (await env.doc.send(new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :c)', ExpressionAttributeValues: { ':pk': `REQUEST#${uuid}`, ':c': 'COMMENT#' } }))).Items!;

/** Publishes the records as the outbox publisher does, to a local bus; answers what reached it and what failed. */
async function publish(records: DynamoDBRecord[]) {
  const bus = new InProcessEventBus();
  const delivered: DeliveredEvent[] = [];
  bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: async (event) => void delivered.push(event) });
  const handler = makeHandler({
    config: parseConfig({ TABLE_NAME: env.tableName, PUBLIC_BASE_URL: baseUrl }),
    requestStore: env.requests,
    publisher: new EventBridgePublisher(EVENT_BUS.localName, bus),
  });
  const result = await handler({ Records: records }, lambdaContext('request-events-test', 30_000));
  return { delivered, failures: result.batchItemFailures };
}

const aRequest = (title: string, notes = '') =>
  requests.create(
    alice,
    { title, request_template: 'Review', status: 'open', assignee: null, priority: null, product_context: null, content_object: null, notes, serialized_data: {}, is_private: false, cc_emails: [] },
    baseUrl,
  );

describe('request events (version 2)', () => {
  it('carry the comment count and the latest comment as of their change, and stay bounded past 256 KB of comments', async () => {
    // The longest notes there are, so the request's own fields are as large as they get.
    const created = await aRequest('Much discussed', '€'.repeat(10_000));
    const insert = aRecord('INSERT', await itemOf(keys.request(created.uuid)));
    for (let i = 1; i <= 5; i++) await requests.addComment(alice, created.uuid, () => longest(i));
    await requests.update(alice, created.uuid, () => ({ status: 'closed' }), baseUrl);
    const modify = aRecord('MODIFY', await itemOf(keys.request(created.uuid)));
    for (let i = 6; i <= 10; i++) await requests.addComment(alice, created.uuid, () => longest(i));
    const comments = await commentItems(created.uuid);
    expect(comments.map((item) => item.text)).toEqual(Array.from({ length: 10 }, (_, i) => longest(i + 1)));
    // What version 1 embedded in the last comment's event: every comment, past what one PutEvents call may carry.
    const everyComment = comments.map((item) => ({ uuid: item.uuid, username: item.username, text: item.text, created_date: item.createdDate }));
    expect(Buffer.byteLength(JSON.stringify(everyComment))).toBeGreaterThan(PUT_EVENTS_LIMIT_BYTES);

    const { delivered, failures } = await publish([insert, modify, aRecord('INSERT', comments[4]!), aRecord('INSERT', comments[9]!)]);

    expect(failures).toEqual([]);
    expect(delivered.map((event) => event['detail-type'])).toEqual(['request.added', 'request.updated', 'request_comment.added', 'request_comment.added']);
    for (const event of delivered) {
      expect(EVENT_TYPES[event['detail-type'] as EventType].safeParse(event.detail).success, event['detail-type']).toBe(true);
      expect(event.detail.version).toBe(REQUEST_EVENT_VERSION);
      expect(Buffer.byteLength(JSON.stringify(event.detail)), event['detail-type']).toBeLessThan(EVENT_BOUND_BYTES);
      expect(event.detail.data).toMatchObject({ request: { uuid: created.uuid, comments_url: `${baseUrl}/api/v2/requests/${created.uuid}/comments/` } });
      expect((event.detail.data as { request: object }).request).not.toHaveProperty('comments');
    }
    const summaries = delivered.map((event) => (event.detail.data as { request: { status: string; comment_count: number; latest_comment: { text: string } | null } }).request);
    expect(summaries.map((summary) => [summary.status, summary.comment_count, summary.latest_comment?.text.slice(0, 4) ?? null])).toEqual([
      ['open', 0, null],
      // As of the PATCH: the five comments made before it, not the ten there are now.
      ['closed', 5, '0005'],
      ['closed', 5, '0005'],
      ['closed', 10, '0010'],
    ]);
    expect(delivered.slice(2).map((event) => (event.detail.data as { comment: { text: string } }).comment.text)).toEqual([longest(5), longest(10)]);
    console.log(`largest request event with 10 comments of ${Buffer.byteLength(longest(0))} bytes: ${Math.max(...delivered.map((event) => Buffer.byteLength(JSON.stringify(event.detail))))} bytes; every comment: ${Buffer.byteLength(JSON.stringify(everyComment))} bytes`);
  }, 120_000);

  it('count comments written before comments were numbered', async () => {
    const created = await aRequest('Older');
    const old = [0, 1, 2].map((i) => {
      const createdDate = `2026-01-01T00:00:0${i}.000+00:00`;
      const uuid = `00000000-0000-4000-8000-00000000000${i}`;
      return { ...keys.comment(created.uuid, createdDate, uuid), entity: 'RequestComment', requestUuid: created.uuid, uuid, username: 'alice', text: `old ${i}`, createdDate };
    });
    for (const item of old) await env.doc.send(new PutCommand({ TableName: env.tableName, Item: item }));
    await requests.update(alice, created.uuid, () => ({ notes: 'after the old comments' }), baseUrl);
    const modify = aRecord('MODIFY', await itemOf(keys.request(created.uuid)));

    const { delivered, failures } = await publish([aRecord('INSERT', old[1]!), modify]);

    expect(failures).toEqual([]);
    const summaries = delivered.map((event) => (event.detail.data as { request: { comment_count: number; latest_comment: { text: string } | null } }).request);
    expect(summaries.map((summary) => [summary.comment_count, summary.latest_comment?.text])).toEqual([
      [2, 'old 1'],
      [3, 'old 2'],
    ]);
  });
});
