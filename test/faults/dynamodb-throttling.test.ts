/**
 * DynamoDB throttling, capacity errors, internal errors, dropped connections and a hung DynamoDB,
 * injected between the service's own SDK client and DynamoDB Local by a small proxy, so the real
 * handlers, the real SDK retry strategy (maxAttempts 3, from shared/aws/clients.ts) and the real
 * error table are what answer. A few faults are retried away; faults that outlast the retries are a
 * 503 with Retry-After and the DRF body, and the table is exactly as it was before the request.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { useTestTable, dynamodbEndpoint } from '../support/environment.ts';
import { startTestGateway } from '../support/gateway.ts';
import { aTeam, load, type Team } from '../support/factories.ts';
import { tableItems, tableSnapshot } from '../support/snapshot.ts';
import { startFaultProxy, type Fault, type FaultProxy } from './dynamodb-fault-proxy.ts';
import { apiFunction } from '../../shared/http/api-handler.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { DYNAMODB_REQUEST_TIMEOUT_MS } from '../../shared/aws/clients.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let proxy: FaultProxy;
let api: Awaited<ReturnType<typeof startTestGateway>>;
let team: Team;
let packageUuid: string;

const BUSY = { detail: 'The service is busy; try again shortly.' };
/** The SDK client's attempts per call (shared/aws/clients.ts): one call and two retries. */
const SDK_ATTEMPTS = 3;

const throttled: Fault = { kind: 'error', type: 'ThrottlingException' };
const noCapacity: Fault = { kind: 'error', type: 'ProvisionedThroughputExceededException' };
const internalError: Fault = { kind: 'error', type: 'InternalServerError', status: 500 };
const dropped: Fault = { kind: 'reset' };
/** A product create's four items, cancelled because another transaction held two of them. */
const conflict: Fault = {
  kind: 'error',
  type: 'TransactionCanceledException',
  fields: {
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict, None, TransactionConflict]',
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
  },
};

const call = (username: string, method: string, path: string, body?: unknown) =>
  api.call(method, path, { token: team.keys[username], ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  env = await useTestTable();
  // The functions read DYNAMODB_ENDPOINT once, when the gateway first loads them: they talk to the
  // proxy; the test's own client (env.doc) keeps talking to DynamoDB Local directly.
  proxy = await startFaultProxy(dynamodbEndpoint());
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'true';
  // No per-key throttling: these tests count every DynamoDB call a request makes.
  process.env.RATE_LIMIT_PER_SECOND = '0';
  team = await aTeam(env, { acme: { users: { root: { superuser: true }, alice: {}, bob: {} } } });
  await load(env, {
    request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product', questions: [] }],
    priorities: [{ label: 'Urgent', dataspace: 'acme' }],
  });
  api = await startTestGateway();
  const pkg = await call('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/left-pad@1.3.0' });
  expect(pkg.status, pkg.text).toBe(201);
  packageUuid = pkg.json.uuid;
}, 60_000);

afterAll(async () => {
  proxy?.release();
  await api?.stop();
  await proxy?.stop();
});

beforeEach(() => proxy.clear());
afterEach(() => vi.restoreAllMocks());

async function aProduct(name = `P ${randomUUID().slice(0, 8)}`): Promise<{ uuid: string; api_url: string }> {
  const created = await call('alice', 'POST', '/api/v2/products/', { name });
  expect(created.status, created.text).toBe(201);
  return created.json;
}

