/**
 * What the two API scenarios share: their dataspace, seeded once, and the measurement of
 * `GET /api/v2/products/{uuid}/` at 16 concurrent clients that both report ("api overhead" its
 * throughput against the bare DynamoDB calls, "api latency" its p50 and p99). Both are memoized, so
 * `npm run bench -- api` seeds and measures once, and either scenario alone still works.
 *
 * The caller is a non-superuser of a group, with a direct view grant on the product: the common path,
 * where authorization reads the product and the caller's grant keys in one BatchGetItem.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BatchGetCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ScenarioContext } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { measureAsync, measureHttp, type LoadResult } from '../lib/load.ts';
import { keys } from '../../shared/keys.ts';
import { parseApiKey } from '../../shared/auth/api-key.ts';
import { RequestStore } from '../../shared/store/request-store.ts';

export const DATASPACE = 'bench-api';
export const CONNECTIONS = 16;
/** Seconds of the measured HTTP run; the floor runs half of it before and half after. */
export const HTTP_SECONDS = 10;
/** Unmeasured seconds of each load (the floor's calls, then the API) before the first measurement. */
const WARMUP_SECONDS = 5;
const ROOT = 'bench-api-root';
const VIEWER = 'bench-api-viewer';
const VIEWER_GROUP = 'bench-api-reviewers';

export interface ApiSetup {
  readonly productUuid: string;
  readonly templateUuid: string;
  /** The non-superuser's key: view grant on the product, member of one group without a grant. */
  readonly viewerKey: string;
}

export interface ProductRun {
  readonly http: LoadResult;
  /** The bare DynamoDB calls, measured half before and half after the HTTP run, combined. */
  readonly floor: LoadResult;
  readonly floorBefore: LoadResult;
  readonly floorAfter: LoadResult;
  /** The keys of the BatchGetItem (the product and one grant key per principal of the caller). */
  readonly batchKeys: number;
}

let setup: Promise<ApiSetup> | undefined;
let productRun: Promise<ProductRun> | undefined;

