/**
 * Webhook fan-out (issue 17, item 5), on a local receiver (a node:http server on 127.0.0.1 that
 * verifies every signature and answers 204) with 100 subscriptions to request.added:
 *
 * 1. Throughput: N events put on the bus at once, as the outbox publisher puts them, go through the
 *    real local pipeline (bus rule → webhook-events queue → its poller → webhook-fanout, which POSTs
 *    to every subscription and writes the log) to the receiver. Deliveries per second, from the
 *    publish to the 100 × N-th delivery, divided by the floor: shared/webhooks/sender.ts deliver(),
 *    the same signed POST of the same envelope to the same receiver, made directly at the fan-out's
 *    own concurrency (POST_CONCURRENCY in flight; half before the run, half after). Target ≥ 0.5.
 * 2. Slow target delay: events put on the bus one every 250 ms, once with every receiver answering at
 *    once and once with one of the 100 answering after 10 s. The figure is the worst time from an
 *    event's publish to one of the other 99 deliveries with the slow target, minus the same without
 *    it: what one slow subscriber costs the others. Target ≤ 1 s.
 *
 * First, a few requests created through the API go the whole way (table stream → outbox publisher →
 * bus → ...), which checks the path end to end, warms every function, and gives the envelope the
 * measured events copy (with ids and titles of their own).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../shared/aws/clients.ts';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { measureAsync, median } from '../lib/load.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { FIRST_TRY_TIMEOUT_MS, POST_CONCURRENCY } from '../../shared/services/webhooks.ts';
import { deliver } from '../../shared/webhooks/sender.ts';
import type { Envelope } from '../../shared/events/envelope.ts';
import { REQUEST_ADDED } from '../../shared/events/request-events.ts';
import { EventBridgePublisher } from '../../shared/events/eventbridge-publisher.ts';
import { EVENT_BUS } from '../../shared/resources.ts';
import { pollUntil } from './policy-seed.ts';

const DATASPACE = 'bench-webhooks';
const SUBSCRIBERS = 100;
/** Events of the throughput run: SUBSCRIBERS × EVENTS deliveries. */
const EVENTS = 20;
/** Requests created through the API first, all the way to the receiver. */
const WARMUP_EVENTS = 3;
/** Events of each slow-target run, and the time between two. */
const PACED_EVENTS = 6;
const PACE_MS = 250;
/** How long the slow target takes to answer. */
const SLOW_ANSWER_MS = 10_000;
const FLOOR_SECONDS = 10;
const RATIO_TARGET = 0.5;
const DELAY_TARGET_SECONDS = 1;
/** Generous: the scenarios before may have left thousands of request events in the stream. */
const WARMUP_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 120_000;
/**
 * The log of a run: 2 rows a delivery. DynamoDB Local on a shared disk has written as few as 50 items
 * a second in BatchWriteItem calls (bare calls measured alongside, 2026-11), so this is long.
 */
const LOG_TIMEOUT_MS = 900_000;

type Phase = 'warmup' | 'measured' | 'paced' | 'slow';
const PHASES: readonly Phase[] = ['warmup', 'measured', 'paced', 'slow'];
const titleOf = (phase: Phase, i: number) => `webhook bench ${phase} ${i}`;
const SLOW_PATH = '/hook/0';

