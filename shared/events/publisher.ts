/**
 * The event publisher: the one door through which the service puts events on its bus. Its one adapter
 * is EventBridge's (eventbridge-publisher.ts), on AWS and on the local stack, whose in-process bus
 * answers PutEvents; each function gets it from its composition (shared/runtime.ts).
 */

/** One event as it goes onto the bus: the fields of an EventBridge PutEvents entry. */
export interface BusEvent {
  /** e.g. "compliance-service" */
  readonly source: string;
  /** e.g. "policy.violation_detected" */
  readonly detailType: string;
  /** The event envelope (shared/events/envelope.ts), as an object. */
  readonly detail: Record<string, unknown>;
  readonly time?: Date;
  /** Resource ARNs or identifiers the event concerns. */
  readonly resources?: readonly string[];
}

export interface EventPublisher {
  /** Publishes every event or throws: a partial failure is an error for the caller to retry. */
  publish(events: readonly BusEvent[]): Promise<void>;
}
