/**
 * Seeding helpers for scenarios: a DynamoDB client built the way the handlers build theirs (for
 * seeding, and for floors that make a request's bare DynamoDB calls), and users with API keys.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../shared/aws/clients.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import type { BenchStack } from './stack.ts';

/** A document client on the stack's DynamoDB Local, configured as the handlers' own. Call destroy() when done. */
export function benchDocumentClient(stack: Pick<BenchStack, 'dynamodbEndpoint' | 'region'>): DynamoDBDocumentClient {
  return createDocumentClient(createDynamoClient({ region: stack.region, endpoint: stack.dynamodbEndpoint }));
}

/**
 * A document client for seeding and polling with patience: DynamoDB Local, busy with a pipeline or a
 * large seed, answers a batch in seconds. Call destroy() when done.
 */
export function patientDocumentClient(stack: Pick<BenchStack, 'dynamodbEndpoint' | 'region'>, maxAttempts = 10): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: stack.region, endpoint: stack.dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, requestHandler: { requestTimeout: 60_000 }, maxAttempts }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

export interface BenchUser {
  readonly username: string;
  readonly dataspace: string;
  readonly isSuperuser?: boolean;
  /** Groups of the user's dataspace; created when missing. */
  readonly groups?: readonly string[];
}

/** Creates the user (and its dataspace and groups when missing) and returns a fresh API key for it. */
export async function createUserWithKey(doc: DynamoDBDocumentClient, tableName: string, user: BenchUser): Promise<string> {
  const store = new IdentityStore(doc, tableName);
  const now = new Date();
  await store.createDataspace(user.dataspace, now);
  const groups = [...(user.groups ?? [])].sort();
  for (const group of groups) await store.createGroup({ dataspace: user.dataspace, name: group }, now);
  await store.saveUser(
    {
      username: user.username,
      email: `${user.username}@bench.example.com`,
      dataspace: user.dataspace,
      isSuperuser: user.isSuperuser ?? false,
      isActive: true,
      groups,
    },
    await store.getUser(user.username),
    now,
  );
  const apiKey = generateApiKey();
  await store.replaceApiKey(user.username, apiKey, now);
  return apiKey;
}

/** Writes items with BatchWriteItem, 25 a call, 8 calls at a time, retrying unprocessed items. */
export async function writeAll(doc: DynamoDBDocumentClient, tableName: string, items: readonly Record<string, unknown>[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
