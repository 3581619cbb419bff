import { describe, expect, it } from 'vitest';
import { mayUpdateRequest, productAbilities } from '../../web/src/lib/abilities.ts';

const product = (user_permissions: string[], created_by = 'alice') => ({ user_permissions, created_by });

describe('productAbilities', () => {
  it('offers what the API says the caller holds, and no more', () => {
    expect(productAbilities(product(['view_product']), { isSuperuser: false, username: 'bob' })).toEqual({ change: false, delete: false, managePermissions: false });
    expect(productAbilities(product(['view_product', 'change_product']), { isSuperuser: false, username: 'bob' })).toEqual({ change: true, delete: false, managePermissions: false });
    expect(productAbilities(product(['view_product', 'delete_product']), { isSuperuser: false, username: 'bob' })).toEqual({ change: false, delete: true, managePermissions: false });
  });

  it('lets the creator and superusers manage permissions, whatever else they hold', () => {
    expect(productAbilities(product(['view_product'], 'bob'), { isSuperuser: false, username: 'bob' }).managePermissions).toBe(true);
    expect(productAbilities(product(['view_product', 'change_product', 'delete_product']), { isSuperuser: true, username: 'root' }).managePermissions).toBe(true);
  });
});

describe('mayUpdateRequest', () => {
  it('lets the requester, the assignee and superusers change a request, as the API does', () => {
    const request = { requester: 'alice', assignee: 'bob' };
    expect(mayUpdateRequest(request, { isSuperuser: false, username: 'alice' })).toBe(true);
    expect(mayUpdateRequest(request, { isSuperuser: false, username: 'bob' })).toBe(true);
    expect(mayUpdateRequest(request, { isSuperuser: true, username: 'root' })).toBe(true);
    expect(mayUpdateRequest(request, { isSuperuser: false, username: 'carol' })).toBe(false);
    expect(mayUpdateRequest({ requester: 'alice', assignee: null }, { isSuperuser: false, username: 'carol' })).toBe(false);
  });
});
