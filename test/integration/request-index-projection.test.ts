/**
 * The request list's ordering indexes carry only what the list filters and sorts on (shared/table.ts,
 * INCLUDE); a page reads its requests by key. These tests check the table, that both list plans still
 * answer whole requests, and the race the by-key read opens: a request changed between the index read
 * and the page read is shown as it is now, and never to a caller who may no longer see it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { RequestService } from '../../shared/services/requests.ts';
import { ProductService } from '../../shared/services/products.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { REQUEST_INDEX_ATTRIBUTES } from '../../shared/table.ts';
import { keys } from '../../shared/keys.ts';
import type { Caller } from '../../shared/domain/caller.ts';

type Env = Awaited<ReturnType<typeof useTestTable>>;

let env: Env;
/** Runs once, just before the list's next read of requests by key: after its index was read. */
let beforeNextBatchGet: (() => Promise<void>) | undefined;
const services: Record<'walk' | 'read', RequestService> = {} as never;
const callers: Record<string, Caller> = {};
const listUrl = new URL('https://api.test/api/v2/requests/');

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { projected: { users: { boss: { superuser: true }, ann: {}, ben: {} } } });
  await load(env, { request_templates: [{ name: 'Form', dataspace: 'projected', content_type: 'product' }] });
  for (const name of ['boss', 'ann', 'ben']) {
    const user = (await env.identity.getUser(name))!;
    callers[name] = { username: name, email: user.email, dataspace: 'projected', isSuperuser: user.isSuperuser, groups: [] };
  }
  // The store's client, with a hook between a list's index read and its read of the requests by key.
  const doc = new Proxy(env.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return async (command: unknown) => {
        const readsRequests =
          command instanceof BatchGetCommand &&
          Object.values(command.input.RequestItems ?? {}).some((read) => read.Keys?.some((key) => String(key.PK).startsWith('REQUEST#')));
        if (readsRequests && beforeNextBatchGet) {
          const hook = beforeNextBatchGet;
          beforeNextBatchGet = undefined;
          await hook();
        }
        return target.send(command as never);
      };
    },
  }) as DynamoDBDocumentClient;
  const deps = {
    requests: new RequestStore(doc, env.tableName),
    identity: env.identity,
    products: new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID }),
    now: () => new Date(),
    newUuid: randomUUID,
  };
  services.walk = new RequestService({ ...deps, listPlan: 'walk' });
  services.read = new RequestService({ ...deps, listPlan: 'read' });
});

async function create(author: string, title: string, extra: { notes?: string; assignee?: string | null } = {}) {
  const created = await services.walk.create(
    callers[author]!,
    {
      title,
      request_template: 'Form',
      status: 'open',
      priority: null,
      assignee: extra.assignee ?? null,
      is_private: false,
      notes: extra.notes ?? '',
      serialized_data: {},
      product_context: null,
      content_object: null,
      cc_emails: [],
    },
    'https://api.test',
  );
  return (created as { uuid: string }).uuid;
}

const titles = (page: { results: unknown[] }) => page.results.map((r) => (r as { title: string }).title);

describe('the request ordering indexes', () => {
  it('project the attributes the list filters and sorts on, not the whole request', async () => {
    const table = (await env.client.send(new DescribeTableCommand({ TableName: env.tableName }))).Table!;
    const ordering = Object.values(keys.requestOrderingIndex);
    expect(ordering).toHaveLength(8);
    for (const name of ordering) {
      const index = table.GlobalSecondaryIndexes!.find((gsi) => gsi.IndexName === name)!;
      expect(index.Projection?.ProjectionType).toBe('INCLUDE');
      expect([...(index.Projection?.NonKeyAttributes ?? [])].sort()).toEqual([...REQUEST_INDEX_ATTRIBUTES].sort());
    }
    const uuid = await create('ann', 'Projected', { notes: 'notes stay in the request item' });
    const { Items } = await env.doc.send(
      new QueryCommand({
        TableName: env.tableName,
        IndexName: keys.requestOrderingIndex.title,
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.requestsPartition('projected') },
      }),
    );
    const entry = Items!.find((item) => item.PK === keys.request(uuid).PK)!;
    expect(entry.title).toBe('Projected');
    expect(entry.notes).toBeUndefined();
    expect(entry.GSI3SK).toBeUndefined();
  });

  it.each(['walk', 'read'] as const)('still list whole requests (%s plan): notes and form data are read by key', async (plan) => {
    const uuid = await create('ann', `Whole ${plan}`, { notes: `the ${plan} notes` });
    const page = await services[plan].list(callers.boss!, { requester: 'ann', page_size: '100' }, listUrl, 'https://api.test');
    expect(page.results).toContainEqual(expect.objectContaining({ uuid, title: `Whole ${plan}`, notes: `the ${plan} notes`, serialized_data: {} }));
    const searched = await services[plan].list(callers.boss!, { search: `Whole ${plan}` }, listUrl, 'https://api.test');
    expect(searched.count).toBe(1);
    expect(searched.results).toEqual([expect.objectContaining({ uuid, notes: `the ${plan} notes` })]);
  });

  it.each(['walk', 'read'] as const)(
    'show a request changed after the index was read as it is now, and not at all to whom it became private (%s plan)',
    async (plan) => {
      const uuid = await create('ann', `Race ${plan}`, { assignee: 'boss' });
      const query = { requester: 'ann', page_size: '100' };
      const before = await services[plan].list(callers.ben!, query, listUrl, 'https://api.test');
      expect(titles(before)).toContain(`Race ${plan}`);

      const makePrivate = async () => {
        await env.doc.send(
          new UpdateCommand({
            TableName: env.tableName,
            Key: keys.request(uuid),
            UpdateExpression: 'SET isPrivate = :true, title = :title',
            ExpressionAttributeValues: { ':true': true, ':title': `Private ${plan}` },
          }),
        );
      };
      // ben listed it while it was public; it turns private (to ann and boss) before his page is read.
      beforeNextBatchGet = makePrivate;
      const ben = await services[plan].list(callers.ben!, query, listUrl, 'https://api.test');
      expect(beforeNextBatchGet).toBeUndefined();
      expect(titles(ben)).not.toContain(`Race ${plan}`);
      expect(titles(ben)).not.toContain(`Private ${plan}`);
      expect(ben.results.map((r) => (r as { uuid: string }).uuid)).not.toContain(uuid);

      // Its requester sees it, as it is now.
      const ann = await services[plan].list(callers.ann!, query, listUrl, 'https://api.test');
      expect(titles(ann)).toContain(`Private ${plan}`);
    },
  );
});
