/**
 * Benchmark suite issue, webhook fan-out: webhook deliveries per second to 10 subscribers on a local
 * receiver (a node:http server on 127.0.0.1 answering 204), through the real pipeline of the local
 * stack, divided by the rate of bare signed POSTs to the same receiver.
 *
 * The pipeline: 10 subscriptions to request.added (POST /api/v2/webhooks/), then N requests created
 * with POST /api/v2/requests/ (autocannon). Each one goes table stream → outbox publisher → bus →
 * webhook-events queue → webhook-fanout (one delivery record and one queue message per subscription)
 * → webhook-deliveries queue → webhook-delivery (one attempt per message) → the receiver. Timed from
 * the first POST to the receiver's 10 × N-th delivery.
 *
 * The floor: shared/webhooks/sender.ts deliver(), the signed POST the pipeline makes, called directly
 * at the pipeline's delivery concurrency. On the local stack that is one: the webhook-deliveries
 * queue has one poller and a batch size of 1 (shared/resources.ts), so deliveries are made one after
 * another. The floor at 10 concurrent POSTs is in the note too. The floor runs half before and half
 * after the pipeline run.
 *
 * Where the time goes is in the note: when the events reached the bus, when the fan-out had emptied
 * the webhook-events queue, the first and last delivery, and the largest backlog of the deliveries
 * queue (both queues sampled every 100 ms).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchStack } from '../lib/stack.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { measureAsync, measureHttp, median, type LoadResult } from '../lib/load.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { WebhookStore } from '../../shared/store/webhook-store.ts';
import { WebhookService } from '../../shared/services/webhooks.ts';
import { AWS_RETRY_SCHEDULE, type Subscription } from '../../shared/domain/webhooks.ts';
import { deliver } from '../../shared/webhooks/sender.ts';
import type { Envelope } from '../../shared/events/envelope.ts';
import { REQUEST_ADDED } from '../../shared/events/request-events.ts';
import { InProcessEventBus } from '../../bin/local/event-bus.ts';
import { pollUntil } from './policy-seed.ts';

const DATASPACE = 'bench-webhooks';
const SUBSCRIBERS = 10;
/** Requests created in the measured run: SUBSCRIBERS × EVENTS deliveries. */
const EVENTS = 50;
/** Requests created first, unmeasured: every function of the path loaded and warm. */
const WARMUP_EVENTS = 3;
/** Connections of the autocannon run that creates the requests. */
const POST_CONNECTIONS = 10;
/** The local stack's delivery concurrency: one poller, batch size 1. */
const DELIVERY_CONCURRENCY = 1;
const FLOOR_SECONDS = 6;
const TARGET = 0.5;
/** Generous: the scenarios before may have left thousands of request events in the stream. */
const WARMUP_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 300_000;
const SAMPLE_EVERY_MS = 100;
const ATTEMPT_SAMPLES = 40;

type Phase = 'warmup' | 'measured';
const TITLE = { warmup: 'webhook bench warm-up', measured: 'webhook bench measured' } as const;

/** The local receiver: verifies each signature, records each delivery, answers 204. */
class Receiver {
  private server: Server | undefined;
  private readonly verifiers = new Map<string, Webhook>();
  /** Deliveries of each phase: event id → the paths (subscriptions) that received it. */
  readonly received = { warmup: new Map<string, Set<string>>(), measured: new Map<string, Set<string>>() };
  readonly times = { warmup: [] as number[], measured: [] as number[] };
  duplicates = 0;
  badSignatures = 0;
  floorPosts = 0;
  lastEnvelope: Envelope | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = performance.now();
        this.record(request.url ?? '', Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>, at);
        response.writeHead(204).end();
      });
    });
    // Keep-alive connections must not outlive the run: close() would wait for them.
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolveListen) => this.server!.listen(0, '127.0.0.1', resolveListen));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  addSecret(path: string, secret: string): void {
    this.verifiers.set(path, new Webhook(secret));
  }

  private record(path: string, body: string, headers: Record<string, string>, at: number): void {
    const verifier = this.verifiers.get(path);
    let envelope: Envelope;
    try {
      if (!verifier) throw new Error(`no subscription at ${path}`);
      envelope = verifier.verify(body, headers) as Envelope;
    } catch {
      this.badSignatures += 1;
      return;
    }
    if (path === '/floor') {
      this.floorPosts += 1;
      return;
    }
    if (envelope.type !== REQUEST_ADDED || envelope.dataspace !== DATASPACE) return;
    this.lastEnvelope = envelope;
    const title = String((envelope.data as { request?: { title?: string } }).request?.title ?? '');
    const phase: Phase | undefined = title.startsWith(TITLE.measured) ? 'measured' : title.startsWith(TITLE.warmup) ? 'warmup' : undefined;
    if (!phase) return;
    const paths = this.received[phase].get(envelope.id) ?? new Set<string>();
    if (paths.has(path)) {
      this.duplicates += 1;
      return;
    }
    paths.add(path);
    this.received[phase].set(envelope.id, paths);
    this.times[phase].push(at);
  }

  count(phase: Phase): number {
    return this.times[phase].length;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  }
}

