/**
 * Persistence of request templates, priorities, requests, their comments and the list counters.
 * A request is one item whose eight ordering indexes (GSI2..GSI9) sort the list; each write is a
 * transaction conditioned on the revision read, carrying the counter changes with it.
 */
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '../domain/errors.ts';
import { isoWithOffset } from '../domain/time.ts';
import { keys } from '../keys.ts';
import { counterTotals } from './counters.ts';
import { readRequestCounter, requestCounterSeedItems, requestCounterUpdates } from './request-counters.ts';
import {
  ORDERING_FIELDS,
  counterDeltas,
  matchesFilter,
  nextCommentDate,
  sortKey,
  type CommentCounter,
  type OrderingField,
  type Priority,
  type RequestComment,
  type IndexedRequest,
  type RequestEntry,
  type RequestFilter,
  type RequestRecord,
  type RequestTemplate,
} from '../domain/request.ts';
import {
  cancelledBecause,
  imageItem,
  batchGet,
  indexKeys,
  isConditionFailure,
  partitionQueryInput,
  queryAll,
  queryCount,
  queryOffset,
  revisionCondition,
  transact,
  type Item,
  type LabelledItem,
  type Recheck,
  type StreamImage,
} from './dynamo.ts';
import { SEARCH_FIELDS } from '../domain/search.ts';
import { memorySearch } from './search-filter.ts';

/** The request changed since it was read: read again and retry. */
export class StaleRequestError extends Error {
  constructor(uuid: string) {
    super(`Request ${uuid} changed concurrently`);
  }
}

/** Where in an ordering index a list starts: an equality prefix, or everything from a value on. */
export type IndexRange = { readonly prefix: string } | { readonly from: string } | Record<string, never>;