describe('a few throttled, failed or dropped calls are retried away', () => {
  const cases = [
    { what: 'a product create whose transaction is refused for capacity twice', operation: 'TransactWriteItems', fault: noCapacity, calls: 3, by: 'SDK' },
    { what: 'a product create whose transaction is throttled twice', operation: 'TransactWriteItems', fault: throttled, calls: 3, by: 'SDK' },
    { what: 'a product create whose transaction meets an internal error twice', operation: 'TransactWriteItems', fault: internalError, calls: 3, by: 'SDK' },
    { what: 'a product create whose connection drops twice before DynamoDB sees it', operation: 'TransactWriteItems', fault: dropped, calls: 3, by: 'SDK' },
    // Authentication reads the key (three attempts), then the user (one).
    { what: 'a product create whose API key read is throttled twice', operation: 'GetItem', fault: throttled, calls: 4, by: 'SDK' },
    { what: 'a product create whose transaction loses to others twice', operation: 'TransactWriteItems', fault: conflict, calls: 3, by: 'service' },
  ];
  for (const { what, operation, fault, calls, by } of cases) {
    it(`${what}: 201, retried by the ${by}`, async () => {
      proxy.inject(operation, fault, SDK_ATTEMPTS - 1);
      const name = `Retried ${randomUUID().slice(0, 8)}`;
      const created = await call('alice', 'POST', '/api/v2/products/', { name });
      expect(created.status, created.text).toBe(201);
      expect(proxy.calls(operation)).toBe(calls);
      const listed = await call('alice', 'GET', `/api/v2/products/?name=${encodeURIComponent(name)}`);
      expect(listed.json.count).toBe(1);
    });
  }

  it('a list whose index query is refused for capacity twice: 200', async () => {
    await aProduct();
    proxy.inject('Query', noCapacity, SDK_ATTEMPTS - 1);
    const listed = await call('alice', 'GET', '/api/v2/products/');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.count).toBeGreaterThan(0);
  });

  it('a product read whose BatchGetItem returns every key unprocessed three times: 200 (the store retries the keys itself)', async () => {
    const product = await aProduct();
    proxy.inject('BatchGetItem', { kind: 'unprocessed' }, 3);
    const read = await call('alice', 'GET', `/api/v2/products/${product.uuid}/`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.uuid).toBe(product.uuid);
    expect(proxy.calls('BatchGetItem')).toBe(4);
  });

  it('a committed transaction whose answer is lost: the SDK resends it with the same ClientRequestToken, and DynamoDB applies it once', async () => {
    const before = await countItem();
    proxy.inject('TransactWriteItems', { kind: 'lost-response' }, 1);
    const name = `Lost answer ${randomUUID().slice(0, 8)}`;
    const created = await call('alice', 'POST', '/api/v2/products/', { name });
    expect(created.status, created.text).toBe(201);
    const sent = proxy.bodies('TransactWriteItems');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.ClientRequestToken).toEqual(expect.any(String));
    expect(sent[1]!.ClientRequestToken).toBe(sent[0]!.ClientRequestToken);
    expect((await call('alice', 'GET', `/api/v2/products/?name=${encodeURIComponent(name)}`)).json.count).toBe(1);
    expect(await countItem()).toBe(before + 1);
  });

  it('a request create whose first transaction commits unanswered while the resend is refused as in progress: 201, stored once, counted once', async () => {
    const title = `Lost and in progress ${randomUUID().slice(0, 8)}`;
    const countOf = async () => (await call('alice', 'GET', '/api/v2/requests/?page_size=1')).json.count as number;
    const before = await countOf();
    // The SDK resends after the lost answer with the same token; DynamoDB, still applying the first, refuses
    // each resend until the SDK gives up. The service tries again with a new token: the request is there
    // already, written by the first send.
    proxy.inject('TransactWriteItems', { kind: 'lost-response' }, 1);
    proxy.inject('TransactWriteItems', { kind: 'error', type: 'TransactionInProgressException' }, SDK_ATTEMPTS - 1);
    const created = await call('alice', 'POST', '/api/v2/requests/', { title, request_template: 'Review' });
    expect(created.status, created.text).toBe(201);
    expect(proxy.calls('TransactWriteItems')).toBe(SDK_ATTEMPTS + 1);
    const listed = (await call('alice', 'GET', `/api/v2/requests/?search=${encodeURIComponent(title)}`)).json;
    expect(listed.results.map((r: { uuid: string }) => r.uuid)).toEqual([created.json.uuid]);
    expect(await countOf()).toBe(before + 1);
  });
});

/** The dataspace's product count item, read directly. */
async function countItem(): Promise<number> {
  const items = await tableItems(env);
  return Number(items.find((item) => item.PK === 'DS#acme' && item.SK === 'COUNT#PRODUCTS')?.count ?? 0);
}

interface WriteCase {
  readonly what: string;
  readonly fault: Fault;
  /** Arranges what the write needs (through the API, before any fault), and returns the write. */
  readonly arrange: () => Promise<{ method: string; path: string; body?: unknown; as: string; expect: number }>;
}

