/**
 * The six queue and stream consumers through their real handlers, made (makeHandler) from faked
 * parts: which records each reports failed, what it still handles after a failure, and that it logs
 * each failure once.
 */
import type { AuditTrailWriter } from '../../shared/services/audit.ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

vi.hoisted(() => {
  // Before the logger (shared/observability/logger.ts) is made, when the functions' modules load.
  process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'CRITICAL';
});

import { makeHandler as makeEvaluator } from '../../functions/evaluator.ts';
import { makeHandler as makeWebhookFanout } from '../../functions/webhook-fanout.ts';
import { makeHandler as makeWebhookDelivery } from '../../functions/webhook-delivery.ts';
import { makeHandler as makeSbomImport } from '../../functions/sbom-import.ts';
import { makeHandler as makeStreamRouter } from '../../functions/stream-router.ts';
import { makeHandler as makeOutboxPublisher } from '../../functions/outbox-publisher.ts';
import { RetryLaterError, type WebhookService } from '../../shared/services/webhooks.ts';
import type { EvaluationService } from '../../shared/services/evaluation.ts';
import type { EvaluationFanOut } from '../../shared/services/evaluation-fan-out.ts';
import type { SbomImportService } from '../../shared/services/sbom-import.ts';
import type { ChangeTargetResolver } from '../../shared/store/change-targets.ts';
import type { RequestStore } from '../../shared/store/request-store.ts';
import type { BusEvent, EventPublisher } from '../../shared/events/publisher.ts';
import { parseConfig } from '../../shared/config.ts';
import { logger } from '../../shared/observability/logger.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';

const fakes = {
  evaluate: vi.fn(),
  handBack: vi.fn(),
  page: vi.fn(),
  products: vi.fn(),
  enqueue: vi.fn(),
  fanOut: vi.fn(),
  attempt: vi.fn(),
  retryAfter: vi.fn(),
  get: vi.fn(),
  commentsAsOf: vi.fn(),
  runUpload: vi.fn(),
};
/** What each test puts on the bus (outbox-publisher). */
let publisher: EventPublisher = { publish: async () => undefined };

/** A part of which the consumer calls only the methods given. */
const fakeOf = <T,>(methods: Partial<T>) => methods as T;

// Each function made from faked parts, as the local stack makes it from real ones.
const evaluator = makeEvaluator({
  evaluation: fakeOf<EvaluationService>({ evaluate: fakes.evaluate }),
  evaluationQueue: { send: fakes.handBack },
  evaluationFanOut: fakeOf<EvaluationFanOut>({ page: fakes.page }),
  config: parseConfig({ TABLE_NAME: 'unit-batch-consumers', EVALUATION_PACKAGES_PER_INVOCATION: 1_000 }),
});
const webhookFanout = makeWebhookFanout({ webhooks: fakeOf<WebhookService>({ fanOut: fakes.fanOut }) });
const webhookDelivery = makeWebhookDelivery({ webhooks: fakeOf<WebhookService>({ attempt: fakes.attempt }), deliveryQueue: { retryAfter: fakes.retryAfter } });
const sbomImport = makeSbomImport({ sbomImports: fakeOf<SbomImportService>({ runUpload: fakes.runUpload }) });
const streamRouter = makeStreamRouter({
  changeTargetResolver: fakeOf<ChangeTargetResolver>({ products: fakes.products }),
  evaluationQueue: { send: fakes.enqueue },
  // The audit trail has tests of its own (test/integration/audit-trail.test.ts): here it records nothing.
  auditTrail: fakeOf<AuditTrailWriter>({ recordOf: async () => undefined, write: async () => undefined, export: async () => undefined }),
});
const outboxPublisher = makeOutboxPublisher({
  config: parseConfig({ TABLE_NAME: 'unit-batch-consumers' }),
  requestStore: fakeOf<RequestStore>({ get: fakes.get, commentsAsOf: fakes.commentsAsOf }),
  publisher: { publish: (events) => publisher.publish(events) },
});

const context = lambdaContext('batch-consumers-test', 30_000);

const aMessage = (messageId: string, body: unknown, receiveCount = 1): SQSRecord => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test',
  awsRegion: 'us-east-1',
});
const aQueueBatch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

