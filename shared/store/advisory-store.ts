/**
 * Persistence of published advisories (OSV records), once per deployment: the record item, and one
 * item per package it names, under that package's key, holding what matching and linking need, so
 * that a package's advisories are one Query (shared/keys.ts). Loads write in BatchWriteItem calls, a
 * record's package items before the record itself: a load cut short leaves the record as it was, and
 * the next load, finding it unchanged by its content hash, writes it again whole.
 */
import { createHash } from 'node:crypto';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import type { Advisory, AffectedEntry } from '../domain/advisories.ts';
import { advisoryPackageKeys, osvPackageKey } from '../domain/osv-packages.ts';
import { batchGet, batchWriteAll, itemOfImage, queryAll, type Item, type StreamImage, type WriteRequest } from './dynamo.ts';
import type { LinkImage } from '../domain/link-targets.ts';
import { AdvisorySources, type AdvisorySourceState } from './advisory-sources.ts';

/** What a load compares a record with: enough to tell it unchanged, and which package items it has. */
export interface AdvisoryHead {
  readonly id: string;
  readonly modified: string;
  readonly contentHash: string;
  readonly packageKeys: readonly string[];
  readonly withdrawn: string | null;
}

/** An advisory as one package's lookup finds it: its entries for that package, and what a link shows. */
export interface PackageAdvisory {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly riskScore: number | null;
  readonly modified: string;
  readonly withdrawn: string | null;
  readonly entries: readonly AffectedEntry[];
}

export interface AdvisoryWrite {
  readonly before: AdvisoryHead | undefined;
  readonly after: Advisory;
}

/** The hash a load compares: of the record as kept (bounded, normalised), so the same record hashes the same. */
export function contentHash(advisory: Advisory): string {
  return createHash('sha256').update(JSON.stringify(advisory)).digest('base64url');
}

export class AdvisoryStore {
  /** The ecosystems' load state and counts, on the same table. */
  private readonly state: AdvisorySources;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.state = new AdvisorySources(doc, tableName);
  }

  /** The stored heads of these records, strongly consistent (a load run twice must see its first run). */
  async heads(ids: readonly string[]): Promise<Map<string, AdvisoryHead>> {
    const items = await batchGet(this.doc, this.tableName, ids.map((id) => keys.advisory(id)), true);
    return new Map(
      items.map((item) => [
        String(item.id),
        {
          id: String(item.id),
          modified: String(item.modified),
          contentHash: String(item.contentHash),
          packageKeys: (item.packageKeys as string[] | undefined) ?? [],
          withdrawn: (item.withdrawn as string | null | undefined) ?? null,
        },
      ]),
    );
  }

  /**
   * Writes the records: first every package item they name (and the deletes of those they no longer
   * name), then the records. Idempotent.
   */
  async save(writes: readonly AdvisoryWrite[], now: Date): Promise<void> {
    if (writes.length === 0) return;
    const packageRequests: WriteRequest[] = [];
    const recordRequests: WriteRequest[] = [];
    for (const { before, after } of writes) {
      const packageKeys = advisoryPackageKeys(after);
      for (const packageKey of packageKeys) {
        packageRequests.push({ PutRequest: { Item: packageItem(after, packageKey) } });
      }
      for (const stale of (before?.packageKeys ?? []).filter((key) => !packageKeys.includes(key))) {
        packageRequests.push({ DeleteRequest: { Key: keys.advisoryOfPackage(stale, after.id) } });
      }
      recordRequests.push({
        PutRequest: {
          Item: {
            ...keys.advisory(after.id),
            entity: 'Advisory',
            ...after,
            contentHash: contentHash(after),
            packageKeys,
            ecosystems: [...new Set(after.affected.map((entry) => entry.ecosystem))],
            // Counted under its first entry's ecosystem, without a release (`Debian:12` is Debian), as loads report them.
            ...(after.affected[0] ? keys.advisoryInEcosystem(after.affected[0].ecosystem.split(':')[0]!, after.id) : {}),
            loadedAt: now.toISOString(),
          },
        },
      });
    }
    await batchWriteAll(this.doc, this.tableName, packageRequests);
    await batchWriteAll(this.doc, this.tableName, recordRequests);
  }

  async get(id: string): Promise<Advisory | undefined> {
    const [item] = await batchGet(this.doc, this.tableName, [keys.advisory(id)]);
    return item ? toAdvisory(item) : undefined;
  }

  /** Every advisory naming the package (its key: advisory-matching.ts osvPackageKey), withdrawn ones included. */
  async ofPackage(ecosystem: string, name: string): Promise<PackageAdvisory[]> {
    return this.ofPackageKey(osvPackageKey(ecosystem, name));
  }

  /** Every advisory under the package key (advisory-matching.ts osvPackageKey), strongly consistent. */
  async ofPackageKey(packageKey: string): Promise<PackageAdvisory[]> {
    const { PK, skPrefix } = keys.advisoriesOfPackage(packageKey);
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
      ConsistentRead: true,
    });
    return items.map(toPackageAdvisory);
  }

  /** Every ecosystem's load state and record count (AdvisorySources). */
  sources(): Promise<AdvisorySourceState[]> {
    return this.state.list();
  }

  /** Notes a load of records of these ecosystems (the admin command's and the sync's), and counts them. */
  noteLoaded(ecosystems: readonly string[], now: Date, syncedUntil?: string, options: { count?: boolean } = {}): Promise<void> {
    return this.state.noteLoaded(ecosystems, now, syncedUntil, options);
  }
}

