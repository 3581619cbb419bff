/**
 * Request counters used to be one item per counter and shard; they are now attributes of a few group
 * items per shard. A table written by the earlier version is folded by migrateData (npm start, the
 * admin CLI's `migrate`, the stack's deployment trigger), and until a dataspace is folded its counts
 * read both layouts at once. Here requests are written, their counters turned back into the earlier
 * layout (the dataspace no longer marked grouped, as an earlier version left it), and every count must
 * be exact before the migration, after it, and after it runs again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { RequestService } from '../../shared/services/requests.ts';
import { ProductService } from '../../shared/services/products.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { migrateData } from '../../shared/store/migrations.ts';
import { REQUEST_COUNTERS_GROUPED } from '../../shared/store/request-counters.ts';
import { keys } from '../../shared/keys.ts';
import { COUNTER_SHARDS } from '../../shared/store/counters.ts';
import { counterKey, legacyCounterKey, privateCounterKey } from '../../shared/domain/request.ts';
import type { Caller } from '../../shared/domain/caller.ts';

type Env = Awaited<ReturnType<typeof useTestTable>>;
let env: Env;
type Count = { total: number; public: number };
/** The counters checked in `dataspace`, whose users are <dataspace>-boss, -ann (some of her requests private) and -ben (an assignee). */
const countersOf = (dataspace: string) => [
  counterKey('all'),
  counterKey('status', 'open'),
  counterKey('status', 'closed'),
  counterKey('requester', `${dataspace}-ann`),
  counterKey('assignee', `${dataspace}-ben`),
  counterKey('priority', 'P1'),
  privateCounterKey(`${dataspace}-ann`, counterKey('all')),
  privateCounterKey(`${dataspace}-ben`, counterKey('status', 'open')),
];

async function counts(dataspace: string): Promise<Record<string, Count>> {
  return Object.fromEntries(await Promise.all(countersOf(dataspace).map(async (counter) => [counter, await env.requests.count(dataspace, counter)] as const)));
}

/**
 * Rewrites the dataspace's grouped counters as the earlier version stored them (an item per counter and
 * shard; the dataspace not marked grouped) and answers what they held: the counts to expect.
 */
async function toEarlierLayout(dataspace: string): Promise<{ written: number; expected: Record<string, Count> }> {
  const expected: Record<string, Count> = Object.fromEntries(countersOf(dataspace).map((counter) => [counter, { total: 0, public: 0 }]));
  let written = 0;
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { PK } = keys.requestCounterGroup(dataspace, 'DS', shard);
    const groups = (await env.doc.send(new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK }, ConsistentRead: true }))).Items ?? [];
    for (const group of groups) {
      for (const [name, value] of Object.entries(group)) {
        if (!name.startsWith('total|')) continue;
        const counter = name.slice('total|'.length);
        const total = Number(value);
        const publicCount = total - Number(group[`private|${counter}`] ?? 0);
        const legacy = { ...keys.requestCount(dataspace, legacyCounterKey(counter), shard), entity: 'RequestCount', total, public: publicCount };
        await env.doc.send(new PutCommand({ TableName: env.tableName, Item: legacy }));
        written++;
        if (expected[counter]) expected[counter] = { total: expected[counter].total + total, public: expected[counter].public + publicCount };
      }
      await env.doc.send(new DeleteCommand({ TableName: env.tableName, Key: { PK: group.PK, SK: group.SK } }));
    }
  }
  await env.doc.send(
    new UpdateCommand({ TableName: env.tableName, Key: keys.dataspace(dataspace), UpdateExpression: 'REMOVE #grouped', ExpressionAttributeNames: { '#grouped': REQUEST_COUNTERS_GROUPED } }),
  );
  return { written, expected };
}

async function writeRequests(dataspace: string): Promise<void> {
  await aTeam(env, { [dataspace]: { users: { [`${dataspace}-boss`]: { superuser: true }, [`${dataspace}-ann`]: {}, [`${dataspace}-ben`]: {} } } });
  await load(env, { request_templates: [{ name: 'One', dataspace, content_type: 'product' }], priorities: [{ label: 'P1', dataspace }] });
  const caller = async (name: string): Promise<Caller> => {
    const user = (await env.identity.getUser(name))!;
    return { username: name, email: user.email, dataspace, isSuperuser: user.isSuperuser, groups: [] };
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
    await service.create(
      await caller(i % 2 ? `${dataspace}-ann` : `${dataspace}-boss`),
      { ...base, title: `Request ${i}`, status: i % 3 ? 'open' : 'closed', priority: i % 4 ? 'P1' : null, assignee: i % 5 ? `${dataspace}-ben` : null, is_private: i % 6 === 1 },
      'http://localhost',
    );
  }
}

beforeAll(async () => {
  env = await useTestTable();
  // Two dataspaces, one a test: each turns its own back into the earlier layout before any count of it is read.
  await writeRequests('folding');
  await writeRequests('triggered');
}, 120_000);

describe('folding request counters of the earlier layout', () => {
  it('counts exactly before the migration (both layouts read at once), after it, and after it runs again', async () => {
    const { written, expected } = await toEarlierLayout('folding');
    expect(written).toBeGreaterThan(countersOf('folding').length);
    expect(expected[counterKey('all')]).toEqual({ total: 24, public: 20 });
    expect(expected[privateCounterKey('folding-ann', counterKey('all'))]!.total).toBe(4);
    expect(await counts('folding')).toEqual(expected);

    const report = await migrateData(env.doc, env.tableName);
    expect(report.requestCountersFolded).toBe(written);
    expect(await counts('folding')).toEqual(expected);
    expect((await env.doc.send(new QueryCommand({ TableName: env.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.legacyRequestCounts('folding', 0).PK } }))).Count).toBe(0);

    expect((await migrateData(env.doc, env.tableName)).requestCountersFolded).toBe(0);
    expect(await counts('folding')).toEqual(expected);
  });

  it("is what the deployment trigger's function runs", async () => {
    const { written, expected } = await toEarlierLayout('triggered');
    expect(await counts('triggered')).toEqual(expected);
    // The function reads its table from the environment useTestTable set, as on AWS.
    const { handler } = await import('../../functions/migrate.ts');
    expect(await handler()).toEqual({ requestCountersFolded: written, catalogLookupsWritten: 0, apiKeysNamed: 0, productGatesIndexed: 0, advisoryKeysWritten: 0, packagesReresolved: 0 });
    expect(await counts('triggered')).toEqual(expected);
  });
});
