/**
 * `?search=` on the product, package and request lists, through HTTP: DRF's SearchFilter semantics
 * (terms split on spaces and commas, each contained in one of the list's fields, ignoring case), with
 * the lists' visibility, filters, ordering, pagination and exact counts.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';
import { keys } from '../../shared/keys.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, bob: {}, carol: { groups: ['legal'] }, dave: {} } },
  beta: { users: { mallory: { superuser: true }, eve: {} } },
});
const { call } = http;

type Listed = { count: number; next: string | null; previous: string | null; results: Record<string, unknown>[] };

async function list(username: string, path: string, query: Record<string, string>): Promise<Listed> {
  const response = await call(username, 'GET', `${path}?${new URLSearchParams(query)}`);
  expect(response.status, response.text).toBe(200);
  return response.json as Listed;
}

const names = (page: Listed) => page.results.map((product) => product.name);
const purls = (page: Listed) => page.results.map((pkg) => pkg.purl);
const titles = (page: Listed) => page.results.map((request) => request.title);

async function created(username: string, path: string, body: unknown): Promise<Record<string, string>> {
  const response = await call(username, 'POST', path, body);
  expect(response.status, response.text).toBe(201);
  return response.json as Record<string, string>;
}

/** Makes a stored item look as if written before search existed (no copy), or for other search fields. */
async function makeLegacy(key: { PK: string; SK: string }, how: 'no copy' | 'other fields') {
  await http.env.doc.send(
    new UpdateCommand({
      TableName: http.env.tableName,
      Key: key,
      ...(how === 'no copy'
        ? { UpdateExpression: 'REMOVE searchText, searchFields', ConditionExpression: 'attribute_exists(searchText)' }
        : { UpdateExpression: 'SET searchText = :nothing, searchFields = :fields', ExpressionAttributeValues: { ':nothing': 'zzz', ':fields': 'name' } }),
    }),
  );
}

