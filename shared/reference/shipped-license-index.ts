/**
 * The license index of a dataspace as the service resolves with it: the dataspace's licenses and license
 * mappings over the shipped reference library and ScanCode's rules. One factory, so that API writes, SBOM
 * imports and re-resolution read a license as written the same way.
 */
import type { DataspaceLicense, DataspaceLicenseIndex } from '../domain/license-index.ts';
import { buildLicenseIndex } from '../domain/license-index.ts';
import type { LicenseKnowledge } from '../domain/license-knowledge.ts';
import { mappingRule, type LicenseMapping } from '../domain/license-mapping.ts';
import type { ReferenceLibrary } from '../domain/reference-license.ts';
import { scancodeLibrary } from './scancode-licensedb.ts';
import { scancodeKnowledge } from './scancode-rules.ts';

export interface ShippedData {
  /** The reference library; the shipped one by default. */
  readonly library?: ReferenceLibrary;
  /** ScanCode's rules; the shipped index (read on first use) by default. */
  readonly knowledge?: LicenseKnowledge;
}

export function shippedLicenseIndex(licenses: readonly DataspaceLicense[], mappings: readonly LicenseMapping[], data: ShippedData = {}): DataspaceLicenseIndex {
  return buildLicenseIndex(licenses, data.library ?? scancodeLibrary(), { knowledge: data.knowledge ?? scancodeKnowledge(), mappings: mappings.map(mappingRule) });
}
