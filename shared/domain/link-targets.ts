/**
 * Which table changes call for matching packages against the published advisories again
 * (shared/services/advisory-links.ts): a package written with a new purl, and an advisory's package
 * item loaded, changed or dropped. Read by the stream router, so kept free of the matching itself. Pure.
 */

/** What the stream's change of one item asks the linker to do. */
export type LinkTarget =
  /** Relink these packages (created, or their purl changed) against the advisories of their key. */
  | { readonly kind: 'package'; readonly dataspace: string; readonly uuid: string }
  /** Relink every package of this key (an advisory naming it was loaded, changed, withdrawn or dropped it). */
  | { readonly kind: 'advisoryKey'; readonly packageKey: string; readonly advisoryId?: string };

/** One version of a changed item, as linking reads it (the store decodes the stream's images). */
export interface LinkImage {
  readonly entity: string;
  readonly dataspace?: string;
  readonly uuid?: string;
  readonly version?: string;
  /** A package's OSV package key; an advisory package item's key. */
  readonly packageKey?: string;
  /** An advisory package item: its advisory's id. */
  readonly advisoryId?: string;
}

/** Which relinking a change of the table calls for (none for most). */
export function linkTargets(before: LinkImage | undefined, after: LinkImage | undefined): LinkTarget[] {
  const current = after ?? before;
  if (!current) return [];
  if (current.entity === 'AdvisoryPackage') {
    // Loads write a record's package items only when the record changed, and DynamoDB streams no write
    // that changes nothing: every record of one is a change to match again.
    return current.packageKey ? [{ kind: 'advisoryKey', packageKey: current.packageKey, ...(current.advisoryId ? { advisoryId: current.advisoryId } : {}) }] : [];
  }
  if (current.entity === 'Package') {
    // A deleted package takes its links with it (the catalog refuses to delete one that has any).
    if (!after || !after.uuid || !after.dataspace) return [];
    const keyed = before?.packageKey !== after.packageKey || before?.version !== after.version;
    // A new package with no key has nothing to match; one that lost its key must lose what matching linked.
    if (!keyed || (!before && !after.packageKey)) return [];
    return [{ kind: 'package', dataspace: after.dataspace, uuid: after.uuid }];
  }
  return [];
}
