/**
 * The faults SQS and Lambda bring, forced one by one on the real emulators: a duplicate message,
 * two evaluations of one product at the same moment, a crash between committing violations and
 * publishing their event, a publish that fails, and a poison message. None may produce a duplicate
 * or lost event, a wrong count or a second record.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { useTestTable, dynamodbEndpoint } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { PolicyStore, type EvaluationData, type EvaluationHead } from '../../shared/store/policy-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import { CatalogService } from '../../shared/services/catalog.ts';
import { ProductPackageService } from '../../shared/services/product-packages.ts';
import { EvaluationService, STALE_READ_MARGIN_MS } from '../../shared/services/evaluation.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { startStreamPoller } from '../../bin/local/stream-poller.ts';
import { startQueuePoller } from '../../bin/local/queue-poller.ts';
import { ensureQueues } from '../../bin/local/queues.ts';
import { InProcessEventBus } from '../../bin/local/event-bus.ts';
import { loadHandler } from '../../bin/local/functions.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import { EventBridgePublisher, type PutEventsClient } from '../../shared/events/eventbridge-publisher.ts';
import { parseConfig } from '../../shared/config.ts';
import { EVENT_BUS, EVENT_SOURCES } from '../../shared/resources.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let policy: PolicyStore;
let products: ProductService;
let evaluation: EvaluationService;
let catalogService: CatalogService;
let packages: ProductPackageService;
const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  process.env.EVALUATION_DELAY_SECONDS = '0';
  await aTeam(env, { acme: { users: { root: { superuser: true } } } });
  policy = new PolicyStore(env.doc, env.tableName);
  const catalog = new CatalogStore(env.doc, env.tableName);
  const productPackages = new ProductPackageStore(env.doc, env.tableName);
  products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  evaluation = new EvaluationService({ policy, catalog, now: () => new Date(), newUuid: randomUUID, baseUrl: 'https://api.test' });
  await policy.saveConfig('acme', { license_coverage_gap: { is_active: true, threshold: 0, parameters: {} } }, 0, new Date().toISOString());
  catalogService = new CatalogService({ catalog, productPackages, now: () => new Date(), newUuid: randomUUID });
  packages = new ProductPackageService({ catalog, productPackages, products, now: () => new Date(), newUuid: randomUUID });
});

/** A product holding one package without a license: license_coverage_gap triggers on it. */
async function aViolatingProduct(): Promise<string> {
  const product = await products.create(root, { name: `Faulty ${randomUUID().slice(0, 6)}`, version: '' }, 'https://api.test');
  const pkg = await catalogService.savePackage(root, undefined, () => ({ purl: `pkg:npm/bare-${randomUUID().slice(0, 8)}@1.0.0` }), 'https://api.test');
  await packages.add(root, () => ({ product: product.uuid, package: pkg.uuid }), 'https://api.test');
  return product.uuid;
}

async function outboxFor(product: string) {
  const result = await env.doc.send(new ScanCommand({ TableName: env.tableName, ConsistentRead: true, FilterExpression: 'entity = :e', ExpressionAttributeValues: { ':e': 'OutboxEvent' } }));
  return (result.Items ?? []).filter((item) => item.envelope.data.product.uuid === product);
}