describe('products', () => {
  const product: Record<string, { uuid: string }> = {};

  beforeAll(async () => {
    for (const [owner, name, version] of [
      ['alice', 'Ärger Toolkit', '1.0'],
      ['alice', 'Toolkit Pro', '2.0'],
      ['alice', 'Zlib Wrapper', 'toolkit-edition'],
      ['alice', 'Unrelated', '1.0'],
      ['bob', 'Hidden Toolkit', '9'],
      ['alice', 'Old Toolkit', '0.1'],
      ['alice', 'Older TOOLKIT', '0.2'],
      ['mallory', 'Toolkit Beta', '1.0'],
    ] as const) {
      product[name] = await created(owner, '/api/v2/products/', { name, version }) as { uuid: string };
    }
    await call('alice', 'POST', `/api/v2/products/${product['Toolkit Pro']!.uuid}/permissions/`, { group: 'legal', permissions: ['view_product'] });
    await makeLegacy(keys.product(product['Old Toolkit']!.uuid), 'no copy');
    await makeLegacy(keys.product(product['Older TOOLKIT']!.uuid), 'other fields');
  });

  const everyToolkit = ['Hidden Toolkit', 'Old Toolkit', 'Older TOOLKIT', 'Toolkit Pro', 'Zlib Wrapper', 'Ärger Toolkit'];

  it('finds, for a superuser, every product of the dataspace whose name or version contains the term, in any letter case', async () => {
    for (const term of ['toolkit', 'TOOLKIT', 'ToolKit']) {
      const page = await list('root', '/api/v2/products/', { search: term, page_size: '100' });
      expect(names(page)).toEqual(everyToolkit);
      expect(page.count).toBe(6);
    }
  });

  it('finds items written before search existed, or for other search fields, by their fields', async () => {
    const page = await list('root', '/api/v2/products/', { search: 'old' });
    expect(names(page)).toEqual(['Old Toolkit', 'Older TOOLKIT']);
    expect((await list('alice', '/api/v2/products/', { search: 'OLDER' })).count).toBe(1);
  });

  it('never reveals to a non-superuser a product they cannot see', async () => {
    const alice = await list('alice', '/api/v2/products/', { search: 'toolkit' });
    expect(names(alice)).toEqual(['Old Toolkit', 'Older TOOLKIT', 'Toolkit Pro', 'Zlib Wrapper', 'Ärger Toolkit']);
    expect(alice.count).toBe(5);
    // carol sees Toolkit Pro through her group only; dave sees nothing.
    expect(names(await list('carol', '/api/v2/products/', { search: 'toolkit' }))).toEqual(['Toolkit Pro']);
    expect(await list('dave', '/api/v2/products/', { search: 'toolkit' })).toMatchObject({ count: 0, results: [] });
    expect(names(await list('bob', '/api/v2/products/', { search: 'hidden' }))).toEqual(['Hidden Toolkit']);
    expect((await list('alice', '/api/v2/products/', { search: 'hidden' })).count).toBe(0);
  });

  it('needs every term, each in the name or the version (spaces or commas between them)', async () => {
    for (const user of ['root', 'alice']) {
      expect(names(await list(user, '/api/v2/products/', { search: 'toolkit pro' }))).toEqual(['Toolkit Pro']);
      expect(names(await list(user, '/api/v2/products/', { search: 'toolkit,1.0' }))).toEqual(['Ärger Toolkit']);
      expect(names(await list(user, '/api/v2/products/', { search: 'zlib edition' }))).toEqual(['Zlib Wrapper']);
      expect((await list(user, '/api/v2/products/', { search: 'toolkit nothing' })).count).toBe(0);
      // A quoted phrase is one term.
      expect(names(await list(user, '/api/v2/products/', { search: '"toolkit pro"' }))).toEqual(['Toolkit Pro']);
      expect((await list(user, '/api/v2/products/', { search: '"pro toolkit"' })).count).toBe(0);
    }
  });

  it('compares Unicode text by its letters: case, composed or decomposed forms', async () => {
    for (const user of ['root', 'alice']) {
      for (const term of ['ärger', 'Ärger', 'ÄRGER', 'A\u0308rger', 'a\u0308RGER']) {
        expect(names(await list(user, '/api/v2/products/', { search: term }))).toEqual(['Ärger Toolkit']);
      }
    }
  });

  it('combines with the name and version filters', async () => {
    for (const user of ['root', 'alice']) {
      expect(names(await list(user, '/api/v2/products/', { name: 'Toolkit Pro', search: 'PRO' }))).toEqual(['Toolkit Pro']);
      expect((await list(user, '/api/v2/products/', { name: 'Toolkit Pro', search: 'ärger' })).count).toBe(0);
      expect(names(await list(user, '/api/v2/products/', { version: '1.0', search: 'toolkit' }))).toEqual(['Ärger Toolkit']);
      expect(names(await list(user, '/api/v2/products/', { version: '1.0', search: 'un' }))).toEqual(['Unrelated']);
    }
  });

  it('pages the matches with an exact count, and next and previous keep the search', async () => {
    const seen: unknown[] = [];
    let page = await list('root', '/api/v2/products/', { search: 'Toolkit', page_size: '4' });
    expect(page.count).toBe(6);
    expect(page.previous).toBeNull();
    const next = new URL(page.next!);
    expect(Object.fromEntries(next.searchParams)).toEqual({ search: 'Toolkit', page_size: '4', page: '2' });
    seen.push(...names(page));
    page = (await call('root', 'GET', `${next.pathname}${next.search}`)).json as Listed;
    expect(page.count).toBe(6);
    expect(page.next).toBeNull();
    expect(Object.fromEntries(new URL(page.previous!).searchParams)).toEqual({ search: 'Toolkit', page_size: '4' });
    seen.push(...names(page));
    expect(seen).toEqual(everyToolkit);
    expect((await call('root', 'GET', '/api/v2/products/?search=toolkit&page=3&page_size=4')).status).toBe(404);
    const last = await list('alice', '/api/v2/products/', { search: 'toolkit', page_size: '2', page: 'last' });
    expect(names(last)).toEqual(['Ärger Toolkit']);
    expect(last.count).toBe(5);
  });

  it("never finds another dataspace's products", async () => {
    expect(names(await list('mallory', '/api/v2/products/', { search: 'toolkit' }))).toEqual(['Toolkit Beta']);
    expect((await list('root', '/api/v2/products/', { search: 'beta' })).count).toBe(0);
    expect((await list('eve', '/api/v2/products/', { search: 'toolkit' })).count).toBe(0);
  });

  it('finds a renamed product by its new name only', async () => {
    const renamed = await created('alice', '/api/v2/products/', { name: 'Quokka', version: 'first' });
    expect((await call('alice', 'PATCH', `/api/v2/products/${renamed.uuid}/`, { name: 'Wombat', version: 'second' })).status).toBe(200);
    for (const user of ['root', 'alice']) {
      expect(names(await list(user, '/api/v2/products/', { search: 'wombat second' }))).toEqual(['Wombat']);
      expect((await list(user, '/api/v2/products/', { search: 'quokka' })).count).toBe(0);
      expect((await list(user, '/api/v2/products/', { search: 'first' })).count).toBe(0);
    }
  });

  it('takes an empty search as no search', async () => {
    const all = await list('root', '/api/v2/products/', {});
    for (const search of ['', ' ', ',']) expect((await list('root', '/api/v2/products/', { search })).count).toBe(all.count);
  });
});

