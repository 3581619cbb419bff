/**
 * The reference license library the service ships: the ScanCode LicenseDB index (see NOTICE.md), read
 * and indexed once per process, on first use.
 *
 * The data is a file beside this module, read at run time, not imported: bundled as a module it would
 * add 616 KB of minified JavaScript to every function that names the library (the catalog's bundle
 * would pass 1 MB). The CDK function construct copies the file next to each bundle (index.mjs), so the
 * same relative URL finds it in the source tree and in a Lambda package (docs/reference-licenses.md).
 */
import { readFileSync } from 'node:fs';
import { referenceLibraryOf, type ReferenceCategory, type ReferenceLibrary } from '../domain/reference-license.ts';

/** The file's name, here and next to each Lambda bundle. */
export const REFERENCE_DATA_FILE = 'scancode-licenses.json';

/** One reference license as the data file stores it (the API's field names). */
export interface ReferenceRecord {
  key: string;
  short_name: string;
  name: string;
  category: string;
  spdx_license_key: string;
  other_spdx_license_keys: string[];
  is_exception: boolean;
  is_deprecated: boolean;
}

/** The data file's records, as stored. */
export function readReferenceRecords(file: URL = new URL(`./${REFERENCE_DATA_FILE}`, import.meta.url)): ReferenceRecord[] {
  return JSON.parse(readFileSync(file, 'utf8')) as ReferenceRecord[];
}

let library: ReferenceLibrary | undefined;

export function scancodeLibrary(): ReferenceLibrary {
  library ??= referenceLibraryOf(
    readReferenceRecords().map((record) => ({
      key: record.key,
      shortName: record.short_name,
      name: record.name,
      // The data holds only REFERENCE_CATEGORIES: test/unit/reference-licenses-data.test.ts checks it, and
      // the refresh script names any new one.
      category: record.category as ReferenceCategory,
      spdxLicenseKey: record.spdx_license_key,
      otherSpdxLicenseKeys: record.other_spdx_license_keys,
      isException: record.is_exception,
      isDeprecated: record.is_deprecated,
    })),
  );
  return library;
}
