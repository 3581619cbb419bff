import { describe, expect, it, vi } from 'vitest';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { InProcessEventBus, type DeliveredEvent } from '../../bin/local/event-bus.ts';
import { localDependencies } from '../../bin/local/composition.ts';
import { parseConfig, type ServiceConfig } from '../../shared/config.ts';
import { EventBridgePublisher, EventPublishError, type PutEventsClient } from '../../shared/events/eventbridge-publisher.ts';
import type { BusEvent } from '../../shared/events/publisher.ts';
import { Composition, eventPublisher } from '../../shared/runtime.ts';
import { EVENT_BUS } from '../../shared/resources.ts';

const aBusEvent = (overrides: Partial<BusEvent> = {}): BusEvent => ({
  source: 'compliance-service',
  detailType: 'policy.violation_detected',
  detail: { productId: 'p1', ruleId: 'r1' },
  ...overrides,
});

/** Publishing as the service does: its one publisher, EventBridge's, on the bus (named as the service's). */
const publish = (bus: InProcessEventBus, events: readonly BusEvent[]) => new EventBridgePublisher(EVENT_BUS.localName, bus).publish(events);

/** One PutEvents call of `events`, with the entries the publisher makes. */
const putEvents = (events: readonly BusEvent[], eventBusName: string = EVENT_BUS.localName) =>
  new PutEventsCommand({
    Entries: events.map((event) => ({
      EventBusName: eventBusName,
      Source: event.source,
      DetailType: event.detailType,
      Detail: JSON.stringify(event.detail),
      Time: event.time,
      Resources: event.resources ? [...event.resources] : undefined,
    })),
  });

/** A target that records what it receives. */
function recorder(): { target: (event: DeliveredEvent) => Promise<void>; received: DeliveredEvent[] } {
  const received: DeliveredEvent[] = [];
  return { received, target: async (event) => void received.push(event) };
}