/** The local receiver: verifies each signature, records each delivery by phase, event and path. */
class Receiver {
  private server: Server | undefined;
  private readonly verifiers = new Map<string, Webhook>();
  /** Deliveries of each phase: event id → path → when it arrived. */
  readonly received = new Map<Phase, Map<string, Map<string, number>>>(PHASES.map((phase) => [phase, new Map()]));
  readonly count = new Map<Phase, number>(PHASES.map((phase) => [phase, 0]));
  /** The same event received again by the same path, outside the slow target's own repeats. */
  duplicates = 0;
  /**
   * The slow target receiving an event again: expected (the fan-out gives up after its first-try timeout
   * and the delivery function tries again at once; an answer at 10 s may miss the 10 s timeout and be retried).
   */
  slowRepeats = 0;
  badSignatures = 0;
  /** While set, SLOW_PATH answers after SLOW_ANSWER_MS. */
  slow = false;
  private readonly held = new Set<ServerResponse>();
  lastEnvelope: Envelope | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        this.record(path, Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>, performance.now());
        if (this.slow && path === SLOW_PATH) {
          this.held.add(response);
          setTimeout(() => {
            this.held.delete(response);
            if (!response.destroyed) response.writeHead(204).end();
          }, SLOW_ANSWER_MS).unref();
          return;
        }
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
    let envelope: Envelope;
    try {
      const verifier = this.verifiers.get(path);
      if (!verifier) throw new Error(`no subscription at ${path}`);
      envelope = verifier.verify(body, headers) as Envelope;
    } catch {
      this.badSignatures += 1;
      return;
    }
    if (path === '/floor' || envelope.type !== REQUEST_ADDED || envelope.dataspace !== DATASPACE) return;
    const title = String((envelope.data as { request?: { title?: string } }).request?.title ?? '');
    const phase = PHASES.find((p) => title.startsWith(`webhook bench ${p} `));
    if (!phase) return;
    if (phase === 'warmup') this.lastEnvelope = envelope;
    const events = this.received.get(phase)!;
    const paths = events.get(envelope.id) ?? new Map<string, number>();
    if (paths.has(path)) {
      if (phase === 'slow' && path === SLOW_PATH) this.slowRepeats += 1;
      else this.duplicates += 1;
      return;
    }
    paths.set(path, at);
    events.set(envelope.id, paths);
    this.count.set(phase, this.count.get(phase)! + 1);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const response of this.held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Visible and in-flight messages of a queue. */
async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

export const webhookFanOut: Scenario = {
  name: 'webhook fan-out',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, sqsEndpoint, bus, queues, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    const sqs = createSqsClient({ region, endpoint: sqsEndpoint });
    /**
     * Until the fan-out has finished with every event: a message leaves the webhook-events queue once its
     * invocation has written the log and queued the retries. The next measurement starts on a quiet stack.
     */
    const fanOutFinished = () =>
      pollUntil('the webhook-events queue to be empty', async () => ((await queueDepth(sqs, queues.webhookEvents.url)) === 0 ? true : undefined), LOG_TIMEOUT_MS, 50);
    const receiver = new Receiver();
    const publisher = new EventBridgePublisher(EVENT_BUS.localName, bus);
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

      // Warm-up, the whole way from the API; it also waits out any backlog of request events the
      // scenarios before left in the stream.
      const warmupStart = performance.now();
      for (let i = 0; i < WARMUP_EVENTS; i++) {
        await api('POST', '/api/v2/requests/', { title: titleOf('warmup', i), request_template: templateUuid }, 201);
      }
      const waitFor = (phase: Phase, expected: number, timeoutMs: number) =>
        pollUntil(`${expected} ${phase} deliveries`, async () => (receiver.count.get(phase)! >= expected ? true : undefined), timeoutMs, 10).catch(
          (error: unknown) => {
            throw new Error(`${String(error)} (${receiver.count.get(phase)} received)`);
          },
        );
      await waitFor('warmup', WARMUP_EVENTS * SUBSCRIBERS, WARMUP_TIMEOUT_MS);
      const warmupMs = performance.now() - warmupStart;
      log(`warm-up: ${WARMUP_EVENTS} requests created through the API, ${WARMUP_EVENTS * SUBSCRIBERS} deliveries in ${seconds(warmupMs)}`);
      const template = receiver.lastEnvelope;
      if (!template) throw new Error('no warm-up envelope to copy');

      /** Events like the warm-up's, each with its own id and the title of its phase. */
      const events = (phase: Phase, count: number): Envelope[] =>
        Array.from({ length: count }, (_, i) => {
          const data = template.data as { request?: Record<string, unknown> };
          return { ...template, id: randomUUID(), timestamp: new Date().toISOString(), data: { ...data, request: { ...data.request, title: titleOf(phase, i) } } };
        });
      const publish = (batch: readonly Envelope[]) =>
        publisher.publish(batch.map((event) => ({ source: EVENT_BUS.source, detailType: event.type, detail: event as unknown as Record<string, unknown> })));

      // The floor: the same signed POST of the same envelope to the same receiver, made directly, at
      // the fan-out's concurrency.
      const floorSecret = `whsec_${randomBytes(24).toString('base64')}`;
      receiver.addSecret('/floor', floorSecret);
      const floorPost = async () => {
        const result = await deliver(`${receiver.url}/floor`, template, floorSecret, { allowPrivate: true });
        if (!result.ok) throw new Error(`floor POST: ${result.status} ${result.excerpt}`);
      };
      const floorRun = () => measureAsync({ concurrency: POST_CONCURRENCY, durationSeconds: FLOOR_SECONDS / 2, warmupSeconds: 1, fn: floorPost });
      const floorBefore = await floorRun();
      log(`floor (before): ${floorBefore.requestsPerSecond.toFixed(0)} signed POSTs/s at ${POST_CONCURRENCY} in flight`);

      // 1. Throughput: every event on the bus at once.
      const measured = events('measured', EVENTS);
      const start = performance.now();
      await publish(measured);
      const published = performance.now();
      await waitFor('measured', EVENTS * SUBSCRIBERS, RUN_TIMEOUT_MS);
      const delivered = performance.now();
      log(`throughput: ${EVENTS * SUBSCRIBERS} deliveries in ${seconds(delivered - start)}; waiting for the fan-out to write the log...`);
      await fanOutFinished();
      const finished = performance.now();
      const times = [...receiver.received.get('measured')!.values()].flatMap((paths) => [...paths.values()]);
      const firstDelivery = Math.min(...times);
      const lastDelivery = Math.max(...times);
      const pipelineRate = times.length / ((lastDelivery - start) / 1000);

      const floorAfter = await floorRun();
      log(`floor (after): ${floorAfter.requestsPerSecond.toFixed(0)} signed POSTs/s`);
      const floorRate = (floorBefore.total + floorAfter.total) / (floorBefore.durationSeconds + floorAfter.durationSeconds);
      const ratio = pipelineRate / floorRate;
      /** When the last delivery of each event arrived, after the publish: how the events were spread. */
      const eventDone = [...receiver.received.get('measured')!.values()].map((paths) => Math.max(...paths.values()) - start).sort((a, b) => a - b);
      const throughputNote =
        `${times.length} deliveries (${EVENTS} request.added × ${SUBSCRIBERS}) in ${seconds(lastDelivery - start)} from the publish ` +
        `(${seconds(published - start)} to put them on the bus; first delivery at ${seconds(firstDelivery - start)}; events complete ` +
        `from ${seconds(eventDone[0]!)} to ${seconds(eventDone.at(-1)!)}, median ${seconds(median(eventDone))}): ${pipelineRate.toFixed(0)}/s. ` +
        `The fan-out was done with every event, its log (${EVENTS * (2 * SUBSCRIBERS + 1)} items) written, at ${seconds(finished - start)}: ` +
        `${((EVENTS * (2 * SUBSCRIBERS + 1)) / ((finished - start) / 1000)).toFixed(0)} items/s, DynamoDB Local's pace on this machine; ` +
        `floor deliver() at ${POST_CONCURRENCY} in flight ${floorRate.toFixed(0)}/s (${floorBefore.requestsPerSecond.toFixed(0)} before, ` +
        `${floorAfter.requestsPerSecond.toFixed(0)} after). Warm-up through the API: ${WARMUP_EVENTS} requests, ` +
        `${WARMUP_EVENTS * SUBSCRIBERS} deliveries in ${seconds(warmupMs)}`;
      log(`throughput: ${throughputNote}; ratio ${ratio.toFixed(3)}`);

      // 2. Slow target delay: the same paced events without and with one slow subscriber.
      const pacedRun = async (phase: 'paced' | 'slow') => {
        const batch = events(phase, PACED_EVENTS);
        const publishedAt = new Map<string, number>();
        for (const event of batch) {
          publishedAt.set(event.id, performance.now());
          await publish([event]);
          await new Promise((resolveWait) => setTimeout(resolveWait, PACE_MS));
        }
        // The other 99 of each event; the slow target's own deliveries are not waited for.
        const others = PACED_EVENTS * (SUBSCRIBERS - 1);
        await pollUntil(
          `${others} ${phase} deliveries to the other subscribers`,
          async () => {
            let n = 0;
            for (const paths of receiver.received.get(phase)!.values()) n += [...paths.keys()].filter((path) => path !== SLOW_PATH).length;
            return n >= others ? true : undefined;
          },
          RUN_TIMEOUT_MS,
          10,
        );
        const latencies: number[] = [];
        for (const [eventId, paths] of receiver.received.get(phase)!) {
          for (const [path, at] of paths) if (path !== SLOW_PATH) latencies.push(at - publishedAt.get(eventId)!);
        }
        return { worst: Math.max(...latencies), median: median(latencies) };
      };
      const normal = await pacedRun('paced');
      await fanOutFinished();
      receiver.slow = true;
      const withSlow = await pacedRun('slow');
      await fanOutFinished();
      const delaySeconds = (withSlow.worst - normal.worst) / 1000;
      const slowNote =
        `${PACED_EVENTS} events one every ${PACE_MS} ms to ${SUBSCRIBERS} subscriptions; publish → delivery to the other ` +
        `${SUBSCRIBERS - 1}: worst ${withSlow.worst.toFixed(0)} ms, median ${withSlow.median.toFixed(0)} ms with ${SLOW_PATH} answering ` +
        `after ${SLOW_ANSWER_MS / 1000} s; worst ${normal.worst.toFixed(0)} ms, median ${normal.median.toFixed(0)} ms with every ` +
        `receiver answering at once. The fan-out gives a receiver ${FIRST_TRY_TIMEOUT_MS / 1000} s, then hands the delivery to the ` +
        `deliveries queue; the events of a batch, and up to 50 batches, are fanned out side by side. The slow target received ` +
        `${receiver.slowRepeats} repeats of its ${PACED_EVENTS} events by the end of the scenario (the fan-out's try, then the delivery function's)`;
      log(`slow target: ${slowNote}`);

      const problems = [
        receiver.badSignatures > 0 ? `${receiver.badSignatures} deliveries with a bad signature` : undefined,
        receiver.duplicates > 0 ? `${receiver.duplicates} duplicate deliveries` : undefined,
      ].filter((problem) => problem !== undefined);
      const problemNote = problems.length > 0 ? `. Problems: ${problems.join(', ')}` : '';
      return [
        {
          scenario: this.name,
          figure: `deliveries/s to ${SUBSCRIBERS} subscribers through the fan-out / bare signed POSTs/s at the same concurrency (${POST_CONCURRENCY})`,
          value: ratio,
          target: `≥ ${RATIO_TARGET}`,
          met: ratio >= RATIO_TARGET && problems.length === 0,
          unit: 'ratio',
          note: throughputNote + problemNote,
        },
        {
          scenario: this.name,
          figure: `slow target delay: extra time to the other ${SUBSCRIBERS - 1} deliveries when one of ${SUBSCRIBERS} answers in ${SLOW_ANSWER_MS / 1000} s`,
          value: delaySeconds,
          target: `≤ ${DELAY_TARGET_SECONDS} s`,
          met: delaySeconds <= DELAY_TARGET_SECONDS && problems.length === 0,
          unit: 's',
          note: slowNote + problemNote,
        },
      ];
    } finally {
      await receiver.stop();
      sqs.destroy();
      doc.destroy();
    }
  },
};
