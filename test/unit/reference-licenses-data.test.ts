/**
 * The shipped reference data (shared/reference/scancode-licenses.json) and the script that writes it
 * (bin/refresh-reference-licenses.ts), run here on a small LicenseDB-shaped directory.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReferenceRecords, newCategories, serializeRecords } from '../../bin/refresh-reference-licenses.ts';
import { REFERENCE_CATEGORIES } from '../../shared/domain/reference-license.ts';
import { REFERENCE_DATA_FILE, readReferenceRecords, scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { LicenseBodies } from '../../shared/schemas/catalog.ts';

const dataFile = join(import.meta.dirname, '..', '..', 'shared', 'reference', REFERENCE_DATA_FILE);
const records = readReferenceRecords();

describe('the shipped reference data', () => {
  it('is exactly what the refresh script writes for its records: sorted by key, one license a line', () => {
    const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    expect(records.map((r) => r.key)).toEqual(sorted.map((r) => r.key));
    expect(new Set(records.map((r) => r.key)).size).toBe(records.length);
    expect(readFileSync(dataFile, 'utf8')).toBe(serializeRecords(records));
  });

  it('has exactly the categories REFERENCE_CATEGORIES lists', () => {
    expect([...new Set(records.map((r) => r.category))].sort()).toEqual([...REFERENCE_CATEGORIES].sort());
    expect(newCategories(records)).toEqual([]);
  });

  it('holds only licenses a dataspace can adopt as they are: each passes the license body schema', () => {
    const refused = records.filter(
      (r) =>
        !LicenseBodies.create.safeParse({
          key: r.key,
          name: r.name,
          short_name: r.short_name,
          spdx_license_key: r.spdx_license_key,
          category: r.category,
          is_exception: r.is_exception,
        }).success,
    );
    expect(refused.map((r) => r.key)).toEqual([]);
  });

  it('is what the library indexes', () => {
    const library = scancodeLibrary();
    expect(library.all.length).toBe(records.length);
    expect(library.byKey('Apache-2.0')?.spdxLicenseKey).toBe('Apache-2.0');
    expect(library.bySpdxId('gpl-2.0+')?.key).toBe('gpl-2.0-plus');
  });
});

describe('buildReferenceRecords', () => {
  const dir = mkdtempSync(join(tmpdir(), 'licensedb-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (key: string, fields: Record<string, unknown>) => ({
    license_key: key,
    category: 'Permissive',
    spdx_license_key: null,
    other_spdx_license_keys: [],
    is_exception: false,
    is_deprecated: false,
    json: `${key}.json`,
    yaml: `${key}.yml`,
    html: `${key}.html`,
    license: `${key}.LICENSE`,
    ...fields,
  });
  // As the LicenseDB's docs/ folder has them: index.json, and one <key>.json per license, out of key order.
  writeFileSync(
    join(dir, 'index.json'),
    JSON.stringify([
      entry('zlib', { spdx_license_key: 'Zlib', other_spdx_license_keys: ['LicenseRef-zlib', ''] }),
      entry('classpath-exception-2.0', { category: 'Copyleft Limited', spdx_license_key: 'Classpath-exception-2.0', is_exception: true }),
      entry('old-one', { category: 'Proprietary Free', other_spdx_license_keys: null, is_deprecated: true }),
    ]),
  );
  writeFileSync(join(dir, 'zlib.json'), JSON.stringify({ key: 'zlib', short_name: 'ZLIB License', name: 'ZLIB License', text: 'not kept' }));
  writeFileSync(join(dir, 'classpath-exception-2.0.json'), JSON.stringify({ short_name: 'Classpath exception to GPL 2.0', name: 'Classpath exception to GPL 2.0 or later' }));
  writeFileSync(join(dir, 'old-one.json'), JSON.stringify({}));

  it('takes the index and each license file, in key order, with the API field names', async () => {
    const built = await buildReferenceRecords(dir, { minEntries: 1, concurrency: 2 });
    expect(built).toEqual([
      {
        key: 'classpath-exception-2.0',
        short_name: 'Classpath exception to GPL 2.0',
        name: 'Classpath exception to GPL 2.0 or later',
        category: 'Copyleft Limited',
        spdx_license_key: 'Classpath-exception-2.0',
        other_spdx_license_keys: [],
        is_exception: true,
        is_deprecated: false,
      },
      // No names in its file: the key stands in; no SPDX ids: empty.
      { key: 'old-one', short_name: 'old-one', name: 'old-one', category: 'Proprietary Free', spdx_license_key: '', other_spdx_license_keys: [], is_exception: false, is_deprecated: true },
      { key: 'zlib', short_name: 'ZLIB License', name: 'ZLIB License', category: 'Permissive', spdx_license_key: 'Zlib', other_spdx_license_keys: ['LicenseRef-zlib'], is_exception: false, is_deprecated: false },
    ]);
    expect(serializeRecords(built).split('\n')).toHaveLength(built.length + 3);
    expect(newCategories(built)).toEqual([]);
    expect(newCategories([...built, { ...built[0]!, category: 'Brand New' }])).toEqual(['Brand New']);
  });

  it('refuses an index too small to be the LicenseDB (by default, under 1,000 entries)', async () => {
    await expect(buildReferenceRecords(dir)).rejects.toThrow('index.json does not look like the LicenseDB index.');
  });
});