async function violationItems(product: string) {
  const result = await env.doc.send(
    new QueryCommand({
      TableName: env.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :v)',
      ExpressionAttributeValues: { ':pk': `PRODUCT#${product}`, ':v': 'VIOLATION#' },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

const sqsEvent = (body: unknown, messageId = randomUUID()): SQSEvent => ({
  Records: [
    {
      messageId,
      receiptHandle: 'x',
      body: JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:evaluation',
      awsRegion: 'us-east-1',
    },
  ],
});

describe('evaluation faults', () => {
  it('a duplicated or retried message records one violation and one event', async () => {
    const product = await aViolatingProduct();
    const evaluator = await loadHandler('evaluator');
    const message = sqsEvent({ dataspace: 'acme', product, requestedAt: new Date().toISOString().replace('Z', '+00:00') });
    const context = lambdaContext('evaluator', 30_000) as Context;
    expect(await evaluator(message, context)).toEqual({ batchItemFailures: [] });
    expect(await evaluator(message, context)).toEqual({ batchItemFailures: [] });
    // Even a fresh request (a later change) re-evaluates without a second detection.
    await evaluation.evaluate(product);
    expect(await outboxFor(product)).toHaveLength(1);
    const violations = await violationItems(product);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ ruleType: 'license_coverage_gap', count: 1, resolvedDate: null });
  });

  it('two evaluations of one product at the same moment commit once each, and detect once', async () => {
    const product = await aViolatingProduct();
    // Both read before either commits: the loser's commit fails on the state version and it re-reads.
    let waiting = 0;
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    class RacingStore extends PolicyStore {
      override async readForEvaluation(head: EvaluationHead, options: { consistent: boolean }): Promise<EvaluationData> {
        const data = await super.readForEvaluation(head, options);
        if (waiting < 2) {
          waiting++;
          if (waiting === 2) release();
          await bothRead;
        }
        return data;
      }
    }
    const racing = new EvaluationService({
      policy: new RacingStore(env.doc, env.tableName),
      catalog: new CatalogStore(env.doc, env.tableName),
      now: () => new Date(),
      newUuid: randomUUID,
      baseUrl: 'https://api.test',
    });
    const outcomes = await Promise.all([racing.evaluate(product), racing.evaluate(product)]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['evaluated', 'evaluated']);
    const events = outcomes.flatMap((o) => (o.outcome === 'evaluated' ? o.events : []));
    expect(events).toHaveLength(1);
    expect(await outboxFor(product)).toHaveLength(1);
    expect(await violationItems(product)).toHaveLength(1);
    const state = await policy.readProduct(product);
    expect(state?.state.version).toBe(2);
  });

  it('an event committed before a crash is published after it, once, with its id; a failed publish is retried', async () => {
    const product = await aViolatingProduct();
    // The evaluator commits violations and event, then "dies": nothing publishes in its process.
    const outcome = await evaluation.evaluate(product);
    expect(outcome.outcome).toBe('evaluated');
    const [committed] = await outboxFor(product);
    // Later the stream delivers the outbox item to the publisher, whose first publish fails.
    const bus = new InProcessEventBus({ region: 'us-east-1' });
    let attempts = 0;
    // EventBridge, throttling the first PutEvents: the bus behind it answers the others.
    const flaky: PutEventsClient = {
      send: async (command) => {
        attempts++;
        if (attempts === 1) throw Object.assign(new Error('EventBridge throttled'), { name: 'ThrottlingException' });
        return bus.send(command);
      },
    };
    const source = EVENT_SOURCES.find((s) => s.kind === 'table-stream' && s.function === 'outbox-publisher')!;
    // The outbox publisher made with the service's publisher on the flaky EventBridge. (Imported now, as
    // loadHandler imports the others: its logger reads the log level useTestTable set.)
    const { makeHandler: makeOutboxPublisher } = await import('../../functions/outbox-publisher.ts');
    const publisher = makeOutboxPublisher({
      config: parseConfig(process.env),
      requestStore: env.requests,
      publisher: new EventBridgePublisher(EVENT_BUS.localName, flaky),
    });
    const poller = startStreamPoller({
      dynamodbEndpoint: dynamodbEndpoint(),
      region: 'us-east-1',
      tableName: env.tableName,
      startingPosition: 'TRIM_HORIZON',
      batchSize: 10,
      maxRetryAttempts: 10,
      bisectBatchOnError: true,
      filterPatterns: source.kind === 'table-stream' ? source.filterPatterns : [],
      pollIntervalMs: 20,
      handler: async (event) => (await publisher(event, lambdaContext('outbox-publisher', 30_000))) as never,
    });
    try {
      const deadline = Date.now() + 15_000;
      const mine = () => bus.recentEvents().filter((e) => (e.detail as { id: string }).id === committed!.envelope.id);
      while (mine().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await poller.idle();
      expect(mine()).toHaveLength(1);
      expect(mine()[0]!['detail-type']).toBe('policy.violation_detected');
      expect(attempts).toBeGreaterThanOrEqual(2);
    } finally {
      await poller.stop();
    }
  });

  it('a poison message ends in the dead-letter queue after a bounded number of tries', async () => {
    const sqs = createSqsClient({ region: 'us-east-1', endpoint: inject('sqsEndpoint') });
    const name = `poison-${randomUUID().slice(0, 8)}`;
    const queues = await ensureQueues(sqs, {
      poison: { localName: name, urlEnvVar: 'UNUSED', visibilityTimeoutSeconds: 1, maxReceiveCount: 2, retentionDays: 1, deadLetterRetentionDays: 1 },
    });
    const evaluator = await loadHandler('evaluator');
    const poller = startQueuePoller({
      sqs,
      queueUrl: queues.poison.url,
      queueArn: queues.poison.arn,
      region: 'us-east-1',
      batchSize: 10,
      handler: async (event) => (await evaluator(event, lambdaContext('evaluator', 30_000))) as never,
    });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: queues.poison.url, MessageBody: '{"not": "an evaluation request"' }));
      const deadline = Date.now() + 20_000;
      let dead: unknown[] = [];
      while (dead.length === 0 && Date.now() < deadline) {
        const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.poison.dlqUrl, WaitTimeSeconds: 1 }));
        dead = received.Messages ?? [];
      }
      expect(dead).toHaveLength(1);
    } finally {
      await poller.stop();
      sqs.destroy();
    }
  }, 40_000);

  it('an evaluation of a product deleted meanwhile records nothing', async () => {
    const product = await aViolatingProduct();
    await products.destroy(root, product);
    expect(await evaluation.evaluate(product)).toEqual({ outcome: 'skipped', reason: 'gone' });
    expect(await violationItems(product)).toEqual([]);
  });

  it('a stale read cannot stick: an eventually consistent evaluation answers only the requests seen a margin before it started', async () => {
    const product = await aViolatingProduct();
    const t0 = new Date(Date.now() + 60_000);
    const at = (ms: number) => new Date(t0.getTime() + ms).toISOString().replace('Z', '+00:00');
    const reads: boolean[] = [];
    class Recording extends PolicyStore {
      override async readForEvaluation(head: EvaluationHead, options: { consistent: boolean }): Promise<EvaluationData> {
        reads.push(options.consistent);
        return super.readForEvaluation(head, options);
      }
    }
    const later = new EvaluationService({
      policy: new Recording(env.doc, env.tableName),
      catalog: new CatalogStore(env.doc, env.tableName),
      now: () => t0,
      newUuid: randomUUID,
      baseUrl: 'https://api.test',
    });
    // A request queued 5 s before: read eventually consistent, covering the changes until 1 s before the start.
    expect((await later.evaluate(product, { requestedAt: at(-5_000) })).outcome).toBe('evaluated');
    expect((await policy.readViolations(product)).state).toMatchObject({ evaluatedAt: at(0), coveredUntil: at(-STALE_READ_MARGIN_MS) });
    expect(await later.evaluate(product, { requestedAt: at(-2_000) })).toEqual({ outcome: 'skipped', reason: 'up to date' });
    // A change seen within the margin may be missing from that read: its request is evaluated again, strongly consistent.
    expect((await later.evaluate(product, { requestedAt: at(-500) })).outcome).toBe('evaluated');
    expect(reads).toEqual([false, true]);
    expect(await later.evaluate(product, { requestedAt: at(-500) })).toEqual({ outcome: 'skipped', reason: 'up to date' });
  });
});
