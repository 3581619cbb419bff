/**
 * The one DynamoDB table of the service: its key schema, indexes, stream and TTL, declared once.
 * The CDK stack (lib/) and the local runner (bin/local/) both build the table from this object,
 * so the deployed table and the DynamoDB Local table can never drift apart.
 * Which entity lives under which key is in shared/keys.ts and docs/data-model.md.
 */
export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Attributes copied into the index besides the keys: every one, none, or those `nonKeyAttributes` names. */
  readonly projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  readonly nonKeyAttributes?: readonly string[];
}

/**
 * The request attributes the ordering indexes carry besides their keys: what the list's filters
 * (equality, privacy, modified since, search) test and what its orderings sort by, so that a list read
 * whole from one index filters and sorts in memory (shared/domain/request.ts IndexedRequest). A page
 * then reads its requests by key. 11 names in 8 indexes: 88 of the 100 a table may project. A search
 * of requests is judged in memory on `title` (shared/store/search-filter.ts memorySearch), so the
 * request item carries no search copy.
 */
export const REQUEST_INDEX_ATTRIBUTES = [
  'status',
  'requester',
  'assignee',
  'priority',
  'templateUuid',
  'templateName',
  'contentType',
  'createdDate',
  'lastModifiedDate',
  'isPrivate',
  'title',
] as const;

/**
 * GSI2..GSI9: one sorted index per ordering of the request list (shared/keys.ts names which). Each
 * carries the attributes its list filters and sorts on (INCLUDE, REQUEST_INDEX_ATTRIBUTES).
 * With ALL, each index held a copy of the whole request item, the other seven indexes' keys included
 * (743 of a 1,245-byte item): 2 write units an index a create, where the filters' attributes make 1.
 * DynamoDB does not change an index's projection in place, and CloudFormation adds or removes one index
 * per update: a table made by an earlier version keeps ALL (context `requestIndexProjection=ALL`,
 * lib/compliance-stack.ts), which the code reads the same way.
 */
const orderingIndexes = ([2, 3, 4, 5, 6, 7, 8, 9] as const).map((n) => ({
  indexName: `GSI${n}` as const,
  partitionKey: `GSI${n}PK`,
  sortKey: `GSI${n}SK`,
  projection: 'INCLUDE' as const,
  nonKeyAttributes: REQUEST_INDEX_ATTRIBUTES,
}));

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Every attribute named here is a string. */
  globalSecondaryIndexes: [
    { indexName: 'GSI1' as const, partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' as const },
    ...orderingIndexes,
    // Reverse lookups answered with keys alone: the products that hold a package.
    { indexName: 'GSI10' as const, partitionKey: 'GSI10PK', sortKey: 'GSI10SK', projection: 'KEYS_ONLY' as const },
    // The packages of every dataspace that an advisory's package key names (shared/keys.ts): keys alone.
    { indexName: 'GSI11' as const, partitionKey: 'GSI11PK', sortKey: 'GSI11SK', projection: 'KEYS_ONLY' as const },
  ] satisfies IndexDefinition[],
  /** NEW_AND_OLD_IMAGES: the stream is the service's outbox, and consumers need both sides of a change. */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /** Epoch seconds; items carrying it are removed by DynamoDB's TTL sweeper. */
  ttlAttribute: 'expiresAt',
} as const;

export type GsiName = (typeof TABLE.globalSecondaryIndexes)[number]['indexName'];

/** An index's projection as DynamoDB's API writes it (CreateTable, DescribeTable). */
export function projectionOf(gsi: IndexDefinition): { ProjectionType: IndexDefinition['projection']; NonKeyAttributes?: string[] } {
  return gsi.projection === 'INCLUDE' ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...(gsi.nonKeyAttributes ?? [])] } : { ProjectionType: gsi.projection };
}

/** Every key attribute of the table and its indexes (all strings), in declaration order. */
export function keyAttributes(): string[] {
  const names = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const gsi of TABLE.globalSecondaryIndexes) {
    names.add(gsi.partitionKey);
    names.add(gsi.sortKey);
  }
  return [...names];
}
