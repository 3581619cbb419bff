/**
 * `?search=` below HTTP: DynamoDB's filter does the searching over the stored copy (the in-memory
 * recheck only judges items without a current copy), and the request list's plans, with search
 * added, answer exactly the unsearched list filtered in memory, page after page.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { aTeam, load } from '../support/factories.ts';
import { keys } from '../../shared/keys.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { fold, SEARCH_FIELDS } from '../../shared/domain/search.ts';
import { partitionQueryInput, queryAll } from '../../shared/store/dynamo.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { addSearch } from '../../shared/store/search-filter.ts';
import { ProductService } from '../../shared/services/products.ts';
import { RequestService } from '../../shared/services/requests.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let products: ProductService;
let requests: RequestService;
const callers: Record<string, Caller> = {};
const BASE = 'https://api.test';

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { finds: { users: { boss: { superuser: true }, ann: {}, ben: {} } } });
  await load(env, { request_templates: [{ name: 'One', dataspace: 'finds', content_type: 'product' }, { name: 'Two', dataspace: 'finds', content_type: 'product' }] });
  for (const name of ['boss', 'ann', 'ben']) {
    const user = (await env.identity.getUser(name))!;
    callers[name] = { username: name, email: user.email, dataspace: 'finds', isSuperuser: user.isSuperuser, groups: [] };
  }
  let tick = Date.parse('2026-01-01T00:00:00Z');
  products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  requests = new RequestService({ requests: env.requests, identity: env.identity, products, now: () => new Date((tick += 1000)), newUuid: randomUUID });
  const words = ['Zlib', 'OpenSSL', 'ärger', 'Review', 'LIBXML', 'curl'];
  for (let i = 0; i < 30; i++) {
    const author = (['ann', 'ben', 'boss'] as const)[i % 3]!;
    await requests.create(
      callers[author]!,
      {
        title: `${words[i % 6]} ${words[Math.floor(i / 6) % 6]!.toLowerCase()} ${i}`,
        request_template: i % 2 ? 'One' : 'Two',
        status: (['open', 'closed', 'draft'] as const)[i % 3]!,
        notes: '',
        serialized_data: {},
        priority: null,
        assignee: i % 4 === 0 ? null : (['ann', 'ben'] as const)[i % 2]!,
        product_context: null,
        content_object: null,
        is_private: i % 5 === 0,
        cc_emails: [],
      },
      BASE,
    );
  }
});

describe('the stored copy and the DynamoDB filter', () => {
  it('writes searchText and searchFields with a product, and a rename rewrites them', async () => {
    const created = await products.create(callers.ann!, { name: 'Ärger Kit', version: 'V1' }, BASE);
    const stored = async () =>
      (await env.doc.send(new GetCommand({ TableName: env.tableName, Key: keys.product(created.uuid) }))).Item!;
    expect(await stored()).toMatchObject({ searchText: 'ärger kit\u0001v1', searchFields: 'name,version' });
    await products.update(callers.ann!, created.uuid, () => ({ name: 'Calm Kit' }), BASE);
    expect((await stored()).searchText).toBe('calm kit\u0001v1');
  });

  it('has DynamoDB return only the items whose copy holds every term', async () => {
    for (const name of ['Alpha Tool', 'Beta Tool', 'Alpha Kit']) await products.create(callers.boss!, { name, version: '1' }, BASE);
    const input = partitionQueryInput(env.tableName, keys.productsOfDataspace('finds'));
    const recheck = addSearch(input, SEARCH_FIELDS.products, ['alpha', 'tool']);
    // Without the in-memory recheck: DynamoDB's filter alone.
    const items = await queryAll(env.doc, input);
    expect(items.map((item) => item.name)).toEqual(['Alpha Tool']);
    expect(items.every((item) => recheck!.keep(item))).toBe(true);
  });
});

describe('the request list with search', () => {
  const QUERIES: Record<string, string>[] = [
    {},
    { ordering: 'title' },
    { ordering: '-requester' },
    { status: 'open' },
    { status: 'closed', ordering: 'status' },
    { requester: 'ann', ordering: 'requester' },
    { requester: 'ann', ordering: '-title' },
    { assignee: 'ben', request_template: 'One' },
    { content_type: 'product', ordering: 'created_date' },
    { last_modified_date: '2026-01-01T00:00:10Z', ordering: 'title' },
    { last_modified_date: '2026-01-01T00:00:10Z', requester: 'ben' },
  ];
  const SEARCHES = ['LIB', 'Ärger review', '"zlib openssl"', 'curl,1'];

  const unsearched = new Map<string, { uuid: string; title: string }[]>();
  const everyPage = async (caller: Caller, query: Record<string, string>) => {
    const all: { uuid: string; title: string }[] = [];
    let count = -1;
    for (let page = 1; count === -1 || (page - 1) * 4 < count; page++) {
      const answer = await requests.list(caller, { ...query, page: String(page), page_size: '4' }, new URL(`${BASE}/api/v2/requests/`), BASE);
      count = answer.count;
      all.push(...(answer.results as { uuid: string; title: string }[]));
    }
    expect(all).toHaveLength(count);
    return all;
  };

  it.each(QUERIES.flatMap((query) => ['boss', 'ben'].flatMap((user) => SEARCHES.map((search) => [user, search, query] as const))))(
    'as %s, search %j with %j: the unsearched list, filtered in memory',
    async (user, search, query) => {
      const terms = search.startsWith('"') ? [fold(search.slice(1, -1))] : search.split(/[ ,]+/).map(fold);
      const key = `${user} ${JSON.stringify(query)}`;
      if (!unsearched.has(key)) unsearched.set(key, await everyPage(callers[user]!, query));
      const expected = unsearched.get(key)!.filter((request) => terms.every((term) => fold(request.title).includes(term)));
      const found = await everyPage(callers[user]!, { ...query, search });
      expect(found.map((request) => request.uuid)).toEqual(expected.map((request) => request.uuid));
    },
  );
});
