/**
 * The local stand-in for a Lambda event-source mapping on the table's DynamoDB stream: it reads the
 * stream of DynamoDB Local through the DynamoDB Streams API and calls the function with the
 * DynamoDBStreamEvent Lambda would send, with the mapping's filter criteria, batch size, partial batch
 * responses (ReportBatchItemFailures), retries, bisection and on-failure destination.
 *
 * Per shard, records are handed over in order and none is skipped: the checkpoint (the last sequence
 * number done) only moves past a record once the function succeeded on it, the filters dropped it, or
 * it went to the on-failure destination. With `checkpointFile` the checkpoints survive a restart.
 * Shards are read one after another in one loop, parents before children; Lambda reads shards in
 * parallel, which changes interleaving across shards (partition keys), never the order within one.
 *
 * The parts, in ./stream/: shard discovery (shards.ts), iterator bookkeeping (iterators.ts) and the
 * checkpoint file (checkpoints.ts), record shaping (records.ts), filter criteria (filters.ts), and
 * invocation with retries, bisection and partial batch failures (batches.ts). This module is the loop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { createDynamoClient } from '../../shared/aws/clients.ts';
import { ShardInvoker } from './stream/batches.ts';
import { CheckpointFile } from './stream/checkpoints.ts';
import { filterCriteria } from './stream/filters.ts';
import { ShardReader } from './stream/iterators.ts';
import { StreamShards, type ShardState } from './stream/shards.ts';

export interface StreamPollerOptions {
  dynamodbEndpoint: string;
  region: string;
  tableName: string;
  /** Where the per-shard checkpoints are kept between runs; in memory only when omitted. */
  checkpointFile?: string;
  /** Where to begin in a shard that has no checkpoint. */
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  batchSize: number;
  /** Retries of a failing batch before its records go to onFailure; -1 retries forever, as on AWS. */
  maxRetryAttempts: number;
  bisectBatchOnError: boolean;
  /** Lambda filter criteria: a record reaches the function when it matches any of them. */
  filterPatterns?: readonly Record<string, unknown>[];
  handler: (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;
  /** The on-failure destination: receives the records discarded after the last retry. */
  onFailure?: (records: DynamoDBRecord[], error: unknown) => Promise<void>;
  /** Pause between reads of a shard that had nothing new (Lambda polls about four times a second). */
  pollIntervalMs?: number;
  /** Errors of the poller itself (DynamoDB Local unreachable, a broken checkpoint file, ...). */
  onError?: (error: unknown) => void;
  /** For the context object: the function's name and timeout. */
  functionName?: string;
  timeoutSeconds?: number;
}

export interface StreamPoller {
  /** Ends the loop after the batch in flight. */
  stop(): Promise<void>;
  /**
   * Resolves once a full pass that began after this call found every shard read to its current end,
   * with nothing buffered, failing or in flight. For tests: write, then `await poller.idle()`.
   */
  idle(): Promise<void>;
}

/** Callers of idle(), each waiting for a full idle round that began after its call. */
class IdleWaiters {
  private readonly waiters: { afterRound: number; resolve: () => void; reject: (error: unknown) => void }[] = [];

  wait(afterRound: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiters.push({ afterRound, resolve, reject }));
  }

  /** Round `completedRound` ended idle. */
  settle(completedRound: number): void {
    for (let index = this.waiters.length - 1; index >= 0; index--) {
      const waiter = this.waiters[index];
      if (waiter && completedRound > waiter.afterRound) {
        this.waiters.splice(index, 1);
        waiter.resolve();
      }
    }
  }

  rejectAll(error: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const ERROR_BACKOFF_MS = 1_000;

export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const onError = options.onError ?? ((error: unknown) => console.error(`[stream-poller ${options.tableName}]`, error));
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const accepts = filterCriteria(options.filterPatterns ?? [], options.tableName);

  const dynamo = createDynamoClient({ region: options.region, endpoint: options.dynamodbEndpoint });
  const streams = new DynamoDBStreamsClient({ region: options.region, endpoint: options.dynamodbEndpoint, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 });
  const checkpoints = new CheckpointFile(options.checkpointFile);
  const stream = new StreamShards({ dynamo, streams, tableName: options.tableName, startingPosition: options.startingPosition }, checkpoints);
  const reader = new ShardReader(streams, stream, { region: options.region, accepts, onError });
  const persist = () => checkpoints.save(stream.streamArn, stream.shards.values());
  const invoker = new ShardInvoker(
    {
      batchSize: options.batchSize,
      maxRetryAttempts: options.maxRetryAttempts,
      bisectBatchOnError: options.bisectBatchOnError,
      handler: options.handler,
      onFailure: options.onFailure,
      onError,
      functionName: options.functionName ?? `local-${options.tableName}-stream-consumer`,
      timeoutMs: (options.timeoutSeconds ?? 30) * 1000,
      region: options.region,
    },
    persist,
  );
  /** LATEST means "from now": a LATEST shard's position is taken as soon as the shard is found. */
  const startLatest = async (shard: ShardState) => {
    shard.iterator = await reader.iterator(shard);
  };

  let stopped = false;
  let fatal: unknown;
  let rounds = 0;
  const idleWaiters = new IdleWaiters();
  const pauses = new AbortController();

  /** One step for one shard: read if the buffer runs short, then one invocation. True when busy. */
  async function pollShard(shard: ShardState): Promise<boolean> {
    let busy = false;
    if (!shard.endReached && shard.buffer.length < options.batchSize) busy = await reader.read(shard);
    if (shard.buffer.length > 0) {
      await invoker.processBatch(shard);
      return true;
    }
    if (shard.endReached && !shard.finished) {
      shard.finished = true;
      await persist();
      return true;
    }
    return busy;
  }

  /** One pass over the shards that may be read (not finished, parent finished); true when any was busy. */
  async function round(): Promise<boolean> {
    if (stream.due()) await stream.describe(startLatest);
    let busy = false;
    for (const shard of stream.shards.values()) {
      if (stopped) break;
      if (shard.finished || !stream.parentDone(shard)) continue;
      if (await pollShard(shard)) busy = true;
    }
    return busy;
  }

  function isIdle(): boolean {
    if (!stream.streamArn) return false;
    for (const shard of stream.shards.values()) {
      if (shard.finished || !stream.parentDone(shard)) continue;
      if (shard.buffer.length > 0 || !shard.caughtUp || !shard.iterator) return false;
    }
    return true;
  }

  async function pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: pauses.signal });
    } catch {
      // Woken by stop().
    }
  }

  const loop = (async () => {
    try {
      await checkpoints.load();
    } catch (error) {
      // Starting over from startingPosition would replay or skip records: refuse instead.
      fatal = error;
      onError(error);
      idleWaiters.rejectAll(error);
      return;
    }
    while (!stopped) {
      rounds++;
      let busy = false;
      let failed = false;
      try {
        busy = await round();
      } catch (error) {
        failed = true;
        onError(error);
      }
      if (stopped) break;
      if (!busy && !failed && isIdle()) idleWaiters.settle(rounds);
      if (failed) await pause(ERROR_BACKOFF_MS);
      else if (!busy) await pause(pollIntervalMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      pauses.abort();
      await loop;
      dynamo.destroy();
      streams.destroy();
      idleWaiters.rejectAll(new Error('The stream poller was stopped'));
    },
    idle() {
      if (fatal !== undefined) return Promise.reject(fatal);
      if (stopped) return Promise.reject(new Error('The stream poller is stopped'));
      return idleWaiters.wait(rounds);
    },
  };
}