const WRITES: WriteCase[] = [
  {
    what: 'creating a product (product, name reservation, creator grant, count) refused for capacity',
    fault: noCapacity,
    arrange: async () => ({ as: 'alice', method: 'POST', path: '/api/v2/products/', body: { name: 'Never half' }, expect: 201 }),
  },
  {
    what: 'creating a product whose connection keeps dropping (TimeoutError)',
    fault: dropped,
    arrange: async () => ({ as: 'alice', method: 'POST', path: '/api/v2/products/', body: { name: 'Dropped', version: '1' }, expect: 201 }),
  },
  {
    what: 'creating a request (the request and its counters) throttled',
    fault: throttled,
    arrange: async () => {
      const product = await aProduct();
      return {
        as: 'alice',
        method: 'POST',
        path: '/api/v2/requests/',
        body: { title: 'Throttled', request_template: 'Review', priority: 'Urgent', assignee: 'bob', product_context: product.api_url },
        expect: 201,
      };
    },
  },
  {
    what: 'adding a package to a product (revision, product package, pointer) refused for capacity',
    fault: noCapacity,
    arrange: async () => {
      const product = await aProduct();
      return { as: 'alice', method: 'POST', path: '/api/v2/product_packages/', body: { product: product.uuid, package: packageUuid }, expect: 201 };
    },
  },
  {
    what: 'renaming a product (product, old and new name reservations, view grants) with internal errors',
    fault: internalError,
    arrange: async () => {
      const product = await aProduct();
      return { as: 'alice', method: 'PATCH', path: `/api/v2/products/${product.uuid}/`, body: { name: `Renamed ${randomUUID().slice(0, 8)}` }, expect: 200 };
    },
  },
  {
    what: 'granting a permission (revision, grant) throttled',
    fault: throttled,
    arrange: async () => {
      const product = await aProduct();
      return { as: 'alice', method: 'POST', path: `/api/v2/products/${product.uuid}/permissions/`, body: { user: 'bob', permissions: ['view_product'] }, expect: 200 };
    },
  },
  {
    what: 'deleting a product with a package (product, name, count, grant, product package, pointer) refused for capacity',
    fault: noCapacity,
    arrange: async () => {
      const product = await aProduct();
      const added = await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: packageUuid });
      expect(added.status, added.text).toBe(201);
      return { as: 'alice', method: 'DELETE', path: `/api/v2/products/${product.uuid}/`, expect: 204 };
    },
  },
];

describe('faults that outlast the retries: 503 with Retry-After, and nothing half-written', () => {
  for (const { what, fault, arrange } of WRITES) {
    it(what, async () => {
      const write = await arrange();
      const before = await tableSnapshot(env);
      proxy.clear();
      proxy.inject('TransactWriteItems', fault, Infinity);

      const refused = await call(write.as, write.method, write.path, write.body);
      expect(refused.status, refused.text).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json).toEqual(BUSY);
      expect(proxy.calls('TransactWriteItems')).toBe(SDK_ATTEMPTS);
      expect(await tableSnapshot(env)).toBe(before);

      // Once DynamoDB recovers, the same request goes through: nothing (a name reservation, a
      // revision) was left behind to refuse it.
      proxy.clear();
      const started = Date.now();
      const retried = await call(write.as, write.method, write.path, write.body);
      // Should it fail, say what it waited on: a fresh-clone run beside a second suite once answered 503 here
      // (after a 14 s test), and nothing told whether DynamoDB Local had timed out three attempts or the
      // service had given up its turn.
      const seen = ['TransactWriteItems', 'GetItem', 'Query', 'BatchGetItem'].map((op) => `${op} ×${proxy.calls(op)}`).join(', ');
      expect(retried.status, `${retried.text}; answered in ${Date.now() - started} ms; DynamoDB calls since the fault was cleared: ${seen}`).toBe(write.expect);
    });
  }

  it('authentication whose reads keep being throttled: 503, not 401', async () => {
    proxy.inject('GetItem', throttled, Infinity);
    const refused = await call('alice', 'GET', '/api/v2/');
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('www-authenticate')).toBeNull();
    expect(refused.json).toEqual(BUSY);
  });

  it('a list whose queries keep failing for capacity: 503', async () => {
    proxy.inject('Query', noCapacity, Infinity);
    const refused = await call('alice', 'GET', '/api/v2/products/');
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual(BUSY);
  });

  it('a transaction that keeps losing to others (TransactionConflict): retried by the service for its time budget, then 503', async () => {
    const before = await tableSnapshot(env);
    proxy.inject('TransactWriteItems', conflict, Infinity);
    const refused = await call('alice', 'POST', '/api/v2/products/', { name: 'Always conflicting' });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual(BUSY);
    // The SDK does not retry a cancelled transaction; ProductService.create does (retryOnConflict, for
    // CONFLICT_RETRY.budgetMs with jittered waits of up to 250 ms): more than a fixed six, and bounded.
    expect(proxy.calls('TransactWriteItems')).toBeGreaterThan(6);
    expect(proxy.calls('TransactWriteItems')).toBeLessThan(200);
    expect(await tableSnapshot(env)).toBe(before);
  });
});

