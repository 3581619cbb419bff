/**
 * Loading published advisories on DynamoDB Local, from real OSV records (test/fixtures/osv): a
 * folder, a zip as OSV distributes an ecosystem, and the admin command itself. Idempotent by id and
 * content, changes and withdrawals applied to the package lookups, malformed records refused and
 * listed while the rest load, and paths that hold no record refused with one line.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { AdvisoryLoader, type OsvInput } from '../../shared/services/advisory-load.ts';
import { osvInputsAt, OsvSourceError } from '../../shared/admin/osv-files.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/osv/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let env: Awaited<ReturnType<typeof useTestTable>>;
let advisories: AdvisoryStore;
let now = new Date('2026-11-01T00:00:00Z');
const loader = () => new AdvisoryLoader({ advisories, now: () => now });
const scratch = mkdtempSync(join(tmpdir(), 'osv-load-'));

beforeAll(async () => {
  env = await useTestTable();
  advisories = new AdvisoryStore(env.doc, env.tableName);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const goRecord = (id: string) => JSON.parse(readFileSync(join(FIXTURES, 'go', `${id}.json`), 'utf8')) as Record<string, any>;
const zipOf = (files: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, new TextEncoder().encode(text)])));
const inputs = (...records: unknown[]): OsvInput[] => records.map((record, i) => ({ source: `input ${i}`, record }));

describe('loading OSV records', () => {
  it('loads a folder of real records; the same folder again writes nothing', async () => {
    const first = await loader().load(osvInputsAt(join(FIXTURES, 'go')));
    // One of them comes withdrawn already (GO-2026-4923).
    expect(first).toMatchObject({ new: 77, changed: 0, unchanged: 0, withdrawn: 1, refused: [], ecosystems: ['Go'] });
    const net = await advisories.ofPackage('Go', 'golang.org/x/net');
    expect(net.map((advisory) => advisory.id)).toContain('GO-2022-0236');
    expect(net.find((advisory) => advisory.id === 'GO-2022-0236')).toMatchObject({
      aliases: ['CVE-2021-31525', 'GHSA-h86h-8ppg-mxmh'],
      entries: [{ ecosystem: 'Go', name: 'golang.org/x/net', ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.0.0-20210428140749-89ef3d95e781' }] }] }],
    });
    // The stdlib entry of the same record is under its own key.
    expect((await advisories.ofPackage('Go', 'stdlib')).map((advisory) => advisory.id)).toContain('GO-2022-0236');

    now = new Date('2026-11-02T00:00:00Z');
    const again = await loader().load(osvInputsAt(join(FIXTURES, 'go')));
    expect(again).toMatchObject({ new: 0, changed: 0, unchanged: 78, withdrawn: 0 });
    // Not written again: the record still says when it was first loaded.
    const stored = await env.doc.send(new (await import('@aws-sdk/lib-dynamodb')).GetCommand({ TableName: env.tableName, Key: { PK: 'ADVISORY#GO-2022-0236', SK: 'ADVISORY' }, ConsistentRead: true }));
    expect(stored.Item).toMatchObject({ loadedAt: '2026-11-01T00:00:00.000Z', packageKeys: ['Go#stdlib', 'Go#golang.org/x/net'] });

    // What the console's "records held" shows: counted on the index, the withdrawn record included.
    await advisories.noteLoaded(['Go'], now);
    expect(await advisories.sources()).toEqual([{ ecosystem: 'Go', records: 78, lastLoadedAt: now.toISOString(), lastSyncedAt: null, syncedUntil: null }]);
  });

  it('applies a changed record to the package lookups, leaves an older one alone, and marks a withdrawn one', async () => {
    const record = goRecord('GO-2020-0001');
    const changed = { ...record, modified: '2026-01-01T00:00:00Z', summary: 'Changed summary', affected: [{ ...record.affected[0], package: { ecosystem: 'Go', name: 'github.com/gin-gonic/gin-renamed' } }] };
    expect(await loader().load(inputs(changed))).toMatchObject({ changed: 1 });
    expect((await advisories.ofPackage('Go', 'github.com/gin-gonic/gin')).map((advisory) => advisory.id)).not.toContain('GO-2020-0001');
    expect(await advisories.ofPackage('Go', 'github.com/gin-gonic/gin-renamed')).toMatchObject([{ id: 'GO-2020-0001', summary: 'Changed summary' }]);

    // The repository's copy, older than what is stored: left alone.
    expect(await loader().load(inputs(record))).toMatchObject({ older: 1, changed: 0 });
    expect((await advisories.get('GO-2020-0001'))!.summary).toBe('Changed summary');

    const withdrawn = { ...changed, modified: '2026-02-01T00:00:00Z', withdrawn: '2026-02-01T00:00:00Z' };
    expect(await loader().load(inputs(withdrawn))).toMatchObject({ withdrawn: 1, changed: 0 });
    expect(await advisories.ofPackage('Go', 'github.com/gin-gonic/gin-renamed')).toMatchObject([{ id: 'GO-2020-0001', withdrawn: '2026-02-01T00:00:00Z' }]);
  });

  it('refuses malformed records with their reasons and loads the rest', async () => {
    const good = { ...goRecord('GO-2021-0052'), id: 'GO-2099-7777' };
    const report = await loader().load([
      ...inputs(good, { id: 'GO-2099-7778' }, { ...good, id: 'GO-2099-7779', affected: [{ package: { ecosystem: 'Go', name: 'x' }, ranges: [{ type: 'SEMVER', events: [{}] }] }] }),
      { source: 'broken.json', problem: 'not JSON: Unexpected end of JSON input' },
    ]);
    expect(report).toMatchObject({ new: 1 });
    expect(report.refused).toEqual([
      { source: 'input 1', id: 'GO-2099-7778', problems: ['modified: Invalid input: expected string, received undefined'] },
      { source: 'input 2', id: 'GO-2099-7779', problems: ['affected.0.ranges.0.events.0: each event has exactly one of introduced, fixed, last_affected, limit'] },
      { source: 'broken.json', id: undefined, problems: ['not JSON: Unexpected end of JSON input'] },
    ]);
    expect(await advisories.get('GO-2099-7778')).toBeUndefined();
  });
});

describe('OSV sources on disk', () => {
  const collect = async (path: string) => {
    const found: OsvInput[] = [];
    for await (const input of osvInputsAt(path)) found.push(input);
    return found;
  };

  it('reads an ecosystem zip as OSV distributes it, skipping what is not JSON', async () => {
    const files = Object.fromEntries(readdirSync(join(FIXTURES, 'pypi')).map((name) => [name, readFileSync(join(FIXTURES, 'pypi', name), 'utf8')]));
    const path = join(scratch, 'all.zip');
    writeFileSync(path, zipOf({ ...files, 'README.txt': 'not a record' }));
    const found = await collect(path);
    expect(found).toHaveLength(212);
    expect(found.every((input) => 'record' in input)).toBe(true);
    expect(await loader().load(found)).toMatchObject({ new: 212, refused: [], ecosystems: ['PyPI'] });
    expect((await advisories.ofPackage('PyPI', 'Django')).length).toBe(116);
  });

  it('says in one line why a truncated zip, a missing path or a file that is not JSON holds no record', async () => {
    const whole = zipOf({ 'a.json': readFileSync(join(FIXTURES, 'go', 'GO-2020-0001.json'), 'utf8') });
    const truncated = join(scratch, 'truncated.zip');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(collect(truncated)).rejects.toThrow(new OsvSourceError(`${truncated} is not a whole zip: its end (the central directory) is missing, so it was cut short`));
    await expect(collect(join(scratch, 'nowhere'))).rejects.toThrow(`${join(scratch, 'nowhere')} cannot be read: it does not exist`);
    const text = join(scratch, 'notes.json');
    writeFileSync(text, 'not json at all');
    expect(await collect(text)).toEqual([{ source: text, problem: expect.stringMatching(/^not JSON: /) }]);
  });
});

describe('npm run admin -- vulnerabilities load', () => {
  const admin = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'bin/admin.ts', ...args], { cwd: ROOT, env: process.env, timeout: 120_000 });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  it('loads a folder and prints what it did; refuses a path without records in one line, exit 2, nothing written', async () => {
    const folder = join(scratch, 'mixed');
    mkdirSync(join(folder, 'nested'), { recursive: true });
    cpSync(join(FIXTURES, 'go', 'GO-2022-0236.json'), join(folder, 'nested', 'GO-2022-0236.json'));
    writeFileSync(join(folder, 'bad.json'), JSON.stringify({ id: 'GO-2099-0002', modified: 'soon' }));
    writeFileSync(join(folder, 'notes.md'), '# not a record');
    const loaded = await admin('vulnerabilities', 'load', folder);
    expect(loaded.status).toBe(0);
    const held = (await advisories.sources()).find((source) => source.ecosystem === 'Go')!.records;
    expect(loaded.stdout.trim().split('\n')).toEqual([
      `Loaded ${folder} into table ${env.tableName} at ${process.env.DYNAMODB_ENDPOINT}: 0 new, 0 changed, 1 unchanged, 0 withdrawn, 1 refused.`,
      `Held now: Go ${held} records.`,
    ]);
    expect(held).toBeGreaterThanOrEqual(78);
    expect(loaded.stderr).toContain('Refused GO-2099-0002 (bad.json): modified: must be an RFC 3339 time, such as 2024-01-31T12:00:00Z');

    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    const none = await admin('vulnerabilities', 'load', empty);
    expect({ status: none.status, stderr: none.stderr.trim() }).toEqual({ status: 2, stderr: `${empty} holds no OSV record: no JSON file in it.` });
    const cut = join(scratch, 'cut.zip');
    writeFileSync(cut, zipOf({ 'a.json': '{}' }).subarray(0, 20));
    const truncated = await admin('vulnerabilities', 'load', cut);
    expect({ status: truncated.status, stderr: truncated.stderr.trim() }).toEqual({ status: 2, stderr: `${cut} is not a whole zip: its end (the central directory) is missing, so it was cut short` });
  }, 120_000);
});
