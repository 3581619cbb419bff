/**
 * The products service: what each product route does, in domain words. Visibility and permissions
 * are decided by shared/domain/product.ts; this module reads, decides, writes and shapes the answer.
 */
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import {
  accessFor,
  effectivePermissions,
  permissionListing,
  PRODUCT_PERMISSIONS,
  sortedPermissions,
  type Grant,
  type PermissionListing,
  type Principal,
  type Product,
  type ProductPermission,
} from '../domain/product.ts';
import type { Page } from '../domain/pagination.ts';
import { isUuid } from '../domain/identifiers.ts';
import { canonicalName } from '../domain/text.ts';
import { searchTerms } from '../domain/search.ts';
import { isoWithOffset } from '../domain/time.ts';
import { paginate } from './paginate.ts';
import type { Gate, GateFilter } from '../domain/portfolio.ts';
import { isProductRace, type ProductStore } from '../store/product-store.ts';
import type { IdentityStore } from '../store/identity-store.ts';
import { isTransactionConflict, retryOnConflict } from '../store/dynamo.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';

export interface ProductView {
  readonly uuid: string;
  readonly api_url: string;
  readonly name: string;
  readonly version: string;
  readonly created_by: string;
  readonly dataspace: string;
  readonly created_date: string;
  readonly last_modified_date: string;
  /** The last evaluation's policy status; null until the first. */
  readonly gate: Gate | null;
  /**
   * The caller's object permissions on the product, directly or through a group (all three for a
   * superuser), in PRODUCT_PERMISSIONS order: what a client may offer the caller to do.
   */
  readonly user_permissions: ProductPermission[];
}

export interface ProductServiceDeps {
  readonly products: ProductStore;
  readonly identity: IdentityStore;
  readonly now: () => Date;
  readonly newUuid: () => string;
}

export function productUrl(baseUrl: string, uuid: string): string {
  return `${baseUrl}/api/v2/products/${uuid}/`;
}

/** The caller's permissions in PRODUCT_PERMISSIONS order (view, change, delete), as `user_permissions` answers them. */
export function orderedPermissions(held: ReadonlySet<ProductPermission>): ProductPermission[] {
  return PRODUCT_PERMISSIONS.filter((permission) => held.has(permission));
}

export function productView(product: Product, baseUrl: string, permissions: ReadonlySet<ProductPermission>): ProductView {
  return {
    uuid: product.uuid,
    api_url: productUrl(baseUrl, product.uuid),
    name: product.name,
    version: product.version,
    created_by: product.createdBy,
    dataspace: product.dataspace,
    created_date: product.createdDate,
    last_modified_date: product.lastModifiedDate,
    gate: product.gate ?? null,
    user_permissions: orderedPermissions(permissions),
  };
}

/** What writes of one product and of what it holds queue on in this process (retryOnConflict's key). */
export const productKey = (uuid: string) => `product#${uuid.toLowerCase()}`;

/**
 * A product's entity tag: its revision, which moves with its own fields and also with its grants and
 * the packages and analyses it holds (those writes are serialised with it on the same revision).
 */
export const productTag = (product: Product) => entityTag(product.rev);

/** The view of one product, carrying its entity tag. */
function taggedView(product: Product, baseUrl: string, permissions: ReadonlySet<ProductPermission>): ProductView {
  return tagged(productView(product, baseUrl, permissions), productTag(product));
}

export function principalsOf(caller: Caller): Principal[] {
  return [{ type: 'user', name: caller.username }, ...caller.groups.map((name) => ({ type: 'group' as const, name }))];
}

type Action = Parameters<typeof accessFor>[0];

export class ProductService {
  constructor(private readonly deps: ProductServiceDeps) {}

  /** The product, if the caller may do `action` on it; otherwise 404 (cannot see it) or 403. */
  async authorize(caller: Caller, uuid: string, action: Action): Promise<Product> {
    return (await this.authorized(caller, uuid, action)).product;
  }

  /** As authorize, with the caller's permissions on the product (read with it: no other call). */
  private async authorized(caller: Caller, uuid: string, action: Action): Promise<{ product: Product; permissions: Set<ProductPermission> }> {
    if (!isUuid(uuid)) throw new NotFoundError();
    const id = uuid.toLowerCase();
    const found = caller.isSuperuser
      ? await this.deps.products.get(id).then((product) => product && { product, grants: [] })
      : await this.deps.products.getWithGrants(id, principalsOf(caller));
    if (!found) throw new NotFoundError();
    switch (accessFor(action, caller, found.product, found.grants)) {
      case 'not-found':
        throw new NotFoundError();
      case 'forbidden':
        throw new ForbiddenError();
      case 'allowed':
        return { product: found.product, permissions: effectivePermissions(caller, found.product, found.grants) };
    }
  }