describe('packages', () => {
  beforeAll(async () => {
    for (const body of [
      { purl: 'pkg:npm/%40angular/core@17.0.0' },
      { purl: 'pkg:pypi/django@4.2' },
      { purl: 'pkg:npm/%C3%A4rger-lib@1.0.0', filename: 'ärger-lib-1.0.0.tgz' },
      { purl: 'pkg:maven/org.apache/commons-io@2.11.0', filename: 'commons-io-2.11.0.jar' },
      { purl: 'pkg:npm/left-pad@1.3.0', description: 'String left pad' },
      { purl: 'pkg:generic/legacy-thing@1' },
    ]) {
      const pkg = await created('root', '/api/v2/packages/', body);
      if (body.purl.includes('legacy')) await makeLegacy(keys.catalogObject('PACKAGE', pkg.uuid!), 'no copy');
    }
    await created('mallory', '/api/v2/packages/', { purl: 'pkg:npm/angular-beta@1.0.0' });
  });

  it('finds packages by name, namespace, purl, filename or description, in any letter case', async () => {
    for (const user of ['root', 'alice']) {
      expect(purls(await list(user, '/api/v2/packages/', { search: 'STRING pad' }))).toEqual(['pkg:npm/left-pad@1.3.0']);
      expect(purls(await list(user, '/api/v2/packages/', { search: 'ANGULAR' }))).toEqual(['pkg:npm/%40angular/core@17.0.0']);
      expect(purls(await list(user, '/api/v2/packages/', { search: 'Django' }))).toEqual(['pkg:pypi/django@4.2']);
      expect(purls(await list(user, '/api/v2/packages/', { search: 'pkg:pypi/' }))).toEqual(['pkg:pypi/django@4.2']);
      expect(purls(await list(user, '/api/v2/packages/', { search: '.JAR' }))).toEqual(['pkg:maven/org.apache/commons-io@2.11.0']);
      expect(purls(await list(user, '/api/v2/packages/', { search: 'legacy' }))).toEqual(['pkg:generic/legacy-thing@1']);
    }
  });

  it('needs every term, and compares Unicode text by its letters', async () => {
    const npm = await list('alice', '/api/v2/packages/', { search: 'npm' });
    expect(npm.count).toBe(3);
    expect(purls(await list('alice', '/api/v2/packages/', { search: 'npm 17' }))).toEqual(['pkg:npm/%40angular/core@17.0.0']);
    expect(purls(await list('alice', '/api/v2/packages/', { search: 'npm,1.0.0' }))).toEqual(['pkg:npm/%C3%A4rger-lib@1.0.0']);
    for (const term of ['ÄRGER', 'a\u0308rger-LIB']) {
      expect(purls(await list('alice', '/api/v2/packages/', { search: term }))).toEqual(['pkg:npm/%C3%A4rger-lib@1.0.0']);
    }
  });

  it('combines with the filters, the purl lookup included, and pages with an exact count', async () => {
    expect(purls(await list('alice', '/api/v2/packages/', { type: 'npm', search: 'lib' }))).toEqual(['pkg:npm/%C3%A4rger-lib@1.0.0']);
    expect((await list('alice', '/api/v2/packages/', { type: 'pypi', search: 'lib' })).count).toBe(0);
    expect((await list('alice', '/api/v2/packages/', { purl: 'pkg:pypi/django@4.2', search: 'DJANGO' })).count).toBe(1);
    expect((await list('alice', '/api/v2/packages/', { purl: 'pkg:pypi/django@4.2', search: 'angular' })).count).toBe(0);
    const first = await list('alice', '/api/v2/packages/', { search: 'npm', page_size: '2' });
    expect(first.count).toBe(3);
    expect(new URL(first.next!).searchParams.get('search')).toBe('npm');
    const second = await list('alice', '/api/v2/packages/', { search: 'npm', page_size: '2', page: '2' });
    expect(second.count).toBe(3);
    expect([...purls(first), ...purls(second)].sort()).toEqual(purls(await list('alice', '/api/v2/packages/', { search: 'npm' })).sort());
    expect(second.results).toHaveLength(1);
  });

  it('finds a changed package by its new fields only', async () => {
    const pkg = await created('root', '/api/v2/packages/', { purl: 'pkg:generic/quokka@1.0.0', filename: 'quokka.tgz' });
    const response = await call('root', 'PATCH', `/api/v2/packages/${pkg.uuid}/`, { name: 'wombat', filename: 'wombat-bundle.tgz' });
    expect(response.status, response.text).toBe(200);
    expect(purls(await list('alice', '/api/v2/packages/', { search: 'WOMBAT bundle' }))).toEqual(['pkg:generic/wombat@1.0.0']);
    expect((await list('alice', '/api/v2/packages/', { search: 'quokka' })).count).toBe(0);
  });

  it("never finds another dataspace's packages", async () => {
    expect(purls(await list('eve', '/api/v2/packages/', { search: 'angular' }))).toEqual(['pkg:npm/angular-beta@1.0.0']);
    expect((await list('root', '/api/v2/packages/', { search: 'beta' })).count).toBe(0);
  });
});