interface QueueSample {
  readonly at: number;
  /** Visible and in-flight messages. */
  readonly events: number;
  readonly deliveries: number;
}

async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/** The webhook queues of the stack in this process, or undefined when their URLs are unknown. */
function webhookQueues(sqs: SQSClient, queues: BenchStack['queues']) {
  const eventsUrl = queues.webhookEvents.url;
  const deliveriesUrl = queues.webhookDeliveries.url;
  if (!eventsUrl || !deliveriesUrl) return undefined;
  return {
    depths: async () => ({ events: await queueDepth(sqs, eventsUrl), deliveries: await queueDepth(sqs, deliveriesUrl) }),
  };
}

/** Samples both queues until stopped. */
function startSampler(queues: NonNullable<ReturnType<typeof webhookQueues>>) {
  const samples: QueueSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const at = performance.now();
        samples.push({ at, ...(await queues.depths()) });
      } catch {
        // A missed sample only makes the breakdown coarser.
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, SAMPLE_EVERY_MS));
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
    },
  };
}

const seconds = (fromMs: number, toMs: number) => `${((toMs - fromMs) / 1000).toFixed(2)} s`;

/**
 * What one delivery attempt costs, one after another (medians of ATTEMPT_SAMPLES): the SQS receive
 * and delete of its message (on a scratch queue), and WebhookService.attempt itself (its DynamoDB
 * calls and the signed POST) to a receiver of its own, for a scratch subscription in a dataspace of
 * its own, which no fan-out ever picks.
 */
async function attemptCosts(doc: DynamoDBDocumentClient, tableName: string, sqs: SQSClient, envelope: Envelope) {
  const store = new WebhookStore(doc, tableName);
  const service = new WebhookService({
    store,
    queue: { send: async () => undefined },
    schedule: AWS_RETRY_SCHEDULE,
    allowPrivateTargets: true,
    now: () => new Date(),
    random: Math.random,
  });
  const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const subscription: Subscription = {
    uuid: randomUUID(),
    dataspace: `${DATASPACE}-scratch`,
    targetUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    events: [REQUEST_ADDED],
    isActive: true,
    description: 'webhook fan-out bench: the cost of one attempt',
    secret: `whsec_${randomBytes(24).toString('base64')}`,
    createdDate: new Date().toISOString(),
    failingSince: null,
    rev: 0,
  };
  await store.save(subscription, undefined);
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `bench-webhook-scratch-${randomUUID().slice(0, 8)}` }));
  if (!QueueUrl) throw new Error('no scratch queue');
  const sqsTimes: number[] = [];
  const attemptTimes: number[] = [];
  try {
    for (let i = 0; i < ATTEMPT_SAMPLES + 2; i++) {
      const deliveryId = randomUUID();
      await store.recordDelivery({ deliveryId, webhookUuid: subscription.uuid, envelope }, new Date());
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ webhookUuid: subscription.uuid, deliveryId }) }));

      let before = performance.now();
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, AttributeNames: ['All'], MessageAttributeNames: ['All'] }),
      );
      const message = Messages?.[0];
      if (!message) throw new Error('scratch queue: no message received');
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl, Entries: [{ Id: '0', ReceiptHandle: message.ReceiptHandle }] }));
      const sqsMs = performance.now() - before;

      before = performance.now();
      const outcome = await service.attempt({ webhookUuid: subscription.uuid, deliveryId }, 1);
      const attemptMs = performance.now() - before;
      if (outcome.outcome !== 'delivered') throw new Error(`scratch attempt: ${outcome.outcome}`);
      // The first two are warm-up.
      if (i >= 2) {
        sqsTimes.push(sqsMs);
        attemptTimes.push(attemptMs);
      }
    }
  } finally {
    await sqs.send(new DeleteQueueCommand({ QueueUrl })).catch(() => undefined);
    await new Promise((resolve) => receiver.close(resolve));
  }
  return { sqsMs: median(sqsTimes), attemptMs: median(attemptTimes) };
}