async function api(apiUrl: string, key: string, method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { Authorization: `Token ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function seed({ apiUrl, tableName, dynamodbEndpoint, region, log }: ScenarioContext): Promise<ApiSetup> {
  const doc = benchDocumentClient({ dynamodbEndpoint, region });
  try {
    const rootKey = await createUserWithKey(doc, tableName, { username: ROOT, dataspace: DATASPACE, isSuperuser: true });
    const viewerKey = await createUserWithKey(doc, tableName, { username: VIEWER, dataspace: DATASPACE, groups: [VIEWER_GROUP] });
    // Through the API: the product as its superuser creates it, then a direct view grant to the viewer.
    const product = await api(apiUrl, rootKey, 'POST', '/api/v2/products/', { name: 'API overhead bench', version: '1.0' }, 201);
    const productUuid = String(product.uuid);
    await api(apiUrl, rootKey, 'POST', `/api/v2/products/${productUuid}/permissions/`, { user: VIEWER, permissions: ['view_product'] }, 200);
    const templateUuid = randomUUID();
    await new RequestStore(doc, tableName).saveTemplate(
      { uuid: templateUuid, dataspace: DATASPACE, name: 'API bench review', description: '', contentType: 'product', isActive: true, questions: [] },
      undefined,
    );
    log(`seeded ${DATASPACE}: product ${productUuid} viewable by ${VIEWER} (group ${VIEWER_GROUP}), a request template`);
    return { productUuid, templateUuid, viewerKey };
  } finally {
    doc.destroy();
  }
}

/** The dataspace of the API scenarios, seeded on first use. */
export function apiSetup(context: ScenarioContext): Promise<ApiSetup> {
  setup ??= seed(context).catch((error: unknown) => {
    setup = undefined;
    throw error;
  });
  return setup;
}

/**
 * The DynamoDB calls `GET /api/v2/products/{uuid}/` makes for this caller, made directly: the
 * authenticator's two strongly consistent GetItems (the key by its id, then its user) and
 * ProductStore.getWithGrants' strongly consistent BatchGetItem of the product and the caller's grant
 * keys. Checks what it reads, so a floor that reads nothing cannot pass for fast.
 */
function bareCalls(doc: DynamoDBDocumentClient, tableName: string, apiKey: string, productUuid: string) {
  const { keyId } = parseApiKey(apiKey)!;
  const principals = [
    { type: 'user' as const, name: VIEWER },
    { type: 'group' as const, name: VIEWER_GROUP },
  ];
  const batchKeys = [keys.product(productUuid), ...principals.map((principal) => keys.grant(productUuid, principal))];
  const call = async () => {
    const keyItem = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.apiKey(keyId), ConsistentRead: true }))).Item;
    if (!keyItem) throw new Error('floor: no API key item');
    const user = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.user(String(keyItem.username)), ConsistentRead: true }))).Item;
    if (!user) throw new Error('floor: no user item');
    const batch = await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: batchKeys, ConsistentRead: true } } }));
    const items = batch.Responses?.[tableName] ?? [];
    if (Object.keys(batch.UnprocessedKeys ?? {}).length > 0) throw new Error('floor: unprocessed keys');
    // The product and the viewer's grant; the group has none.
    if (items.length !== 2) throw new Error(`floor: the BatchGetItem read ${items.length} item(s), not 2`);
  };
  return { call, batchKeys: batchKeys.length };
}

function combine(a: LoadResult, b: LoadResult): LoadResult {
  const durationSeconds = a.durationSeconds + b.durationSeconds;
  const total = a.total + b.total;
  return {
    requestsPerSecond: total / durationSeconds,
    // Only throughput is combined exactly; the latencies are those of the longer half.
    p50Ms: (a.total >= b.total ? a : b).p50Ms,
    p99Ms: (a.total >= b.total ? a : b).p99Ms,
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
    total,
    durationSeconds,
  };
}

async function measureProductGet(context: ScenarioContext): Promise<ProductRun> {
  const { apiUrl, tableName, dynamodbEndpoint, region, log } = context;
  const { productUuid, viewerKey } = await apiSetup(context);
  const doc = benchDocumentClient({ dynamodbEndpoint, region });
  try {
    const bare = bareCalls(doc, tableName, viewerKey, productUuid);
    const floorRun = () => measureAsync({ concurrency: CONNECTIONS, durationSeconds: HTTP_SECONDS / 2, fn: bare.call });
    const url = `${apiUrl}/api/v2/products/${productUuid}/`;
    const headers = { Authorization: `Token ${viewerKey}` };
    // DynamoDB Local's JVM needs more than the 2 s warm-up of each measurement on a fresh stack (a
    // first floor ran at less than half the speed of the one after the API run): both loads first.
    const warmupStart = performance.now();
    await measureAsync({ concurrency: CONNECTIONS, durationSeconds: WARMUP_SECONDS, warmupSeconds: 0, fn: bare.call });
    await measureHttp({ url, headers, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS, warmupSeconds: 0 });
    log(`warm-up: ${WARMUP_SECONDS} s of each load in ${((performance.now() - warmupStart) / 1000).toFixed(1)} s`);
    // Floor, API, floor: a slow patch of the machine weighs on both sides.
    const floorBefore = await floorRun();
    log(`floor (before): ${floorBefore.requestsPerSecond.toFixed(0)} calls/s, p50 ${floorBefore.p50Ms.toFixed(2)} ms`);
    const http = await measureHttp({ url, headers, connections: CONNECTIONS, durationSeconds: HTTP_SECONDS });
    log(`GET product: ${http.requestsPerSecond.toFixed(0)} req/s, p50 ${http.p50Ms.toFixed(2)} ms, p99 ${http.p99Ms.toFixed(2)} ms`);
    const floorAfter = await floorRun();
    log(`floor (after): ${floorAfter.requestsPerSecond.toFixed(0)} calls/s, p50 ${floorAfter.p50Ms.toFixed(2)} ms`);
    return { http, floor: combine(floorBefore, floorAfter), floorBefore, floorAfter, batchKeys: bare.batchKeys };
  } finally {
    doc.destroy();
  }
}

/** The GET run both API scenarios report, measured on first use. */
export function productGetRun(context: ScenarioContext): Promise<ProductRun> {
  productRun ??= measureProductGet(context).catch((error: unknown) => {
    productRun = undefined;
    throw error;
  });
  return productRun;
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;
