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
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type AttributeValue as StreamAttributeValue,
  type GetShardIteratorInput,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type {
  AttributeValue,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import { createDynamoClient } from '../../shared/aws/clients.ts';
import { matchesEventPattern, validateEventPattern } from './event-pattern.ts';
import { lambdaContext } from './lambda-context.ts';

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

interface BufferedRecord {
  readonly record: DynamoDBRecord;
  readonly sequenceNumber: string;
  /** Whether the filter criteria let it through; dropped records only move the checkpoint. */
  readonly matches: boolean;
}

interface ShardState {
  readonly id: string;
  readonly parentId: string | undefined;
  /** Where to start when there is no checkpoint. */
  readonly initialPosition: 'TRIM_HORIZON' | 'LATEST';
  iterator: string | undefined;
  /** The last sequence number done (handled, filtered out, or sent to onFailure). */
  checkpoint: string | undefined;
  /** The last sequence number read into the buffer. */
  lastRead: string | undefined;
  /** Read but not yet done, in stream order. */
  buffer: BufferedRecord[];
  /** The stream said the shard is closed and read to its end (or it left the stream). */
  endReached: boolean;
  /** Closed, read to the end, and every record done. */
  finished: boolean;
  /** The last read found nothing new. */
  caughtUp: boolean;
  /** The next read position was trimmed away: start again at the oldest record kept. */
  trimmed: boolean;
  /**
   * Sizes of the batches a failure left to retry, the next one last. A failed batch is retried as
   * itself (not topped up with newer records); bisection replaces it with its two halves.
   */
  pending: number[];
  /** Failed attempts since the checkpoint last moved. */
  failures: number;
}

interface CheckpointFileContent {
  streamArn: string;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
}

interface IdleWaiter {
  afterRound: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
/** New shards appear when DynamoDB rolls a shard over (every few hours on AWS). */
const DESCRIBE_INTERVAL_MS = 10_000;
const ERROR_BACKOFF_MS = 1_000;
const GET_RECORDS_LIMIT = 1_000;

export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const onError = options.onError ?? ((error: unknown) => console.error(`[stream-poller ${options.tableName}]`, error));
  const functionName = options.functionName ?? `local-${options.tableName}-stream-consumer`;
  const timeoutMs = (options.timeoutSeconds ?? 30) * 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const patterns = options.filterPatterns ?? [];
  // A pattern the local matcher cannot evaluate would never match: refuse it rather than drop every record.
  patterns.forEach((pattern, index) => {
    const problems = validateEventPattern(pattern);
    if (problems.length > 0) throw new Error(`Filter pattern ${index} of the stream of ${options.tableName} is not valid here: ${problems.join(' ')}`);
  });

  const dynamo = createDynamoClient({ region: options.region, endpoint: options.dynamodbEndpoint });
  const streams = new DynamoDBStreamsClient({
    region: options.region,
    endpoint: options.dynamodbEndpoint,
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 3,
  });

  let stopped = false;
  let fatal: unknown;
  let round = 0;
  let streamArn: string | undefined;
  let saved: CheckpointFileContent | undefined;
  let describeNeeded = true;
  let nextDescribeAt = 0;
  const shards = new Map<string, ShardState>();
  const idleWaiters: IdleWaiter[] = [];
  const pauses = new AbortController();

  // ---- shards ---------------------------------------------------------------------------------

  async function describe(): Promise<void> {
    describeNeeded = false;
    nextDescribeAt = Date.now() + DESCRIBE_INTERVAL_MS;
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
    const arn = Table?.LatestStreamArn;
    if (!arn || !Table?.StreamSpecification?.StreamEnabled) {
      throw new Error(`Table ${options.tableName} has no enabled stream`);
    }
    let firstSight = false;
    if (arn !== streamArn) {
      // A new stream (first start, or the table was re-created): earlier shards mean nothing now.
      shards.clear();
      streamArn = arn;
      firstSight = true;
    }
    const checkpoints = saved?.streamArn === arn ? saved.shards : undefined;
    const described = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId) continue;
        described.add(shard.ShardId);
        if (shards.has(shard.ShardId)) continue;
        const checkpoint = checkpoints?.[shard.ShardId];
        // startingPosition is for the shards there when the mapping began; shards born later hold
        // only newer records, so they are read from their start.
        const knownSinceStart = checkpoints ? checkpoint !== undefined : firstSight;
        const initialPosition = knownSinceStart ? options.startingPosition : 'TRIM_HORIZON';
        const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
        const state: ShardState = {
          id: shard.ShardId,
          parentId: shard.ParentShardId,
          initialPosition,
          iterator: undefined,
          checkpoint: checkpoint?.sequenceNumber,
          lastRead: checkpoint?.sequenceNumber,
          buffer: [],
          endReached: checkpoint?.finished === true,
          // LATEST in a shard that can get no new record: nothing to read.
          finished: checkpoint?.finished === true || (closed && initialPosition === 'LATEST' && !checkpoint?.sequenceNumber),
          caughtUp: false,
          trimmed: false,
          pending: [],
          failures: 0,
        };
        shards.set(state.id, state);
        // LATEST means "from now": take the position now, even if the shard must wait for its parent.
        if (!state.finished && state.lastRead === undefined && initialPosition === 'LATEST') {
          state.iterator = await shardIterator(state);
        }
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    for (const shard of shards.values()) {
      // Trimmed away after 24 hours: whatever was read of it is still handed over.
      if (!described.has(shard.id)) shard.endReached = true;
    }
    if (firstSight) await persist();
  }

  function parentDone(shard: ShardState): boolean {
    if (!shard.parentId) return true;
    const parent = shards.get(shard.parentId);
    return !parent || parent.finished;
  }

  async function shardIterator(shard: ShardState): Promise<string | undefined> {
    const input: GetShardIteratorInput = { StreamArn: streamArn, ShardId: shard.id, ShardIteratorType: shard.initialPosition };
    if (shard.trimmed) {
      input.ShardIteratorType = 'TRIM_HORIZON';
    } else if (shard.lastRead !== undefined) {
      input.ShardIteratorType = 'AFTER_SEQUENCE_NUMBER';
      input.SequenceNumber = shard.lastRead;
    }
    shard.trimmed = false;
    try {
      return (await streams.send(new GetShardIteratorCommand(input))).ShardIterator;
    } catch (error) {
      if (errorName(error) === 'TrimmedDataAccessException') {
        shard.trimmed = true;
        onError(new Error(`Shard ${shard.id}: records after ${shard.lastRead} were trimmed; reading from the oldest kept`));
        return undefined;
      }
      if (errorName(error) === 'ResourceNotFoundException') describeNeeded = true;
      throw error;
    }
  }

  /** Reads the next page of a shard into its buffer; true when there was progress. */
  async function read(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await shardIterator(shard);
    if (!shard.iterator) return true;
    let page;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: GET_RECORDS_LIMIT }));
    } catch (error) {
      const name = errorName(error);
      if (name === 'ExpiredIteratorException') {
        // Iterators live 15 minutes; take a new one after the last record read.
        shard.iterator = undefined;
        return true;
      }
      if (name === 'TrimmedDataAccessException') {
        // DynamoDB Local also answers this for a LATEST iterator taken on an empty stream.
        shard.iterator = undefined;
        shard.trimmed = true;
        return true;
      }
      if (name === 'ResourceNotFoundException') {
        // DynamoDB Local says "Invalid ShardId in ShardIterator" when its shards were rebuilt.
        shard.iterator = undefined;
        describeNeeded = true;
      }
      throw error;
    }
    shard.iterator = page.NextShardIterator;
    if (!page.NextShardIterator) {
      shard.endReached = true;
      describeNeeded = true;
    }
    let added = 0;
    for (const raw of page.Records ?? []) {
      const sequenceNumber = raw.dynamodb?.SequenceNumber;
      if (!sequenceNumber) continue;
      // After a re-acquired iterator (trim, expiry) never hand a record over twice.
      if (shard.lastRead !== undefined && compareSequenceNumbers(sequenceNumber, shard.lastRead) <= 0) continue;
      const record = lambdaRecord(raw, streamArn ?? '', options.region);
      shard.buffer.push({ record, sequenceNumber, matches: passesFilters(record) });
      shard.lastRead = sequenceNumber;
      added++;
    }
    shard.caughtUp = added === 0;
    return added > 0 || shard.endReached;
  }

  function passesFilters(record: DynamoDBRecord): boolean {
    if (patterns.length === 0) return true;
    const event = record as unknown as Record<string, unknown>;
    return patterns.some((pattern) => matchesEventPattern(pattern, event));
  }

  // ---- batches --------------------------------------------------------------------------------

  /** One step for one shard: read if the buffer runs short, then one invocation. True when busy. */
  async function pollShard(shard: ShardState): Promise<boolean> {
    let busy = false;
    if (!shard.endReached && shard.buffer.length < options.batchSize) busy = await read(shard);
    if (shard.buffer.length > 0) {
      await processBatch(shard);
      return true;
    }
    if (shard.endReached && !shard.finished) {
      shard.finished = true;
      await persist();
      return true;
    }
    return busy;
  }

  async function processBatch(shard: ShardState): Promise<void> {
    // Records the filters drop at the head are done without an invocation.
    const dropped = shard.buffer.findIndex((entry) => entry.matches);
    await markDone(shard, dropped === -1 ? shard.buffer.length : dropped);
    if (shard.buffer.length === 0) return;

    const limit = shard.pending.at(-1) ?? options.batchSize;
    const batch: BufferedRecord[] = [];
    const positions: number[] = [];
    for (let index = 0; index < shard.buffer.length && batch.length < limit; index++) {
      const entry = shard.buffer[index];
      if (entry?.matches) {
        batch.push(entry);
        positions.push(index);
      }
    }
    const records = batch.map((entry) => entry.record);
    const outcome = await invoke(records);
    if (outcome.failedFrom === undefined) {
      await markDone(shard, (positions.at(-1) ?? -1) + 1);
      shard.pending.pop();
      shard.failures = 0;
      return;
    }

    const failedFrom = outcome.failedFrom;
    // Lambda checkpoints up to the lowest failed record and retries from there. (Buffer entries
    // before it, filtered ones included.)
    const settled = failedFrom > 0 ? (positions[failedFrom] ?? 0) : 0;
    if (settled > 0) {
      await markDone(shard, settled);
      shard.failures = 1;
    } else {
      shard.failures++;
    }
    const remaining = batch.length - failedFrom;
    if (options.maxRetryAttempts >= 0 && shard.failures > options.maxRetryAttempts) {
      const discarded = records.slice(failedFrom);
      if (options.onFailure) {
        await options.onFailure(discarded, outcome.error);
      } else {
        onError(new Error(`Discarded ${discarded.length} stream record(s) of shard ${shard.id} after ${shard.failures - 1} retries`));
      }
      await markDone(shard, (positions.at(-1) ?? -1) + 1 - settled);
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

  async function invoke(records: DynamoDBRecord[]): Promise<{ failedFrom?: number; invocationFailed?: boolean; error?: unknown }> {
    let response: unknown;
    try {
      response = await options.handler({ Records: records }, lambdaContext(functionName, timeoutMs, { region: options.region }));
    } catch (error) {
      return { failedFrom: 0, invocationFailed: true, error };
    }
    return firstFailure(response, records);
  }

  /** Takes the first `count` records of the buffer as done and moves the checkpoint past them. */
  async function markDone(shard: ShardState, count: number): Promise<void> {
    if (count <= 0) return;
    const last = shard.buffer[count - 1];
    shard.buffer.splice(0, count);
    if (last) {
      shard.checkpoint = last.sequenceNumber;
      await persist();
    }
  }

  // ---- checkpoints ----------------------------------------------------------------------------

  async function loadCheckpoints(): Promise<CheckpointFileContent | undefined> {
    if (!options.checkpointFile) return undefined;
    let text: string;
    try {
      text = await readFile(options.checkpointFile, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    const content = JSON.parse(text) as Partial<CheckpointFileContent>;
    if (typeof content.streamArn !== 'string' || typeof content.shards !== 'object' || content.shards === null) {
      throw new Error(`${options.checkpointFile} is not a stream checkpoint file`);
    }
    return { streamArn: content.streamArn, shards: content.shards };
  }

  async function persist(): Promise<void> {
    const file = options.checkpointFile;
    if (!file || !streamArn) return;
    const content: CheckpointFileContent = { streamArn, shards: {} };
    for (const shard of shards.values()) {
      content.shards[shard.id] = {
        ...(shard.checkpoint !== undefined ? { sequenceNumber: shard.checkpoint } : {}),
        ...(shard.finished ? { finished: true } : {}),
      };
    }
    saved = content;
    await mkdir(dirname(file), { recursive: true });
    // Write and rename, so a crash never leaves half a file.
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`);
    await rename(temporary, file);
  }

  // ---- the loop -------------------------------------------------------------------------------

  function isIdle(): boolean {
    if (!streamArn) return false;
    for (const shard of shards.values()) {
      if (shard.finished || !parentDone(shard)) continue;
      if (shard.buffer.length > 0 || !shard.caughtUp || !shard.iterator) return false;
    }
    return true;
  }

  function settleIdleWaiters(completedRound: number): void {
    for (let index = idleWaiters.length - 1; index >= 0; index--) {
      const waiter = idleWaiters[index];
      if (waiter && completedRound > waiter.afterRound) {
        idleWaiters.splice(index, 1);
        waiter.resolve();
      }
    }
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
      saved = await loadCheckpoints();
    } catch (error) {
      // Starting over from startingPosition would replay or skip records: refuse instead.
      fatal = error;
      onError(error);
      for (const waiter of idleWaiters.splice(0)) waiter.reject(error);
      return;
    }
    while (!stopped) {
      round++;
      let busy = false;
      let failed = false;
      try {
        if (describeNeeded || Date.now() >= nextDescribeAt) await describe();
        for (const shard of shards.values()) {
          if (stopped) break;
          if (shard.finished || !parentDone(shard)) continue;
          if (await pollShard(shard)) busy = true;
        }
      } catch (error) {
        failed = true;
        onError(error);
      }
      if (stopped) break;
      if (!busy && !failed && isIdle()) settleIdleWaiters(round);
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
      for (const waiter of idleWaiters.splice(0)) waiter.reject(new Error('The stream poller was stopped'));
    },
    idle() {
      if (fatal !== undefined) return Promise.reject(fatal);
      if (stopped) return Promise.reject(new Error('The stream poller is stopped'));
      return new Promise<void>((resolve, reject) => idleWaiters.push({ afterRound: round, resolve, reject }));
    },
  };
}

/**
 * Lambda's reading of a partial batch response: nothing, null or an empty list is success; otherwise
 * the lowest failed record is where the retry starts. An identifier that is missing, empty or not
 * a sequence number of the batch makes the whole batch a failure.
 */
function firstFailure(response: unknown, records: DynamoDBRecord[]): { failedFrom?: number; invocationFailed?: boolean; error?: unknown } {
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

/** A stream record as Lambda delivers it: epoch seconds, binary values base64-encoded. */
function lambdaRecord(raw: StreamRecord, eventSourceARN: string, region: string): DynamoDBRecord {
  const stream = raw.dynamodb ?? {};
  const record: DynamoDBRecord = {
    eventID: raw.eventID,
    eventName: raw.eventName,
    eventVersion: raw.eventVersion ?? '1.1',
    eventSource: raw.eventSource ?? 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(stream.ApproximateCreationDateTime ? { ApproximateCreationDateTime: stream.ApproximateCreationDateTime.getTime() / 1000 } : {}),
      ...(stream.Keys ? { Keys: lambdaImage(stream.Keys) } : {}),
      ...(stream.NewImage ? { NewImage: lambdaImage(stream.NewImage) } : {}),
      ...(stream.OldImage ? { OldImage: lambdaImage(stream.OldImage) } : {}),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    eventSourceARN,
  };
  // TTL deletions carry the service principal that removed the item.
  if (raw.userIdentity) record.userIdentity = { type: raw.userIdentity.Type, principalId: raw.userIdentity.PrincipalId };
  return record;
}

function lambdaImage(image: Record<string, StreamAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaAttributeValue(value)]));
}

function lambdaAttributeValue(value: StreamAttributeValue): AttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttributeValue) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  // The Streams client deserialises an empty map ({"M": {}}) to an object with no member at all.
  if (Object.keys(value).length === 0) return { M: {} };
  throw new Error(`Unknown attribute value type in stream record: ${JSON.stringify(value)}`);
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Sequence numbers are decimal strings of up to 40 digits. */
function compareSequenceNumbers(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}
