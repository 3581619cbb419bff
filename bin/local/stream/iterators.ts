/**
 * Iterator bookkeeping: where each shard is read from next. A shard's iterator is taken after the last
 * record read (AFTER_SEQUENCE_NUMBER), at its initial position, or at its oldest record kept once its
 * position was trimmed away; read() takes the next page into the shard's buffer, never a record twice,
 * and takes a new iterator when one expires.
 */
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type DynamoDBStreamsClient,
  type GetShardIteratorInput,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { compareSequenceNumbers, lambdaRecord } from './records.ts';
import type { ShardState, StreamShards } from './shards.ts';

const GET_RECORDS_LIMIT = 1_000;

export class ShardReader {
  constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly stream: StreamShards,
    private readonly options: { region: string; accepts: (record: DynamoDBRecord) => boolean; onError: (error: unknown) => void },
  ) {}

  async iterator(shard: ShardState): Promise<string | undefined> {
    const input: GetShardIteratorInput = { StreamArn: this.stream.streamArn, ShardId: shard.id, ShardIteratorType: shard.initialPosition };
    if (shard.trimmed) {
      input.ShardIteratorType = 'TRIM_HORIZON';
    } else if (shard.lastRead !== undefined) {
      input.ShardIteratorType = 'AFTER_SEQUENCE_NUMBER';
      input.SequenceNumber = shard.lastRead;
    }
    shard.trimmed = false;
    try {
      return (await this.streams.send(new GetShardIteratorCommand(input))).ShardIterator;
    } catch (error) {
      if (errorName(error) === 'TrimmedDataAccessException') {
        shard.trimmed = true;
        this.options.onError(new Error(`Shard ${shard.id}: records after ${shard.lastRead} were trimmed; reading from the oldest kept`));
        return undefined;
      }
      if (errorName(error) === 'ResourceNotFoundException') this.stream.changed();
      throw error;
    }
  }

  /** Reads the next page of a shard into its buffer; true when there was progress. */
  async read(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await this.iterator(shard);
    if (!shard.iterator) return true;
    let page;
    try {
      page = await this.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: GET_RECORDS_LIMIT }));
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
        this.stream.changed();
      }
      throw error;
    }
    shard.iterator = page.NextShardIterator;
    if (!page.NextShardIterator) {
      shard.endReached = true;
      this.stream.changed();
    }
    let added = 0;
    for (const raw of page.Records ?? []) {
      const sequenceNumber = raw.dynamodb?.SequenceNumber;
      if (!sequenceNumber) continue;
      // After a re-acquired iterator (trim, expiry) never hand a record over twice.
      if (shard.lastRead !== undefined && compareSequenceNumbers(sequenceNumber, shard.lastRead) <= 0) continue;
      const record = lambdaRecord(raw, this.stream.streamArn ?? '', this.options.region);
      shard.buffer.push({ record, sequenceNumber, matches: this.options.accepts(record) });
      shard.lastRead = sequenceNumber;
      added++;
    }
    shard.caughtUp = added === 0;
    return added > 0 || shard.endReached;
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}
