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
  /** Attributes copied into the index besides the keys: every one, or none. */
  readonly projection: 'ALL' | 'KEYS_ONLY';
}

/**
 * GSI2..GSI9: one sorted index per ordering of the request list (shared/keys.ts names which). They
 * project every attribute: a page is served from the index alone. That copies the whole request item,
 * the eight indexes' keys included, into each of them: 16 of a create's 26 write units (README,
 * Benchmarks). INCLUDE projections of the list's own fields would fit (8 × 11 names, within the 100 a
 * table may project on AWS; DynamoDB Local accepted them too) but mean replacing the indexes, which
 * DynamoDB does not do in place and CloudFormation does one index per deployment.
 */
const orderingIndexes = ([2, 3, 4, 5, 6, 7, 8, 9] as const).map((n) => ({
  indexName: `GSI${n}` as const,
  partitionKey: `GSI${n}PK`,
  sortKey: `GSI${n}SK`,
  projection: 'ALL' as const,
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
  ] satisfies IndexDefinition[],
  /** NEW_AND_OLD_IMAGES: the stream is the service's outbox, and consumers need both sides of a change. */
  streamViewType: 'NEW_AND_OLD_IMAGES',
  /** Epoch seconds; items carrying it are removed by DynamoDB's TTL sweeper. */
  ttlAttribute: 'expiresAt',
} as const;

export type GsiName = (typeof TABLE.globalSecondaryIndexes)[number]['indexName'];

/** Every key attribute of the table and its indexes (all strings), in declaration order. */
export function keyAttributes(): string[] {
  const names = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const gsi of TABLE.globalSecondaryIndexes) {
    names.add(gsi.partitionKey);
    names.add(gsi.sortKey);
  }
  return [...names];
}
