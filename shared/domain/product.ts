/**
 * Products and their object permissions: who may see, change or delete a product, and who may manage
 * its permissions. Pure rules over plain data; the store reads the grants, these functions decide.
 */
import type { Gate } from './portfolio.ts';
import type { Caller } from './caller.ts';

export const PRODUCT_PERMISSIONS = ['view_product', 'change_product', 'delete_product'] as const;
export type ProductPermission = (typeof PRODUCT_PERMISSIONS)[number];

export function isProductPermission(value: string): value is ProductPermission {
  return (PRODUCT_PERMISSIONS as readonly string[]).includes(value);
}

export interface Product {
  readonly uuid: string;
  readonly dataspace: string;
  readonly name: string;
  readonly version: string;
  /** Username of the creator. */
  readonly createdBy: string;
  readonly createdDate: string;
  readonly lastModifiedDate: string;
  /** Bumped by every write to the product or its grants: the optimistic-concurrency token. */
  readonly rev: number;
  /** Its last evaluation's policy status (written with it); absent until the first. */
  readonly gate?: Gate | undefined;
}

export type Principal = { readonly type: 'user' | 'group'; readonly name: string };

export interface Grant {
  readonly principal: Principal;
  /** Sorted, non-empty. */
  readonly permissions: readonly ProductPermission[];
}

/** The codenames the caller holds on the product: directly, through any group, or as a superuser. */
export function effectivePermissions(caller: Caller, product: Product, grants: readonly Grant[]): Set<ProductPermission> {
  if (product.dataspace !== caller.dataspace) return new Set();
  if (caller.isSuperuser) return new Set(PRODUCT_PERMISSIONS);
  const held = new Set<ProductPermission>();
  const groups = new Set(caller.groups);
  for (const grant of grants) {
    const applies =
      grant.principal.type === 'user' ? grant.principal.name === caller.username : groups.has(grant.principal.name);
    if (applies) for (const permission of grant.permissions) held.add(permission);
  }
  return held;
}

/** Which answer a product route gives the caller: a product the caller cannot view does not exist. */
export type Access = 'not-found' | 'forbidden' | 'allowed';

export function accessFor(
  action: 'view' | 'change' | 'delete' | 'manage-permissions',
  caller: Caller,
  product: Product,
  grants: readonly Grant[],
): Access {
  const held = effectivePermissions(caller, product, grants);
  if (!held.has('view_product')) return 'not-found';
  switch (action) {
    case 'view':
      return 'allowed';
    case 'change':
      return held.has('change_product') ? 'allowed' : 'forbidden';
    case 'delete':
      return held.has('delete_product') ? 'allowed' : 'forbidden';
    case 'manage-permissions':
      // Only a superuser and the product's creator, whatever permissions the creator holds now.
      return caller.isSuperuser || caller.username === product.createdBy ? 'allowed' : 'forbidden';
  }
}

export function sortedPermissions(permissions: Iterable<ProductPermission>): ProductPermission[] {
  return [...new Set(permissions)].sort();
}

export interface PermissionListing {
  readonly users: { dataspace: string; username: string; object_permissions: ProductPermission[] }[];
  readonly groups: { name: string; object_permissions: ProductPermission[] }[];
}

/**
 * The permissions endpoint's listing: each non-superuser holding a permission directly or through a
 * group, with their effective codenames, and each group holding one; both sorted by name. The
 * product's creator is listed too when a superuser (the contract: the creator is already in the list).
 */
export function permissionListing(
  grants: readonly Grant[],
  membersOf: ReadonlyMap<string, readonly string[]>,
  users: ReadonlyMap<string, { dataspace: string; isSuperuser: boolean }>,
  createdBy?: string,
): PermissionListing {
  const perUser = new Map<string, Set<ProductPermission>>();
  const add = (username: string, permissions: readonly ProductPermission[]) => {
    const held = perUser.get(username) ?? new Set();
    for (const permission of permissions) held.add(permission);
    perUser.set(username, held);
  };
  const groups: PermissionListing['groups'] = [];
  for (const grant of grants) {
    if (grant.principal.type === 'user') {
      add(grant.principal.name, grant.permissions);
    } else {
      groups.push({ name: grant.principal.name, object_permissions: sortedPermissions(grant.permissions) });
      for (const member of membersOf.get(grant.principal.name) ?? []) add(member, grant.permissions);
    }
  }
  const listed: PermissionListing['users'] = [];
  for (const [username, permissions] of perUser) {
    const user = users.get(username);
    if (!user || (user.isSuperuser && username !== createdBy)) continue;
    listed.push({ dataspace: user.dataspace, username, object_permissions: sortedPermissions(permissions) });
  }
  listed.sort((a, b) => a.username.localeCompare(b.username));
  groups.sort((a, b) => a.name.localeCompare(b.name));
  return { users: listed, groups };
}
