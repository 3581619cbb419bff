/**
 * DynamoDB Local serialises transactions, so it never cancels one for a TransactionConflict as
 * DynamoDB does under concurrency. Here a client that cancels the first transactions does, and every
 * write that can race must retry and succeed (and give up after a bounded number of tries).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { ProductStore, StaleProductError } from '../../shared/store/product-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { PRODUCT_PACKAGE_DEFAULTS, type ProductPackage } from '../../shared/domain/catalog.ts';
import { keys } from '../../shared/keys.ts';
import { RequestStore, StaleRequestError } from '../../shared/store/request-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import { RequestService } from '../../shared/services/requests.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { errorResponse } from '../../shared/http/error-table.ts';

/** Cancels the next `count` transactions with TransactionConflict, then behaves. */
function conflicting(inner: DynamoDBDocumentClient) {
  const control = { left: 0, cancelled: 0 };
  const client = {
    send: async (command: unknown) => {
      if (command instanceof TransactWriteCommand && control.left > 0) {
        control.left--;
        control.cancelled++;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled',
          $metadata: {},
          CancellationReasons: command.input.TransactItems!.map(() => ({ Code: 'TransactionConflict' })),
        });
      }
      return inner.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, control };
}

let env: Awaited<ReturnType<typeof useTestTable>>;
let products: ProductService;
let requests: RequestService;
let control: { left: number; cancelled: number };
const alice: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { alice: {}, bob: {} } } });
  await load(env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
  const wrapped = conflicting(env.doc);
  control = wrapped.control;
  const productStore = new ProductStore(wrapped.client, env.tableName);
  products = new ProductService({ products: productStore, identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  requests = new RequestService({
    requests: new RequestStore(wrapped.client, env.tableName),
    identity: env.identity,
    products,
    now: () => new Date(),
    newUuid: randomUUID,
  });
});

describe('writes that lose a transaction race run again', () => {
  it('creating a product', async () => {
    control.left = 2;
    const product = await products.create(alice, { name: 'Raced', version: '' }, 'https://x');
    expect(control.cancelled).toBeGreaterThanOrEqual(2);
    expect(await products.retrieve(alice, product.uuid, 'https://x')).toMatchObject({ name: 'Raced' });
  });

  it('updating a product and changing its permissions', async () => {
    const product = await products.create(alice, { name: 'Raced too', version: '' }, 'https://x');
    control.left = 2;
    await products.update(alice, product.uuid, () => ({ version: '2' }), 'https://x');
    control.left = 2;
    await products.changePermissions(alice, product.uuid, () => ({ user: 'bob', permissions: ['view_product'] }), 'assign');
    expect((await products.permissions(alice, product.uuid)).users.map((u) => u.username)).toEqual(['alice', 'bob']);
  });

  it('creating a request and commenting on it', async () => {
    control.left = 2;
    const request = await requests.create(
      alice,
      {
        title: 'Raced',
        request_template: 'Review',
        status: 'open',
        assignee: null,
        priority: null,
        product_context: null,
        content_object: null,
        notes: '',
        serialized_data: {},
        is_private: false,
        cc_emails: [],
      },
      'https://x',
    );
    control.left = 2;
    await requests.addComment(alice, request.uuid, () => 'after two conflicts');
    expect((await requests.retrieve(alice, request.uuid, 'https://x')).comments.map((c) => c.text)).toEqual(['after two conflicts']);
  });

  it('two comments added at once from two processes: one number each, the loser told to read again', async () => {
    const request = await requests.create(
      alice,
      { title: 'Two at once', request_template: 'Review', status: 'open', assignee: null, priority: null, product_context: null, content_object: null, notes: '', serialized_data: {}, is_private: false, cc_emails: [] },
      'https://x',
    );
    // Both read the count before either writes: each process's store holds its transaction until both have one.
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const barrier = {
      send: async (command: unknown) => {
        if (command instanceof TransactWriteCommand && ++held === 2) release();
        if (command instanceof TransactWriteCommand) await bothRead;
        return env.doc.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const [one, two] = [new RequestStore(barrier, env.tableName), new RequestStore(barrier, env.tableName)];
    const outcomes = await Promise.allSettled([
      one.addComment(request.uuid, { uuid: randomUUID(), username: 'alice', text: 'one' }, new Date()),
      two.addComment(request.uuid, { uuid: randomUUID(), username: 'bob', text: 'two' }, new Date()),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(StaleRequestError);
    expect((outcomes.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<{ seq?: number }>).value.seq).toBe(1);
    // Read again, it is the second.
    const again = await env.requests.addComment(request.uuid, { uuid: randomUUID(), username: 'carol', text: 'again' }, new Date());
    expect(again.seq).toBe(2);
    expect(await env.requests.commentCount(request.uuid)).toBe(2);
    expect((await env.requests.comments(request.uuid, 0, 10)).map((comment) => comment.seq)).toEqual([1, 2]);
  });

  it('gives up when its time budget is spent, as "busy" (503) with the lost race as the cause', async () => {
    control.left = 1_000;
    const failure = await products.create(alice, { name: 'Never', version: '' }, 'https://x').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect((failure as Error).cause).toBeInstanceOf(TransactionCanceledException);
    expect(errorResponse(failure)).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '1' }, expected: true });
    // Bounded by time (CONFLICT_RETRY.budgetMs, jittered waits of up to 250 ms): well short of the 1,000.
    expect(control.left).toBeGreaterThan(800);
    control.left = 0;
  });
});

describe('adding packages to a product', () => {
  const aProductPackage = (productUuid: string): ProductPackage => ({
    uuid: randomUUID(),
    dataspace: 'acme',
    productUuid,
    packageUuid: randomUUID(),
    createdDate: new Date().toISOString(),
    ...PRODUCT_PACKAGE_DEFAULTS,
  });
  const partition = async (productUuid: string) =>
    (await env.doc.send(new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.product(productUuid).PK }, ConsistentRead: true }))).Items ?? [];

  it('adds made from one read of the product do not refuse each other', async () => {
    const created = await products.create(alice, { name: 'Added to at once', version: '' }, 'https://x');
    const product = await products.authorize(alice, created.uuid, 'change');
    const store = new ProductPackageStore(env.doc, env.tableName);
    // The second add carries the revision the first one bumped: it is written all the same.
    for (let i = 0; i < 3; i++) await store.add(product, aProductPackage(product.uuid));
    expect((await partition(product.uuid)).filter((item) => item.entity === 'ProductPackage')).toHaveLength(3);
  });

  it('an add that lands while the product is deleted makes the deletion read again: nothing of the product is left', async () => {
    const created = await products.create(alice, { name: 'Deleted while added to', version: '' }, 'https://x');
    const product = await products.authorize(alice, created.uuid, 'change');
    const store = new ProductPackageStore(env.doc, env.tableName);
    await store.add(product, aProductPackage(product.uuid));
    const late = aProductPackage(product.uuid);
    // Just before the deletion's transaction (the one that deletes the product item) goes out, the add commits.
    let added = false;
    const racing = {
      send: async (command: unknown) => {
        const deletesProduct = command instanceof TransactWriteCommand && command.input.TransactItems!.some((item) => item.Delete?.Key?.SK === keys.product(product.uuid).SK);
        if (deletesProduct && !added) {
          added = true;
          await store.add(product, late);
        }
        return env.doc.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
    const service = new ProductService({ products: new ProductStore(racing, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
    await service.destroy(alice, product.uuid);
    expect(added).toBe(true);
    expect(await partition(product.uuid)).toEqual([]);
    expect((await env.doc.send(new GetCommand({ TableName: env.tableName, Key: keys.pointer('PRODUCTPACKAGE', late.uuid), ConsistentRead: true }))).Item).toBeUndefined();
    // And an add after the deletion finds no product.
    await expect(store.add(product, aProductPackage(product.uuid))).rejects.toBeInstanceOf(StaleProductError);
  });
});

