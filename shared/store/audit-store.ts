/**
 * The audit trail's items (shared/keys.ts: Audit record, Deletion marker): the audit writer puts
 * records, reads who deleted an item from its deletion marker, and the API lists a dataspace's records
 * newest first, by object or by user, a cursor at a time.
 */
import { BatchWriteCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { actorOf, auditExpiry, nameOfItem, refKey, type Actor, type AuditAction, type AuditCursor, type AuditFilters, type AuditRecord, type RefKind } from '../domain/audit.ts';
import { keys, type Key } from '../keys.ts';
import { TABLE } from '../table.ts';
import { batchGet, indexKeys, type Item } from './dynamo.ts';

/** An item must stay under DynamoDB's 400 KB: changes larger than this are recorded by field name only. */
const MAX_CHANGES_BYTES = 300_000;

/** BatchWriteItem calls of 25 records each in flight at once. */
const PUTS_IN_FLIGHT = 4;

export interface AuditPage {
  /** Newest first. */
  readonly records: AuditRecord[];
  /** Each record's position in the trail (its sort key), for the cursors of the pages beside it. */
  readonly positions: string[];
  /** Whether records lie beyond the page in the direction it was read. */
  readonly more: boolean;
}

export class AuditStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Puts the records. `order` is each record's place among those of the same date (the stream record's
   * sequence number): it sorts the changes of one second as the stream saw them. A record put again
   * (a retried batch) is the same item, so the trail holds it once.
   */
  async put(records: readonly { record: AuditRecord; order: string }[], retentionDays: number): Promise<void> {
    const requests = records.map(({ record, order }) => ({ PutRequest: { Item: auditItem(record, order, retentionDays) } }));
    const chunks: (typeof requests)[] = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    // A few calls at once: an import's hundreds of records in a few round trips.
    for (let i = 0; i < chunks.length; i += PUTS_IN_FLIGHT) {
      await Promise.all(
        chunks.slice(i, i + PUTS_IN_FLIGHT).map(async (chunk) => {
          let pending: typeof requests | undefined = chunk;
          for (let attempt = 0; pending && pending.length > 0; attempt++) {
            if (attempt >= 10) throw new Error(`${pending.length} audit records still unprocessed after ${attempt} tries`);
            if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * Math.random());
            const result = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
            pending = result.UnprocessedItems?.[this.tableName] as typeof requests | undefined;
          }
        }),
      );
    }
  }

  /** Who deleted the item at `key`: its deletion marker's actor (unknown without one: a TTL expiry, a write outside the API). */
  async deletionActor(key: Key): Promise<Actor> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.deletionMarker(key), ConsistentRead: true }));
    return actorOf(result.Item?.actor);
  }

  /**
   * The names of these objects (a product's name and version, a package's purl, a request's title), by
   * refKey; one that is gone is absent. Eventually consistent: a name read a moment old is still its name.
   */
  async names(refs: readonly { kind: RefKind; uuid: string }[]): Promise<Map<string, string>> {
    const keyOf = (kind: RefKind, uuid: string): Key => (kind === 'product' ? keys.product(uuid) : kind === 'package' ? keys.catalogObject('PACKAGE', uuid) : keys.request(uuid));
    const unique = [...new Map(refs.map((ref) => [refKey(ref.kind, ref.uuid), ref])).values()];
    const items = unique.length === 0 ? [] : await batchGet(this.doc, this.tableName, unique.map((ref) => keyOf(ref.kind, ref.uuid)));
    const found = new Map<string, string>();
    for (const item of items) {
      const named = nameOfItem(item);
      if (named) found.set(refKey(named.kind, named.uuid), named.name);
    }
    return found;
  }

  /**
   * The uuid of the object of the dataspace that `text` names, for `?object=` by name: a package's purl,
   * a license's key, a usage policy's label, a vulnerability's id, or a product's "name version" (or its
   * name alone, for a product without a version), in that order when several match. Read from their
   * reservation items in one BatchGetItem; undefined when none does.
   */
  async objectNamed(dataspace: string, text: string): Promise<string | undefined> {
    if (text === '' || Buffer.byteLength(text) > 1_000) return undefined;
    const catalog = (['PACKAGE', 'LICENSE', 'USAGEPOLICY', 'VULNERABILITY'] as const).map((type) => keys.catalogUnique(type, dataspace, type === 'VULNERABILITY' ? text.toUpperCase() : text));
    // "Shop 1.0.0": every split at a space is a (name, version) to try; the whole text with no version too.
    const splits = [...text.matchAll(/ /g)].slice(0, 20).map((match) => [text.slice(0, match.index), text.slice(match.index + 1)] as const);
    const products = [[text, ''] as const, ...splits].map(([name, version]) => keys.productName(dataspace, name, version));
    const candidates = [...catalog, ...products];
    const found = new Map((await batchGet(this.doc, this.tableName, candidates)).map((item) => [`${String(item.PK)}|${String(item.SK)}`, item]));
    for (const key of candidates) {
      const item = found.get(`${key.PK}|${key.SK}`);
      const uuid = item?.uuid ?? item?.productUuid;
      if (typeof uuid === 'string') return uuid;
    }
    return undefined;
  }

  /** The dataspace of a request (its comments' items do not name it). */
  async requestDataspace(requestUuid: string): Promise<string | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.request(requestUuid), ProjectionExpression: 'dataspace' }));
    return result.Item?.dataspace === undefined ? undefined : String(result.Item.dataspace);
  }

  /**
   * One page of the dataspace's records from a position: newest first, older than `cursor` (or from the
   * newest); with `cursor.reverse`, the records newer than it (a previous page), still answered newest
   * first. `since`/`until` bound the key range; `object` and `user` choose the index; the other filters
   * (action, object type, and user beside object) are applied to what the range holds: a page reads on until it has
   * `limit` matches or the range ends. `more`: whether records lie beyond the page, in its direction.
   */
  async list(dataspace: string, filters: AuditFilters, limit: number, cursor?: AuditCursor): Promise<AuditPage> {
    const trail: { index?: 'GSI9' | 'GSI10'; indexPK?: string; PK?: string } = keys.auditTrail(dataspace, filters);
    const [pkName, skName] = trail.index ? indexKeys(trail.index) : ['PK', 'SK'];
    const reverse = cursor?.reverse === true;
    // Sort keys are `<ISO date>#<order>#<uuid>`: a date bound covers every record of its millisecond.
    let low = filters.since ?? '0';
    let high = filters.until === undefined ? '\uffff' : `${filters.until}#\uffff`;
    if (cursor) {
      if (reverse) low = cursor.position > low ? cursor.position : low;
      else high = cursor.position < high ? cursor.position : high;
    }
    const matches: { record: AuditRecord; position: string }[] = [];
    let start: Record<string, unknown> | undefined;
    if (low <= high) {
      do {
        const result = await this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            ...(trail.index ? { IndexName: trail.index } : {}),
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
            ExpressionAttributeNames: { '#pk': pkName, '#sk': skName },
            ExpressionAttributeValues: { ':pk': trail.index ? trail.indexPK : trail.PK, ':low': low, ':high': high },
            ScanIndexForward: reverse,
            Limit: Math.max(limit + 1, 25),
            ExclusiveStartKey: start,
          }),
        );
        let items: Item[] = (result.Items ?? []).filter((item) => item[skName] !== cursor?.position);
        // The indexes hold keys only: the records are read by key, then put back in the index's order.
        if (trail.index !== undefined && items.length > 0) {
          const found = new Map((await batchGet(this.doc, this.tableName, items.map((item) => ({ PK: item.PK, SK: item.SK })))).map((item) => [String(item.SK), item]));
          items = items.flatMap((item): Item[] => {
            const full = found.get(String(item.SK));
            return full ? [full] : [];
          });
        }
        for (const item of items) {
          const record = toAuditRecord(item);
          if (filters.action !== undefined && record.action !== filters.action) continue;
          if (filters.objectType !== undefined && record.objectType !== filters.objectType) continue;
          if (filters.user !== undefined && record.user !== filters.user) continue;
          matches.push({ record, position: String(item.SK) });
        }
        start = result.LastEvaluatedKey;
      } while (start && matches.length <= limit);
    }
    const more = matches.length > limit || start !== undefined;
    const page = matches.slice(0, limit);
    if (reverse) page.reverse();
    return { records: page.map((match) => match.record), positions: page.map((match) => match.position), more };
  }
}

