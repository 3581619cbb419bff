/**
 * AWS SDK clients, made by the compositions (shared/runtime.ts, bin/local/composition.ts). On the local
 * stack the endpoints point at DynamoDB Local and the SQS emulator's signed front, with the local stack's
 * credentials (./local-credentials.ts) so the SDK never looks for real ones.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { stampingWrites } from '../observability/write-stamps.ts';
import { tracedClient } from '../observability/tracer.ts';
import { localCredentials } from './local-credentials.ts';

export interface DynamoEndpoint {
  region: string;
  endpoint?: string | undefined;
}

/**
 * How long one DynamoDB call may take before the SDK gives up on it and retries. Three attempts of
 * 2.5 s end well inside the API functions' 10 s, so a hung connection becomes the error table's 503
 * with Retry-After rather than a function timeout (the SDK's own default waits for minutes).
 */
export const DYNAMODB_REQUEST_TIMEOUT_MS = 2_500;
/**
 * The same limit for one TransactWriteItems attempt, which grows with its items beyond 25: 40 ms an
 * item more (100 items: 5.5 s). A transaction of 100 items is 100 writes; on DynamoDB Local (2.5 to 4 ms
 * an item idle, several times that on a loaded machine) a large import's transactions took past 2.5 s
 * and were cut off and sent again, until the import gave up busy (503). A hung connection is still cut.
 */
export function transactionRequestTimeoutMs(items: number): number {
  return DYNAMODB_REQUEST_TIMEOUT_MS + 40 * Math.max(0, items - 25);
}
const DYNAMODB_HTTP = { requestHandler: { requestTimeout: DYNAMODB_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true, connectionTimeout: 1_000 }, maxAttempts: 3 };

export function createDynamoClient({ region, endpoint }: DynamoEndpoint): DynamoDBClient {
  return tracedClient(new DynamoDBClient(endpoint ? { region, endpoint, credentials: localCredentials(), ...DYNAMODB_HTTP } : { region, ...DYNAMODB_HTTP }));
}

/**
 * Control-plane calls (CreateTable, DescribeTable, UpdateTable, UpdateTimeToLive, DeleteTable) get
 * their own client: such a call may take seconds on a loaded machine, and a timed-out CreateTable that
 * DynamoDB applied anyway must not be cut short at 2.5 s and sent again. Set-up code reaches it through
 * ensureTable (bin/local/table-setup.ts), which also treats "already exists" as "wait until ACTIVE".
 */
export const DYNAMODB_CONTROL_REQUEST_TIMEOUT_MS = 30_000;
const DYNAMODB_CONTROL_HTTP = {
  requestHandler: { requestTimeout: DYNAMODB_CONTROL_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true, connectionTimeout: 10_000 },
  maxAttempts: 5,
};

export function createDynamoControlClient({ region, endpoint }: DynamoEndpoint): DynamoDBClient {
  return new DynamoDBClient(
    endpoint ? { region, endpoint, credentials: localCredentials(), ...DYNAMODB_CONTROL_HTTP } : { region, ...DYNAMODB_CONTROL_HTTP },
  );
}

/** The document client every store uses; the puts and updates of an API request carry its correlation id. */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return stampingWrites(
    DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: false },
    }),
  );
}

/** `secret`: the local stack's, when not this process's own (a test reading it from the stack file). */
export function createSqsClient({ region, endpoint, secret }: DynamoEndpoint & { secret?: string | undefined }): SQSClient {
  return tracedClient(
    new SQSClient(
      endpoint
        ? // The emulator's queue URLs name a host of their own; send every call to the endpoint instead.
          { region, endpoint, credentials: localCredentials(secret), useQueueUrlAsEndpoint: false }
        : { region },
    ),
  );
}