describe('faults no layer retries', () => {
  it('a transaction cancelled for throttling (reason ThrottlingError) is retried by the service like a conflict', async () => {
    proxy.inject('TransactWriteItems', throttledTransaction, 1);
    const created = await call('alice', 'POST', '/api/v2/products/', { name: 'Throttled once' });
    expect(created.status, created.text).toBe(201);
    expect(proxy.calls('TransactWriteItems')).toBe(2);
  });

  it('a transaction throttled on every try: 503 with Retry-After, nothing written', async () => {
    const before = await tableSnapshot(env);
    proxy.inject('TransactWriteItems', throttledTransaction, Infinity);
    const refused = await call('alice', 'POST', '/api/v2/products/', { name: 'Throttled for good' });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual(BUSY);
    expect(proxy.calls('TransactWriteItems')).toBeGreaterThan(6);
    expect(proxy.calls('TransactWriteItems')).toBeLessThan(200);
    expect(await tableSnapshot(env)).toBe(before);
  });

  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'TimeoutError'])(
    'a %s thrown above the SDK (a document client wrapper): the service does not retry it, the API answers 503',
    async (name) => {
      const failing = { left: 1, calls: 0 };
      const wrapped = {
        send: async (command: unknown) => {
          if (command instanceof TransactWriteCommand) {
            failing.calls++;
            if (failing.left-- > 0) throw Object.assign(new Error(`Injected ${name}`), { name });
          }
          return env.doc.send(command as never);
        },
      } as unknown as DynamoDBDocumentClient;
      const products = new ProductService({
        products: new ProductStore(wrapped, env.tableName),
        identity: env.identity,
        now: () => new Date(),
        newUuid: randomUUID,
      });
      const alice: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
      const handler = apiFunction(
        { authenticator: { authenticate: async () => ({ ...alice, apiKey: { scope: 'write' as const } }) } },
        { create_product: async ({ caller, body, baseUrl }) => ({ statusCode: 201, body: await products.create(caller, body, baseUrl) }) },
      );
      const before = await tableSnapshot(env);
      const post = (body: unknown) => handler(apiEvent('POST /api/v2/products', '/api/v2/products/', body), lambdaContext('products', 10_000));

      const refused = (await post({ name: `Wrapped ${name}` })) as APIGatewayProxyStructuredResultV2;
      expect(refused.statusCode).toBe(503);
      expect(refused.headers?.['Retry-After']).toBe('1');
      expect(JSON.parse(String(refused.body))).toEqual(BUSY);
      expect(failing.calls).toBe(1);
      expect(await tableSnapshot(env)).toBe(before);

      const created = (await post({ name: `Wrapped ${name}` })) as APIGatewayProxyStructuredResultV2;
      expect(created.statusCode, String(created.body)).toBe(201);
    },
  );
});

describe('faults that used to escape the error table', () => {
  it('a DynamoDB call that hangs once is cut short by the client and retried: the answer is normal', async () => {
    proxy.inject('GetItem', { kind: 'stall' }, 1);
    const started = Date.now();
    const answer = await call('alice', 'GET', '/api/v2/');
    const waited = Date.now() - started;
    proxy.release();
    expect(answer.status, answer.text).toBe(200);
    expect(waited).toBeGreaterThanOrEqual(DYNAMODB_REQUEST_TIMEOUT_MS - 100);
  }, 30_000);

  it('a DynamoDB that keeps hanging: every attempt is cut short and the API answers its 503 with Retry-After before the function times out', async () => {
    proxy.inject('GetItem', { kind: 'stall' }, Infinity);
    const started = Date.now();
    const answer = await call('alice', 'GET', '/api/v2/');
    const waited = Date.now() - started;
    proxy.release();
    expect(answer.status, answer.text).toBe(503);
    expect(answer.json).toEqual(BUSY);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(waited).toBeLessThan(10_000);
  }, 30_000);

  it('a webhook subscription whose PutItem answer is lost: the SDK resends it, its condition fails on the write it made, and the API answers 201 with the stored secret', async () => {
    const webhooks = async () => (await tableItems(env)).filter((item) => item.entity === 'Webhook');
    const before = (await webhooks()).length;
    proxy.inject('PutItem', { kind: 'lost-response' }, 1);
    const created = await call('root', 'POST', '/api/v2/webhooks/', {
      target_url: 'http://127.0.0.1:9/hook',
      events: ['request.added'],
      description: 'lost answer',
    });
    expect(created.status, created.text).toBe(201);
    expect(proxy.calls('PutItem')).toBe(2);
    const after = await webhooks();
    expect(after).toHaveLength(before + 1);
    expect(after.find((item) => item.description === 'lost answer')?.secret).toBe(created.json.secret);
  });
});

