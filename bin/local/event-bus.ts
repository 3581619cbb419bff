/**
 * The local stand-in for the EventBridge bus: it answers PutEvents as EventBridge does (so the service
 * publishes through its one EventBridge publisher, shared/events/eventbridge-publisher.ts, locally as
 * on AWS), wraps each event in the envelope EventBridge delivers, and hands it to the target of every
 * rule whose pattern matches.
 */
import { randomUUID } from 'node:crypto';
import type { PutEventsCommand, PutEventsCommandOutput, PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { EventBridgeEvent } from 'aws-lambda';
import { matchesEventPattern, validateEventPattern } from './event-pattern.ts';
import type { PutEventsClient } from '../../shared/events/eventbridge-publisher.ts';
import { EVENT_BUS } from '../../shared/resources.ts';
import { isoSeconds } from '../../shared/domain/time.ts';

/** An event as EventBridge hands it to a rule's target. */
export type DeliveredEvent = EventBridgeEvent<string, Record<string, unknown>>;

export interface BusRule {
  readonly name: string;
  /** EventBridge pattern syntax, matched against the whole delivered event. */
  readonly pattern: Record<string, unknown>;
  readonly target: (event: DeliveredEvent) => Promise<void>;
}

export interface InProcessEventBusOptions {
  /** The bus's name, which each entry's EventBusName must give (or its ARN); default the service's bus. */
  readonly name?: string;
  /** Default 'us-east-1'; pass config.AWS_REGION. */
  readonly region?: string;
  /** Default '000000000000', the account id local AWS stand-ins use. */
  readonly account?: string;
  /** How many published events recentEvents() keeps; default 1,000. */
  readonly recentEventLimit?: number;
}

/** PutEvents' limits: entries per call, and bytes of the entries of one call (as EventBridge counts them). */
const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256 * 1024;

export class InProcessEventBus implements PutEventsClient {
  private readonly rules: BusRule[] = [];
  private readonly recent: DeliveredEvent[] = [];
  private readonly name: string;
  private readonly region: string;
  private readonly account: string;
  private readonly recentEventLimit: number;

  constructor(options: InProcessEventBusOptions = {}) {
    this.name = options.name ?? EVENT_BUS.localName;
    this.region = options.region ?? 'us-east-1';
    this.account = options.account ?? '000000000000';
    this.recentEventLimit = options.recentEventLimit ?? 1_000;
  }

  /** Throws when the pattern is one EventBridge would refuse, or the name is taken. */
  addRule(rule: BusRule): void {
    const problems = validateEventPattern(rule.pattern);
    if (problems.length > 0) {
      throw new Error(`Invalid event pattern for rule "${rule.name}": ${problems.join(' ')}`);
    }
    if (this.rules.some((existing) => existing.name === rule.name)) {
      throw new Error(`A rule named "${rule.name}" is already on the bus.`);
    }
    this.rules.push(rule);
  }

  /**
   * PutEvents. A call EventBridge would refuse whole (no entry, more than 10, over 256 KB) is refused
   * with its ValidationException; an entry it would refuse is answered with its ErrorCode and
   * ErrorMessage, the others with their EventId. An entry for another bus is refused too, where
   * EventBridge would accept it and drop it: locally a misnamed bus should not go unseen.
   *
   * Each accepted entry is delivered, in order, to every matching target, and the call waits for them
   * all. A failing target does not stop the others. EventBridge itself would have accepted the events
   * and retried the target on its own, so the publisher is not at fault; the call still rejects
   * afterwards with an AggregateError of the target failures, because locally a swallowed failure
   * would go unseen. The publisher's caller may retry: targets, as on AWS, must be idempotent.
   */
  async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
    const entries = command.input.Entries ?? [];
    if (entries.length === 0 || entries.length > MAX_ENTRIES) {
      throw validationError(`PutEvents takes 1 to ${MAX_ENTRIES} entries, not ${entries.length}.`);
    }
    if (entries.reduce((total, entry) => total + entrySize(entry), 0) > MAX_REQUEST_BYTES) {
      throw validationError('Total size of the entries in the request is over the limit.');
    }
    const results: PutEventsResultEntry[] = [];
    const failures: Error[] = [];
    for (const entry of entries) {
      const outcome = this.accept(entry);
      if ('refused' in outcome) {
        results.push(outcome.refused);
        continue;
      }
      results.push({ EventId: outcome.event.id });
      failures.push(...(await this.deliver(outcome.event)));
    }
    if (failures.length > 0) {
      throw new AggregateError(failures, `${failures.length} event bus target(s) failed`);
    }
    return {
      $metadata: {},
      FailedEntryCount: results.filter((result) => result.ErrorCode !== undefined).length,
      Entries: results,
    };
  }

  /** The last events put on the bus, oldest first, whether or not any rule matched them. */
  recentEvents(): readonly DeliveredEvent[] {
    return [...this.recent];
  }

  /** The event an entry makes, or why EventBridge would refuse the entry. */
  private accept(entry: PutEventsRequestEntry): { event: DeliveredEvent } | { refused: PutEventsResultEntry } {
    const refused = (ErrorCode: string, ErrorMessage: string) => ({ refused: { ErrorCode, ErrorMessage } });
    if (!this.isThisBus(entry.EventBusName)) {
      return refused('InvalidArgument', `No event bus "${entry.EventBusName ?? 'default'}" here: this bus is "${this.name}".`);
    }
    for (const field of ['Source', 'DetailType', 'Detail'] as const) {
      if (!entry[field]) return refused('InvalidArgument', `Parameter ${field} is not valid. Reason: ${field} is a required argument.`);
    }
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail!);
    } catch {
      detail = undefined;
    }
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return refused('MalformedDetail', 'Detail is malformed.');
    const event: DeliveredEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType!,
      source: entry.Source!,
      account: this.account,
      // EventBridge writes times to the second: 2026-01-01T00:00:00Z.
      time: isoSeconds(entry.Time ?? new Date()),
      region: this.region,
      resources: [...(entry.Resources ?? [])],
      detail: detail as Record<string, unknown>,
    };
    return { event };
  }

  private isThisBus(name: string | undefined): boolean {
    return name === this.name || name === `arn:aws:events:${this.region}:${this.account}:event-bus/${this.name}`;
  }

  /** Hands the event to every matching target; the failures, one per failed target. */
  private async deliver(event: DeliveredEvent): Promise<Error[]> {
    this.remember(event);
    // Each target gets its own copy of the JSON form: no target can change what another receives.
    const json = JSON.stringify(event);
    const matchable = JSON.parse(json) as Record<string, unknown>;
    const matching = this.rules.filter((rule) => matchesEventPattern(rule.pattern, matchable));
    const outcomes = await Promise.allSettled(matching.map(async (rule) => rule.target(JSON.parse(json) as DeliveredEvent)));
    return outcomes.flatMap((outcome, index) =>
      outcome.status === 'rejected'
        ? [new Error(`Target of rule "${matching[index]?.name}" failed on ${event['detail-type']} event ${event.id}`, { cause: outcome.reason })]
        : [],
    );
  }

  private remember(event: DeliveredEvent): void {
    this.recent.push(structuredClone(event));
    if (this.recent.length > this.recentEventLimit) this.recent.shift();
  }
}

/** EventBridge's count of an entry's bytes: 14 for a Time, and the UTF-8 bytes of the rest. */
function entrySize(entry: PutEventsRequestEntry): number {
  const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));
  return (
    (entry.Time ? 14 : 0) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((total, resource) => total + bytes(resource), 0)
  );
}

/** The error the SDK throws for a call EventBridge refuses whole. */
function validationError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ValidationException', $fault: 'client' as const });
}
