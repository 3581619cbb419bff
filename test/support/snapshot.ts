/** The whole test table as text, every page of it: "changes nothing" means the snapshot is equal. */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export async function tableItems(env: { doc: DynamoDBDocumentClient; tableName: string }): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await env.doc.send(new ScanCommand({ TableName: env.tableName, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

/**
 * The table as text, without the authentication's bookkeeping: an API key's `lastUsedAt` (and the `actor`
 * its update drops: shared/observability/write-stamps.ts), which any
 * request of the key (a refused write too) may set, at most once a minute (shared/store/api-key-store.ts).
 */
export async function tableSnapshot(env: { doc: DynamoDBDocumentClient; tableName: string }): Promise<string> {
  const items = await tableItems(env);
  return JSON.stringify(items.map((item) => (item.entity === 'ApiKey' ? { ...item, lastUsedAt: undefined, actor: undefined } : item)));
}
