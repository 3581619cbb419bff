/**
 * The audit trail: who changed what. `AuditTrailWriter` turns the table's stream records into audit
 * records (shared/domain/audit.ts) off the request path, in the stream router; `AuditService` lists
 * them to the superusers of their dataspace, newest first, a cursor at a time.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError, NotFoundError } from '../domain/errors.ts';
import { isUuid, stableUuid } from '../domain/identifiers.ts';
import { isoWithOffset } from '../domain/time.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/pagination.ts';
import {
  actorOf,
  auditRecordOf,
  nameOfItem,
  referencesOf,
  refKey,
  isAuditedEntity,
  decodeAuditCursor,
  encodeAuditCursor,
  type AuditAction,
  type AuditCursor,
  type AuditFilters,
  type AuditRecord,
} from '../domain/audit.ts';
import type { AuditStore } from '../store/audit-store.ts';
import { itemOfImage, type StreamImage } from '../store/dynamo.ts';

/** Where the records of a stream batch go for retention beyond the table's: a JSON-lines object under `key`. */
export interface AuditExport {
  put(key: string, body: string): Promise<void>;
}

/** An audit record with its place among the records of its date (the stream record's sequence number). */
export interface PlacedAuditRecord {
  readonly record: AuditRecord;
  readonly order: string;
}

export interface AuditTrailDeps {
  readonly store: Pick<AuditStore, 'put' | 'deletionActor' | 'requestDataspace' | 'names'>;
  /** Days a record is kept in the table (its TTL). */
  readonly retentionDays: number;
  /** Unset: records stay in the table only (the local stack without a bucket, tests). */
  readonly exporter?: AuditExport | undefined;
}

export class AuditTrailWriter {
  /**
   * Names of related objects seen or read during the stream batch being handled (cleared by write, at its
   * end): a batch that deletes a product's packages reads its name once. The images of the batch count:
   * a product deleted with its packages is still named by its old image.
   */
  private readonly names = new Map<string, string>();

  constructor(private readonly deps: AuditTrailDeps) {}

  /** Names of the objects these items refer to, from the batch's cache, else read. */
  private async namesFor(...items: (Record<string, unknown> | undefined)[]): Promise<Map<string, string>> {
    for (const item of items) {
      const own = nameOfItem(item);
      if (own) this.names.set(refKey(own.kind, own.uuid), own.name);
    }
    const refs = items.flatMap((item) => referencesOf(item));
    const missing = refs.filter((ref) => !this.names.has(refKey(ref.kind, ref.uuid)));
    if (missing.length > 0) for (const [key, name] of await this.deps.store.names(missing)) this.names.set(key, name);
    return this.names;
  }

  /**
   * The audit record of a stream record, if it stands for one (an audited object's change of an audited
   * field), with its place in the trail. Its id derives from the stream record: a retried batch rewrites
   * the same item, so the trail holds each change once.
   */
  async recordOf(record: DynamoDBRecord): Promise<PlacedAuditRecord | undefined> {
    const before = record.dynamodb?.OldImage ? itemOfImage(record.dynamodb.OldImage as StreamImage) : undefined;
    const after = record.dynamodb?.NewImage ? itemOfImage(record.dynamodb.NewImage as StreamImage) : undefined;
    const current = after ?? before;
    if (!current || !isAuditedEntity(current.entity)) return undefined;
    // DynamoDB's own deletion of an expired item (TTL: a revoked waiver a week on) is no one's change.
    if (record.userIdentity?.type === 'Service' && record.userIdentity.principalId === 'dynamodb.amazonaws.com') return undefined;
    // A delete leaves no new image to name its actor: the API wrote a deletion marker with it.
    const actor = after ? actorOf(after.actor) : await this.deps.store.deletionActor({ PK: String(current.PK), SK: String(current.SK) });
    // A job's writes (an SBOM import's packages, product packages, analyses): the job is recorded once, as itself.
    if (actor.via !== undefined) return undefined;
    // A comment's item does not name its dataspace: its request's does.
    const dataspace = current.dataspace === undefined && current.entity === 'RequestComment' ? await this.deps.store.requestDataspace(String(current.requestUuid)) : undefined;
    // When the write was sent (its actor's `at`: the API's, the service's own jobs'), to the millisecond;
    // else the stream's time (to the second on AWS, the minute on DynamoDB Local).
    const seconds = Number(record.dynamodb?.ApproximateCreationDateTime ?? 0);
    const date = actor.at ?? new Date(seconds * 1000).toISOString();
    const names = await this.namesFor(before, after);
    const audit = auditRecordOf({ before, after }, { uuid: stableUuid(`${record.eventSourceARN}|${record.eventID}`), date, actor, dataspace, names });
    if (!audit) return undefined;
    // Records of one millisecond sort as the stream saw them (its sequence numbers grow within a shard).
    const order = String(record.dynamodb?.SequenceNumber ?? '').replace(/\D/g, '').slice(-40).padStart(40, '0');
    return { record: audit, order };
  }

