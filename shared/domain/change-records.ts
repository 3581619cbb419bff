/**
 * Which products a change of the table affects: the mapping from a change record of the table's
 * stream (the outbox) to what the evaluation pipeline must re-evaluate. Pure: it compares the domain
 * records before and after the change, which the stores that own the items decode from the stream's
 * images (shared/store/change-targets.ts); turning a package or a dataspace into its products is the
 * resolver's job there too, through indexes.
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
 * | a policy waiver made, revoked, or marked expired    | its product                       |
 *
 * A vulnerability's own item maps to nothing: each package it affects carries the link and score,
 * and those package records map. A grant changes a product's revision only, which maps to nothing.
 *
 * An SBOM import writes thousands of items; each would ask for an evaluation of its product. So its
 * writes are marked (ImportMarks, which shared/store/sbom-import-store.ts writes and decodes): every
 * item it puts or updates carries a fresh write token (and the importing product), and every item it
 * deletes is first updated with a removal mark. Those records map to nothing for the importing
 * product, and the import's own record, finishing, maps to it once: one evaluation however many
 * components. A package the import changed still maps to the other products that hold it. Any other
 * write of an item (the API's puts drop the token; updates leave it as it was) maps as before.
 */

import type { Analysis, License, Package, ProductPackage, UsagePolicy } from './catalog.ts';
import type { PolicyConfig } from './policy-rules.ts';
import type { WaiverRecord } from './policy-waivers.ts';
import type { Product } from './product.ts';
import type { SbomImport } from './sbom-import.ts';

export type ChangeTarget =
  | { readonly kind: 'product'; readonly dataspace: string; readonly uuid: string }
  /** `exceptProduct`: an SBOM import's change, which that product's import evaluates once at its end. */
  | { readonly kind: 'package'; readonly dataspace: string; readonly uuid: string; readonly exceptProduct?: string }
  | { readonly kind: 'dataspace'; readonly dataspace: string };

/** How an SBOM import marked one version of an item (see the module's head). */
export interface ImportMarks {
  /** The token of the import write that wrote this version. */
  readonly write?: string | undefined;
  /** The product the import that wrote it imports into. */
  readonly product?: string | undefined;
  /** The import about to delete the item. */
  readonly removal?: string | undefined;
}

/** One version of the changed item (before or after the change): its domain record and import marks. */
export interface Version<T> {
  readonly record: T;
  readonly marks: ImportMarks;
}

/** A dataspace's policy rule configuration. */
export interface DataspaceConfig {
  readonly dataspace: string;
  readonly config: PolicyConfig;
}

/** An import record with whether the import wrote anything (its finishing then asks for an evaluation). */
export type ImportOutcome = SbomImport & { readonly changed: boolean };

export type EventName = 'INSERT' | 'MODIFY' | 'REMOVE';

interface Change<E extends string, T> {
  readonly entity: E;
  readonly eventName: EventName;
  /** Absent for an INSERT. */
  readonly before?: Version<T> | undefined;
  /** Absent for a REMOVE. */
  readonly after?: Version<T> | undefined;
}

/** A change of the table, as the domain reads it: the entity changed, before and after. */
export type ChangeRecord =
  | Change<'Product', Product>
  | Change<'ProductPackage', ProductPackage>
  | Change<'Analysis', Analysis>
  | Change<'Package', Package>
  | Change<'License', License>
  | Change<'UsagePolicy', UsagePolicy>
  | Change<'PolicyConfig', DataspaceConfig>
  | Change<'SbomImport', ImportOutcome>
  | Change<'PolicyWaiver', WaiverRecord>
  /** A change of an item no evaluation reads. */
  | { readonly entity: 'other'; readonly eventName: EventName };

/** The entity types whose changes can affect an evaluation: the stream's filter criteria use these. */
export const EVALUATED_ENTITIES = ['Product', 'ProductPackage', 'Analysis', 'Package', 'License', 'UsagePolicy', 'PolicyConfig', 'SbomImport', 'PolicyWaiver'] as const satisfies readonly Exclude<ChangeRecord['entity'], 'other'>[];