export class RequestStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  // --- templates and priorities ------------------------------------------------------------

  async getTemplate(uuid: string): Promise<RequestTemplate | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.template(uuid) }));
    return result.Item ? toTemplate(result.Item) : undefined;
  }

  async getTemplateByName(dataspace: string, name: string): Promise<RequestTemplate | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.templateName(dataspace, name) }));
    return result.Item ? this.getTemplate(String(result.Item.templateUuid)) : undefined;
  }

  /** Creates the template, or updates the one of that name (its uuid stays); true when it changed anything. */
  async saveTemplate(template: RequestTemplate, existing: RequestTemplate | undefined): Promise<boolean> {
    const item = {
      ...keys.template(template.uuid),
      ...keys.templateInDataspace(template.dataspace, template.name, template.uuid),
      entity: 'RequestTemplate',
      uuid: template.uuid,
      dataspace: template.dataspace,
      name: template.name,
      description: template.description,
      contentType: template.contentType,
      isActive: template.isActive,
      questions: template.questions.map((q) => ({ label: q.label, inputType: q.inputType, isRequired: q.isRequired })),
    };
    if (existing && JSON.stringify(toTemplate(item)) === JSON.stringify(existing)) return false;
    await this.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: item } },
          {
            Put: {
              TableName: this.tableName,
              Item: { ...keys.templateName(template.dataspace, template.name), entity: 'RequestTemplateName', templateUuid: template.uuid },
              // A name belongs to one template.
              ConditionExpression: 'attribute_not_exists(PK) OR templateUuid = :uuid',
              ExpressionAttributeValues: { ':uuid': template.uuid },
            },
          },
        ],
      }),
    );
    return true;
  }

  async listTemplates(dataspace: string, offset: number, limit: number): Promise<{ count: number; templates: RequestTemplate[] }> {
    const input = partitionQueryInput(this.tableName, keys.templatesOfDataspace(dataspace));
    const count = await queryCount(this.doc, input);
    const items = offset < count ? await queryOffset(this.doc, input, offset, limit) : [];
    return { count, templates: items.map(toTemplate) };
  }

  async getPriority(dataspace: string, label: string): Promise<Priority | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.priority(dataspace, label) }));
    return result.Item ? { dataspace, label } : undefined;
  }

  /** The dataspace's priorities, by label (one Query of the dataspace partition's PRIORITY# prefix). */
  async listPriorities(dataspace: string): Promise<Priority[]> {
    const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.prioritiesOfDataspace(dataspace)));
    return items.map((item) => ({ dataspace, label: String(item.label) }));
  }

  async createPriority(priority: Priority): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.priority(priority.dataspace, priority.label), entity: 'Priority', dataspace: priority.dataspace, label: priority.label },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  // --- requests and comments -----------------------------------------------------------------

  /**
   * The request, its number of comments and its latest `shown` comments (oldest first), in one Query
   * read newest first: the request item, then the comment count, then the comments sort below it.
   */
  async getWithLatestComments(
    uuid: string,
    shown: number,
  ): Promise<{ request: RequestRecord; comments: RequestComment[]; commentCount: number } | undefined> {
    const items = await queryOffset(
      this.doc,
      { ...partitionQueryInput(this.tableName, keys.requestPartition(uuid)), ScanIndexForward: false, ConsistentRead: true },
      0,
      shown + 2,
    );
    const requestItem = items.find((item) => item.entity === 'Request');
    if (!requestItem) return undefined;
    const commentItems = items.filter((item) => item.entity === 'RequestComment');
    const counter = items.find((item) => item.entity === 'RequestCommentCount');
    // Without a counter (no comment added since comments are counted), the query saw them all when it
    // ended before its limit.
    const commentCount = counter
      ? Number(counter.count)
      : items.length < shown + 2
        ? commentItems.length
        : await this.countComments(uuid);
    return { request: toRequest(requestItem), comments: commentItems.slice(0, shown).reverse().map(toComment), commentCount };
  }

  /** The request's comment counter, or for a request that has none yet, one made by counting its comments. */
  async commentCounter(uuid: string): Promise<CommentCounter & { stored: boolean }> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.commentCount(uuid), ConsistentRead: true }));
    if (result.Item) return { count: Number(result.Item.count), lastCreated: (result.Item.lastCreated as string | undefined) ?? null, stored: true };
    const [count, last] = await Promise.all([
      this.countComments(uuid),
      this.doc.send(new QueryCommand({ ...this.commentsQuery(uuid), ScanIndexForward: false, Limit: 1 })),
    ]);
    const lastItem = last.Items?.[0];
    return { count, lastCreated: lastItem ? String(lastItem.createdDate) : null, stored: false };
  }

  /** The request's number of comments. */
  async commentCount(uuid: string): Promise<number> {
    return (await this.commentCounter(uuid)).count;
  }

  /** A page of the request's comments, oldest first. */
  async comments(uuid: string, offset: number, limit: number): Promise<RequestComment[]> {
    return (await queryOffset(this.doc, this.commentsQuery(uuid), offset, limit)).map(toComment);
  }

  /** Counts the comments by reading them: for a request without a counter. */
  private countComments(uuid: string): Promise<number> {
    return queryCount(this.doc, this.commentsQuery(uuid));
  }

  private commentsQuery(uuid: string): QueryCommandInput {
    return { ...partitionQueryInput(this.tableName, keys.commentsOfRequest(uuid)), ConsistentRead: true };
  }

  /**
   * The request's comments as of `until` (an event's view of the request at a change): how many were
   * made at or before it, and the latest of them. One item read: the latest comment's number is the
   * count (comments are numbered in the order of their dates); comments written before comments were
   * numbered are counted by a Query.
   */
  async commentsAsOf(uuid: string, until: string): Promise<{ count: number; latest: RequestComment | null }> {
    const range = keys.commentsUntil(uuid, until);
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to },
      ConsistentRead: true,
    };
    const page = await this.doc.send(new QueryCommand({ ...input, ScanIndexForward: false, Limit: 1 }));
    const latest = page.Items?.[0] ? toComment(page.Items[0]) : null;
    if (!latest) return { count: 0, latest: null };
    return { count: latest.seq ?? (await queryCount(this.doc, input)), latest };
  }

  /** How many comments the request had once this one was added: its number, or for one written before comments were numbered, a count. */
  async commentsUpTo(requestUuid: string, comment: RequestComment): Promise<number> {
    if (comment.seq !== undefined) return comment.seq;
    const key = keys.comment(requestUuid, comment.createdDate, comment.uuid);
    return queryCount(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': key.PK, ':from': 'COMMENT#', ':to': key.SK },
      ConsistentRead: true,
    });
  }

  /** A request as a stream image holds it; undefined for an image of anything else. */
  static requestFromImage(image: StreamImage | undefined): RequestRecord | undefined {
    const item = imageItem(image, 'Request');
    return item && toRequest(item);
  }

  /** A comment and its request's uuid, as a stream image holds them; undefined for an image of anything else. */
  static commentFromImage(image: StreamImage | undefined): { requestUuid: string; comment: RequestComment } | undefined {
    const item = imageItem(image, 'RequestComment');
    return item && { requestUuid: String(item.requestUuid), comment: toComment(item) };
  }

  async get(uuid: string): Promise<RequestRecord | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.request(uuid), ConsistentRead: true }));
    return result.Item ? toRequest(result.Item) : undefined;
  }

  async create(request: RequestRecord): Promise<void> {
    await this.write(undefined, request);
  }

  /** Writes `after` over `before` (which must still be the stored revision) with the counter changes. */
  async update(before: RequestRecord, after: RequestRecord): Promise<void> {
    await this.write(before, after);
  }

  /**
   * Adds a comment to a request that must still exist, numbered one past the request's count and
   * dated no earlier than the last comment (nextCommentDate), in one transaction conditioned on the
   * count read: a comment added meanwhile makes it a StaleRequestError (read again and retry), so the
   * count stays exact and the numbers follow the dates. Answers the comment as stored.
   */
  async addComment(requestUuid: string, draft: Omit<RequestComment, 'createdDate' | 'seq'>, now: Date): Promise<RequestComment> {
    const counter = await this.commentCounter(requestUuid);
    const comment: RequestComment = { ...draft, createdDate: isoWithOffset(nextCommentDate(now, counter.lastCreated)), seq: counter.count + 1 };
    try {
      await transact(this.doc, [
        {
          label: 'request',
          item: { ConditionCheck: { TableName: this.tableName, Key: keys.request(requestUuid), ConditionExpression: 'attribute_exists(PK)' } },
        },
        {
          label: 'comment',
          item: {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.comment(requestUuid, comment.createdDate, comment.uuid),
                entity: 'RequestComment',
                requestUuid,
                uuid: comment.uuid,
                username: comment.username,
                text: comment.text,
                createdDate: comment.createdDate,
                seq: comment.seq,
              },
            },
          },
        },
        {
          label: 'counter',
          item: {
            Put: {
              TableName: this.tableName,
              Item: { ...keys.commentCount(requestUuid), entity: 'RequestCommentCount', count: comment.seq, lastCreated: comment.createdDate },
              ...(counter.stored
                ? { ConditionExpression: '#count = :count', ExpressionAttributeNames: { '#count': 'count' }, ExpressionAttributeValues: { ':count': counter.count } }
                : { ConditionExpression: 'attribute_not_exists(PK)' }),
            },
          },
        },
      ]);
    } catch (error) {
      if (cancelledBecause(error, 'request')) throw new NotFoundError();
      if (cancelledBecause(error, 'counter')) throw new StaleRequestError(requestUuid);
      throw error;
    }
    return comment;
  }

  // --- the list ------------------------------------------------------------------------------

  async count(dataspace: string, counter: string): Promise<{ total: number; public: number }> {
    return readRequestCounter(this.doc, this.tableName, dataspace, counter);
  }

  /** One page of an ordering index, filtered in DynamoDB: reads about (offset + limit) / selectivity entries. */
  async page(
    dataspace: string,
    field: OrderingField,
    descending: boolean,
    range: IndexRange,
    filter: RequestFilter,
    offset: number,
    limit: number,
  ): Promise<RequestEntry[]> {
    const { input, recheck } = this.indexQuery(dataspace, field, descending, range, filter);
    return this.requests((await queryOffset(this.doc, input, offset, limit, recheck)).map(toIndexed), filter);
  }

  /**
   * The number of requests of an index range that pass the filter, counted by reading the range: for
   * a list no counter counts (a search). Only the attributes the in-memory check needs travel.
   */
  async countMatches(dataspace: string, field: OrderingField, range: IndexRange, filter: RequestFilter): Promise<number> {
    const { input, recheck } = this.indexQuery(dataspace, field, false, range, filter);
    return queryCount(this.doc, input, recheck);
  }

  /**
   * Every request of an index range that passes the filter (for ranges known to be small), as the
   * index carries it: enough to filter and sort in memory; `requests` reads a page of them whole.
   */
  async entries(dataspace: string, field: OrderingField, range: IndexRange, filter: RequestFilter): Promise<IndexedRequest[]> {
    // matchesFilter finishes what DynamoDB's filter cannot (the search, on the title).
    const items = await queryAll(this.doc, this.indexQuery(dataspace, field, false, range, filter).input);
    return items.map(toIndexed).filter((entry) => matchesFilter(entry, filter));
  }

  /**
   * The requests of index entries, in their order, read by key and strongly consistent (an ordering
   * index carries only what its list filters and sorts on, shared/table.ts): a page shows each request as
   * it is now, even when the index has not caught up with its last change yet. A request deleted since
   * the index was read is left out, and so is one that no longer passes the filter: one made private
   * since, above all, is never shown to a caller who may not see it.
   */
  async requests(entries: readonly Pick<IndexedRequest, 'uuid'>[], filter: RequestFilter): Promise<RequestEntry[]> {
    if (entries.length === 0) return [];
    const items = await batchGet(this.doc, this.tableName, entries.map((entry) => keys.request(entry.uuid)), true);
    const byUuid = new Map(items.map((item) => [String(item.uuid), item]));
    return entries.flatMap((entry) => {
      const item = byUuid.get(entry.uuid);
      const request = item && toEntry(item);
      return request && matchesFilter(request, filter) ? [request] : [];
    });
  }

  private indexQuery(
    dataspace: string,
    field: OrderingField,
    descending: boolean,
    range: IndexRange,
    filter: RequestFilter,
  ): { input: QueryCommandInput; recheck: Recheck | undefined } {
    const index = keys.requestOrderingIndex[field];
    const [pkName, skName] = indexKeys(index);
    const names: Record<string, string> = { '#pk': pkName };
    const values: Record<string, unknown> = { ':pk': keys.requestsPartition(dataspace) };
    let keyCondition = '#pk = :pk';
    if ('prefix' in range) {
      names['#sk'] = skName;
      values[':prefix'] = range.prefix;
      keyCondition += ' AND begins_with(#sk, :prefix)';
    } else if ('from' in range) {
      names['#sk'] = skName;
      values[':from'] = range.from;
      keyCondition += ' AND #sk >= :from';
    }
    const conditions: string[] = [];
    const equal = (attribute: string, value: unknown) => {
      const n = `#f${conditions.length}`;
      const v = `:f${conditions.length}`;
      names[n] = attribute;
      values[v] = value;
      conditions.push(`${n} = ${v}`);
    };
    if (filter.status !== undefined) equal('status', filter.status);
    if (filter.requester !== undefined) equal('requester', filter.requester);
    if (filter.assignee !== undefined) equal('assignee', filter.assignee);
    if (filter.priority !== undefined) equal('priority', filter.priority);
    if (filter.templateUuid !== undefined) equal('templateUuid', filter.templateUuid);
    if (filter.contentType !== undefined) equal('contentType', filter.contentType);
    if (filter.modifiedSince !== undefined) {
      names['#modified'] = 'lastModifiedDate';
      values[':since'] = filter.modifiedSince;
      conditions.push('#modified >= :since');
    }
    if (filter.visibleTo !== undefined) {
      names['#private'] = 'isPrivate';
      names['#requester'] = 'requester';
      names['#assignee'] = 'assignee';
      values[':false'] = false;
      values[':me'] = filter.visibleTo;
      conditions.push('(#private = :false OR #requester = :me OR #assignee = :me)');
    }
    const input: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: index,
      KeyConditionExpression: keyCondition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: !descending,
      ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
    };
    // Search is judged in memory on the title the index carries (it carries no search copy), after the
    // same filter, privacy included: it never finds a request the caller cannot see.
    const recheck = memorySearch(SEARCH_FIELDS.requests, filter.search ?? []);
    return { input, recheck };
  }

  /** Whether the request is stored as `request` was created (same uuid, creator and creation time). */
  private async storedAsWritten(request: RequestRecord): Promise<boolean> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.request(request.uuid), ConsistentRead: true }));
    return result.Item?.createdDate === request.createdDate && result.Item?.requester === request.requester && result.Item?.dataspace === request.dataspace;
  }

  private async write(before: RequestRecord | undefined, after: RequestRecord): Promise<void> {
    const deltas = counterDeltas(before, after);
    if (before && deltas.size === 0) {
      // No counter moves (a title, notes or answers change): one conditional put, not a transaction,
      // which is cheaper and shortens the time concurrent writers of the request wait for each other.
      try {
        await this.doc.send(new PutCommand({ TableName: this.tableName, Item: requestItem(after), ...revisionCondition(before) }));
        return;
      } catch (error) {
        if (isConditionFailure(error)) throw new StaleRequestError(after.uuid);
        throw error;
      }
    }
    const items: LabelledItem[] = [
      {
        label: 'request',
        item: {
          Put: {
            TableName: this.tableName,
            Item: requestItem(after),
            ...revisionCondition(before),
          },
        },
      },
    ];
    items.push(...requestCounterUpdates(this.tableName, after.dataspace, deltas));
    try {
      await transact(this.doc, items);
    } catch (error) {
      if (cancelledBecause(error, 'request')) {
        if (before) throw new StaleRequestError(after.uuid);
        // The uuid is new to this create: a request holding it is an earlier try of this very write
        // that committed but whose answer was lost (a timeout while DynamoDB was slow), and was tried
        // again under a new token. Its transaction wrote the counters too: done.
        if (await this.storedAsWritten(after)) return;
        throw new ConflictError('uuid', 'A request with this uuid already exists.');
      }
      throw error;
    }
  }
}

