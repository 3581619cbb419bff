/**
 * What the signed-in user may do with an object, so that the console offers only those actions (and
 * still shows the API's 403 if a permission was taken away meanwhile): a product from its
 * `user_permissions` (the API's answer for this caller), a request by the API's rule for it.
 */
import type { Session } from '../session.ts';

export interface ProductAbilities {
  /** Upload an SBOM, add packages, waive or re-evaluate, edit: `change_product`. */
  readonly change: boolean;
  readonly delete: boolean;
  /** The Permissions tab: superusers and the product's creator (the API's rule). */
  readonly managePermissions: boolean;
}

export function productAbilities(
  product: { readonly user_permissions: readonly string[]; readonly created_by: string },
  session: Pick<Session, 'isSuperuser' | 'username'>,
): ProductAbilities {
  const held = new Set(product.user_permissions);
  return {
    change: held.has('change_product'),
    delete: held.has('delete_product'),
    managePermissions: session.isSuperuser || product.created_by === session.username,
  };
}

/**
 * Whether the user may change a request (its status, priority, assignee): a superuser, its requester or
 * its assignee, as the API decides (shared/domain/request.ts canUpdate). Anyone who sees it may comment.
 */
export function mayUpdateRequest(
  request: { readonly requester: string; readonly assignee: string | null },
  session: Pick<Session, 'isSuperuser' | 'username'>,
): boolean {
  return session.isSuperuser || request.requester === session.username || request.assignee === session.username;
}
