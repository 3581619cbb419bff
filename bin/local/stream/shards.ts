/**
 * Shard discovery: the table's stream and its shards (DescribeTable, DescribeStream), described again
 * every 10 seconds or when a read says they changed. A new shard starts at its checkpoint, at the
 * mapping's starting position if it was there when the mapping began, else at its start; it is read
 * once its parent is finished.
 */
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, type DynamoDBStreamsClient, type Shard } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import type { CheckpointFile, ShardCheckpoints } from './checkpoints.ts';

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST';

export interface BufferedRecord {
  readonly record: DynamoDBRecord;
  readonly sequenceNumber: string;
  /** Whether the filter criteria let it through; dropped records only move the checkpoint. */
  readonly matches: boolean;
}

export interface ShardState {
  readonly id: string;
  readonly parentId: string | undefined;
  /** Where to start when there is no checkpoint. */
  readonly initialPosition: StartingPosition;
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

/** New shards appear when DynamoDB rolls a shard over (every few hours on AWS). */
const DESCRIBE_INTERVAL_MS = 10_000;

/** A shard first seen, at its checkpoint if it has one. */
function newShard(shard: Shard, checkpoint: ShardCheckpoints[string] | undefined, initialPosition: StartingPosition): ShardState {
  const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined;
  return {
    id: shard.ShardId!,
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
}

export class StreamShards {
  streamArn: string | undefined;
  /** Every shard known, parents before children (the order the stream lists them in). */
  readonly shards = new Map<string, ShardState>();
  private describeNeeded = true;
  private nextDescribeAt = 0;

  constructor(
    private readonly source: { dynamo: DynamoDBClient; streams: DynamoDBStreamsClient; tableName: string; startingPosition: StartingPosition },
    private readonly checkpoints: CheckpointFile,
  ) {}

  /** Whether to describe the stream before the next round. */
  due(): boolean {
    return this.describeNeeded || Date.now() >= this.nextDescribeAt;
  }

  /** A read found the shards changed (DynamoDB Local rebuilt them, a shard closed): describe them again. */
  changed(): void {
    this.describeNeeded = true;
  }

  /**
   * Learns the stream's shards. `startLatest` takes a LATEST shard's position at once ("from now"),
   * even if the shard must wait for its parent.
   */
  async describe(startLatest: (shard: ShardState) => Promise<void>): Promise<void> {
    this.describeNeeded = false;
    this.nextDescribeAt = Date.now() + DESCRIBE_INTERVAL_MS;
    const { Table } = await this.source.dynamo.send(new DescribeTableCommand({ TableName: this.source.tableName }));
    const arn = Table?.LatestStreamArn;
    if (!arn || !Table?.StreamSpecification?.StreamEnabled) {
      throw new Error(`Table ${this.source.tableName} has no enabled stream`);
    }
    let firstSight = false;
    if (arn !== this.streamArn) {
      // A new stream (first start, or the table was re-created): earlier shards mean nothing now.
      this.shards.clear();
      this.streamArn = arn;
      firstSight = true;
    }
    const checkpoints = this.checkpoints.of(arn);
    const described = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.source.streams.send(
        new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId) continue;
        described.add(shard.ShardId);
        if (this.shards.has(shard.ShardId)) continue;
        const checkpoint = checkpoints?.[shard.ShardId];
        // startingPosition is for the shards there when the mapping began; shards born later hold
        // only newer records, so they are read from their start.
        const knownSinceStart = checkpoints ? checkpoint !== undefined : firstSight;
        const state = newShard(shard, checkpoint, knownSinceStart ? this.source.startingPosition : 'TRIM_HORIZON');
        this.shards.set(state.id, state);
        if (!state.finished && state.lastRead === undefined && state.initialPosition === 'LATEST') await startLatest(state);
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    for (const shard of this.shards.values()) {
      // Trimmed away after 24 hours: whatever was read of it is still handed over.
      if (!described.has(shard.id)) shard.endReached = true;
    }
    if (firstSight) await this.checkpoints.save(this.streamArn, this.shards.values());
  }

  parentDone(shard: ShardState): boolean {
    if (!shard.parentId) return true;
    const parent = this.shards.get(shard.parentId);
    return !parent || parent.finished;
  }
}