/** The items a set of requests is stored as, counters included, for bulk loads (benchmark seeding). */
export function requestSeedItems(requests: readonly RequestRecord[]): Item[] {
  const byDataspace = Map.groupBy(requests, (request) => request.dataspace);
  return [
    ...requests.map(requestItem),
    ...[...byDataspace].flatMap(([dataspace, ofDataspace]) =>
      requestCounterSeedItems(dataspace, counterTotals((request: RequestRecord) => counterDeltas(undefined, request), ofDataspace)),
    ),
  ];
}

function requestItem(request: RequestRecord): Item {
  const indexes: Item = {};
  for (const field of ORDERING_FIELDS) {
    const [pkName, skName] = indexKeys(keys.requestOrderingIndex[field]);
    indexes[pkName] = keys.requestsPartition(request.dataspace);
    indexes[skName] = sortKey(field, request);
  }
  return {
    ...keys.request(request.uuid),
    ...indexes,
    entity: 'Request',
    uuid: request.uuid,
    dataspace: request.dataspace,
    title: request.title,
    templateUuid: request.templateUuid,
    templateName: request.templateName,
    contentType: request.contentType,
    status: request.status,
    priority: request.priority,
    assignee: request.assignee,
    requester: request.requester,
    productContext: request.productContext,
    contentObject: request.contentObject,
    notes: request.notes,
    serializedData: request.serializedData,
    isPrivate: request.isPrivate,
    ccEmails: [...request.ccEmails],
    lastModifiedBy: request.lastModifiedBy,
    createdDate: request.createdDate,
    lastModifiedDate: request.lastModifiedDate,
    rev: request.rev + 1,
  };
}

