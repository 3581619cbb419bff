import { describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: {
    users: {
      root: { superuser: true },
      alice: {},
      bob: {},
      carol: { groups: ['legal'] },
      dan: { groups: ['legal', 'eng'] },
      erin: { groups: ['eng'] },
    },
  },
  beta: { users: { mallory: { superuser: true }, trudy: { groups: ['legal'] } } },
});
const { call, snapshot } = http;

let counter = 0;
async function aProduct(owner = 'alice') {
  counter += 1;
  const response = await call(owner, 'POST', '/api/v2/products/', { name: `Permitted ${counter}` });
  expect(response.status).toBe(201);
  const uuid = response.json.uuid as string;
  return {
    uuid,
    path: `/api/v2/products/${uuid}/`,
    permissions: `/api/v2/products/${uuid}/permissions/`,
  };
}

const ALL = ['change_product', 'delete_product', 'view_product'];

describe('GET /api/v2/products/{uuid}/permissions/', () => {
  it('lists the creator with all three codenames, sorted, and no groups', async () => {
    const product = await aProduct('alice');
    const response = await call('alice', 'GET', product.permissions);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      users: [{ dataspace: 'acme', username: 'alice', object_permissions: ALL }],
      groups: [],
    });
  });

  it('lists a superuser creator too, with all three codenames (the contract: the creator is already in the users list)', async () => {
    const product = await aProduct('root');
    const response = await call('root', 'GET', product.permissions);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      users: [{ dataspace: 'acme', username: 'root', object_permissions: ALL }],
      groups: [],
    });
  });

  it('lists users directly and through groups with their effective codenames, and groups; not superusers', async () => {
    const product = await aProduct('alice');
    expect((await call('alice', 'POST', product.permissions, { group: 'legal', permissions: ['view_product'] })).status).toBe(200);
    expect((await call('alice', 'POST', product.permissions, { group: 'eng', permissions: ['change_product'] })).status).toBe(200);
    expect((await call('alice', 'POST', product.permissions, { user: 'bob', permissions: ['delete_product', 'view_product'] })).status).toBe(200);
    expect((await call('alice', 'POST', product.permissions, { user: 'root', permissions: ['view_product'] })).status).toBe(200);
    const response = await call('root', 'GET', product.permissions);
    expect(response.json).toEqual({
      users: [
        { dataspace: 'acme', username: 'alice', object_permissions: ALL },
        { dataspace: 'acme', username: 'bob', object_permissions: ['delete_product', 'view_product'] },
        { dataspace: 'acme', username: 'carol', object_permissions: ['view_product'] },
        { dataspace: 'acme', username: 'dan', object_permissions: ['change_product', 'view_product'] },
        { dataspace: 'acme', username: 'erin', object_permissions: ['change_product'] },
      ],
      groups: [
        { name: 'eng', object_permissions: ['change_product'] },
        { name: 'legal', object_permissions: ['view_product'] },
      ],
    });
  });

  it('answers 401 without a key, 404 to who cannot see it, 403 to who can but is not its creator or a superuser', async () => {
    const product = await aProduct('alice');
    await call('alice', 'POST', product.permissions, { user: 'bob', permissions: ['view_product', 'change_product', 'delete_product'] });
    const anonymous = await call(undefined, 'GET', product.permissions);
    expect(anonymous.status).toBe(401);
    for (const username of ['carol', 'mallory', 'trudy']) {
      const response = await call(username, 'GET', product.permissions);
      expect(response.status, username).toBe(404);
    }
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await call('bob', method, product.permissions, method === 'GET' ? undefined : { user: 'bob', permissions: ['view_product'] });
      expect(response.status, method).toBe(403);
      expect(response.json).toEqual({ detail: 'You do not have permission to perform this action.' });
    }
  });

  it('lets the creator manage permissions even after losing all their own', async () => {
    const product = await aProduct('alice');
    expect((await call('alice', 'DELETE', product.permissions, { user: 'alice', permissions: ['change_product', 'delete_product'] })).status).toBe(200);
    expect((await call('alice', 'GET', product.permissions)).status).toBe(200);
    expect((await call('alice', 'PATCH', product.path, { name: 'nope' })).status).toBe(403);
  });
});

