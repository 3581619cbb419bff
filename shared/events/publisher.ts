/**
 * The event publisher: the one door through which the service puts events on its bus.
 * On AWS it is EventBridge (eventbridge-publisher.ts); on the local stack the in-process bus
 * (bin/local/event-bus.ts) implements the same interface, and the runner installs it with setPublisher().
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

let installed: EventPublisher | undefined;

/** Used by the local runner (and tests) to put the in-process bus behind the interface. */
export function setPublisher(publisher: EventPublisher | undefined): void {
  installed = publisher;
}

export function installedPublisher(): EventPublisher | undefined {
  return installed;
}
