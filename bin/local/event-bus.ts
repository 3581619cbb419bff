/**
 * The local stand-in for the EventBridge bus: an in-process publisher that wraps each event in the
 * envelope EventBridge delivers and hands it to the target of every rule whose pattern matches.
 */
import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { matchesEventPattern, validateEventPattern } from '../../shared/events/event-pattern.ts';
import type { BusEvent, EventPublisher } from '../../shared/events/publisher.ts';
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
  /** Default 'us-east-1'; pass config.AWS_REGION. */
  readonly region?: string;
  /** Default '000000000000', the account id local AWS stand-ins use. */
  readonly account?: string;
  /** How many published events recentEvents() keeps; default 1,000. */
  readonly recentEventLimit?: number;
}

export class InProcessEventBus implements EventPublisher {
  private readonly rules: BusRule[] = [];
  private readonly recent: DeliveredEvent[] = [];
  private readonly region: string;
  private readonly account: string;
  private readonly recentEventLimit: number;

  constructor(options: InProcessEventBusOptions = {}) {
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
   * Delivers each event, in order, to every matching target, and waits for them all. A failing
   * target does not stop the others. EventBridge itself would have accepted the events and retried
   * the target on its own, so the publisher's caller is not at fault; publish() still rejects
   * afterwards with an AggregateError of the target failures, because locally a swallowed failure
   * would go unseen. The caller may retry: targets, as on AWS, must be idempotent.
   */
  async publish(events: readonly BusEvent[]): Promise<void> {
    const failures: Error[] = [];
    for (const event of events) {
      // Round-trip through JSON: targets and patterns see what EventBridge would (no Dates, no
      // undefined), and no target can change the event another target receives.
      const envelope = this.envelope(event);
      const json = JSON.stringify(envelope);
      this.remember(JSON.parse(json) as DeliveredEvent);
      const matchable = JSON.parse(json) as Record<string, unknown>;
      const matching = this.rules.filter((rule) => matchesEventPattern(rule.pattern, matchable));
      const outcomes = await Promise.allSettled(
        matching.map(async (rule) => rule.target(JSON.parse(json) as DeliveredEvent)),
      );
      outcomes.forEach((outcome, index) => {
        if (outcome.status === 'rejected') {
          const rule = matching[index];
          failures.push(
            new Error(`Target of rule "${rule?.name}" failed on ${envelope['detail-type']} event ${envelope.id}`, {
              cause: outcome.reason,
            }),
          );
        }
      });
    }
    if (failures.length > 0) {
      throw new AggregateError(failures, `${failures.length} event bus target(s) failed`);
    }
  }

  /** The last published events, oldest first, whether or not any rule matched them. */
  recentEvents(): readonly DeliveredEvent[] {
    return [...this.recent];
  }

  private envelope(event: BusEvent): DeliveredEvent {
    return {
      version: '0',
      id: randomUUID(),
      'detail-type': event.detailType,
      source: event.source,
      account: this.account,
      // EventBridge writes times to the second: 2026-01-01T00:00:00Z.
      time: isoSeconds(event.time ?? new Date()),
      region: this.region,
      resources: [...(event.resources ?? [])],
      detail: event.detail,
    };
  }

  private remember(event: DeliveredEvent): void {
    this.recent.push(event);
    if (this.recent.length > this.recentEventLimit) this.recent.shift();
  }
}