const anInsert = (sequenceNumber: string, item: Record<string, unknown>): DynamoDBRecord => ({
  eventID: `event-${sequenceNumber}`,
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/test/stream/2026-01-01T00:00:00.000',
  dynamodb: {
    SequenceNumber: sequenceNumber,
    ApproximateCreationDateTime: 1_780_000_000,
    NewImage: marshall(item) as Record<string, AttributeValue>,
  },
});
const aStreamBatch = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

const ids = (...identifiers: string[]) => ({ batchItemFailures: identifiers.map((itemIdentifier) => ({ itemIdentifier })) });
/** A reply of a consumer that handles its messages at once, its failures sorted (they come as they happen). */
const inOrder = (reply: SQSBatchResponse) => ({ batchItemFailures: [...reply.batchItemFailures].sort((a, b) => a.itemIdentifier.localeCompare(b.itemIdentifier)) });

let errors: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  for (const fake of Object.values(fakes)) fake.mockReset();
  errors = vi.spyOn(logger, 'error');
});

afterEach(() => {
  errors.mockRestore();
  publisher = { publish: async () => undefined };
});

describe('evaluator (SQS)', () => {
  const request = (product: string, requestedAt: string) => ({ dataspace: 'acme', product, requestedAt });

  it('evaluates each product once as of its latest request, and reports exactly the messages of the product that failed and the malformed one', async () => {
    fakes.evaluate.mockImplementation(async (product: string) => {
      if (product === 'p1') throw new Error('table throttled');
      return { outcome: 'evaluated', events: [] };
    });
    const reply = await evaluator(
      aQueueBatch(
        aMessage('m1', request('p1', '2026-01-01T00:00:01+00:00')),
        aMessage('m2', request('p2', '2026-01-01T00:00:01+00:00')),
        aMessage('m3', request('p1', '2026-01-01T00:00:03+00:00')),
        aMessage('m4', '{"not": "an evaluation request"'),
        aMessage('m5', request('p1', '2026-01-01T00:00:02+00:00')),
      ),
      context,
    );
    expect(reply).toEqual(ids('m1', 'm3', 'm4', 'm5'));
    expect(fakes.evaluate.mock.calls).toEqual([
      ['p1', { requestedAt: '2026-01-01T00:00:03+00:00', correlationId: expect.any(String) }],
      ['p2', { requestedAt: '2026-01-01T00:00:01+00:00', correlationId: expect.any(String) }],
    ]);
    // Once for the failed evaluation (not once per message of it), once for the malformed message.
    expect(errors).toHaveBeenCalledTimes(2);
  });

  it('answers an empty list for a batch that succeeds, and for an empty batch', async () => {
    fakes.evaluate.mockResolvedValue({ outcome: 'evaluated', events: [] });
    expect(await evaluator(aQueueBatch(aMessage('m1', request('p1', '2026-01-01T00:00:01+00:00'))), context)).toEqual(ids());
    expect(await evaluator(aQueueBatch(), context)).toEqual(ids());
    expect(fakes.evaluate).toHaveBeenCalledTimes(1);
  });

  it('sizes a batch by packages: past EVALUATION_PACKAGES_PER_INVOCATION (1,000 here) it hands the products not started back to the queue, once each, failing none', async () => {
    fakes.evaluate.mockResolvedValue({ outcome: 'evaluated', events: [], packages: 600 });
    fakes.handBack.mockResolvedValue(undefined);
    const reply = await evaluator(
      aQueueBatch(
        aMessage('m1', request('p1', '2026-01-01T00:00:01+00:00')),
        aMessage('m2', request('p2', '2026-01-01T00:00:01+00:00')),
        aMessage('m3', request('p3', '2026-01-01T00:00:01+00:00')),
        aMessage('m4', request('p3', '2026-01-01T00:00:02+00:00')),
        aMessage('m5', request('p4', '2026-01-01T00:00:01+00:00')),
      ),
      context,
    );
    expect(reply).toEqual(ids());
    // 600 after p1, 1,200 after p2: p3 and p4 wait for another invocation, p3 as of its latest request.
    expect(fakes.evaluate.mock.calls.map(([product]) => product)).toEqual(['p1', 'p2']);
    expect(fakes.handBack.mock.calls).toEqual([[[request('p3', '2026-01-01T00:00:02+00:00')]], [[request('p4', '2026-01-01T00:00:01+00:00')]]]);
  });

  it('handles at most one page of a dataspace-wide re-evaluation per invocation and hands the other pages back', async () => {
    const page = (cursor?: string) => ({ fanOut: 'dataspace', dataspace: 'acme', requestedAt: '2026-01-01T00:00:01+00:00', ...(cursor ? { cursor } : {}) });
    fakes.page.mockResolvedValue({ queued: 10, next: true });
    fakes.handBack.mockResolvedValue(undefined);
    fakes.evaluate.mockResolvedValue({ outcome: 'evaluated', events: [], packages: 1 });
    const reply = await evaluator(
      aQueueBatch(aMessage('m1', page()), aMessage('m2', request('p1', '2026-01-01T00:00:01+00:00')), aMessage('m3', page('c2'))),
      context,
    );
    expect(reply).toEqual(ids());
    expect(fakes.page.mock.calls).toEqual([[page()]]);
    expect(fakes.handBack.mock.calls).toEqual([[[page('c2')]]]);
    expect(fakes.evaluate).toHaveBeenCalledTimes(1);
  });
});