  async list(caller: Caller, query: Record<string, string | undefined>, listUrl: URL, baseUrl: string): Promise<Page<ProductView>> {
    // An empty filter is no filter, as django-filter treats it.
    // Names are stored in NFC (shared/domain/text.ts): a filter in another form finds them too.
    const filters = {
      name: query.name ? canonicalName(query.name) : undefined,
      version: query.version ? canonicalName(query.version) : undefined,
      search: searchTerms(query),
      // Checked at the edge (shared/schemas/product.ts); empty is no filter.
      gate: query.gate ? (query.gate as GateFilter) : undefined,
    };
    // Longer than a name or version can be: nothing matches (and nothing that long reaches a key).
    const impossible = (filters.name?.length ?? 0) > 70 || (filters.version?.length ?? 0) > 50;
    return paginate(
      query,
      listUrl,
      async (offset, limit) => {
        if (impossible) return { count: 0, items: [] };
        if (caller.isSuperuser) {
          const { count, products } = await this.deps.products.listDataspace(caller.dataspace, filters, offset, limit);
          const all = new Set(PRODUCT_PERMISSIONS);
          return { count, items: products.map((product) => ({ product, permissions: all })) };
        }
        const { count, products } = await this.deps.products.listViewable(caller.dataspace, principalsOf(caller), filters, offset, limit);
        return { count, items: products.map(({ product, grants }) => ({ product, permissions: effectivePermissions(caller, product, grants) })) };
      },
      ({ product, permissions }) => productView(product, baseUrl, permissions),
    );
  }

  /** Every product the caller can see (their viewer index entries, never the whole dataspace). */
  async visibleProductUuids(caller: Caller): Promise<string[]> {
    return this.deps.products.viewableUuids(caller.dataspace, principalsOf(caller));
  }