describe('POST and DELETE /api/v2/products/{uuid}/permissions/', () => {
  it('assigns and removes exactly the listed codenames, effective on the next request', async () => {
    const product = await aProduct('alice');
    expect((await call('bob', 'GET', product.path)).status).toBe(404);
    const assigned = await call('alice', 'POST', product.permissions, { user: 'bob', permissions: ['view_product', 'change_product'] });
    expect(assigned.status).toBe(200);
    expect(assigned.json).toEqual({ status: 'permissions assigned' });
    expect((await call('bob', 'GET', product.path)).status).toBe(200);
    expect((await call('bob', 'PATCH', product.path, { version: 'b' })).status).toBe(200);
    const removed = await call('alice', 'DELETE', product.permissions, { user: 'bob', permissions: ['change_product'] });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ status: 'permissions removed' });
    expect((await call('bob', 'PATCH', product.path, { version: 'c' })).status).toBe(403);
    expect((await call('bob', 'GET', product.path)).status).toBe(200);
    await call('alice', 'DELETE', product.permissions, { user: 'bob', permissions: ['view_product'] });
    expect((await call('bob', 'GET', product.path)).status).toBe(404);
    expect((await call('alice', 'GET', product.permissions)).json.users.map((u: { username: string }) => u.username)).toEqual(['alice']);
  });

  it('is idempotent: assigning twice or removing what is not held answers the same and changes nothing', async () => {
    const product = await aProduct('alice');
    await call('alice', 'POST', product.permissions, { user: 'bob', permissions: ['view_product'] });
    const before = await snapshot();
    expect((await call('alice', 'POST', product.permissions, { user: 'bob', permissions: ['view_product'] })).status).toBe(200);
    expect((await call('alice', 'DELETE', product.permissions, { user: 'erin', permissions: ['view_product'] })).status).toBe(200);
    expect(await snapshot()).toBe(before);
  });

  it('gives group members the group permissions, and takes them back when the group loses them', async () => {
    const product = await aProduct('alice');
    await call('alice', 'POST', product.permissions, { group: 'eng', permissions: ['view_product'] });
    expect((await call('erin', 'GET', product.path)).status).toBe(200);
    expect((await call('dan', 'GET', product.path)).status).toBe(200);
    expect((await call('carol', 'GET', product.path)).status).toBe(404);
    await call('alice', 'DELETE', product.permissions, { group: 'eng', permissions: ['view_product'] });
    expect((await call('erin', 'GET', product.path)).status).toBe(404);
    // A member who leaves the group loses what it gave at once.
    await call('alice', 'POST', product.permissions, { group: 'legal', permissions: ['view_product'] });
    expect((await call('carol', 'GET', product.path)).status).toBe(200);
    await load(http.env, {
      users: [{ username: 'carol', email: 'carol@example.com', dataspace: 'acme', groups: [], api_key: http.team.keys.carol }],
    });
    expect((await call('carol', 'GET', product.path)).status).toBe(404);
    await load(http.env, {
      users: [{ username: 'carol', email: 'carol@example.com', dataspace: 'acme', groups: ['legal'], api_key: http.team.keys.carol }],
    });
  });

  it.each([
    ['both user and group', { user: 'bob', group: 'legal', permissions: ['view_product'] }, { non_field_errors: ["Only one of 'user' or 'group' can be provided, not both."] }],
    ['neither user nor group', { permissions: ['view_product'] }, { non_field_errors: ["Either 'user' or 'group' must be provided."] }],
    ['no permissions', { user: 'bob' }, { permissions: ['This field is required.'] }],
    ['an empty permissions list', { user: 'bob', permissions: [] }, { permissions: ['This list may not be empty.'] }],
    ['permissions as a string', { user: 'bob', permissions: 'view_product' }, { permissions: ['Expected a list of items but got type "str".'] }],
    ['an unknown codename among valid ones', { user: 'bob', permissions: ['view_product', 'own_product'] }, {
      permissions: ['"own_product" is not a valid permission; choose from view_product, change_product, delete_product.'],
    }],
    ['a user of another dataspace', { user: 'trudy', permissions: ['view_product'] }, { user: ['User "trudy" does not exist in this dataspace.'] }],
    ['an unknown user', { user: 'ghost', permissions: ['view_product'] }, { user: ['User "ghost" does not exist in this dataspace.'] }],
    ['an unknown group', { group: 'ghosts', permissions: ['view_product'] }, { group: ['Group "ghosts" does not exist in this dataspace.'] }],
    ['a list body', [], { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] }],
  ])('refuses %s with 400 inside "errors", applying nothing', async (_, body, errors) => {
    const product = await aProduct('alice');
    const before = await snapshot();
    for (const method of ['POST', 'DELETE']) {
      const response = await call('alice', method, product.permissions, body);
      expect(response.status, method).toBe(400);
      expect(response.json).toEqual({ errors });
    }
    expect(await snapshot()).toBe(before);
    expect((await call('bob', 'GET', product.path)).status).toBe(404);
  });

  it('never reaches into another dataspace, even for its superuser', async () => {
    const product = await aProduct('alice');
    const before = await snapshot();
    for (const method of ['GET', 'POST', 'DELETE']) {
      const response = await call('mallory', method, product.permissions, method === 'GET' ? undefined : { user: 'mallory', permissions: ['view_product'] });
      expect(response.status).toBe(404);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('concurrent permission changes', () => {
  it('applies every one of many concurrent grants and revokes on one product', async () => {
    const product = await aProduct('alice');
    const users = ['bob', 'carol', 'dan', 'erin'];
    const responses = await Promise.all(
      users.flatMap((user) => [
        call('alice', 'POST', product.permissions, { user, permissions: ['view_product'] }),
        call('root', 'POST', product.permissions, { user, permissions: ['change_product'] }),
      ]),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const listing = (await call('alice', 'GET', product.permissions)).json;
    for (const user of users) {
      expect(listing.users.find((u: { username: string }) => u.username === user)?.object_permissions).toEqual(['change_product', 'view_product']);
      expect((await call(user, 'GET', product.path)).status).toBe(200);
    }
    // A rename racing with grants leaves every viewer's listing entry under the new name.
    await Promise.all([
      call('alice', 'PATCH', product.path, { name: 'Renamed under load' }),
      call('alice', 'DELETE', product.permissions, { user: 'erin', permissions: ['view_product'] }),
    ]);
    for (const user of ['bob', 'carol', 'dan']) {
      const listed = await call(user, 'GET', '/api/v2/products/?name=Renamed%20under%20load');
      expect(listed.json.results.map((p: { uuid: string }) => p.uuid), user).toEqual([product.uuid]);
    }
    expect((await call('erin', 'GET', '/api/v2/products/?name=Renamed%20under%20load')).json.count).toBe(0);
  });
});