describe('webhook-fanout (SQS)', () => {
  const anEvent = (id: string) => ({ detail: { id, type: 'policy.violation_detected', version: 1, timestamp: '', dataspace: 'acme', data: {} } });

  it('reports exactly the messages that failed: a fan-out that threw and a message that is no event', async () => {
    fakes.fanOut.mockImplementation(async (envelope: { id: string }) => {
      if (envelope.id === 'e2') throw new Error('table throttled');
      return { subscriptions: 1, alreadyMade: 0, delivered: 1, failed: 0, handedOver: 0, disabled: 0 };
    });
    const reply = await webhookFanout(
      aQueueBatch(aMessage('m1', anEvent('e1')), aMessage('m2', anEvent('e2')), aMessage('m3', { detail: {} }), aMessage('m4', anEvent('e4'))),
      context,
    );
    // The events of a batch are fanned out at once: the failures come in the order they happen.
    expect(inOrder(reply)).toEqual(ids('m2', 'm3'));
    expect(fakes.fanOut.mock.calls.map(([envelope]) => envelope.id)).toEqual(['e1', 'e2', 'e4']);
    expect(errors).toHaveBeenCalledTimes(2);
  });

  it('fans out the events of a batch at once: one whose receivers are slow holds up none of the others', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    fakes.fanOut.mockImplementation(async (envelope: { id: string }) => {
      // e1 ends only once e2 has started: one event after another, this batch would never end.
      if (envelope.id === 'e1') await firstHeld;
      if (envelope.id === 'e2') releaseFirst();
      return { subscriptions: 1, alreadyMade: 0, delivered: 1, failed: 0, handedOver: 0, disabled: 0 };
    });
    const reply = await Promise.race([
      webhookFanout(aQueueBatch(aMessage('m1', anEvent('e1')), aMessage('m2', anEvent('e2'))), context),
      new Promise((resolve) => setTimeout(() => resolve('held up'), 2_000)),
    ]);
    expect(reply).toEqual(ids());
  });
});