  /**
   * Every product of the dataspace the caller may view: a superuser's, the dataspace's list (its uuids,
   * a page of keys at a time); anyone else's, their viewer index entries.
   */
  async viewableProductUuids(caller: Caller): Promise<string[]> {
    if (!caller.isSuperuser) return this.visibleProductUuids(caller);
    const uuids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.products.uuidsOfDataspacePage(caller.dataspace, cursor, 1_000);
      uuids.push(...page.uuids);
      cursor = page.next;
    } while (cursor !== undefined);
    return uuids;
  }

  /** The products of these uuids that still exist (one GetItem each), for their names. */
  async productsOf(uuids: readonly string[]): Promise<Product[]> {
    const found = await Promise.all([...new Set(uuids)].map((uuid) => this.deps.products.get(uuid)));
    return found.filter((product): product is Product => product !== undefined);
  }

  async create(caller: Caller, input: { name: string; version: string }, baseUrl: string): Promise<ProductView> {
    const now = isoWithOffset(this.deps.now());
    const product: Product = {
      uuid: this.deps.newUuid(),
      dataspace: caller.dataspace,
      name: input.name,
      version: input.version,
      createdBy: caller.username,
      createdDate: now,
      lastModifiedDate: now,
      rev: 0,
    };
    // Creates in one dataspace share its count item: a lost transaction race is simply run again.
    await retryOnConflict(
      () =>
        this.deps.products.create(product, {
          principal: { type: 'user', name: caller.username },
          permissions: sortedPermissions(['view_product', 'change_product', 'delete_product']),
        }),
      isTransactionConflict,
    );
    // The creator's grant: all three (a superuser holds them anyway).
    return taggedView({ ...product, rev: 1 }, baseUrl, new Set(PRODUCT_PERMISSIONS));
  }

  async retrieve(caller: Caller, uuid: string, baseUrl: string): Promise<ProductView> {
    const { product, permissions } = await this.authorized(caller, uuid, 'view');
    return taggedView(product, baseUrl, permissions);
  }

  /**
   * `changes` is read once access is granted: 404 and 403 come before any 400, as in DRF. With
   * If-Match, a product whose ETag moved since the client read it is a 412 and nothing is written.
   */
  async update(
    caller: Caller,
    uuid: string,
    readChanges: () => { name?: string; version?: string },
    baseUrl: string,
    ifMatch?: IfMatch,
  ): Promise<ProductView> {
    let held = new Set<ProductPermission>();
    const updated = await retryOnConflict(async () => {
      const { product: before, permissions } = await this.authorized(caller, uuid, 'change');
      held = permissions;
      requireMatch(ifMatch, productTag(before));
      const changes = readChanges();
      const after: Product = {
        ...before,
        name: changes.name ?? before.name,
        version: changes.version ?? before.version,
        lastModifiedDate: isoWithOffset(this.deps.now()),
      };
      const renamed = after.name !== before.name || after.version !== before.version;
      const grants = renamed ? await this.deps.products.listGrants(before.uuid) : [];
      const rev = await this.deps.products.update(before, after, grants);
      return { ...after, rev };
    }, isProductRace, { key: productKey(uuid) });
    return taggedView(updated, baseUrl, held);
  }

  async destroy(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const product = await this.authorize(caller, uuid, 'delete');
      requireMatch(ifMatch, productTag(product));
      await this.deps.products.delete(product);
    }, isProductRace, { key: productKey(uuid) });
  }

  async permissions(caller: Caller, uuid: string): Promise<PermissionListing> {
    const product = await this.authorize(caller, uuid, 'manage-permissions');
    const grants = await this.deps.products.listGrants(product.uuid);
    const groups = grants.filter((grant) => grant.principal.type === 'group').map((grant) => grant.principal.name);
    const members = await Promise.all(groups.map((group) => this.deps.identity.listMembers(product.dataspace, group)));
    const membersOf = new Map(groups.map((group, i) => [group, members[i]!]));
    const usernames = [
      ...grants.filter((grant) => grant.principal.type === 'user').map((grant) => grant.principal.name),
      ...members.flat(),
    ];
    const users = await this.deps.identity.getUsers(usernames);
    return permissionListing(
      grants,
      membersOf,
      new Map(users.filter((user) => user.dataspace === product.dataspace).map((user) => [user.username, user])),
      product.createdBy,
    );
  }

  /**
   * Grants (`assign`) or revokes (`remove`) codenames for one user or group: all of them or none.
   * The change is read, and its user or group looked up, only once access is granted.
   */
  async changePermissions(
    caller: Caller,
    uuid: string,
    readChange: () => { user?: string | undefined; group?: string | undefined; permissions: ProductPermission[] },
    mode: 'assign' | 'remove',
  ): Promise<void> {
    let principal: Principal | undefined;
    await retryOnConflict(async () => {
      const product = await this.authorize(caller, uuid, 'manage-permissions');
      const change = readChange();
      principal ??= await this.principalIn(caller.dataspace, change);
      const current = (await this.deps.products.listGrants(product.uuid)).find(
        (grant) => grant.principal.type === principal!.type && grant.principal.name === principal!.name,
      );
      const held = new Set<ProductPermission>(current?.permissions ?? []);
      for (const permission of change.permissions) {
        if (mode === 'assign') held.add(permission);
        else held.delete(permission);
      }
      const permissions = sortedPermissions(held);
      if (sameGrant(current, permissions)) return;
      await this.deps.products.setGrant(product, principal, permissions);
    }, isProductRace, { key: productKey(uuid) });
  }

  /** The named user or group, which must exist in the dataspace (a field error otherwise). */
  private async principalIn(dataspace: string, change: { user?: string | undefined; group?: string | undefined }): Promise<Principal> {
    if (change.user !== undefined) {
      const user = await this.deps.identity.getUser(change.user);
      if (!user || user.dataspace !== dataspace) {
        throw new ValidationError({ user: [`User "${change.user}" does not exist in this dataspace.`] }, true);
      }
      return { type: 'user', name: user.username };
    }
    const group = await this.deps.identity.getGroup(dataspace, change.group!);
    if (!group) throw new ValidationError({ group: [`Group "${change.group}" does not exist in this dataspace.`] }, true);
    return { type: 'group', name: group.name };
  }
}

function sameGrant(current: Grant | undefined, permissions: readonly ProductPermission[]): boolean {
  const before = current?.permissions ?? [];
  return before.length === permissions.length && before.every((permission, i) => permission === permissions[i]);
}
