/**
 * Regression tests for input that once reached DynamoDB or JavaScript badly: non-Latin text in sort
 * keys, prototype-named fields, overlong references and filters, JSON null, unpaired surrogates,
 * and orderings that mix characters on both sides of U+FFFF.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { aTeam, load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } } });
const { call } = http;

beforeAll(async () => {
  await load(http.env, {
    request_templates: [
      { name: 'Review', dataspace: 'acme', content_type: 'product' },
      { name: '🚀'.repeat(150), dataspace: 'acme', content_type: 'product' },
    ],
    priorities: [{ label: '緊急'.repeat(70), dataspace: 'acme' }],
  });
});

describe('text in any script', () => {
  it.each([
    ['255 Cyrillic letters', 'Ж'.repeat(255)],
    ['255 CJK characters', '中'.repeat(255)],
    ['emoji', '😀'.repeat(120)],
  ])('a request titled with %s is created, listed and ordered', async (_, title) => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title, request_template: 'Review', priority: '緊急'.repeat(70) });
    expect(created.status, created.text).toBe(201);
    const listed = await call('alice', 'GET', `/api/v2/requests/?ordering=-title&priority=${encodeURIComponent('緊急'.repeat(70))}`);
    expect(listed.status).toBe(200);
    expect(listed.json.results.map((r: { uuid: string }) => r.uuid)).toContain(created.json.uuid);
  });

  it('uses a template whose name is 150 emoji', async () => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'rocket', request_template: '🚀'.repeat(150) });
    expect(created.status, created.text).toBe(201);
    const byTemplate = await call('alice', 'GET', `/api/v2/requests/?request_template=${encodeURIComponent('🚀'.repeat(150))}&ordering=request_template`);
    expect(byTemplate.json.results.map((r: { uuid: string }) => r.uuid)).toEqual([created.json.uuid]);
  });

  it('pages through titles on both sides of U+FFFF in one order, whichever way each page is served', async () => {
    const titles = [...Array.from({ length: 8 }, (_, i) => `ａ${i}`), ...Array.from({ length: 8 }, (_, i) => `😀${i}`)];
    for (const title of titles) {
      expect((await call('root', 'POST', '/api/v2/requests/', { title: `mix ${title}`, request_template: 'Review', status: 'draft' })).status).toBe(201);
    }
    for (let i = 0; i < 4; i++) await call('root', 'POST', '/api/v2/requests/', { title: `closed ${i}`, request_template: 'Review', status: 'closed' });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const response = await call('root', 'GET', `/api/v2/requests/?ordering=title&status=draft&page_size=5&page=${page}`);
      expect(response.status).toBe(200);
      seen.push(...response.json.results.map((r: { title: string }) => r.title));
    }
    expect(seen).toHaveLength(16);
    expect(new Set(seen).size).toBe(16);
    expect(seen).toEqual([...titles.map((t) => `mix ${t}`)]);
  });
});

describe('fields named like Object.prototype members', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('%s is an unknown field, not a 500', async (field) => {
    const body = `{"name": "x", "${field}": 1}`;
    const response = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ [field]: ['Unknown field.'] });
  });
});

describe('overlong references and filters', () => {
  const long = 'x'.repeat(3000);

  it.each([
    ['GET', `/api/v2/products/?name=${long}`, 200],
    ['GET', `/api/v2/requests/?requester=${long}`, 400],
    ['GET', `/api/v2/requests/?priority=${long}`, 400],
    ['GET', `/api/v2/requests/?request_template=${long}`, 400],
    ['GET', `/api/v2/packages/?purl=pkg:npm/${long}`, 200],
  ])('%s %s… answers %i', async (method, path, status) => {
    const response = await call('alice', method, path);
    expect(response.status).toBe(status);
    if (status === 200) expect(response.json.count).toBe(0);
  });

  it('refuses an overlong user in a permission change and an overlong template reference', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Guarded' })).json;
    const grant = await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: long, permissions: ['view_product'] });
    expect(grant.status).toBe(400);
    const request = await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: long });
    expect(request.status).toBe(400);
  });
});

describe('JSON edge cases', () => {
  it('refuses a JSON null body as DRF does, and changes nothing', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Null target' })).json;
    const response = await http.api.call('PATCH', `/api/v2/products/${product.uuid}/`, { token: http.team.keys.alice, body: 'null' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got NoneType.'] });
    expect((await call('alice', 'GET', `/api/v2/products/${product.uuid}/`)).json.last_modified_date).toBe(product.last_modified_date);
  });

  it('refuses an unpaired surrogate', async () => {
    const response = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body: '{"name": "bad \\ud800 name"}' });
    expect(response.status).toBe(400);
    expect(response.json.detail).toMatch(/unpaired surrogate/);
  });

  it('treats an empty product filter as no filter', async () => {
    const all = await call('alice', 'GET', '/api/v2/products/');
    const empty = await call('alice', 'GET', '/api/v2/products/?name=&version=');
    expect(empty.json.count).toBe(all.json.count);
    expect(all.json.count).toBeGreaterThan(0);
  });

  it('refuses control characters in notes and comments, and oversized answers', async () => {
    expect((await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review', notes: 'a\u0001b' })).status).toBe(400);
    expect((await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review', notes: 'line\nbreak\ttab' })).status).toBe(201);
    const request = (await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review' })).json;
    expect((await call('alice', 'POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: 'x'.repeat(10_001) })).status).toBe(400);
  });
});

describe('a product many users can see', () => {
  it('is renamed in batches and found under its new name by every viewer', async () => {
    const usernames = Array.from({ length: 100 }, (_, i) => `viewer${i}`);
    const many = await aTeam(http.env, { acme: { users: Object.fromEntries(usernames.map((u) => [u, {}])) } });
    Object.assign(http.team.keys, many.keys);
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Popular' })).json;
    for (const user of usernames) {
      expect((await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user, permissions: ['view_product'] })).status).toBe(200);
    }
    const renamed = await call('alice', 'PATCH', `/api/v2/products/${product.uuid}/`, { name: 'Popular renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    for (const user of [usernames[0]!, usernames[57]!, usernames[99]!]) {
      const found = await call(user, 'GET', '/api/v2/products/?name=Popular%20renamed');
      expect(found.json.results.map((p: { uuid: string }) => p.uuid), user).toEqual([product.uuid]);
      expect((await call(user, 'GET', '/api/v2/products/?name=Popular')).json.count).toBe(0);
    }
    const taken = (await call('alice', 'POST', '/api/v2/products/', { name: 'Taken' })).json;
    const clash = await call('alice', 'PATCH', `/api/v2/products/${product.uuid}/`, { name: taken.name });
    expect(clash.status).toBe(400);
    expect((await call(usernames[3]!, 'GET', '/api/v2/products/?name=Popular%20renamed')).json.count).toBe(1);
  }, 60_000);
});
