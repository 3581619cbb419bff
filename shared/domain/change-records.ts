/**
 * Which products a change of the table affects: the mapping from a change record of the table's
 * stream (the outbox) to what the evaluation pipeline must re-evaluate. Pure: it reads the old and
 * new images only; turning a package or a dataspace into its products is the resolver's job
 * (shared/store/change-targets.ts), through indexes.
 *
 * | Change                                              | Affected                          |
 * | --------------------------------------------------- | --------------------------------- |
 * | product created, saved (name, version) or deleted   | that product                      |
 * | package added to or removed from a product, or the  | that product                      |
 * | license concluded for it changed                    |                                   |
 * | analysis created, changed or deleted                | its product                       |
 * | package's license expression, usage policy, or its  | the products holding the package  |
 * | vulnerabilities (linked, unlinked, re-scored)       |                                   |
 * | license's usage policy or category changed, license | every product of the dataspace    |
 * | deleted, or created with a usage policy or category |                                   |
 * | (expressions may name its key as a reference key)   |                                   |
 * | usage policy's alert or content type changed, or    | every product of the dataspace    |
 * | the policy deleted                                  |                                   |
 * | the dataspace's policy rule configuration saved     | every product of the dataspace    |
 * | an SBOM import that wrote something finished        | its product                       |
 *
 * A vulnerability's own item maps to nothing: each package it affects carries the link and score,
 * and those package records map. A grant changes a product's revision only, which maps to nothing.
 *
 * An SBOM import writes thousands of items; each would ask for an evaluation of its product. So its
 * writes are marked (shared/store/sbom-import-store.ts): every item it puts or updates carries a fresh
 * `importWrite` token (and `importProduct`), and every item it deletes is first updated with
 * `removedByImport`. Those records map to nothing for the importing product, and the import's own
 * record, finishing, maps to it once: one evaluation however many components. A package the import
 * changed still maps to the other products that hold it. Any other write of an item (the API's puts
 * drop the token; updates leave it as it was) maps as before.
 */

export type ChangeTarget =
  | { readonly kind: 'product'; readonly dataspace: string; readonly uuid: string }
  /** `exceptProduct`: an SBOM import's change, which that product's import evaluates once at its end. */
  | { readonly kind: 'package'; readonly dataspace: string; readonly uuid: string; readonly exceptProduct?: string }
  | { readonly kind: 'dataspace'; readonly dataspace: string };

type Image = Readonly<Record<string, unknown>>;

export interface ChangeRecord {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly oldImage?: Image | undefined;
  readonly newImage?: Image | undefined;
}

/** The entity types whose changes can affect an evaluation: the stream's filter criteria use these. */
export const EVALUATED_ENTITIES = ['Product', 'ProductPackage', 'Analysis', 'Package', 'License', 'UsagePolicy', 'PolicyConfig', 'SbomImport'] as const;

const changed = (change: ChangeRecord, ...attributes: string[]) =>
  attributes.some((attribute) => JSON.stringify(change.oldImage?.[attribute] ?? null) !== JSON.stringify(change.newImage?.[attribute] ?? null));

/** The import statuses after which an import writes nothing more. */
const FINISHED = ['completed', 'failed'];

/** True when an SBOM import made this change (see the module's head). */
export function byImport(change: ChangeRecord): boolean {
  if (change.eventName === 'REMOVE') return change.oldImage?.removedByImport !== undefined;
  const image = change.newImage;
  if (image?.removedByImport !== undefined) return true;
  return image?.importWrite !== undefined && image.importWrite !== change.oldImage?.importWrite;
}

export function changeTargets(change: ChangeRecord): ChangeTarget[] {
  const image = change.newImage ?? change.oldImage;
  if (!image) return [];
  const dataspace = String(image.dataspace);
  const imported = byImport(change);
  switch (image.entity) {
    case 'SbomImport': {
      const finished = FINISHED.includes(String(change.newImage?.status)) && !FINISHED.includes(String(change.oldImage?.status));
      return finished && change.newImage?.changed === true ? [{ kind: 'product', dataspace, uuid: String(image.productUuid) }] : [];
    }
    case 'Product':
      if (change.eventName === 'MODIFY' && !changed(change, 'name', 'version', 'lastModifiedDate')) return [];
      return [{ kind: 'product', dataspace, uuid: String(image.uuid) }];
    case 'ProductPackage':
      // An import asks once, when it finishes. Otherwise: is_deployed and is_modified change no rule's
      // outcome; the concluded expression does.
      if (imported) return [];
      if (change.eventName === 'MODIFY' && !changed(change, 'licenseExpression')) return [];
      return [{ kind: 'product', dataspace, uuid: String(image.productUuid) }];
    case 'Analysis':
      return imported ? [] : [{ kind: 'product', dataspace, uuid: String(image.productUuid) }];
    case 'Package':
      if (change.eventName !== 'MODIFY' || !changed(change, 'licenseExpression', 'usagePolicy', 'vulnerabilities')) return [];
      return [{ kind: 'package', dataspace, uuid: String(image.uuid), ...(imported ? { exceptProduct: String(image.importProduct) } : {}) }];
    case 'License':
      // A new license matters when expressions may already name its key (a reference license adopted
      // now) and it carries what the rules read: a usage policy, or a category of its own.
      if (change.eventName === 'INSERT' && !image.usagePolicy && !image.category) return [];
      if (change.eventName === 'MODIFY' && !changed(change, 'usagePolicy', 'key', 'category')) return [];
      return [{ kind: 'dataspace', dataspace }];
    case 'UsagePolicy':
      if (change.eventName === 'INSERT' || (change.eventName === 'MODIFY' && !changed(change, 'complianceAlert', 'contentType', 'label'))) return [];
      return [{ kind: 'dataspace', dataspace }];
    case 'PolicyConfig':
      return change.eventName === 'MODIFY' && !changed(change, 'rules') ? [] : [{ kind: 'dataspace', dataspace }];
    default:
      return [];
  }
}
