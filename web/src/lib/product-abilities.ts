/**
 * What the signed-in user may do with a product, from the product's `user_permissions` (the API's
 * answer for this caller) and the session: the console offers only these actions, and still shows the
 * API's 403 if a permission was taken away meanwhile.
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