function toRequest(item: Item): RequestRecord {
  return {
    ...indexedFields(item),
    dataspace: String(item.dataspace),
    productContext: (item.productContext as string | null | undefined) ?? null,
    contentObject: (item.contentObject as string | null | undefined) ?? null,
    notes: String(item.notes ?? ''),
    serializedData: (item.serializedData as RequestRecord['serializedData'] | undefined) ?? {},
    ccEmails: (item.ccEmails as string[] | undefined) ?? [],
    lastModifiedBy: String(item.lastModifiedBy),
    rev: Number(item.rev ?? 0),
  };
}

function toEntry(item: Item): RequestEntry {
  const request = toRequest(item);
  return { ...request, sortKeys: sortKeysOf(item, request) };
}

/**
 * The fields an ordering index carries (REQUEST_INDEX_ATTRIBUTES in shared/table.ts), and the uuid: the
 * item's, or on an index entry (which does not carry it) the table key's, which every index projects.
 */
function indexedFields(item: Item): Omit<IndexedRequest, 'sortKeys'> {
  return {
    uuid: item.uuid === undefined ? String(item.PK).slice('REQUEST#'.length) : String(item.uuid),
    title: String(item.title),
    templateUuid: String(item.templateUuid),
    templateName: String(item.templateName),
    contentType: item.contentType as RequestRecord['contentType'],
    status: item.status as RequestRecord['status'],
    priority: (item.priority as string | null | undefined) ?? null,
    assignee: (item.assignee as string | null | undefined) ?? null,
    requester: String(item.requester),
    isPrivate: item.isPrivate === true,
    createdDate: String(item.createdDate),
    lastModifiedDate: String(item.lastModifiedDate),
  };
}

