import { beforeAll, describe, expect, it } from 'vitest';
import { aTeam, load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: {
    users: {
      root: { superuser: true },
      alice: {},
      bob: {},
      carol: { groups: ['legal'] },
      dave: {},
    },
  },
  beta: { users: { mallory: { superuser: true }, eve: {} } },
});
const { call, snapshot } = http;

const as = (username: string) => ({
  get: (path: string) => call(username, 'GET', path),
  post: (path: string, body: unknown) => call(username, 'POST', path, body),
  put: (path: string, body: unknown) => call(username, 'PUT', path, body),
  patch: (path: string, body: unknown) => call(username, 'PATCH', path, body),
  delete: (path: string, body?: unknown) => call(username, 'DELETE', path, body),
});

let counter = 0;
async function aProduct(owner = 'alice', overrides: { name?: string; version?: string } = {}) {
  counter += 1;
  const response = await as(owner).post('/api/v2/products/', { name: `Product ${counter}`, version: '1.0', ...overrides });
  expect(response.status, response.text).toBe(201);
  return response.json as { uuid: string; name: string; version: string; api_url: string };
}

const grant = (productUuid: string, body: unknown, by = 'alice') =>
  as(by).post(`/api/v2/products/${productUuid}/permissions/`, body);

describe('POST /api/v2/products/', () => {
  it('creates the product and answers it whole, with the creator and UTC-offset timestamps', async () => {
    const response = await as('alice').post('/api/v2/products/', { name: 'Nexb Toolkit', version: '2.1' });
    expect(response.status).toBe(201);
    const product = response.json;
    expect(product).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_url: `${http.api.url}/api/v2/products/${product.uuid}/`,
      name: 'Nexb Toolkit',
      version: '2.1',
      created_by: 'alice',
      dataspace: 'acme',
      created_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      last_modified_date: product.created_date,
      gate: null,
      user_permissions: ['view_product', 'change_product', 'delete_product'],
    });
    expect((await as('alice').get(`/api/v2/products/${product.uuid}/`)).json).toEqual(product);
  });

  it('defaults version to an empty string and trims names', async () => {
    const response = await as('alice').post('/api/v2/products/', { name: '  Lonely  ' });
    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ name: 'Lonely', version: '' });
  });

  it.each([
    ['no name', { version: '1' }, { name: ['This field is required.'] }],
    ['a blank name', { name: '   ' }, { name: ['This field may not be blank.'] }],
    ['a number as name', { name: 42 }, { name: ['Not a valid string.'] }],
    ['a null name', { name: null }, { name: ['This field may not be null.'] }],
    ['a name too long', { name: 'x'.repeat(71) }, { name: ['Ensure this field has no more than 70 characters.'] }],
    ['a control character', { name: 'a\u0001b' }, { name: ['Control characters are not allowed.'] }],
    ['an unknown field', { name: 'ok', colour: 'red' }, { colour: ['Unknown field.'] }],
    ['a list', [], { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
  ])('refuses %s with a 400 field error and writes nothing', async (_, body, errors) => {
    const before = await snapshot();
    const response = await as('alice').post('/api/v2/products/', body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('refuses malformed JSON and other media types', async () => {
    const broken = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body: '{"name": ' });
    expect(broken.status).toBe(400);
    expect(broken.json.detail).toMatch(/^JSON parse error - /);
    const text = await http.api.call('POST', '/api/v2/products/', {
      token: http.team.keys.alice,
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.json).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('keeps name + version unique within a dataspace only', async () => {
    await aProduct('alice', { name: 'Unique', version: '1' });
    const before = await snapshot();
    const duplicate = await as('bob').post('/api/v2/products/', { name: 'Unique', version: '1' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json).toEqual({ name: ['Product with this name and version already exists.'] });
    expect(await snapshot()).toBe(before);
    expect((await as('bob').post('/api/v2/products/', { name: 'Unique', version: '2' })).status).toBe(201);
    expect((await as('eve').post('/api/v2/products/', { name: 'Unique', version: '1' })).status).toBe(201);
  });
});

describe('visibility and permissions on /api/v2/products/{uuid}/', () => {
  it('lets the creator and superusers do everything, and hides the product from everyone else', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    expect((await as('alice').get(path)).status).toBe(200);
    expect((await as('root').get(path)).status).toBe(200);
    for (const stranger of ['bob', 'carol', 'mallory', 'eve']) {
      expect((await as(stranger).get(path)).status, stranger).toBe(404);
      expect((await as(stranger).get(path)).json).toEqual({ detail: 'Not found.' });
    }
    expect((await as('root').patch(path, { version: '9' })).status).toBe(200);
  });

  it('answers 404 for every route when the product cannot be seen, and changes nothing', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    const before = await snapshot();
    for (const stranger of ['bob', 'mallory', 'eve']) {
      const calls = [
        as(stranger).get(path),
        as(stranger).put(path, { name: 'Stolen', version: '1' }),
        as(stranger).patch(path, { name: 'Stolen' }),
        as(stranger).delete(path),
        as(stranger).get(`${path}permissions/`),
        as(stranger).post(`${path}permissions/`, { user: stranger, permissions: ['view_product'] }),
        as(stranger).delete(`${path}permissions/`, { user: 'alice', permissions: ['view_product'] }),
      ];
      for (const response of await Promise.all(calls)) {
        expect(response.status, `${stranger}: ${response.text}`).toBe(404);
        expect(response.json).toEqual({ detail: 'Not found.' });
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it('answers 404 for a malformed or unknown uuid', async () => {
    expect((await as('root').get('/api/v2/products/not-a-uuid/')).status).toBe(404);
    expect((await as('root').get('/api/v2/products/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
    expect((await as('root').patch('/api/v2/products/00000000-0000-4000-8000-000000000000/', { name: 'x' })).status).toBe(404);
  });

  it('answers 403 to a viewer who may not change or delete, and changes nothing', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    expect((await grant(product.uuid, { user: 'dave', permissions: ['view_product'] })).status).toBe(200);
    expect((await as('dave').get(path)).status).toBe(200);
    const before = await snapshot();
    for (const response of [
      await as('dave').put(path, { name: 'Renamed', version: '1' }),
      await as('dave').patch(path, { name: 'Renamed' }),
      await as('dave').delete(path),
    ]) {
      expect(response.status).toBe(403);
      expect(response.json).toEqual({ detail: 'You do not have permission to perform this action.' });
    }
    expect(await snapshot()).toBe(before);
  });

  it('decides 404, then 403, then 400, as DRF does: access comes before the body', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    await grant(product.uuid, { user: 'dave', permissions: ['view_product'] });
    expect((await as('bob').patch(path, { name: '' })).status).toBe(404);
    expect((await as('bob').patch(path, '{broken')).status).toBe(404);
    expect((await as('dave').patch(path, { name: '' })).status).toBe(403);
    expect((await as('dave').delete(`${path}permissions/`, { nonsense: true })).status).toBe(403);
    expect((await as('alice').patch(path, { name: '' })).json).toEqual({ name: ['This field may not be blank.'] });
  });

  it('lets change_product edit and delete_product delete, through a group too', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    await grant(product.uuid, { group: 'legal', permissions: ['view_product', 'change_product'] });
    const patched = await as('carol').patch(path, { version: '3.0' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: product.name, version: '3.0', created_by: 'alice' });
    expect(patched.json.last_modified_date > patched.json.created_date).toBe(true);
    const put = await as('carol').put(path, { name: `${product.name} renamed`, version: '3.1' });
    expect(put.status).toBe(200);
    expect((await as('carol').get(path)).json).toMatchObject({ name: `${product.name} renamed`, version: '3.1' });
    expect((await as('carol').delete(path)).status).toBe(403);
    await grant(product.uuid, { group: 'legal', permissions: ['delete_product'] });
    const deleted = await as('carol').delete(path);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await as('alice').get(path)).status).toBe(404);
    expect((await as('root').get(path)).status).toBe(404);
  });

  it('answers the caller\'s permissions as user_permissions, in detail, list and writes, through a group and a grant without view', async () => {
    const product = await aProduct('alice', { name: 'Permissions shown' });
    const path = `/api/v2/products/${product.uuid}/`;
    expect((await as('alice').get(path)).json.user_permissions).toEqual(['view_product', 'change_product', 'delete_product']);
    expect((await as('root').get(path)).json.user_permissions).toEqual(['view_product', 'change_product', 'delete_product']);
    // dave views directly; carol views through her group, and changes by a grant of her own that has no view.
    expect((await grant(product.uuid, { user: 'dave', permissions: ['view_product'] })).status).toBe(200);
    expect((await grant(product.uuid, { group: 'legal', permissions: ['view_product'] })).status).toBe(200);
    expect((await grant(product.uuid, { user: 'carol', permissions: ['change_product'] })).status).toBe(200);
    expect((await as('dave').get(path)).json.user_permissions).toEqual(['view_product']);
    expect((await as('carol').get(path)).json.user_permissions).toEqual(['view_product', 'change_product']);
    const listed = async (username: string) => {
      const page = await as(username).get('/api/v2/products/?name=Permissions%20shown');
      expect(page.status).toBe(200);
      return (page.json.results as { uuid: string; user_permissions: string[] }[]).find((p) => p.uuid === product.uuid)?.user_permissions;
    };
    expect(await listed('alice')).toEqual(['view_product', 'change_product', 'delete_product']);
    expect(await listed('root')).toEqual(['view_product', 'change_product', 'delete_product']);
    expect(await listed('dave')).toEqual(['view_product']);
    expect(await listed('carol')).toEqual(['view_product', 'change_product']);
    expect(await listed('bob')).toBeUndefined();
    const patched = await as('carol').patch(path, { version: '2.0' });
    expect(patched.status).toBe(200);
    expect(patched.json.user_permissions).toEqual(['view_product', 'change_product']);
    // Sent back, it is read-only: ignored, not a 400.
    expect((await as('carol').put(path, { ...patched.json, user_permissions: ['delete_product'] })).status).toBe(200);
    expect((await as('carol').get(path)).json.user_permissions).toEqual(['view_product', 'change_product']);
  });

  it('needs every writable field on PUT', async () => {
    const product = await aProduct('alice');
    const response = await as('alice').put(`/api/v2/products/${product.uuid}/`, { name: 'Only name' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ version: ['This field is required.'] });
  });

  it('accepts back the representation it answered (read-only fields are ignored)', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    const current = (await as('alice').get(path)).json;
    const response = await as('alice').put(path, { ...current, version: '7', uuid: 'ignored', created_by: 'mallory' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ uuid: product.uuid, version: '7', created_by: 'alice' });
  });

  it('refuses a rename onto an existing name + version, and keeps the product as it was', async () => {
    const first = await aProduct('alice', { name: 'Clash', version: '1' });
    const second = await aProduct('alice', { name: 'Clash', version: '2' });
    const response = await as('alice').patch(`/api/v2/products/${second.uuid}/`, { version: '1' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ name: ['Product with this name and version already exists.'] });
    expect((await as('alice').get(`/api/v2/products/${second.uuid}/`)).json.version).toBe('2');
    expect((await as('alice').get(`/api/v2/products/${first.uuid}/`)).json.version).toBe('1');
    // The freed name can be taken after a rename.
    expect((await as('alice').patch(`/api/v2/products/${second.uuid}/`, { version: '3' })).status).toBe(200);
    expect((await as('bob').post('/api/v2/products/', { name: 'Clash', version: '2' })).status).toBe(201);
  });
});

describe('GET /api/v2/products/', () => {
  let owner: string;
  beforeAll(async () => {
    // A dataspace of its own so counts are exact.
    owner = 'lister';
    const keys = await aTeam(http.env, {
      listing: { users: { lister: {}, admin: { superuser: true }, viewer: { groups: ['readers'] }, nobody: {} } },
    });
    Object.assign(http.team.keys, keys.keys);
    for (let i = 0; i < 23; i++) {
      const response = await as(owner).post('/api/v2/products/', {
        name: `Item ${String(i % 12).padStart(2, '0')}`,
        version: i < 12 ? '1.0' : '2.0',
      });
      expect(response.status).toBe(201);
    }
  });

  const names = (results: { name: string; version: string }[]) => results.map((p) => `${p.name}@${p.version}`);

  it('pages by 10 in name, version order with absolute next and previous links', async () => {
    const first = await as('admin').get('/api/v2/products/');
    expect(first.status).toBe(200);
    expect(first.json.count).toBe(23);
    expect(first.json.previous).toBeNull();
    expect(first.json.next).toBe(`${http.api.url}/api/v2/products/?page=2`);
    expect(names(first.json.results).slice(0, 3)).toEqual(['Item 00@1.0', 'Item 00@2.0', 'Item 01@1.0']);
    const second = await as('admin').get('/api/v2/products/?page=2');
    expect(second.json.previous).toBe(`${http.api.url}/api/v2/products/`);
    const third = await as('admin').get('/api/v2/products/?page=3');
    expect(third.json.results).toHaveLength(3);
    expect(third.json.next).toBeNull();
    const all = [...first.json.results, ...second.json.results, ...third.json.results];
    expect(new Set(all.map((p: { uuid: string }) => p.uuid)).size).toBe(23);
    expect(names(all)).toEqual([...names(all)].sort());
  });

  it('keeps other query parameters in the links and honours page_size up to 100', async () => {
    const response = await as('admin').get('/api/v2/products/?version=1.0&page_size=5&page=2');
    expect(response.json.count).toBe(12);
    expect(response.json.results).toHaveLength(5);
    const next = new URL(response.json.next);
    expect(Object.fromEntries(next.searchParams)).toEqual({ version: '1.0', page_size: '5', page: '3' });
    const previous = new URL(response.json.previous);
    expect(Object.fromEntries(previous.searchParams)).toEqual({ version: '1.0', page_size: '5' });
    expect((await as('admin').get('/api/v2/products/?page_size=1000')).json.results).toHaveLength(23);
    expect((await as('admin').get('/api/v2/products/?page_size=abc')).json.results).toHaveLength(10);
  });

  it.each(['4', '0', '-1', 'abc', '2.5'])('answers 404 "Invalid page." for page=%s', async (page) => {
    const response = await as('admin').get(`/api/v2/products/?page=${page}`);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ detail: 'Invalid page.' });
  });

  it('filters on exact name and version, alone and together', async () => {
    const byName = await as('admin').get('/api/v2/products/?name=Item%2003');
    expect(names(byName.json.results)).toEqual(['Item 03@1.0', 'Item 03@2.0']);
    const both = await as('admin').get('/api/v2/products/?name=Item%2003&version=2.0');
    expect(names(both.json.results)).toEqual(['Item 03@2.0']);
    expect((await as('admin').get('/api/v2/products/?name=Item%200')).json.count).toBe(0);
    expect((await as('admin').get('/api/v2/products/?version=2.0')).json.count).toBe(11);
    expect((await as('admin').get('/api/v2/products/?name=Nothing')).json).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('shows a user exactly what they may view, directly or through a group, with the same paging and filters', async () => {
    expect((await as('nobody').get('/api/v2/products/')).json).toEqual({ count: 0, next: null, previous: null, results: [] });
    const all = (await as('admin').get('/api/v2/products/?page_size=100')).json.results as { uuid: string; name: string; version: string }[];
    const direct = all.filter((_, i) => i % 3 === 0);
    const viaGroup = all.filter((_, i) => i % 4 === 0);
    for (const product of direct) expect((await grant(product.uuid, { user: 'viewer', permissions: ['view_product'] }, 'lister')).status).toBe(200);
    for (const product of viaGroup) expect((await grant(product.uuid, { group: 'readers', permissions: ['view_product'] }, 'lister')).status).toBe(200);
    // A change-only grant does not make a product visible.
    await grant(all[1]!.uuid, { user: 'viewer', permissions: ['change_product'] }, 'lister');
    const expected = all.filter((_, i) => i % 3 === 0 || i % 4 === 0);
    const listed = await as('viewer').get('/api/v2/products/?page_size=5');
    expect(listed.json.count).toBe(expected.length);
    const pages = [listed.json.results];
    let next = listed.json.next as string | null;
    while (next) {
      const page = await http.api.call('GET', next.slice(http.api.url.length), { token: http.team.keys.viewer });
      pages.push(page.json.results);
      next = page.json.next;
    }
    expect(pages.flat().map((p: { uuid: string }) => p.uuid)).toEqual(expected.map((p) => p.uuid));
    const filtered = await as('viewer').get(`/api/v2/products/?name=${encodeURIComponent(expected[0]!.name)}`);
    expect(filtered.json.results.map((p: { uuid: string }) => p.uuid)).toEqual(
      expected.filter((p) => p.name === expected[0]!.name).map((p) => p.uuid),
    );
  });

  it('never shows another dataspace, even to its superuser', async () => {
    const response = await as('mallory').get('/api/v2/products/?page_size=100');
    expect(response.json.results.every((p: { dataspace: string }) => p.dataspace === 'beta')).toBe(true);
    expect(response.json.results.some((p: { name: string }) => p.name.startsWith('Item'))).toBe(false);
  });

  it('follows renames and deletions in order and count', async () => {
    const before = (await as('admin').get('/api/v2/products/?page_size=100')).json;
    const target = before.results[0];
    expect((await as('lister').patch(`/api/v2/products/${target.uuid}/`, { name: 'ZZZ last' })).status).toBe(200);
    const renamed = (await as('admin').get('/api/v2/products/?page_size=100')).json;
    expect(renamed.results.at(-1).uuid).toBe(target.uuid);
    expect((await as('lister').delete(`/api/v2/products/${target.uuid}/`)).status).toBe(204);
    const after = (await as('admin').get('/api/v2/products/?page_size=100')).json;
    expect(after.count).toBe(before.count - 1);
    expect(after.results.map((p: { uuid: string }) => p.uuid)).not.toContain(target.uuid);
  });
});

describe('group membership', () => {
  it('grants through a group take effect and stop on the very next request', async () => {
    const product = await aProduct('alice');
    const path = `/api/v2/products/${product.uuid}/`;
    expect((await as('carol').get(path)).status).toBe(404);
    await grant(product.uuid, { group: 'legal', permissions: ['view_product'] });
    expect((await as('carol').get(path)).status).toBe(200);
    // carol leaves the group.
    await load(http.env, {
      users: [{ username: 'carol', email: 'carol@example.com', dataspace: 'acme', groups: [], api_key: http.team.keys.carol }],
    });
    expect((await as('carol').get(path)).status).toBe(404);
    await load(http.env, {
      users: [{ username: 'carol', email: 'carol@example.com', dataspace: 'acme', groups: ['legal'], api_key: http.team.keys.carol }],
    });
    expect((await as('carol').get(path)).status).toBe(200);
  });
});
