/**
 * Refreshes the reference license library (shared/reference/scancode-licenses.json) from the
 * ScanCode LicenseDB: its index.json plus each license's <key>.json for the names the index lacks,
 * or a bare index file (names then from the SPDX license list, else the key).
 *
 *   npm run refresh:licenses                       # from https://scancode-licensedb.aboutcode.org/
 *   npm run refresh:licenses -- --from ./licensedb/docs   # from a checkout of aboutcode-org/scancode-licensedb
 *   npm run refresh:licenses -- --index scancode-licensedb-index.json   # e.g. from Debian's python3-license-expression
 *
 * The output is sorted by key, one license per line, so a refresh reads as a reviewable diff.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_CATEGORIES } from '../shared/domain/reference-license.ts';
import { REFERENCE_DATA_FILE, type ReferenceRecord } from '../shared/reference/scancode-licensedb.ts';

export type { ReferenceRecord };

const DEFAULT_SOURCE = 'https://scancode-licensedb.aboutcode.org/';
const OUTPUT = fileURLToPath(new URL(`../shared/reference/${REFERENCE_DATA_FILE}`, import.meta.url));

interface IndexEntry {
  license_key: string;
  category: string;
  spdx_license_key: string | null;
  other_spdx_license_keys: string[] | null;
  is_exception: boolean;
  is_deprecated: boolean;
  json: string;
}

async function readSource(source: string, file: string): Promise<unknown> {
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(new URL(file, source.endsWith('/') ? source : `${source}/`), { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
    return response.json();
  }
  return JSON.parse(await readFile(path.join(source, file), 'utf8'));
}

export interface BuildOptions {
  /** Parallel reads of the licenses' own files. */
  readonly concurrency?: number;
  /** A sanity check: an index with fewer entries is not the LicenseDB's (a wrong --from). */
  readonly minEntries?: number;
}

export async function buildReferenceRecords(source: string, { concurrency = 16, minEntries = 1_000 }: BuildOptions = {}): Promise<ReferenceRecord[]> {
  const index = (await readSource(source, 'index.json')) as IndexEntry[];
  if (!Array.isArray(index) || index.length < minEntries) throw new Error(`${source}: index.json does not look like the LicenseDB index.`);
  const records: ReferenceRecord[] = new Array(index.length);
  let next = 0;
  const worker = async () => {
    while (next < index.length) {
      const i = next++;
      const entry = index[i]!;
      const details = (await readSource(source, entry.json)) as { short_name?: string; name?: string };
      records[i] = {
        key: entry.license_key,
        short_name: details.short_name ?? entry.license_key,
        name: details.name ?? details.short_name ?? entry.license_key,
        category: entry.category ?? '',
        spdx_license_key: entry.spdx_license_key ?? '',
        other_spdx_license_keys: (entry.other_spdx_license_keys ?? []).filter((id) => id !== ''),
        is_exception: entry.is_exception === true,
        is_deprecated: entry.is_deprecated === true,
      };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The records of a bare LicenseDB index file, such as the one python3-license-expression ships
 * (license_expression/data/scancode-licensedb-index.json): it has no names, so each license takes the
 * name the SPDX license list gives its SPDX id, or else its key.
 */
export async function buildRecordsFromIndexFile(file: string, { minEntries = 1_000 }: Pick<BuildOptions, 'minEntries'> = {}): Promise<ReferenceRecord[]> {
  const index = JSON.parse(await readFile(file, 'utf8')) as IndexEntry[];
  if (!Array.isArray(index) || index.length < minEntries) throw new Error(`${file} does not look like the LicenseDB index.`);
  const { default: spdxNames } = (await import('spdx-license-list')) as { default: Record<string, { name: string }> };
  return index
    .map((entry): ReferenceRecord => {
      const name = spdxNames[entry.spdx_license_key ?? '']?.name ?? entry.license_key;
      return {
        key: entry.license_key,
        short_name: name,
        name,
        category: entry.category ?? '',
        spdx_license_key: entry.spdx_license_key ?? '',
        other_spdx_license_keys: (entry.other_spdx_license_keys ?? []).filter((id) => id !== ''),
        is_exception: entry.is_exception === true,
        is_deprecated: entry.is_deprecated === true,
      };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function serializeRecords(records: readonly ReferenceRecord[]): string {
  return `[\n${records.map((record) => JSON.stringify(record)).join(',\n')}\n]\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const option = (name: string) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const indexFile = option('--index');
  const source = indexFile ?? option('--from') ?? DEFAULT_SOURCE;
  const records = indexFile ? await buildRecordsFromIndexFile(indexFile) : await buildReferenceRecords(source);
  await writeFile(OUTPUT, serializeRecords(records));
  console.log(`Wrote ${records.length} reference licenses from ${source} to ${path.relative(process.cwd(), OUTPUT)}.`);
  const unknown = newCategories(records);
  if (unknown.length > 0) {
    console.error(`New categories: ${unknown.join(', ')}. Add them to REFERENCE_CATEGORIES in shared/domain/reference-license.ts (licenses may take them).`);
    process.exitCode = 1;
  }
}

/** Categories of the records that REFERENCE_CATEGORIES does not list. */
export function newCategories(records: readonly ReferenceRecord[]): string[] {
  const known = new Set<string>(REFERENCE_CATEGORIES);
  return [...new Set(records.map((record) => record.category))].filter((category) => !known.has(category)).sort();
}
