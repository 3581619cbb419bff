import { describe, expect, it } from 'vitest';
import { accessFor, effectivePermissions, permissionListing, type Grant, type Product } from '../../shared/domain/product.ts';
import type { Caller } from '../../shared/domain/caller.ts';

const product: Product = {
  uuid: 'p1',
  dataspace: 'acme',
  name: 'P',
  version: '1',
  createdBy: 'alice',
  createdDate: '',
  lastModifiedDate: '',
  rev: 1,
};
const caller = (overrides: Partial<Caller> = {}): Caller => ({
  username: 'bob',
  email: 'bob@example.com',
  dataspace: 'acme',
  isSuperuser: false,
  groups: [],
  ...overrides,
});
const userGrant = (name: string, ...permissions: Grant['permissions']): Grant => ({ principal: { type: 'user', name }, permissions });
const groupGrant = (name: string, ...permissions: Grant['permissions']): Grant => ({ principal: { type: 'group', name }, permissions });

describe('effective permissions', () => {
  it.each([
    ['a superuser holds all three', caller({ isSuperuser: true }), [], ['change_product', 'delete_product', 'view_product']],
    ['a superuser of another dataspace holds none', caller({ isSuperuser: true, dataspace: 'beta' }), [], []],
    ['a user holds their own grant', caller(), [userGrant('bob', 'view_product')], ['view_product']],
    ['another user grant does not apply', caller(), [userGrant('carol', 'view_product')], []],
    ['a group grant applies to members', caller({ groups: ['legal'] }), [groupGrant('legal', 'change_product')], ['change_product']],
    ['a group grant does not apply to others', caller({ groups: ['eng'] }), [groupGrant('legal', 'view_product')], []],
    ['a group named like the user does not apply', caller(), [groupGrant('bob', 'view_product')], []],
    [
      'direct and group grants add up',
      caller({ groups: ['legal', 'eng'] }),
      [userGrant('bob', 'view_product'), groupGrant('legal', 'change_product'), groupGrant('eng', 'delete_product')],
      ['change_product', 'delete_product', 'view_product'],
    ],
    ['grants of another dataspace never apply', caller({ dataspace: 'beta' }), [userGrant('bob', 'view_product')], []],
  ])('%s', (_, who, grants, expected) => {
    expect([...effectivePermissions(who, product, grants)].sort()).toEqual(expected);
  });
});

describe('access', () => {
  it.each([
    ['view', [], 'not-found'],
    ['view', ['view_product'], 'allowed'],
    ['change', ['change_product'], 'not-found'],
    ['change', ['view_product'], 'forbidden'],
    ['change', ['view_product', 'change_product'], 'allowed'],
    ['delete', ['view_product', 'change_product'], 'forbidden'],
    ['delete', ['view_product', 'delete_product'], 'allowed'],
    ['manage-permissions', ['view_product', 'change_product', 'delete_product'], 'forbidden'],
  ] as const)('%s with %j is %s', (action, permissions, expected) => {
    expect(accessFor(action, caller(), product, [userGrant('bob', ...permissions)])).toBe(expected);
  });

  it('lets the creator who can see the product, and superusers, manage its permissions', () => {
    expect(accessFor('manage-permissions', caller({ username: 'alice' }), product, [userGrant('alice', 'view_product')])).toBe('allowed');
    expect(accessFor('manage-permissions', caller({ username: 'alice' }), product, [])).toBe('not-found');
    expect(accessFor('manage-permissions', caller({ isSuperuser: true }), product, [])).toBe('allowed');
  });
});

describe('permission listing', () => {
  const users = new Map([
    ['alice', { dataspace: 'acme', isSuperuser: false }],
    ['bob', { dataspace: 'acme', isSuperuser: false }],
    ['root', { dataspace: 'acme', isSuperuser: true }],
  ]);

  it('merges direct and group permissions per user, leaves superusers and unknown users out, sorts by name', () => {
    const listing = permissionListing(
      [userGrant('bob', 'view_product'), groupGrant('legal', 'change_product', 'view_product'), userGrant('root', 'view_product'), userGrant('ghost', 'view_product')],
      new Map([['legal', ['alice', 'bob', 'root']]]),
      users,
    );
    expect(listing).toEqual({
      users: [
        { dataspace: 'acme', username: 'alice', object_permissions: ['change_product', 'view_product'] },
        { dataspace: 'acme', username: 'bob', object_permissions: ['change_product', 'view_product'] },
      ],
      groups: [{ name: 'legal', object_permissions: ['change_product', 'view_product'] }],
    });
  });

  it('lists the creator even when a superuser, other superusers not', () => {
    const listing = permissionListing(
      [userGrant('root', 'change_product', 'delete_product', 'view_product'), groupGrant('legal', 'view_product')],
      new Map([['legal', ['bob', 'root']]]),
      users,
      'root',
    );
    expect(listing.users).toEqual([
      { dataspace: 'acme', username: 'bob', object_permissions: ['view_product'] },
      { dataspace: 'acme', username: 'root', object_permissions: ['change_product', 'delete_product', 'view_product'] },
    ]);
    expect(permissionListing([userGrant('root', 'view_product')], new Map(), users, 'alice').users).toEqual([]);
  });
});
