/**
 * The reference license library the service ships: the ScanCode LicenseDB index (see NOTICE.md),
 * read and indexed once per process on first use.
 *
 * The data is read from its file, not imported: bundled into each function that resolves license
 * expressions it would add 675 kB to the bundle (over the 1 MB budget of test/infra/bundling.test.ts)
 * and parse time to every cold start, used or not. The file sits beside this module in the source
 * tree and beside the bundle once bundled (lib/constructs/service-function.ts copies it there).
 */
import { readFileSync } from 'node:fs';
import { referenceLibraryOf, type ReferenceLibrary } from '../domain/reference-license.ts';

export const SCANCODE_LICENSEDB_FILE = 'scancode-licensedb.json';

/** One license as the data file stores it (the API's field names; bin/refresh-reference-licenses.ts writes it). */
interface Record {
  readonly key: string;
  readonly short_name: string;
  readonly name: string;
  readonly category: string;
  readonly spdx_license_key: string;
  readonly other_spdx_license_keys: readonly string[];
  readonly is_exception: boolean;
  readonly is_deprecated: boolean;
}

let library: ReferenceLibrary | undefined;

export function scancodeLibrary(): ReferenceLibrary {
  if (!library) {
    const data = JSON.parse(readFileSync(new URL(`./${SCANCODE_LICENSEDB_FILE}`, import.meta.url), 'utf8')) as Record[];
    library = referenceLibraryOf(
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
  }
  return library;
}
