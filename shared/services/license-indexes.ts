/**
 * License expressions of a dataspace, resolved and rendered: the LicenseIndex of a dataspace (its
 * own licenses, read once, and the reference library), the resolution of many texts with one read,
 * and the SPDX form of stored expressions with one batched read per page. Package writes, product
 * packages and the SBOM import all resolve through here, so an expression means the same everywhere.
 */
import type { License } from '../domain/catalog.ts';
import { buildLicenseIndex, licenseSpdxKey, type DataspaceLicenseIndex } from '../domain/license-index.ts';
import { canonicalToSpdx, resolveLicenseExpression, type ResolvedExpression } from '../domain/license-resolution.ts';
import type { ReferenceLibrary } from '../domain/reference-license.ts';
import { scancodeLibrary } from '../reference/scancode-licensedb.ts';
import { scancodeKnowledge } from '../reference/scancode-rules.ts';
import { shippedLicenseIndex } from '../reference/shipped-license-index.ts';
import type { LicenseKnowledge } from '../domain/license-knowledge.ts';
import type { CatalogStore } from '../store/catalog-store.ts';

export class LicenseIndexes {
  constructor(
    private readonly catalog: CatalogStore,
    readonly library: ReferenceLibrary = scancodeLibrary(),
    /** ScanCode's rules (about 2.4 MB of data): read on the first resolution, not when a function starts. */
    private readonly knowledge: () => LicenseKnowledge = scancodeKnowledge,
  ) {}

  /**
   * The dataspace's licenses (one paged Query of its license index, eventually consistent) with the
   * reference library, its license mappings (one more Query, of a few items) and ScanCode's rules. A
   * license deleted a moment ago may still be in it: a write that counts a use of it then fails its
   * condition and is retried from a fresh read (shared/store/catalog-store.ts).
   */
  async forDataspace(dataspace: string): Promise<DataspaceLicenseIndex> {
    const [licenses, mappings] = await Promise.all([this.catalog.licenses.all(dataspace), this.catalog.licenseMappings.all(dataspace)]);
    return shippedLicenseIndex(licenses, mappings, { library: this.library, knowledge: this.knowledge() });
  }

  /** The dataspace's licenses and the reference library only: what reads keys and SPDX ids, and nothing else (a mapping's expression). */
  async keysOf(dataspace: string): Promise<DataspaceLicenseIndex> {
    return buildLicenseIndex(await this.catalog.licenses.all(dataspace), this.library);
  }

  /** Resolves each text for the dataspace, reading its licenses once (an SBOM's N expressions, one read). */
  async resolve(dataspace: string, texts: readonly string[]): Promise<ResolvedExpression[]> {
    const index = await this.forDataspace(dataspace);
    return texts.map((text) => resolveLicenseExpression(text, index));
  }

  /**
   * A renderer of stored canonical expressions in SPDX form, with the keys' SPDX ids as they are now
   * (the dataspace license's SPDX key, else the reference's, else LicenseRef-dejacode-<key>): one
   * batched read of the licenses the expressions name, whatever their number.
   */
  async spdxRenderer(dataspace: string, expressions: readonly { readonly licenseKeys: readonly string[] }[]): Promise<(expression: string) => string> {
    const keys = [...new Set(expressions.flatMap((e) => e.licenseKeys))];
    const licenses: Map<string, License> = keys.length > 0 ? await this.catalog.licenses.getByUnique(dataspace, keys) : new Map();
    return (expression) => canonicalToSpdx(expression, (key) => licenseSpdxKey(key, licenses.get(key), this.library));
  }
}