function auditItem(record: AuditRecord, order: string, retentionDays: number): Item {
  const date = `${record.date}#${order}`;
  let changes = JSON.stringify(record.changes);
  if (Buffer.byteLength(changes) > MAX_CHANGES_BYTES) {
    changes = JSON.stringify(Object.fromEntries(Object.keys(record.changes).map((field) => [field, ['(too large to record)', '(too large to record)']])));
  }
  return {
    ...keys.auditRecord(record.dataspace, date, record.uuid),
    ...keys.auditOfObject(record.dataspace, record.object, date, record.uuid),
    ...(record.user === null ? {} : keys.auditOfUser(record.dataspace, record.user, date, record.uuid)),
    entity: 'AuditRecord',
    uuid: record.uuid,
    dataspace: record.dataspace,
    date: record.date,
    action: record.action,
    objectType: record.objectType,
    object: record.object,
    objectRepr: record.objectRepr,
    user: record.user,
    apiKey: record.apiKey,
    // A JSON string: old and new values of any shape, as they were, whatever DynamoDB's types make of them.
    changes,
    [TABLE.ttlAttribute]: auditExpiry(record.date, retentionDays),
  };
}

export function toAuditRecord(item: Item): AuditRecord {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    date: String(item.date),
    action: item.action as AuditAction,
    objectType: String(item.objectType),
    object: String(item.object),
    objectRepr: String(item.objectRepr ?? ''),
    user: (item.user as string | null | undefined) ?? null,
    apiKey: (item.apiKey as string | null | undefined) ?? null,
    changes: JSON.parse(String(item.changes ?? '{}')) as AuditRecord['changes'],
  };
}
