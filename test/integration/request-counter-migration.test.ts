/**
 * Request counters used to be one item per counter and shard; they are now attributes of a few group
 * items per shard. A table written by the earlier version is folded by migrateData (npm start, the
 * admin CLI's `migrate`, the stack's deployment trigger): here requests are written, their counters
 * turned back into the earlier layout, and the migration must bring every count back, exactly, once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { RequestService } from '../../shared/services/requests.ts';
import { ProductService } from '../../shared/services/products.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { migrateData } from '../../shared/store/migrations.ts';
import { keys } from '../../shared/keys.ts';
import { COUNTER_SHARDS } from '../../shared/store/counters.ts';
import { counterKey, privateCounterKey } from '../../shared/domain/request.ts';
import type { Caller } from '../../shared/domain/caller.ts';

type Env = Awaited<ReturnType<typeof useTestTable>>;
let env: Env;
const DATASPACE = 'folding';
const counters = [
  counterKey('all'),
  counterKey('status', 'open'),
  counterKey('status', 'closed'),
  counterKey('requester', 'ann'),
  counterKey('assignee', 'ben'),
  counterKey('priority', 'P1'),
  privateCounterKey('ann', counterKey('all')),
  privateCounterKey('ben', counterKey('status', 'open')),
];

async function counts(): Promise<Record<string, { total: number; public: number }>> {
  return Object.fromEntries(await Promise.all(counters.map(async (counter) => [counter, await env.requests.count(DATASPACE, counter)] as const)));
}

/** Rewrites the dataspace's grouped counters as the earlier version stored them: an item per counter and shard. */
async function toEarlierLayout(): Promise<number> {
  let written = 0;
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { PK } = keys.requestCounterGroup(DATASPACE, 'DS', shard);
    const groups = (await env.doc.send(new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true }))).Items ?? [];
    for (const group of groups) {
      for (const [name, value] of Object.entries(group)) {
        if (!name.startsWith('total|')) continue;
        const counter = name.slice('total|'.length);
        const legacyName = counter.startsWith('private#') ? counter.replace(/^private#([^#]*)#/, 'private:$1:') : counter;
        const total = Number(value);
        const privatePart = Number(group[`private|${counter}`] ?? 0);
        await env.doc.send(
          new PutCommand({ TableName: env.tableName, Item: { ...keys.requestCount(DATASPACE, legacyName, shard), entity: 'RequestCount', total, public: total - privatePart } }),
        );
        written++;
      }
      await env.doc.send(new DeleteCommand({ TableName: env.tableName, Key: { PK: group.PK, SK: group.SK } }));
    }
  }
  return written;
}

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { [DATASPACE]: { users: { boss: { superuser: true }, ann: {}, ben: {} } } });
  await load(env, {
    request_templates: [{ name: 'One', dataspace: DATASPACE, content_type: 'product' }],
    priorities: [{ label: 'P1', dataspace: DATASPACE }],
  });
  const caller = async (name: string): Promise<Caller> => {
    const user = (await env.identity.getUser(name))!;
    return { username: name, email: user.email, dataspace: DATASPACE, isSuperuser: user.isSuperuser, groups: [] };
  };
  const service = new RequestService({
    requests: env.requests,
    identity: env.identity,
    products: new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID }),
    now: () => new Date(),
    newUuid: randomUUID,
  });
  const base = { notes: '', serialized_data: {}, product_context: null, content_object: null, cc_emails: [], request_template: 'One' };
  for (let i = 0; i < 24; i++) {
    await service.create(await caller(i % 2 ? 'ann' : 'boss'), {
      ...base,
      title: `Request ${i}`,
      status: i % 3 ? 'open' : 'closed',
      priority: i % 4 ? 'P1' : null,
      assignee: i % 5 ? 'ben' : null,
      is_private: i % 6 === 1,
    }, 'http://localhost');
  }
}, 120_000);

describe('folding request counters of the earlier layout', () => {
  it('brings every count back exactly, and a second run folds nothing', async () => {
    const before = await counts();
    expect(before[counterKey('all')]).toEqual({ total: 24, public: 20 });
    expect(before[privateCounterKey('ann', counterKey('all'))]!.total).toBe(4);

    const written = await toEarlierLayout();
    expect(written).toBeGreaterThan(counters.length);
    // Unfolded, the earlier items count nothing.
    expect((await counts())[counterKey('all')]).toEqual({ total: 0, public: 0 });

    const report = await migrateData(env.doc, env.tableName);
    expect(report.requestCountersFolded).toBe(written);
    expect(await counts()).toEqual(before);

    expect((await migrateData(env.doc, env.tableName)).requestCountersFolded).toBe(0);
    expect(await counts()).toEqual(before);
  });

  it("is what the deployment trigger's function runs", async () => {
    const before = await counts();
    const written = await toEarlierLayout();
    // The function reads its table from the environment useTestTable set, as on AWS.
    const { handler } = await import('../../functions/migrate.ts');
    expect(await handler()).toEqual({ requestCountersFolded: written });
    expect(await counts()).toEqual(before);
  });
});