describe('InProcessEventBus', () => {
  it('delivers an event only to the rules whose pattern matches', async () => {
    const bus = new InProcessEventBus();
    const policy = recorder();
    const product = recorder();
    bus.addRule({ name: 'policy', pattern: { 'detail-type': [{ prefix: 'policy.' }] }, target: policy.target });
    bus.addRule({ name: 'product', pattern: { 'detail-type': [{ prefix: 'product.' }] }, target: product.target });

    await publish(bus, [
      aBusEvent({ detailType: 'policy.violation_detected' }),
      aBusEvent({ detailType: 'product.created', detail: { productId: 'p2' } }),
      aBusEvent({ detailType: 'policy.violation_resolved' }),
    ]);

    expect(policy.received.map((event) => event['detail-type'])).toEqual([
      'policy.violation_detected',
      'policy.violation_resolved',
    ]);
    expect(product.received.map((event) => event.detail)).toEqual([{ productId: 'p2' }]);
  });

  it('matches patterns on the detail too', async () => {
    const bus = new InProcessEventBus();
    const critical = recorder();
    bus.addRule({ name: 'critical', pattern: { detail: { severity: ['critical'] } }, target: critical.target });

    await publish(bus, [aBusEvent({ detail: { severity: 'low' } }), aBusEvent({ detail: { severity: 'critical' } })]);

    expect(critical.received.map((event) => event.detail['severity'])).toEqual(['critical']);
  });

  it('wraps each event in the envelope EventBridge delivers', async () => {
    const bus = new InProcessEventBus({ region: 'eu-west-1' });
    const all = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: all.target });

    await publish(bus, [
      aBusEvent({ time: new Date('2026-01-01T00:00:00.789Z'), resources: ['arn:aws:product/p1'] }),
      aBusEvent(),
    ]);

    const [first, second] = all.received;
    expect(first).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      'detail-type': 'policy.violation_detected',
      source: 'compliance-service',
      account: '000000000000',
      time: '2026-01-01T00:00:00Z',
      region: 'eu-west-1',
      resources: ['arn:aws:product/p1'],
      detail: { productId: 'p1', ruleId: 'r1' },
    });
    expect(second?.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(second?.resources).toEqual([]);
    expect(second?.id).not.toBe(first?.id);
  });

  it('delivers the JSON form, and a target cannot change what another target receives', async () => {
    const bus = new InProcessEventBus();
    const seen: unknown[] = [];
    bus.addRule({
      name: 'mutator',
      pattern: { source: ['compliance-service'] },
      target: async (event) => {
        event.detail['productId'] = 'tampered';
      },
    });
    bus.addRule({
      name: 'reader',
      pattern: { source: ['compliance-service'] },
      target: async (event) => void seen.push(event.detail),
    });

    await publish(bus, [aBusEvent({ detail: { productId: 'p1', at: new Date('2026-02-03T04:05:06.000Z'), gone: undefined } })]);

    expect(seen).toEqual([{ productId: 'p1', at: '2026-02-03T04:05:06.000Z' }]);
    expect(bus.recentEvents()[0]?.detail['productId']).toBe('p1');
  });

  it('runs every matching target when one fails, then rejects with an AggregateError', async () => {
    const bus = new InProcessEventBus();
    const healthy = recorder();
    const boom = new Error('target down');
    bus.addRule({
      name: 'failing',
      pattern: { source: ['compliance-service'] },
      target: async () => {
        throw boom;
      },
    });
    bus.addRule({ name: 'healthy', pattern: { source: ['compliance-service'] }, target: healthy.target });

    const published = bus.send(putEvents([aBusEvent(), aBusEvent({ detailType: 'policy.violation_resolved' })]));

    await expect(published).rejects.toBeInstanceOf(AggregateError);
    const error = (await published.catch((caught: unknown) => caught)) as AggregateError;
    expect(error.errors).toHaveLength(2);
    expect((error.errors[0] as Error).message).toContain('"failing"');
    expect((error.errors[0] as Error).cause).toBe(boom);
    expect(healthy.received.map((event) => event['detail-type'])).toEqual([
      'policy.violation_detected',
      'policy.violation_resolved',
    ]);
  });

  it('catches a target that throws synchronously', async () => {
    const bus = new InProcessEventBus();
    const healthy = recorder();
    bus.addRule({
      name: 'sync-thrower',
      pattern: { source: ['compliance-service'] },
      target: (() => {
        throw new Error('sync');
      }) as unknown as (event: DeliveredEvent) => Promise<void>,
    });
    bus.addRule({ name: 'healthy', pattern: { source: ['compliance-service'] }, target: healthy.target });

    await expect(bus.send(putEvents([aBusEvent()]))).rejects.toBeInstanceOf(AggregateError);
    expect(healthy.received).toHaveLength(1);
  });

  it('resolves when no rule matches, and still logs the event', async () => {
    const bus = new InProcessEventBus();
    const other = recorder();
    bus.addRule({ name: 'other', pattern: { source: ['other-service'] }, target: other.target });

    await publish(bus, [aBusEvent()]);

    expect(other.received).toEqual([]);
    expect(bus.recentEvents().map((event) => event.source)).toEqual(['compliance-service']);
  });

  it('rejects a rule with an invalid pattern, naming the problem', () => {
    const bus = new InProcessEventBus();
    expect(() => bus.addRule({ name: 'bad', pattern: { source: 'compliance-service' }, target: async () => {} })).toThrow(
      /rule "bad".*"source" must be an array/,
    );
    expect(() => bus.addRule({ name: 'empty', pattern: {}, target: async () => {} })).toThrow(/empty object/);
  });

  it('rejects a second rule with the same name', () => {
    const bus = new InProcessEventBus();
    bus.addRule({ name: 'dup', pattern: { source: ['a'] }, target: async () => {} });
    expect(() => bus.addRule({ name: 'dup', pattern: { source: ['b'] }, target: async () => {} })).toThrow(/already/);
  });

  it('keeps only the most recent events', async () => {
    const bus = new InProcessEventBus({ recentEventLimit: 3 });
    await publish(bus, [1, 2, 3, 4, 5].map((n) => aBusEvent({ detail: { n } })));

    expect(bus.recentEvents().map((event) => event.detail['n'])).toEqual([3, 4, 5]);
  });

  it('answers PutEvents with an EventId per entry: the id of the event it delivered', async () => {
    const bus = new InProcessEventBus();
    const all = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: all.target });

    const output = await bus.send(putEvents([aBusEvent(), aBusEvent()]));

    expect(output.FailedEntryCount).toBe(0);
    expect(output.Entries?.map((entry) => entry.EventId)).toEqual(all.received.map((event) => event.id));
  });

  it('answers each entry EventBridge would refuse with its error code and message, in order, and delivers the others', async () => {
    const bus = new InProcessEventBus();
    const all = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: all.target });
    const [good, malformed, noSource, otherBus, viaArn] = putEvents([aBusEvent(), aBusEvent(), aBusEvent(), aBusEvent(), aBusEvent()]).input.Entries!;
    const command = new PutEventsCommand({
      Entries: [
        good!,
        { ...malformed, Detail: '{"not": json' },
        { ...noSource, Source: undefined },
        { ...otherBus, EventBusName: 'default' },
        { ...viaArn, EventBusName: `arn:aws:events:us-east-1:000000000000:event-bus/${EVENT_BUS.localName}` },
      ],
    });

    const output = await bus.send(command);

    expect(output.FailedEntryCount).toBe(3);
    expect(output.Entries?.map((entry) => entry.ErrorCode ?? 'ok')).toEqual(['ok', 'MalformedDetail', 'InvalidArgument', 'InvalidArgument', 'ok']);
    expect(output.Entries?.[3]?.ErrorMessage).toContain('"default"');
    expect(all.received).toHaveLength(2);
  });

  it('refuses a call of more than 10 entries, or of more than 256 KB, as EventBridge does, and delivers nothing', async () => {
    const bus = new InProcessEventBus();
    const all = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: all.target });

    await expect(bus.send(putEvents(Array.from({ length: 11 }, () => aBusEvent())))).rejects.toMatchObject({ name: 'ValidationException' });
    const large = aBusEvent({ detail: { text: 'x'.repeat(130 * 1024) } });
    await expect(bus.send(putEvents([large, large]))).rejects.toMatchObject({ name: 'ValidationException' });
    await bus.send(putEvents([large]));

    expect(all.received).toHaveLength(1);
  });

  it('keeps 1,000 events by default', async () => {
    const bus = new InProcessEventBus();
    await publish(bus, Array.from({ length: 1_005 }, (_, n) => aBusEvent({ detail: { n } })));

    const recent = bus.recentEvents();
    expect(recent).toHaveLength(1_000);
    expect(recent[0]?.detail['n']).toBe(5);
    expect(recent.at(-1)?.detail['n']).toBe(1_004);
  });
});