/**
 * A request as an ordering index carries it. The sort keys are the item's own where it carries them
 * (the index's, or all of them in an ALL projection), else computed as a write computes them.
 */
function toIndexed(item: Item): IndexedRequest {
  const fields = indexedFields(item);
  return { ...fields, sortKeys: sortKeysOf(item, fields) };
}

function sortKeysOf(item: Item, fields: Parameters<typeof sortKey>[1]): Record<OrderingField, string> {
  const sortKeys = {} as Record<OrderingField, string>;
  for (const field of ORDERING_FIELDS) {
    const [, skName] = indexKeys(keys.requestOrderingIndex[field]);
    sortKeys[field] = item[skName] === undefined ? sortKey(field, fields) : String(item[skName]);
  }
  return sortKeys;
}

function toComment(item: Item): RequestComment {
  return {
    uuid: String(item.uuid),
    username: String(item.username),
    text: String(item.text),
    createdDate: String(item.createdDate),
    ...(item.seq !== undefined ? { seq: Number(item.seq) } : {}),
  };
}

function toTemplate(item: Item): RequestTemplate {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    name: String(item.name),
    description: String(item.description ?? ''),
    contentType: item.contentType as RequestTemplate['contentType'],
    isActive: item.isActive !== false,
    questions: ((item.questions as Item[] | undefined) ?? []).map((q) => ({
      label: String(q.label),
      inputType: q.inputType as RequestTemplate['questions'][number]['inputType'],
      isRequired: q.isRequired === true,
    })),
  };
}

