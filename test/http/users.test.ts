/**
 * The caller (GET /api/v2/users/me/), the users of their dataspace (GET /api/v2/users/), its request
 * priorities (GET /api/v2/request_priorities/) and the dataspace-wide waiver list (GET
 * /api/v2/policy_waivers/) through the real handlers: never another dataspace's, only what the caller
 * may view, bad filters a 400.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: { groups: ['legal'] }, bob: {}, gone: { active: false } } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call } = http;

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

beforeAll(async () => {
  await load(http.env, {
    priorities: [
      { label: 'Urgent', dataspace: 'acme' },
      { label: 'Low', dataspace: 'acme' },
      { label: 'Beta only', dataspace: 'beta' },
    ],
  });
});

describe('GET /api/v2/users/me/', () => {
  it('answers the caller, with the key in use', async () => {
    const me = await call('alice', 'GET', '/api/v2/users/me/');
    expect(me.status, me.text).toBe(200);
    expect(me.json).toEqual({
      username: 'alice',
      email: 'alice@example.com',
      dataspace: 'acme',
      is_superuser: false,
      groups: ['legal'],
      api_key: { name: expect.any(String), scope: 'write' },
    });
    expect((await call('root', 'GET', '/api/v2/users/me/')).json).toMatchObject({ username: 'root', is_superuser: true });
    expect((await call(undefined, 'GET', '/api/v2/users/me/')).status).toBe(401);
  });
});

describe('GET /api/v2/users/', () => {
  it("lists the active users of the caller's dataspace only, by username", async () => {
    const listed = await call('bob', 'GET', '/api/v2/users/');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toMatchObject({ count: 3, next: null, previous: null });
    expect(listed.json.results).toEqual([
      { username: 'alice', email: 'alice@example.com', dataspace: 'acme', is_superuser: false },
      { username: 'bob', email: 'bob@example.com', dataspace: 'acme', is_superuser: false },
      { username: 'root', email: 'root@example.com', dataspace: 'acme', is_superuser: true },
    ]);
    expect((await call('mallory', 'GET', '/api/v2/users/')).json.results.map((u: { username: string }) => u.username)).toEqual(['mallory']);
  });

  it('filters by username and search, and pages', async () => {
    expect((await call('bob', 'GET', '/api/v2/users/?username=alice')).json.results.map((u: { username: string }) => u.username)).toEqual(['alice']);
    expect((await call('bob', 'GET', '/api/v2/users/?username=mallory')).json.count).toBe(0);
    expect((await call('bob', 'GET', '/api/v2/users/?search=ROO')).json.results.map((u: { username: string }) => u.username)).toEqual(['root']);
    expect((await call('bob', 'GET', '/api/v2/users/?search=example.com')).json.count).toBe(3);
    const page = await call('bob', 'GET', '/api/v2/users/?page_size=2&page=2');
    expect(page.json.results.map((u: { username: string }) => u.username)).toEqual(['root']);
    expect((await call('bob', 'GET', '/api/v2/users/?page=9')).status).toBe(404);
    const tooMany = await call('bob', 'GET', `/api/v2/users/?search=${Array.from({ length: 40 }, (_, i) => `t${i}`).join('+')}`);
    expect(tooMany.status).toBe(400);
    expect(Object.keys(tooMany.json)).toEqual(['search']);
  });
});

describe('GET /api/v2/request_priorities/', () => {
  it("lists the dataspace's priorities by label", async () => {
    const listed = await call('bob', 'GET', '/api/v2/request_priorities/');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual({ count: 2, next: null, previous: null, results: [{ label: 'Low' }, { label: 'Urgent' }] });
    expect((await call('mallory', 'GET', '/api/v2/request_priorities/')).json.results).toEqual([{ label: 'Beta only' }]);
  });
});

describe('GET /api/v2/policy_waivers/', () => {
  it('lists the waivers of the products the caller may view, with their names, soonest expiry first', async () => {
    const purl = 'pkg:npm/left-pad@1.3.0';
    expect((await call('root', 'POST', '/api/v2/packages/', { purl })).status).toBe(201);
    const product = async (as: string, name: string) => (await call(as, 'POST', '/api/v2/products/', { name, version: '1.0' })).json as { uuid: string };
    const shared = await product('alice', 'Shared app');
    const own = await product('root', 'Root only');
    await call('alice', 'POST', `/api/v2/products/${shared.uuid}/permissions/`, { user: 'bob', permissions: ['view_product'] });
    for (const p of [shared, own]) expect((await call('root', 'POST', '/api/v2/product_packages/', { product: p.uuid, package: purl })).status).toBe(201);
    const waive = async (p: { uuid: string }, days: number) => {
      const made = await call('root', 'POST', `/api/v2/products/${p.uuid}/policy_waivers/`, { rule_type: 'usage_policy_error', package: purl, reason: 'Reviewed', expires_at: inDays(days) });
      expect(made.status, made.text).toBe(201);
      return made.json as { uuid: string };
    };
    const later = await waive(shared, 30);
    const sooner = await waive(own, 3);

    const all = await call('root', 'GET', '/api/v2/policy_waivers/');
    expect(all.status, all.text).toBe(200);
    expect(all.json.count).toBe(2);
    expect(all.json.results.map((w: { uuid: string }) => w.uuid)).toEqual([sooner.uuid, later.uuid]);
    expect(all.json.results[0]).toMatchObject({ product_uuid: own.uuid, product_name: 'Root only', product_version: '1.0', package: purl, rule_label: 'Usage Policy Error', is_expired: false });

    // bob sees the product shared with him only; mallory, another dataspace, nothing.
    expect((await call('bob', 'GET', '/api/v2/policy_waivers/')).json.results.map((w: { product_name: string }) => w.product_name)).toEqual(['Shared app']);
    expect((await call('mallory', 'GET', '/api/v2/policy_waivers/')).json.count).toBe(0);

    expect((await call('root', 'GET', `/api/v2/policy_waivers/?product=${shared.uuid}`)).json.results.map((w: { uuid: string }) => w.uuid)).toEqual([later.uuid]);
    expect((await call('root', 'GET', '/api/v2/policy_waivers/?is_expired=true')).json.count).toBe(0);
    for (const [as, filter] of [['bob', `product=${own.uuid}`], ['mallory', `product=${shared.uuid}`], ['root', 'product=nope'], ['root', 'is_expired=maybe']] as const) {
      const refused = await call(as, 'GET', `/api/v2/policy_waivers/?${filter}`);
      expect(refused.status, `${as} ${filter}`).toBe(400);
    }
  });
});