/** A PutEvents stand-in: records each call and answers with what `respond` returns. */
function fakeClient(respond: (entries: number, call: number) => Partial<PutEventsCommandOutput> | Error) {
  const calls: PutEventsCommand[] = [];
  const client: PutEventsClient = {
    send: async (command) => {
      calls.push(command);
      const answer = respond(command.input.Entries?.length ?? 0, calls.length);
      if (answer instanceof Error) throw answer;
      return { $metadata: {}, ...answer };
    },
  };
  return { client, calls };
}

const allAccepted = (entries: number): Partial<PutEventsCommandOutput> => ({
  FailedEntryCount: 0,
  Entries: Array.from({ length: entries }, (_, n) => ({ EventId: `id-${n}` })),
});

describe('EventBridgePublisher', () => {
  it('sends PutEvents in chunks of 10 with the bus name and JSON detail', async () => {
    const { client, calls } = fakeClient(allAccepted);
    const publisher = new EventBridgePublisher('compliance-events-prod', client);
    const time = new Date('2026-01-01T00:00:00Z');

    await publisher.publish(
      Array.from({ length: 23 }, (_, n) => aBusEvent({ detail: { n }, time, resources: ['arn:x'] })),
    );

    expect(calls.map((call) => call.input.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls[2]?.input.Entries?.[2]).toEqual({
      EventBusName: 'compliance-events-prod',
      Source: 'compliance-service',
      DetailType: 'policy.violation_detected',
      Detail: '{"n":22}',
      Time: time,
      Resources: ['arn:x'],
    });
  });

  it('does not call EventBridge for no events', async () => {
    const { client, calls } = fakeClient(allAccepted);
    await new EventBridgePublisher('bus', client).publish([]);
    expect(calls).toHaveLength(0);
  });

  it('throws naming the error codes when EventBridge refuses some entries, after sending every chunk', async () => {
    const { client, calls } = fakeClient((entries, call) =>
      call === 1
        ? {
            FailedEntryCount: 2,
            Entries: Array.from({ length: entries }, (_, n) =>
              n === 1
                ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
                : n === 4
                  ? { ErrorCode: 'InternalFailure' }
                  : { EventId: `id-${n}` },
            ),
          }
        : allAccepted(entries),
    );
    const publisher = new EventBridgePublisher('bus', client);

    const error = await publisher
      .publish(Array.from({ length: 12 }, () => aBusEvent()))
      .catch((caught: unknown) => caught);

    expect(calls).toHaveLength(2);
    expect(error).toBeInstanceOf(EventPublishError);
    expect((error as Error).message).toMatch(/2 of 12 events.*ThrottlingException, InternalFailure/);
    expect((error as EventPublishError).failures.map((failure) => [failure.index, failure.errorCode])).toEqual([
      [1, 'ThrottlingException'],
      [4, 'InternalFailure'],
    ]);
  });

  it('counts a chunk whose call threw as failed, keeps going, and keeps the cause', async () => {
    const outage = Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' });
    const { client, calls } = fakeClient((entries, call) => (call === 1 ? outage : allAccepted(entries)));

    const error = await new EventBridgePublisher('bus', client)
      .publish(Array.from({ length: 11 }, () => aBusEvent()))
      .catch((caught: unknown) => caught);

    expect(calls).toHaveLength(2);
    expect(error).toBeInstanceOf(EventPublishError);
    expect((error as EventPublishError).failures).toHaveLength(10);
    expect((error as Error).message).toContain('ServiceUnavailable');
    expect((error as Error).cause).toBe(outage);
  });

  it('trusts FailedEntryCount even when no entry carries an error code', async () => {
    const { client } = fakeClient(() => ({ FailedEntryCount: 1, Entries: [{ EventId: 'a' }] }));
    await expect(new EventBridgePublisher('bus', client).publish([aBusEvent()])).rejects.toThrow(/UnknownError/);
  });
});

describe('EventBridgePublisher on the local bus', () => {
  it('puts events on the bus in calls of 10, delivered in order', async () => {
    const bus = new InProcessEventBus();
    const all = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: all.target });
    const send = vi.spyOn(bus, 'send');

    await publish(bus, Array.from({ length: 23 }, (_, n) => aBusEvent({ detail: { n } })));

    expect(send.mock.calls.map(([command]) => command.input.Entries?.length)).toEqual([10, 10, 3]);
    expect(all.received.map((event) => event.detail['n'])).toEqual(Array.from({ length: 23 }, (_, n) => n));
  });

  it('reports the events of a call that failed, still sends the other calls, and the retry puts the failed ones on the bus', async () => {
    const bus = new InProcessEventBus();
    const seen: number[] = [];
    let failOnce = true;
    bus.addRule({
      name: 'flaky',
      pattern: { source: ['compliance-service'] },
      target: async (event) => {
        const n = event.detail['n'] as number;
        if (n === 3 && failOnce) {
          failOnce = false;
          throw new Error('queue unavailable');
        }
        seen.push(n);
      },
    });
    const events = Array.from({ length: 12 }, (_, n) => aBusEvent({ detail: { n } }));

    const error = await publish(bus, events).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EventPublishError);
    expect((error as EventPublishError).failures.map((failure) => failure.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((error as Error).cause).toBeInstanceOf(AggregateError);
    expect(seen).toContain(11);
    // The caller's retry: every event again (targets are idempotent), and now all of them arrive.
    await publish(bus, events);
    expect(new Set(seen)).toEqual(new Set(events.map((_, n) => n)));
  });

  it('reports the entries the bus refuses with their error codes', async () => {
    const bus = new InProcessEventBus();

    const error = await new EventBridgePublisher('no-such-bus', bus).publish([aBusEvent(), aBusEvent()]).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EventPublishError);
    expect((error as EventPublishError).failures.map((failure) => [failure.index, failure.errorCode])).toEqual([
      [0, 'InvalidArgument'],
      [1, 'InvalidArgument'],
    ]);
    expect(bus.recentEvents()).toEqual([]);
  });
});

