/**
 * The reference license library the service ships: the ScanCode LicenseDB index (see NOTICE.md),
 * indexed once per process on first use.
 */
import data from './scancode-licensedb.json' with { type: 'json' };
import { referenceLibraryOf, type ReferenceLibrary } from '../domain/reference-license.ts';

let library: ReferenceLibrary | undefined;

export function scancodeLibrary(): ReferenceLibrary {
  library ??= referenceLibraryOf(
    data.map((record) => ({
      key: record.key,
      shortName: record.short_name,
      name: record.name,
      category: record.category,
      spdxLicenseKey: record.spdx_license_key,
      otherSpdxLicenseKeys: record.other_spdx_license_keys,
      isException: record.is_exception,
      isDeprecated: record.is_deprecated,
    })),
  );
  return library;
}
