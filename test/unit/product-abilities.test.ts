import { describe, expect, it } from 'vitest';
import { productAbilities } from '../../web/src/lib/product-abilities.ts';

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
