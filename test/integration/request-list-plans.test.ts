/**
 * The request list has two plans: walk an ordering's index filtering in DynamoDB, or read the
 * smallest filtered range whole and finish in memory. Which one runs depends on counts, so on small
 * test data only one would; here the same queries run under both, and must answer the same pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { RequestService } from '../../shared/services/requests.ts';
import { ProductService } from '../../shared/services/products.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import type { Caller } from '../../shared/domain/caller.ts';

let walking: RequestService;
let reading: RequestService;
const callers: Record<string, Caller> = {};

beforeAll(async () => {
  const env = await useTestTable();
  await aTeam(env, { plans: { users: { boss: { superuser: true }, ann: {}, ben: {} } } });
  await load(env, {
    request_templates: [
      { name: 'One', dataspace: 'plans', content_type: 'product' },
      { name: 'Two', dataspace: 'plans', content_type: 'product' },
    ],
    priorities: [{ label: 'P1', dataspace: 'plans' }, { label: 'P2', dataspace: 'plans' }],
  });
  for (const name of ['boss', 'ann', 'ben']) {
    const user = (await env.identity.getUser(name))!;
    callers[name] = { username: name, email: user.email, dataspace: 'plans', isSuperuser: user.isSuperuser, groups: [] };
  }
  let tick = Date.parse('2026-01-01T00:00:00Z');
  const deps = {
    requests: env.requests,
    identity: env.identity,
    products: new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID }),
    now: () => new Date((tick += 1000)),
    newUuid: randomUUID,
  };
  walking = new RequestService({ ...deps, listPlan: 'walk' });
  reading = new RequestService({ ...deps, listPlan: 'read' });
  const base = {
    notes: '',
    serialized_data: {},
    product_context: null,
    content_object: null,
    cc_emails: [],
  };
  for (let i = 0; i < 30; i++) {
    const author = (['ann', 'ben', 'boss'] as const)[i % 3]!;
    await walking.create(
      callers[author]!,
      {
        ...base,
        title: `Request ${String.fromCharCode(65 + ((i * 7) % 26))}${i}`,
        request_template: i % 2 ? 'One' : 'Two',
        status: (['open', 'closed', 'draft'] as const)[i % 3]!,
        priority: i % 3 === 0 ? null : i % 3 === 1 ? 'P1' : 'P2',
        assignee: i % 4 === 0 ? null : (['ann', 'ben'] as const)[i % 2]!,
        is_private: i % 5 === 0,
      },
      'https://api.test',
    );
  }
});

const QUERIES = [
  {},
  { status: 'open' },
  { status: 'closed', ordering: 'title' },
  { priority: 'P1', ordering: '-requester' },
  { requester: 'ann', ordering: 'priority' },
  { assignee: 'ben', ordering: '-assignee' },
  { request_template: 'One', ordering: 'status' },
  { content_type: 'product', ordering: 'created_date' },
  { status: 'open', priority: 'P2' },
  { last_modified_date: '2026-01-01T00:00:10Z', ordering: 'title' },
  { last_modified_date: '2026-01-01T00:00:10Z', requester: 'ben' },
];

describe('the request list plans', () => {
  it.each(QUERIES.flatMap((query) => ['boss', 'ann', 'ben'].map((user) => [user, query] as const)))(
    'as %s with %j: walking the ordering and reading a range answer the same pages',
    async (user, query) => {
      const pageOf = async (service: RequestService, page: number) =>
        service.list(callers[user]!, { ...query, page: String(page), page_size: '4' }, new URL('https://api.test/api/v2/requests/'), 'https://api.test');
      const first = await pageOf(walking, 1);
      const same = await pageOf(reading, 1);
      expect(same.count).toBe(first.count);
      const pages = Math.max(1, Math.ceil(first.count / 4));
      const walked: string[] = [];
      const read: string[] = [];
      for (let page = 1; page <= pages; page++) {
        walked.push(...(await pageOf(walking, page)).results.map((r) => (r as { uuid: string }).uuid));
        read.push(...(await pageOf(reading, page)).results.map((r) => (r as { uuid: string }).uuid));
      }
      expect(walked).toEqual(read);
      expect(new Set(walked).size).toBe(first.count);
    },
  );
});