describe('webhook-delivery (SQS)', () => {
  const aDelivery = (deliveryId: string) => ({ webhookUuid: 'w1', deliveryId });

  it('reports exactly the attempts that failed, and puts a retry-later one back after its backoff without an error log', async () => {
    fakes.attempt.mockImplementation(async (message: { deliveryId: string }) => {
      if (message.deliveryId === 'd1') throw new RetryLaterError(120, 2);
      if (message.deliveryId === 'd3') throw new Error('store down');
      return { outcome: 'delivered', attempt: 1 };
    });
    fakes.retryAfter.mockResolvedValue(undefined);
    const reply = await webhookDelivery(
      aQueueBatch(aMessage('m1', aDelivery('d1'), 2), aMessage('m2', aDelivery('d2')), aMessage('m3', aDelivery('d3'))),
      context,
    );
    expect(inOrder(reply)).toEqual(ids('m1', 'm3'));
    expect(fakes.attempt.mock.calls[0]).toEqual([aDelivery('d1'), 2]);
    expect(fakes.retryAfter.mock.calls).toEqual([['receipt-m1', 120]]);
    expect(errors).toHaveBeenCalledTimes(1);
  });

  it('attempts the messages of a batch at once: a receiver that is slow holds up only its own message', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    fakes.attempt.mockImplementation(async (message: { deliveryId: string }) => {
      if (message.deliveryId === 'd1') await firstHeld;
      if (message.deliveryId === 'd2') releaseFirst();
      return { outcome: 'delivered', attempt: 2 };
    });
    const reply = await Promise.race([
      webhookDelivery(aQueueBatch(aMessage('m1', aDelivery('d1')), aMessage('m2', aDelivery('d2'))), context),
      new Promise((resolve) => setTimeout(() => resolve('held up'), 2_000)),
    ]);
    expect(reply).toEqual(ids());
  });
});

describe('sbom-import (SQS)', () => {
  const anUpload = (importUuid: string) => ({
    Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: 'sbom-uploads' }, object: { key: `uploads/${importUuid}`, size: 42, eTag: 'e1' } } }],
  });
  const failing = '00000000-0000-4000-8000-000000000002';
  const fine = '00000000-0000-4000-8000-000000000001';

  it('reports exactly the upload that failed, and tells the import about its last attempt', async () => {
    fakes.runUpload.mockImplementation(async (importUuid: string) => {
      if (importUuid === failing) throw new Error('product gone');
    });
    const reply = await sbomImport(
      aQueueBatch(aMessage('m1', anUpload(fine)), aMessage('m2', anUpload(failing), 3), aMessage('m3', { Event: 's3:TestEvent' })),
      context,
    );
    expect(reply).toEqual(ids('m2'));
    expect(fakes.runUpload.mock.calls).toEqual([
      [fine, `uploads/${fine}`, 42, 'e1', false],
      [failing, `uploads/${failing}`, 42, 'e1', true],
    ]);
    expect(errors).toHaveBeenCalledTimes(1);
  });
});

describe('stream-router (DynamoDB stream)', () => {
  const aProductInsert = (sequenceNumber: string, uuid: string) => anInsert(sequenceNumber, { entity: 'Product', dataspace: 'acme', uuid, name: uuid });

  it('stops at the first record it cannot route and reports it and every later record; a product is queued once per batch', async () => {
    fakes.products.mockImplementation(async (targets: { uuid: string }[]) => {
      if (targets.some((target) => target.uuid === 'p3')) throw new Error('index query throttled');
      return targets.map((target) => ({ dataspace: 'acme', uuid: target.uuid }));
    });
    const reply = await streamRouter(
      aStreamBatch(aProductInsert('100', 'p1'), aProductInsert('200', 'p1'), aProductInsert('300', 'p3'), aProductInsert('400', 'p4'), aProductInsert('500', 'p5')),
      context,
    );
    expect(reply).toEqual(ids('300', '400', '500'));
    // p1 queued once (its second record found it queued, and queues nothing); p4 and p5 wait for the retry from 300.
    expect(fakes.enqueue.mock.calls.map(([requests]) => requests.map((r: { product: string }) => r.product))).toEqual([['p1']]);
    expect(fakes.products).toHaveBeenCalledTimes(3);
    expect(errors).toHaveBeenCalledTimes(1);
  });

  it('answers an empty list for a batch that succeeds, and for an empty batch', async () => {
    fakes.products.mockImplementation(async (targets: { uuid: string }[]) => targets.map((target) => ({ dataspace: 'acme', uuid: target.uuid })));
    expect(await streamRouter(aStreamBatch(aProductInsert('100', 'p1')), context)).toEqual(ids());
    expect(await streamRouter(aStreamBatch(), context)).toEqual(ids());
  });
});

