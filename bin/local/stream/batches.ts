/**
 * Invocation: the next batch of a shard's buffer to the function, and what its outcome does, as Lambda
 * does it: success moves the checkpoint past the batch; a partial batch response (ReportBatchItemFailures)
 * moves it to the lowest failed record, from which the retry starts; a failed invocation retries the
 * same batch, halved each time with bisectBatchOnError; after maxRetryAttempts the failing records go
 * to the on-failure destination and the shard moves on.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { lambdaContext } from '../lambda-context.ts';
import type { BufferedRecord, ShardState } from './shards.ts';

export interface InvocationOptions {
  readonly batchSize: number;
  /** Retries of a failing batch before its records go to onFailure; -1 retries forever. */
  readonly maxRetryAttempts: number;
  readonly bisectBatchOnError: boolean;
  readonly handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;
  readonly onFailure?: ((records: DynamoDBRecord[], error: unknown) => Promise<void>) | undefined;
  readonly onError: (error: unknown) => void;
  /** For the context object. */
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly region: string;
}

interface Outcome {
  /** The batch's first record not done; none when the whole batch succeeded. */
  readonly failedFrom?: number;
  /** The function threw (or answered nonsense), rather than reporting records. */
  readonly invocationFailed?: boolean;
  readonly error?: unknown;
}

export class ShardInvoker {
  /** `checkpoint` keeps the shards' checkpoints (the file) after one moved. */
  constructor(
    private readonly options: InvocationOptions,
    private readonly checkpoint: () => Promise<void>,
  ) {}

  /** One invocation with the shard's next batch, or none when the filters drop the head of its buffer. */
  async processBatch(shard: ShardState): Promise<void> {
    // Records the filters drop at the head are done without an invocation.
    const dropped = shard.buffer.findIndex((entry) => entry.matches);
    await this.markDone(shard, dropped === -1 ? shard.buffer.length : dropped);
    if (shard.buffer.length === 0) return;

    const { records, positions } = nextBatch(shard.buffer, shard.pending.at(-1) ?? this.options.batchSize);
    const outcome = await this.invoke(records);
    if (outcome.failedFrom === undefined) {
      await this.markDone(shard, (positions.at(-1) ?? -1) + 1);
      shard.pending.pop();
      shard.failures = 0;
      return;
    }
    await this.failed(shard, records, positions, { ...outcome, failedFrom: outcome.failedFrom });
  }

  /**
   * After a failed batch: Lambda checkpoints up to the lowest failed record (buffer entries before it,
   * filtered ones included) and retries from there, as many times as allowed, then discards.
   */
  private async failed(shard: ShardState, records: DynamoDBRecord[], positions: number[], outcome: Outcome & { failedFrom: number }): Promise<void> {
    const { options } = this;
    const { failedFrom } = outcome;
    const settled = failedFrom > 0 ? (positions[failedFrom] ?? 0) : 0;
    if (settled > 0) {
      await this.markDone(shard, settled);
      shard.failures = 1;
    } else {
      shard.failures++;
    }
    const remaining = records.length - failedFrom;
    if (options.maxRetryAttempts >= 0 && shard.failures > options.maxRetryAttempts) {
      const discarded = records.slice(failedFrom);
      if (options.onFailure) {
        await options.onFailure(discarded, outcome.error);
      } else {
        options.onError(new Error(`Discarded ${discarded.length} stream record(s) of shard ${shard.id} after ${shard.failures - 1} retries`));
      }
      await this.markDone(shard, (positions.at(-1) ?? -1) + 1 - settled);
      shard.pending.pop();
      shard.failures = 0;
      return;
    }
    if (shard.pending.length === 0) shard.pending.push(remaining);
    else shard.pending[shard.pending.length - 1] = remaining;
    if (outcome.invocationFailed && options.bisectBatchOnError && remaining > 1) {
      const firstHalf = Math.ceil(remaining / 2);
      shard.pending.pop();
      shard.pending.push(remaining - firstHalf, firstHalf);
    }
  }

  private async invoke(records: DynamoDBRecord[]): Promise<Outcome> {
    const { handler, functionName, timeoutMs, region } = this.options;
    let response: unknown;
    try {
      response = await handler({ Records: records }, lambdaContext(functionName, timeoutMs, { region }));
    } catch (error) {
      return { failedFrom: 0, invocationFailed: true, error };
    }
    return firstFailure(response, records);
  }

  /** Takes the first `count` records of the buffer as done and moves the checkpoint past them. */
  private async markDone(shard: ShardState, count: number): Promise<void> {
    if (count <= 0) return;
    const last = shard.buffer[count - 1];
    shard.buffer.splice(0, count);
    if (last) {
      shard.checkpoint = last.sequenceNumber;
      await this.checkpoint();
    }
  }
}

/** The first `limit` records of the buffer the filters let through, and where each is in the buffer. */
function nextBatch(buffer: readonly BufferedRecord[], limit: number): { records: DynamoDBRecord[]; positions: number[] } {
  const records: DynamoDBRecord[] = [];
  const positions: number[] = [];
  for (let index = 0; index < buffer.length && records.length < limit; index++) {
    const entry = buffer[index];
    if (entry?.matches) {
      records.push(entry.record);
      positions.push(index);
    }
  }
  return { records, positions };
}

/**
 * Lambda's reading of a partial batch response: nothing, null or an empty list is success; otherwise
 * the lowest failed record is where the retry starts. An identifier that is missing, empty or not
 * a sequence number of the batch makes the whole batch a failure.
 */
function firstFailure(response: unknown, records: DynamoDBRecord[]): Outcome {
  if (response === undefined || response === null || typeof response !== 'object') return {};
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return {};
  const invalid = { failedFrom: 0, invocationFailed: true, error: new Error(`Invalid batch response: ${JSON.stringify(response)}`) };
  if (!Array.isArray(failures)) return invalid;
  if (failures.length === 0) return {};
  let lowest = Number.POSITIVE_INFINITY;
  for (const failure of failures as unknown[]) {
    const id = typeof failure === 'object' && failure !== null ? (failure as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    const index = typeof id === 'string' && id !== '' ? records.findIndex((record) => record.dynamodb?.SequenceNumber === id) : -1;
    if (index === -1) return invalid;
    lowest = Math.min(lowest, index);
  }
  return {
    failedFrom: lowest,
    error: new Error(`The function reported ${failures.length} failed record(s) from ${records[lowest]?.dynamodb?.SequenceNumber}`),
  };
}