describe('requests', () => {
  beforeAll(async () => {
    await load(http.env, {
      request_templates: [
        { name: 'Package Review', dataspace: 'acme', content_type: 'product' },
        { name: 'License Review', dataspace: 'acme', content_type: 'product' },
        { name: 'Package Review', dataspace: 'beta', content_type: 'product' },
      ],
    });
    const make = (as: string, title: string, more: Record<string, unknown> = {}) =>
      created(as, '/api/v2/requests/', { title, request_template: 'Package Review', ...more });
    await make('alice', 'Review zlib');
    await make('alice', 'Review ÄRGER library', { is_private: true, assignee: 'bob' });
    await make('bob', 'review openssl', { status: 'closed' });
    await make('carol', 'Approve zlib upgrade', { request_template: 'License Review', assignee: 'alice' });
    await make('dave', 'Private review by dave', { is_private: true });
    // Requests are searched on their title in memory; one written by an earlier version still carries a
    // search copy, which must not decide (here one that matches nothing).
    const legacy = await make('carol', 'Legacy review request');
    await makeLegacy(keys.request(legacy.uuid!), 'other fields');
    await make('mallory', 'Review zlib in beta');
  });

  it('finds requests whose title contains every term, in any letter case, with an exact count', async () => {
    const page = await list('root', '/api/v2/requests/', { search: 'REVIEW', ordering: 'title' });
    // Titles order ignoring case, by code point: "review o…" < "review z…" < "review ä…".
    expect(titles(page)).toEqual(['Legacy review request', 'Private review by dave', 'review openssl', 'Review zlib', 'Review ÄRGER library']);
    expect(page.count).toBe(5);
    expect(titles(await list('root', '/api/v2/requests/', { search: 'zlib', ordering: 'title' }))).toEqual(['Approve zlib upgrade', 'Review zlib']);
    expect(titles(await list('root', '/api/v2/requests/', { search: 'zlib review' }))).toEqual(['Review zlib']);
    expect(titles(await list('root', '/api/v2/requests/', { search: 'ärger' }))).toEqual(['Review ÄRGER library']);
    expect(titles(await list('root', '/api/v2/requests/', { search: 'legacy' }))).toEqual(['Legacy review request']);
  });

  it('keeps private requests private: search finds only what the caller may see, and counts only that', async () => {
    const carol = await list('carol', '/api/v2/requests/', { search: 'review', ordering: 'title' });
    expect(titles(carol)).toEqual(['Legacy review request', 'review openssl', 'Review zlib']);
    expect(carol.count).toBe(3);
    expect((await list('carol', '/api/v2/requests/', { search: 'ärger' })).count).toBe(0);
    expect((await list('carol', '/api/v2/requests/', { search: 'dave' })).count).toBe(0);
    // The requester, the assignee, and nobody else.
    expect(titles(await list('alice', '/api/v2/requests/', { search: 'ärger' }))).toEqual(['Review ÄRGER library']);
    expect(titles(await list('bob', '/api/v2/requests/', { search: 'ÄRGER' }))).toEqual(['Review ÄRGER library']);
    expect(titles(await list('dave', '/api/v2/requests/', { search: 'review by' }))).toEqual(['Private review by dave']);
    // Also through the paths that read a filter's range whole, or walk an index with a prefix.
    expect((await list('carol', '/api/v2/requests/', { search: 'ärger', assignee: 'bob' })).count).toBe(0);
    expect((await list('carol', '/api/v2/requests/', { search: 'ärger', requester: 'alice', ordering: 'requester' })).count).toBe(0);
    expect((await list('carol', '/api/v2/requests/', { search: 'ärger', last_modified_date: '2000-01-01' })).count).toBe(0);
  });

  it('combines with every kind of filter and ordering, both ways', async () => {
    for (const user of ['root', 'carol']) {
      // An equality on the ordering's own field (an index prefix).
      expect(titles(await list(user, '/api/v2/requests/', { search: 'review', status: 'closed', ordering: 'status' }))).toEqual(['review openssl']);
      // An equality on another field (its range read whole).
      expect(titles(await list(user, '/api/v2/requests/', { search: 'review', requester: 'alice', ordering: '-title' }))).toEqual(
        user === 'root' ? ['Review ÄRGER library', 'Review zlib'] : ['Review zlib'],
      );
      expect(titles(await list(user, '/api/v2/requests/', { search: 'zlib', request_template: 'License Review' }))).toEqual(['Approve zlib upgrade']);
      // Filtered along the walk (content_type has no index), and a date.
      expect((await list(user, '/api/v2/requests/', { search: 'review', content_type: 'product' })).count).toBe(user === 'root' ? 5 : 3);
      expect((await list(user, '/api/v2/requests/', { search: 'review', last_modified_date: '2000-01-01' })).count).toBe(user === 'root' ? 5 : 3);
      expect((await list(user, '/api/v2/requests/', { search: 'review', last_modified_date: '2999-01-01' })).count).toBe(0);
      // Several filters at once.
      expect(titles(await list(user, '/api/v2/requests/', { search: 'ZLIB', status: 'open', requester: 'carol', assignee: 'alice' }))).toEqual(['Approve zlib upgrade']);
    }
    const ascending = titles(await list('root', '/api/v2/requests/', { search: 'review', ordering: 'requester', page_size: '100' }));
    const descending = titles(await list('root', '/api/v2/requests/', { search: 'review', ordering: '-requester', page_size: '100' }));
    expect(descending).toEqual([...ascending].reverse());
  });

  it('pages the matches in order, and next and previous keep the search', async () => {
    const all = titles(await list('root', '/api/v2/requests/', { search: 'review', ordering: 'title' }));
    const pages: unknown[] = [];
    let url: string | null = `/api/v2/requests/?search=review&ordering=title&page_size=2`;
    while (url) {
      const response = await call('root', 'GET', url);
      const page = response.json as Listed;
      expect(page.count).toBe(5);
      pages.push(...titles(page));
      if (page.next) expect(new URL(page.next).searchParams.get('search')).toBe('review');
      if (page.previous) expect(new URL(page.previous).searchParams.get('search')).toBe('review');
      url = page.next && `${new URL(page.next).pathname}${new URL(page.next).search}`;
    }
    expect(pages).toEqual(all);
  });

  it('finds a retitled request by its new title only', async () => {
    const request = await created('dave', '/api/v2/requests/', { title: 'Quokka question', request_template: 'Package Review' });
    expect((await call('dave', 'PATCH', `/api/v2/requests/${request.uuid}/`, { title: 'Wombat answer' })).status).toBe(200);
    for (const user of ['root', 'dave']) {
      expect(titles(await list(user, '/api/v2/requests/', { search: 'wombat' }))).toEqual(['Wombat answer']);
      expect((await list(user, '/api/v2/requests/', { search: 'quokka' })).count).toBe(0);
    }
  });

  it("never finds another dataspace's requests", async () => {
    expect(titles(await list('mallory', '/api/v2/requests/', { search: 'zlib' }))).toEqual(['Review zlib in beta']);
    expect((await list('root', '/api/v2/requests/', { search: 'beta' })).count).toBe(0);
  });
});

describe('bad search input', () => {
  it.each([
    ['a term longer than 100 characters', 'x'.repeat(101), 'Ensure each search term has no more than 100 characters.'],
    ['more than 10 terms', 'a b c d e f g h i j k', 'Ensure there are no more than 10 search terms.'],
    ['a NUL', 'a\u0000b', 'Null characters are not allowed.'],
  ])('refuses %s with a 400 on search, on every searchable list', async (_, search, message) => {
    for (const path of ['/api/v2/products/', '/api/v2/packages/', '/api/v2/requests/']) {
      for (const user of ['root', 'alice']) {
        const response = await call(user, 'GET', `${path}?${new URLSearchParams({ search })}`);
        expect(response.status, `${path} ${user}`).toBe(400);
        expect(response.json).toEqual({ search: [message] });
      }
    }
  });

  it('accepts 10 terms of 100 characters', async () => {
    const search = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(100, 'x')).join(' ');
    for (const path of ['/api/v2/products/', '/api/v2/packages/', '/api/v2/requests/']) {
      expect(await list('alice', path, { search })).toMatchObject({ count: 0, results: [] });
    }
  });
});