  /**
   * Writes a batch's records (an import's hundreds in a few calls, not one each). A write that fails
   * throws: the caller's batch is retried, and its records written again, the same items.
   */
  async write(records: readonly PlacedAuditRecord[]): Promise<void> {
    this.names.clear();
    if (records.length > 0) await this.deps.store.put(records, this.deps.retentionDays);
  }

  /**
   * Exports a batch's records as one JSON-lines object, named by the batch's first record: a retried
   * batch that starts at the same record overwrites it. A batch retried from a later record may export
   * a record twice, in two objects: readers deduplicate on `uuid`.
   */
  async export(placed: readonly PlacedAuditRecord[]): Promise<void> {
    if (!this.deps.exporter || placed.length === 0) return;
    // One object per dataspace of the batch, so that a dataspace's exports sit under its own prefix.
    const byDataspace = new Map<string, AuditRecord[]>();
    for (const { record } of placed) byDataspace.set(record.dataspace, [...(byDataspace.get(record.dataspace) ?? []), record]);
    for (const records of byDataspace.values()) {
      const first = records[0]!;
      const key = `audit/${first.dataspace}/${first.date.slice(0, 10)}/${first.date}-${first.uuid}.jsonl`;
      await this.deps.exporter.put(key, records.map((record) => JSON.stringify(auditView(record))).join('\n') + '\n');
    }
  }
}

/** A record as the API and the export show it. */
export function auditView(record: AuditRecord) {
  return {
    uuid: record.uuid,
    date: isoWithOffset(new Date(record.date)),
    dataspace: record.dataspace,
    action: record.action,
    object_type: record.objectType,
    object: record.object,
    object_repr: record.objectRepr,
    user: record.user,
    api_key: record.apiKey,
    changes: record.changes,
  };
}

export interface AuditQuery {
  readonly object?: string | undefined;
  readonly user?: string | undefined;
  readonly action?: AuditAction | undefined;
  readonly object_type?: string | undefined;
  /** ISO 8601 with a time zone, validated at the edge. */
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly cursor?: string | undefined;
  readonly page_size?: string | undefined;
}

export interface CursorPage<T> {
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: T[];
}

export class AuditService {
  constructor(private readonly deps: { readonly store: Pick<AuditStore, 'list' | 'objectNamed'> }) {}

  /** A page of the caller's dataspace's trail (superusers only), newest first, as DRF's CursorPagination answers. */
  async list(caller: Caller, query: AuditQuery, url: URL): Promise<CursorPage<ReturnType<typeof auditView>>> {
    if (!caller.isSuperuser) throw new ForbiddenError();
    const cursor = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
    if (query.cursor !== undefined && !cursor) throw new NotFoundError('Invalid cursor');
    const size = query.page_size !== undefined && /^\d{1,9}$/.test(query.page_size) ? Number(query.page_size) : NaN;
    const limit = size >= 1 ? Math.min(size, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
    const filters: AuditFilters = {
      // A uuid in any case; the dataspace's name (the policy rules' object) as it is; else a name or purl
      // of one of its objects (objectNamed), or, naming none, the text as it is (no record has it).
      object:
        query.object === undefined || query.object === caller.dataspace
          ? query.object
          : isUuid(query.object)
            ? query.object.toLowerCase()
            : ((await this.deps.store.objectNamed(caller.dataspace, query.object)) ?? query.object),
      objectType: query.object_type,
      user: query.user,
      action: query.action,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      until: query.until === undefined ? undefined : new Date(query.until).toISOString(),
    };
    const page = await this.deps.store.list(caller.dataspace, filters, limit, cursor);
    const [first, last] = [page.positions[0], page.positions[page.positions.length - 1]];
    const link = (at: AuditCursor | undefined): string | null => {
      if (!at) return null;
      const target = new URL(url);
      target.searchParams.set('cursor', encodeAuditCursor(at));
      return target.toString();
    };
    // A page read from a cursor has, on the cursor's side, at least the record the cursor stands at.
    const reverse = cursor?.reverse === true;
    const older = reverse || page.more;
    const newer = reverse ? page.more : cursor !== undefined;
    return {
      next: link(older ? { position: last ?? cursor!.position, reverse: false } : undefined),
      previous: link(newer ? { position: first ?? cursor!.position, reverse: true } : undefined),
      results: page.records.map(auditView),
    };
  }
}