describe('the publisher of a composition', () => {
  const awsConfig: ServiceConfig = parseConfig({ TABLE_NAME: 'test-table', AWS_REGION: 'us-east-1', PUBLIC_BASE_URL: 'https://api.example.com' });
  const localConfig: ServiceConfig = { ...awsConfig, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' };
  /** The local composition on stand-ins nobody calls: only its publisher is read. */
  const onLocalStack = (bus: InProcessEventBus) =>
    localDependencies(localConfig, { dynamo: unused<DynamoDBDocumentClient>(), sqs: unused<SQSClient>(), s3: unused<S3Client>(), bus });

  it('is the EventBridge publisher on the local stack too', () => {
    expect(onLocalStack(new InProcessEventBus()).publisher).toBeInstanceOf(EventBridgePublisher);
  });

  it('routes an event published through it to the bus rules', async () => {
    const bus = new InProcessEventBus();
    const received = recorder();
    bus.addRule({ name: 'all', pattern: { source: ['compliance-service'] }, target: received.target });

    await onLocalStack(bus).publisher.publish([aBusEvent()]);

    expect(received.received).toHaveLength(1);
  });

  it('is one EventBridge publisher per Lambda composition, for its bus', () => {
    const composition = new Composition(awsConfig);
    const first = eventPublisher(composition);
    expect(first).toBeInstanceOf(EventBridgePublisher);
    expect(eventPublisher(composition)).toBe(first);
    expect(eventPublisher(new Composition({ ...awsConfig, EVENT_BUS_NAME: 'other-bus' }))).not.toBe(first);
  });

  it('refuses to fall back to AWS on the local stack', () => {
    expect(() => eventPublisher(new Composition(localConfig))).toThrow(/in-process bus/);
  });
});

/** A client the code under test must not call. */
function unused<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_, name) => {
      throw new Error(`unexpected use of ${String(name)}`);
    },
  });
}