/** The record after the change, or before it when it was removed. */
function latest<T>(change: Change<string, T>): T {
  return (change.after ?? change.before)!.record;
}

/** True when a field differs between the two versions (a version absent has none of them). */
function changed<T>(change: Change<string, T>, ...fields: (keyof T)[]): boolean {
  return fields.some((field) => JSON.stringify(change.before?.record[field] ?? null) !== JSON.stringify(change.after?.record[field] ?? null));
}

/** The import statuses after which an import writes nothing more. */
const FINISHED: readonly string[] = ['completed', 'failed'];

/** True when an SBOM import made this change (see the module's head). */
export function byImport(change: ChangeRecord): boolean {
  if (change.entity === 'other') return false;
  if (change.eventName === 'REMOVE') return change.before?.marks.removal !== undefined;
  const marks = change.after?.marks;
  if (marks?.removal !== undefined) return true;
  return marks?.write !== undefined && marks.write !== change.before?.marks.write;
}

export function changeTargets(change: ChangeRecord): ChangeTarget[] {
  if (change.entity === 'other') return [];
  const current = change.after ?? change.before;
  if (!current) return [];
  const { dataspace } = current.record;
  const imported = byImport(change);
  switch (change.entity) {
    case 'SbomImport': {
      const finished = FINISHED.includes(String(change.after?.record.status)) && !FINISHED.includes(String(change.before?.record.status));
      return finished && change.after?.record.changed === true ? [{ kind: 'product', dataspace, uuid: change.after.record.productUuid }] : [];
    }
    case 'Product':
      if (change.eventName === 'MODIFY' && !changed(change, 'name', 'version', 'lastModifiedDate')) return [];
      return [{ kind: 'product', dataspace, uuid: latest(change).uuid }];
    case 'ProductPackage':
      // An import asks once, when it finishes. Otherwise: is_deployed and is_modified change no rule's
      // outcome; the concluded expression does.
      if (imported) return [];
      if (change.eventName === 'MODIFY' && !changed(change, 'licenseExpression')) return [];
      return [{ kind: 'product', dataspace, uuid: latest(change).productUuid }];
    case 'Analysis':
      return imported ? [] : [{ kind: 'product', dataspace, uuid: latest(change).productUuid }];
    case 'Package':
      if (change.eventName !== 'MODIFY' || !changed(change, 'licenseExpression', 'usagePolicy', 'vulnerabilities')) return [];
      return [{ kind: 'package', dataspace, uuid: latest(change).uuid, ...(imported ? { exceptProduct: String(current.marks.product) } : {}) }];
    case 'License':
      // A new license matters when expressions may already name its key (a reference license adopted
      // now) and it carries what the rules read: a usage policy, or a category of its own.
      if (change.eventName === 'INSERT' && !latest(change).usagePolicy && !latest(change).category) return [];
      if (change.eventName === 'MODIFY' && !changed(change, 'usagePolicy', 'key', 'category')) return [];
      return [{ kind: 'dataspace', dataspace }];
    case 'UsagePolicy':
      if (change.eventName === 'INSERT' || (change.eventName === 'MODIFY' && !changed(change, 'complianceAlert', 'contentType', 'label'))) return [];
      return [{ kind: 'dataspace', dataspace }];
    case 'PolicyConfig':
      return change.eventName === 'MODIFY' && !changed(change, 'config') ? [] : [{ kind: 'dataspace', dataspace }];
    case 'PolicyWaiver':
      // Made, revoked, or marked expired (the expiry job): the product is judged again. A removal is its
      // product's deletion, or the TTL of a waiver revoked a week ago: nothing to judge.
      if (change.eventName === 'REMOVE') return [];
      if (change.eventName === 'MODIFY' && !changed(change, 'revokedDate', 'expiredDate')) return [];
      return [{ kind: 'product', dataspace, uuid: latest(change).productUuid }];
  }
}