describe('known defects, continued: a write made of several transactions', () => {
  it('renaming a product with more than 90 view grants: a 503 after the first of its transactions leaves the new name reserved, and once the product is deleted that name can never be used again', async () => {
    // ProductStore.update moves more than 90 viewer entries in several transactions: the new name is
    // reserved first, then the entries move 90 at a time, then the product is renamed. Each step is
    // all-or-nothing, but a fault between steps is answered 503 with the earlier steps kept.
    const groups = Array.from({ length: 91 }, (_, i) => `viewers-${String(i).padStart(2, '0')}`);
    await load(env, { groups: groups.map((name) => ({ name, dataspace: 'acme' })) });
    const product = await aProduct('Many viewers');
    const direct = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
    const alice: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
    for (const group of groups) {
      await direct.changePermissions(alice, product.uuid, () => ({ group, permissions: ['view_product'] }), 'assign');
    }
    const nameItem = async (name: string) =>
      (await tableItems(env)).find((item) => item.PK === `DS#acme#PRODUCTNAME#${name}\u0001` && item.SK === 'UNIQUE');

    proxy.clear();
    proxy.inject('TransactWriteItems', { kind: 'pass' }, 1);
    proxy.inject('TransactWriteItems', noCapacity, Infinity);
    const refused = await call('alice', 'PATCH', `/api/v2/products/${product.uuid}/`, { name: 'Renamed for good' });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.json).toEqual(BUSY);
    expect(proxy.calls('TransactWriteItems')).toBe(1 + SDK_ATTEMPTS);
    proxy.clear();

    // Half-written: the product keeps its name, yet the new name is reserved for it.
    expect((await call('alice', 'GET', `/api/v2/products/${product.uuid}/`)).json.name).toBe('Many viewers');
    expect(await nameItem('Renamed for good')).toMatchObject({ productUuid: product.uuid });

    // Deleting the product frees only its current name; the reservation of the other outlives it.
    expect((await call('alice', 'DELETE', `/api/v2/products/${product.uuid}/`)).status).toBe(204);
    expect(await nameItem('Many viewers')).toBeUndefined();
    expect(await nameItem('Renamed for good')).toMatchObject({ productUuid: product.uuid });
    expect((await call('root', 'GET', `/api/v2/products/?name=${encodeURIComponent('Renamed for good')}`)).json.count).toBe(0);
    const taken = await call('alice', 'POST', '/api/v2/products/', { name: 'Renamed for good' });
    expect(taken.status).toBe(400);
    expect(taken.json).toEqual({ name: ['Product with this name and version already exists.'] });
    // 91 grants written one by one first: 10 to 15 s idle, past 30 s in one loaded full run.
  }, 90_000);
});

/** A cancelled product create whose items DynamoDB throttled (the reason code real DynamoDB uses). */
const throttledTransaction: Fault = {
  kind: 'error',
  type: 'TransactionCanceledException',
  fields: {
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError, None, None, None]',
    CancellationReasons: [{ Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
  },
};

/** The HTTP API payload 2.0 event API Gateway sends for a JSON request by an authenticated caller. */
function apiEvent(routeKey: string, path: string, body: unknown): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: 'Token stub', 'content-type': 'application/json', host: 'api.test', 'x-forwarded-proto': 'https' },
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'api.test',
      domainPrefix: 'api',
      http: { method: routeKey.split(' ')[0]!, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
    },
    body: JSON.stringify(body),
    isBase64Encoded: false,
  };
}
