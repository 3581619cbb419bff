/**
 * The AWS adapter of the event publisher: puts events on the service's EventBridge bus with
 * PutEvents, and treats any entry EventBridge refuses as a failure of the whole publish.
 */
import {
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { BusEvent, EventPublisher } from './publisher.ts';

/** PutEvents accepts at most 10 entries per call. */
const MAX_ENTRIES_PER_CALL = 10;

/**
 * The one method of the SDK client the publisher uses: EventBridge's client on AWS, the in-process bus
 * on the local stack (bin/local/event-bus.ts), a fake in tests.
 */
export interface PutEventsClient {
  send(command: PutEventsCommand): Promise<PutEventsCommandOutput>;
}

export interface FailedBusEntry {
  /** Index of the event in the array given to publish(). */
  readonly index: number;
  readonly detailType: string;
  readonly errorCode: string;
  readonly errorMessage?: string | undefined;
}

/** Some events did not reach the bus; publishing them all again is the caller's retry. */
export class EventPublishError extends Error {
  constructor(
    message: string,
    readonly failures: readonly FailedBusEntry[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EventPublishError';
  }
}

export class EventBridgePublisher implements EventPublisher {
  constructor(
    private readonly eventBusName: string,
    private readonly client: PutEventsClient,
  ) {}

  /**
   * Sends every chunk even after one fails, so as many events as possible are on the bus, then
   * throws if any entry failed. Consumers must be idempotent: a retry re-sends the ones that made it.
   */
  async publish(events: readonly BusEvent[]): Promise<void> {
    const failures: FailedBusEntry[] = [];
    let firstError: unknown;
    for (let start = 0; start < events.length; start += MAX_ENTRIES_PER_CALL) {
      const chunk = events.slice(start, start + MAX_ENTRIES_PER_CALL);
      try {
        const output = await this.client.send(new PutEventsCommand({ Entries: chunk.map((event) => this.toEntry(event)) }));
        if ((output.FailedEntryCount ?? 0) > 0) failures.push(...failedEntries(chunk, start, output));
      } catch (error) {
        // The SDK has already retried; the whole chunk is lost.
        firstError ??= error;
        chunk.forEach((event, offset) =>
          failures.push({ index: start + offset, detailType: event.detailType, errorCode: errorName(error) }),
        );
      }
    }
    if (failures.length > 0) {
      const codes = [...new Set(failures.map((failure) => failure.errorCode))].join(', ');
      const entries = failures.map((failure) => `#${failure.index} ${failure.detailType}: ${failure.errorCode}`).join('; ');
      throw new EventPublishError(
        `${failures.length} of ${events.length} events were not put on bus "${this.eventBusName}" (${codes}): ${entries}`,
        failures,
        firstError === undefined ? undefined : { cause: firstError },
      );
    }
  }

  private toEntry(event: BusEvent): PutEventsRequestEntry {
    return {
      EventBusName: this.eventBusName,
      Source: event.source,
      DetailType: event.detailType,
      Detail: JSON.stringify(event.detail),
      Time: event.time,
      Resources: event.resources ? [...event.resources] : undefined,
    };
  }
}

/** Result entries come back in request order; a failed one carries an ErrorCode instead of an EventId. */
function failedEntries(chunk: readonly BusEvent[], start: number, output: PutEventsCommandOutput): FailedBusEntry[] {
  const results = output.Entries ?? [];
  const failed = chunk.flatMap((event, offset): FailedBusEntry[] => {
    const result = results[offset];
    if (result?.ErrorCode === undefined && result?.EventId !== undefined) return [];
    return [
      {
        index: start + offset,
        detailType: event.detailType,
        errorCode: result?.ErrorCode ?? 'UnknownError',
        errorMessage: result?.ErrorMessage,
      },
    ];
  });
  // FailedEntryCount is the authority: never report success when it says something failed.
  if (failed.length === 0) {
    return chunk.map((event, offset) => ({ index: start + offset, detailType: event.detailType, errorCode: 'UnknownError' }));
  }
  return failed;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'UnknownError';
}