export const webhookFanOut: Scenario = {
  name: 'webhook fan-out',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, sqsEndpoint, bus, queues: stackQueues, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    const sqs = createSqsClient({ region, endpoint: sqsEndpoint });
    const receiver = new Receiver();
    try {
      await receiver.start();
      const rootKey = await createUserWithKey(doc, tableName, { username: 'bench-webhooks-root', dataspace: DATASPACE, isSuperuser: true });
      const api = async (method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> => {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: { Authorization: `Token ${rootKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
        return JSON.parse(text) as Record<string, unknown>;
      };
      const templateUuid = randomUUID();
      await new RequestStore(doc, tableName).saveTemplate(
        { uuid: templateUuid, dataspace: DATASPACE, name: 'Webhook bench', description: '', contentType: 'product', isActive: true, questions: [] },
        undefined,
      );
      for (let i = 0; i < SUBSCRIBERS; i++) {
        const path = `/hook/${i}`;
        const subscription = await api('POST', '/api/v2/webhooks/', { target_url: `${receiver.url}${path}`, events: [REQUEST_ADDED] }, 201);
        receiver.addSecret(path, String(subscription.secret));
      }
      log(`${SUBSCRIBERS} subscriptions to ${REQUEST_ADDED} at ${receiver.url}/hook/0..${SUBSCRIBERS - 1}`);

      // When each measured event reached the bus (the outbox publisher's end of the pipeline).
      const onBus: number[] = [];
      const publisher = bus;
      if (publisher instanceof InProcessEventBus) {
        publisher.addRule({
          name: 'bench-webhook-fan-out',
          pattern: { 'detail-type': [REQUEST_ADDED], detail: { dataspace: [DATASPACE] } },
          target: async (event) => {
            const title = (event.detail.data as { request?: { title?: string } } | undefined)?.request?.title ?? '';
            if (title.startsWith(TITLE.measured)) onBus.push(performance.now());
          },
        });
      }

      // Warm-up: a few requests all the way to the receiver, which also waits out any backlog of
      // request events the scenarios before left in the stream; then the webhook queues must be empty.
      const warmupStart = performance.now();
      for (let i = 0; i < WARMUP_EVENTS; i++) {
        await api('POST', '/api/v2/requests/', { title: `${TITLE.warmup} ${i}`, request_template: templateUuid }, 201);
      }
      await pollUntil(
        'the warm-up deliveries',
        async () => (receiver.count('warmup') >= WARMUP_EVENTS * SUBSCRIBERS ? true : undefined),
        WARMUP_TIMEOUT_MS,
        50,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)} (${receiver.count('warmup')} of ${WARMUP_EVENTS * SUBSCRIBERS} received)`);
      });
      const queues = webhookQueues(sqs, stackQueues);
      if (queues) {
        let emptySince: number | undefined;
        await pollUntil(
          'the webhook queues to be empty for 1 s',
          async () => {
            const { events, deliveries } = await queues.depths();
            if (events + deliveries > 0) emptySince = undefined;
            else emptySince ??= performance.now();
            return emptySince !== undefined && performance.now() - emptySince >= 1_000 ? true : undefined;
          },
          120_000,
          100,
        );
      }
      log(`warm-up: ${WARMUP_EVENTS * SUBSCRIBERS} deliveries received and the queues quiet after ${seconds(warmupStart, performance.now())}`);

      // The floor: the same signed POST of the same envelope to the same receiver, made directly.
      const envelope = receiver.lastEnvelope;
      if (!envelope) throw new Error('no warm-up envelope to send in the floor');
      const floorSecret = `whsec_${randomBytes(24).toString('base64')}`;
      receiver.addSecret('/floor', floorSecret);
      const floorPost = async () => {
        const result = await deliver(`${receiver.url}/floor`, envelope, floorSecret, { allowPrivate: true });
        if (!result.ok) throw new Error(`floor POST: ${result.status} ${result.excerpt}`);
      };
      const floorRun = (concurrency: number) =>
        measureAsync({ concurrency, durationSeconds: FLOOR_SECONDS / 2, warmupSeconds: 1, fn: floorPost });
      const floorBefore = await floorRun(DELIVERY_CONCURRENCY);
      log(`floor (before): ${floorBefore.requestsPerSecond.toFixed(0)} signed POSTs/s, p50 ${floorBefore.p50Ms.toFixed(2)} ms`);

      // The measured run: N requests through the API, until the receiver has every delivery.
      const sampler = queues ? startSampler(queues) : undefined;
      const start = performance.now();
      let post: LoadResult;
      try {
        post = await measureHttp({
          url: `${apiUrl}/api/v2/requests/`,
          method: 'POST',
          headers: { Authorization: `Token ${rootKey}` },
          body: { title: `${TITLE.measured} [<id>]`, request_template: templateUuid },
          idReplacement: true,
          connections: POST_CONNECTIONS,
          amount: EVENTS,
          warmupSeconds: 0,
        });
        const expected = post.total * SUBSCRIBERS;
        await pollUntil(
          `${expected} deliveries`,
          async () => (receiver.count('measured') >= expected ? true : undefined),
          RUN_TIMEOUT_MS,
          20,
        ).catch((error: unknown) => {
          throw new Error(`${String(error)} (${receiver.count('measured')} received, ${onBus.length} events on the bus)`);
        });
      } finally {
        await sampler?.stop();
      }
      const deliveries = receiver.times.measured;
      const firstDelivery = Math.min(...deliveries);
      const lastDelivery = Math.max(...deliveries);
      const postsEnd = start + post.durationSeconds * 1000;
      const pipelineRate = deliveries.length / ((lastDelivery - start) / 1000);

      const floorAfter = await floorRun(DELIVERY_CONCURRENCY);
      log(`floor (after): ${floorAfter.requestsPerSecond.toFixed(0)} signed POSTs/s, p50 ${floorAfter.p50Ms.toFixed(2)} ms`);
      const floorRate = (floorBefore.total + floorAfter.total) / (floorBefore.durationSeconds + floorAfter.durationSeconds);
      const floorWide = await measureAsync({ concurrency: SUBSCRIBERS, durationSeconds: FLOOR_SECONDS / 2, warmupSeconds: 1, fn: floorPost });
      const ratio = pipelineRate / floorRate;
      const costs = await attemptCosts(doc, tableName, sqs, envelope);
      log(`one attempt made directly: SQS receive + delete ${costs.sqsMs.toFixed(2)} ms, WebhookService.attempt ${costs.attemptMs.toFixed(2)} ms`);

      // Where the time went.
      const samples = sampler?.samples ?? [];
      const lastOnBus = onBus.length > 0 ? Math.max(...onBus) : undefined;
      const fanOutDone = lastOnBus === undefined ? undefined : samples.find((sample) => sample.at >= lastOnBus && sample.events === 0)?.at;
      const maxBacklog = samples.reduce((max, sample) => Math.max(max, sample.deliveries), 0);
      const deliveryStageRate = (deliveries.length - 1) / ((lastDelivery - firstDelivery) / 1000);
      const attemptBound = 1000 / (costs.sqsMs + costs.attemptMs);
      /** Mean ms between deliveries within [from, to]. */
      const gap = (from: number, to: number) => {
        const inside = deliveries.filter((at) => at >= from && at <= to);
        return inside.length > 1 ? ((Math.max(...inside) - Math.min(...inside)) / (inside.length - 1)).toFixed(2) : undefined;
      };
      const [gapDuringFanOut, gapAfterFanOut] =
        fanOutDone === undefined ? [undefined, undefined] : [gap(firstDelivery, fanOutDone), gap(fanOutDone, lastDelivery)];
      const phases = [
        `${post.total} requests created by ${POST_CONNECTIONS} autocannon connections in ${seconds(start, postsEnd)}`,
        lastOnBus === undefined ? undefined : `all ${onBus.length} events on the bus (stream → outbox publisher) at ${seconds(start, lastOnBus)}`,
        fanOutDone === undefined ? undefined : `fan-out done (webhook-events queue empty) by ${seconds(start, fanOutDone)}`,
        `deliveries from ${seconds(start, firstDelivery)} to ${seconds(start, lastDelivery)}: ${deliveryStageRate.toFixed(0)}/s, ` +
          `${((lastDelivery - firstDelivery) / (deliveries.length - 1)).toFixed(2)} ms apart, one at a time` +
          (gapDuringFanOut && gapAfterFanOut ? ` (${gapDuringFanOut} ms while the fan-out ran, ${gapAfterFanOut} ms after)` : '') +
          `; an attempt's own ` +
          `calls made directly take ${(costs.sqsMs + costs.attemptMs).toFixed(2)} ms (SQS receive + delete ` +
          `${costs.sqsMs.toFixed(2)} ms; WebhookService.attempt, five DynamoDB calls and the signed POST, ` +
          `${costs.attemptMs.toFixed(2)} ms, of which a bare signed POST takes ${floorBefore.p50Ms.toFixed(2)} ms), medians of ` +
          `${ATTEMPT_SAMPLES}: one at a time, that allows at most ${attemptBound.toFixed(0)} deliveries/s, ` +
          `${(attemptBound / floorRate).toFixed(3)} of the floor, with a fan-out that cost nothing`,
        samples.length > 0 ? `up to ${maxBacklog} messages waiting in the deliveries queue` : undefined,
      ].filter((phase) => phase !== undefined);
      log(`pipeline: ${phases.join('; ')}`);
      log(`${pipelineRate.toFixed(0)} deliveries/s / floor ${floorRate.toFixed(0)} POSTs/s = ${ratio.toFixed(3)}`);

      const problems = [
        receiver.badSignatures > 0 ? `${receiver.badSignatures} deliveries with a bad signature` : undefined,
        receiver.duplicates > 0 ? `${receiver.duplicates} duplicate deliveries` : undefined,
        post.non2xx > 0 ? `${post.non2xx} POSTs outside 2xx` : undefined,
      ].filter((problem) => problem !== undefined);
      return [
        {
          scenario: this.name,
          figure: `deliveries/s to ${SUBSCRIBERS} subscribers through the pipeline / bare signed POSTs/s`,
          value: ratio,
          target: `≥ ${TARGET}`,
          met: ratio >= TARGET && problems.length === 0,
          unit: 'ratio',
          note:
            `${deliveries.length} deliveries (${post.total} request.added × ${SUBSCRIBERS}) in ${seconds(start, lastDelivery)} from the ` +
            `first POST: ${pipelineRate.toFixed(1)}/s; floor deliver() at ${DELIVERY_CONCURRENCY} concurrent (the local delivery ` +
            `concurrency: one poller, batch size 1) ${floorRate.toFixed(0)}/s (${floorBefore.requestsPerSecond.toFixed(0)} before, ` +
            `${floorAfter.requestsPerSecond.toFixed(0)} after), at ${SUBSCRIBERS} concurrent ${floorWide.requestsPerSecond.toFixed(0)}/s ` +
            `(ratio ${(pipelineRate / floorWide.requestsPerSecond).toFixed(3)}). Where the time goes: ${phases.join('; ')}` +
            (problems.length > 0 ? `. Problems: ${problems.join(', ')}` : ''),
        },
      ];
    } finally {
      await receiver.stop();
      sqs.destroy();
      doc.destroy();
    }
  },
};