function packageItem(advisory: Advisory, packageKey: string): Item {
  return {
    ...keys.advisoryOfPackage(packageKey, advisory.id),
    entity: 'AdvisoryPackage',
    id: advisory.id,
    packageKey,
    aliases: advisory.aliases,
    summary: advisory.summary,
    riskScore: advisory.riskScore,
    modified: advisory.modified,
    withdrawn: advisory.withdrawn,
    entries: advisory.affected.filter((entry) => osvPackageKey(entry.ecosystem, entry.name) === packageKey),
  };
}

function toPackageAdvisory(item: Item): PackageAdvisory {
  return {
    id: String(item.id),
    aliases: (item.aliases as string[] | undefined) ?? [],
    summary: String(item.summary ?? ''),
    riskScore: (item.riskScore as number | null | undefined) ?? null,
    modified: String(item.modified),
    withdrawn: (item.withdrawn as string | null | undefined) ?? null,
    entries: (item.entries as AffectedEntry[] | undefined) ?? [],
  };
}

function toAdvisory(item: Item): Advisory {
  return {
    id: String(item.id),
    aliases: (item.aliases as string[] | undefined) ?? [],
    summary: String(item.summary ?? ''),
    details: String(item.details ?? ''),
    detailsTruncated: item.detailsTruncated === true,
    modified: String(item.modified),
    published: (item.published as string | null | undefined) ?? null,
    withdrawn: (item.withdrawn as string | null | undefined) ?? null,
    severity: (item.severity as Advisory['severity'] | undefined) ?? [],
    riskScore: (item.riskScore as number | null | undefined) ?? null,
    references: (item.references as Advisory['references'] | undefined) ?? [],
    affected: (item.affected as AffectedEntry[] | undefined) ?? [],
  };
}

/**
 * A stream image as linking reads it (shared/domain/advisory-links.ts linkTargets): a package's key and
 * version, an advisory package item's key and id; undefined for an image of anything else.
 */
export function linkImageOf(image: StreamImage | undefined): LinkImage | undefined {
  const entity = image?.entity?.S;
  if (entity !== 'Package' && entity !== 'AdvisoryPackage') return undefined;
  const item = itemOfImage(image!);
  if (entity === 'Package') {
    return {
      entity,
      dataspace: String(item.dataspace),
      uuid: String(item.uuid),
      version: String(item.version ?? ''),
      ...(typeof item.osvKey === 'string' ? { packageKey: item.osvKey } : {}),
    };
  }
  return { entity, packageKey: String(item.packageKey), advisoryId: String(item.id) };
}