describe('outbox-publisher (DynamoDB stream)', () => {
  const anOutboxInsert = (sequenceNumber: string, id: string) =>
    anInsert(sequenceNumber, {
      entity: 'OutboxEvent',
      envelope: { id, type: 'policy.violation_detected', version: 1, timestamp: '2026-01-01T00:00:00+00:00', dataspace: 'acme', data: {} },
    });

  it('stops at the first event it cannot publish and reports it and every later record; the retry publishes the rest in order', async () => {
    const published: string[] = [];
    let down = true;
    publisher = {
      publish: async (events: readonly BusEvent[]) => {
        const id = String(events[0]!.detail.id);
        if (id === 'e2' && down) throw new Error('EventBridge throttled');
        published.push(id);
      },
    };
    const batch = aStreamBatch(anOutboxInsert('100', 'e1'), anOutboxInsert('200', 'e2'), anOutboxInsert('300', 'e3'));
    expect(await outboxPublisher(batch, context)).toEqual(ids('200', '300'));
    expect(published).toEqual(['e1']);
    expect(errors).toHaveBeenCalledTimes(1);

    // Lambda retries from the lowest reported record.
    down = false;
    expect(await outboxPublisher(aStreamBatch(...batch.Records.slice(1)), context)).toEqual(ids());
    expect(published).toEqual(['e1', 'e2', 'e3']);
  });

  const aRequestItem = (status: string, lastModifiedDate: string) => ({
    PK: 'REQUEST#r1',
    SK: 'REQUEST',
    entity: 'Request',
    uuid: 'r1',
    dataspace: 'acme',
    title: 'Review zlib',
    templateUuid: 't1',
    templateName: 'Package Review',
    contentType: 'product',
    status,
    requester: 'alice',
    lastModifiedBy: 'alice',
    createdDate: '2026-01-01T00:00:00+00:00',
    lastModifiedDate,
    rev: 1,
    correlationId: 'from-the-api',
  });

  it("makes each request event from its record's image, as of that change, with the correlation id the item carries", async () => {
    const events: BusEvent[] = [];
    publisher = { publish: async (published: readonly BusEvent[]) => void events.push(...published) };
    const comment = { uuid: 'c1', username: 'bob', text: 'Looks fine', createdDate: '2026-01-01T00:00:01+00:00' };
    fakes.commentsAsOf.mockResolvedValue({ count: 7, latest: comment });
    const modified = { ...anInsert('200', aRequestItem('closed', '2026-01-01T00:00:02+00:00')), eventName: 'MODIFY' as const };
    expect(await outboxPublisher(aStreamBatch(anInsert('100', aRequestItem('open', '2026-01-01T00:00:00+00:00')), modified), context)).toEqual(ids());
    // The store holds whatever the request became since: it is never read for the request itself.
    expect(fakes.get).not.toHaveBeenCalled();
    expect(fakes.commentsAsOf.mock.calls).toEqual([['r1', '2026-01-01T00:00:02+00:00']]);
    expect(events.map((event) => [event.detailType, (event.detail.data as { request: { status: string; comments: unknown[] } }).request.status])).toEqual([
      ['request.added', 'open'],
      ['request.updated', 'closed'],
    ]);
    expect(events.map((event) => event.detail.version)).toEqual([2, 2]);
    expect(events.map((event) => (event.detail.data as { request: Record<string, unknown> }).request)).toMatchObject([
      { comment_count: 0, latest_comment: null },
      { comment_count: 7, latest_comment: { uuid: 'c1', username: 'bob', text: 'Looks fine', created_date: comment.createdDate } },
    ]);
    for (const event of events) expect((event.detail.data as { request: Record<string, unknown> }).request).not.toHaveProperty('comments');
    expect(events.map((event) => [event.detail.timestamp, event.detail.correlation_id])).toEqual([
      ['2026-01-01T00:00:00+00:00', 'from-the-api'],
      ['2026-01-01T00:00:02+00:00', 'from-the-api'],
    ]);
  });

  it('reports the whole batch when its first event fails, rather than throwing', async () => {
    publisher = {
      publish: async () => {
        throw new Error('EventBridge down');
      },
    };
    expect(await outboxPublisher(aStreamBatch(anOutboxInsert('100', 'e1'), anOutboxInsert('200', 'e2')), context)).toEqual(ids('100', '200'));
    expect(errors).toHaveBeenCalledTimes(1);
  });
});
