/**
 * The state of each ecosystem's published advisories, deployment-wide: when a load or the sync last
 * took records in, the newest `modified` the sync has taken (its next run starts after it), and how
 * many records the table holds. The count is exact after every load: each load ends by counting the
 * ecosystem's entries on GSI11 (keys.advisoryInEcosystem; Select COUNT reads keys-only entries, about
 * 100 bytes a record: 15,000 records are about 190 read units), so a load cut short is counted right
 * by the next. An index is eventually consistent: a count taken as a load ends may miss records written
 * in its last fraction of a second, which the next load's count includes. Kept apart from AdvisoryStore so that the API's catalog function reads it without the
 * matching libraries.
 */
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ADVISORY_SHARDS, keys } from '../keys.ts';
import { partitionQueryInput } from './dynamo.ts';

export interface AdvisorySourceState {
  readonly ecosystem: string;
  readonly lastLoadedAt: string | null;
  readonly lastSyncedAt: string | null;
  /** The newest `modified` the sync has taken in (its next run starts after it). */
  readonly syncedUntil: string | null;
  /** The records of the ecosystem held, as counted at the end of the last load (null before a count). */
  readonly records: number | null;
}

export class AdvisorySources {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Every ecosystem loaded, by name (the sort key, ASCII as OSV names them): one Query. */
  async list(): Promise<AdvisorySourceState[]> {
    const result = await this.doc.send(
      new QueryCommand({ TableName: this.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.advisorySources.PK }, ConsistentRead: true }),
    );
    return (result.Items ?? []).map((item) => ({
      ecosystem: String(item.ecosystem),
      lastLoadedAt: (item.lastLoadedAt as string | undefined) ?? null,
      lastSyncedAt: (item.lastSyncedAt as string | undefined) ?? null,
      syncedUntil: (item.syncedUntil as string | undefined) ?? null,
      records: typeof item.records === 'number' ? item.records : null,
    }));
  }

  /** The records of an ecosystem the table holds (its first affected entry's ecosystem), withdrawn ones included. */
  async count(ecosystem: string): Promise<number> {
    let total = 0;
    for (let shard = 0; shard < ADVISORY_SHARDS; shard++) {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await this.doc.send(
          new QueryCommand({ ...partitionQueryInput(this.tableName, keys.advisoriesOfEcosystem(ecosystem, shard)), Select: 'COUNT', ExclusiveStartKey: startKey }),
        );
        total += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    return total;
  }

  /**
   * Notes a load of records of these ecosystems (the admin command's and the sync's), with their counts
   * unless `count` is false: the sync notes its progress after every batch of a run and counts once, at
   * its end (a count reads the whole ecosystem's entries).
   */
  async noteLoaded(ecosystems: readonly string[], now: Date, syncedUntil?: string, { count = true }: { count?: boolean } = {}): Promise<void> {
    for (const ecosystem of new Set(ecosystems)) {
      const records = count ? await this.count(ecosystem) : undefined;
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.advisorySource(ecosystem),
          UpdateExpression: `SET entity = :entity, ecosystem = :ecosystem, lastLoadedAt = :now${records === undefined ? '' : ', records = :records'}${syncedUntil ? ', lastSyncedAt = :now, syncedUntil = :until' : ''}`,
          ExpressionAttributeValues: {
            ':entity': 'AdvisorySource',
            ':ecosystem': ecosystem,
            ':now': now.toISOString(),
            ...(records === undefined ? {} : { ':records': records }),
            ...(syncedUntil ? { ':until': syncedUntil } : {}),
          },
        }),
      );
    }
  }
}
