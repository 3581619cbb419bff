/**
 * Puts items with BatchWriteItem, coalescing the writes of callers that run at the same time: items
 * wait at most one turn of the event loop, then go in calls of 25 (DynamoDB's limit), a few calls at
 * once. The webhook delivery log uses it, so that a fan-out to 100 subscriptions writes its 200 log
 * rows in 8 calls after its POSTs instead of 200 puts among them.
 *
 * Each write() resolves once all of its items are stored, and rejects if any call that held one of
 * them failed (after the SDK's retries, and ours of unprocessed items): the caller's message then
 * fails and is retried, which is how at-least-once survives a lost log write.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item } from './dynamo.ts';

/** DynamoDB's limit of put requests in one BatchWriteItem. */
const ITEMS_PER_CALL = 25;
/**
 * Calls in flight at once: few, so that the reads on the delivery's hot path (the next events'
 * subscriptions) are not queued behind a long train of log writes.
 */
const CONCURRENT_CALLS = 2;
/**
 * Rounds before the write fails: of unprocessed items (throttling), and of calls that failed after the
 * SDK's own retries with an error worth another try (a timeout or throttling). The puts are idempotent.
 */
const ROUNDS = 8;

interface Pending {
  readonly item: Item;
  readonly done: (error?: unknown) => void;
}

export class BatchWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Stores the items (each with its PK and SK); resolves when every one of them is written. */
  write(items: readonly Item[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const written = items.map(
      (item) => new Promise<void>((resolve, reject) => this.queue.push({ item, done: (error) => (error === undefined ? resolve() : reject(error)) })),
    );
    this.schedule();
    return Promise.all(written).then(() => undefined);
  }

  /** Flushes on the next turn of the event loop: the items other callers add meanwhile join the same calls. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < CONCURRENT_CALLS && this.queue.length > 0) {
      const call = this.takeCall();
      this.inFlight += 1;
      void this.send(call).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /** Up to 25 items, never two with the same key (DynamoDB refuses a batch that repeats one). */
  private takeCall(): Pending[] {
    const call: Pending[] = [];
    const keys = new Set<string>();
    const rest: Pending[] = [];
    for (const pending of this.queue) {
      const key = `${String(pending.item.PK)}\u0000${String(pending.item.SK)}`;
      if (call.length < ITEMS_PER_CALL && !keys.has(key)) {
        keys.add(key);
        call.push(pending);
      } else {
        rest.push(pending);
      }
    }
    this.queue = rest;
    return call;
  }

  private async send(call: Pending[]): Promise<void> {
    try {
      let requests = call.map((pending) => ({ PutRequest: { Item: pending.item } }));
      for (let round = 0; requests.length > 0; round++) {
        if (round > 0) await sleep(Math.min(2000, 50 * 2 ** round) * (0.5 + Math.random() / 2));
        let result;
        try {
          result = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        } catch (error) {
          if (round + 1 < ROUNDS && worthRetrying(error)) continue;
          throw error;
        }
        requests = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
        if (requests.length > 0 && round + 1 >= ROUNDS) throw new Error(`${requests.length} items stayed unprocessed`);
      }
      for (const pending of call) pending.done();
    } catch (error) {
      for (const pending of call) pending.done(error);
    }
  }
}

function worthRetrying(error: unknown): boolean {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'TimeoutError' || name === 'ThrottlingException' || name === 'ProvisionedThroughputExceededException' || name === 'RequestLimitExceeded';
}
