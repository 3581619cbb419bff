/**
 * The advisory sync's real code against a local HTTP server laid out as OSV's bucket, serving the
 * Python Packaging Authority's real records (test/fixtures/osv/pypi): the first run reads the
 * ecosystem's archive, later runs only what modified_id.csv lists as changed since, and a source that
 * fails fails the run without moving its progress.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { AdvisoryLoader } from '../../shared/services/advisory-load.ts';
import { AdvisorySync, SourceError, modifiedSince } from '../../shared/services/advisory-sync.ts';

const PYPI = new URL('../fixtures/osv/pypi/', import.meta.url);
const records = new Map<string, Record<string, any>>(
  readdirSync(PYPI).map((file) => {
    const record = JSON.parse(readFileSync(new URL(file, PYPI), 'utf8')) as Record<string, any>;
    return [record.id as string, record];
  }),
);

let env: Awaited<ReturnType<typeof useTestTable>>;
let advisories: AdvisoryStore;
let server: Server;
let base: string;
const requests: string[] = [];
let failCsv = false;

const csv = () =>
  [...records.values()]
    .sort((a, b) => Date.parse(b.modified) - Date.parse(a.modified))
    .map((record) => `${record.modified},${record.id}`)
    .join('\n');

beforeAll(async () => {
  env = await useTestTable();
  advisories = new AdvisoryStore(env.doc, env.tableName);
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url!, 'http://x').pathname);
    requests.push(path);
    if (path === '/PyPI/all.zip') {
      const files = Object.fromEntries([...records.values()].map((record) => [`${record.id}.json`, new TextEncoder().encode(JSON.stringify(record))]));
      response.writeHead(200, { 'Content-Type': 'application/zip' }).end(Buffer.from(zipSync(files)));
    } else if (path === '/PyPI/modified_id.csv') {
      if (failCsv) response.writeHead(503).end();
      else response.writeHead(200, { 'Content-Type': 'text/csv' }).end(csv());
    } else {
      const record = records.get(/^\/PyPI\/(.+)\.json$/.exec(path)?.[1] ?? '');
      if (record) response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(record));
      else response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const sync = () =>
  new AdvisorySync({
    loader: new AdvisoryLoader({ advisories, now: () => new Date() }),
    advisories,
    sourceUrl: `${base}/`,
    fetch: (url) => fetch(url),
    now: () => new Date(),
    remainingMs: () => 600_000,
  });

const newest = () => [...records.values()].map((record) => record.modified as string).sort((a, b) => Date.parse(b) - Date.parse(a))[0]!;

describe('the advisory sync', () => {
  it('reads the whole archive on its first run, and notes how far it got', async () => {
    requests.length = 0;
    const report = await sync().sync('PyPI');
    expect(report).toMatchObject({ mode: 'archive', fetched: 212, new: 212, refused: 0, syncedUntil: newest(), left: 0 });
    expect(requests).toEqual(['/PyPI/all.zip']);
    expect((await advisories.sources()).find((source) => source.ecosystem === 'PyPI')).toMatchObject({ syncedUntil: newest(), lastSyncedAt: expect.any(String) });
  });

  it('then fetches only the records modified since, from modified_id.csv', async () => {
    const before = newest();
    const changed = { ...records.get('PYSEC-2021-9')!, modified: new Date(Date.parse(before) + 60_000).toISOString(), summary: 'A summary added later' };
    records.set('PYSEC-2021-9', changed);
    requests.length = 0;
    const report = await sync().sync('PyPI');
    // The records at the last run's time are read again (others of the same time may have been left): unchanged.
    const atBefore = [...records.values()].filter((record) => record.modified === before).length;
    expect(report).toMatchObject({ mode: 'incremental', fetched: 1 + atBefore, changed: 1, unchanged: atBefore, new: 0, syncedUntil: changed.modified });
    expect(requests.sort()).toEqual(['/PyPI/PYSEC-2021-9.json', '/PyPI/modified_id.csv', ...[...records.values()].filter((record) => record.modified === before).map((record) => `/PyPI/${record.id}.json`)].sort());
    expect((await advisories.ofPackage('PyPI', 'Django')).find((advisory) => advisory.id === 'PYSEC-2021-9')).toMatchObject({ summary: 'A summary added later' });

    requests.length = 0;
    expect(await sync().sync('PyPI')).toMatchObject({ fetched: 1, changed: 0, unchanged: 1 });
  });

  it('notes its progress after each batch and counts the records held once, at the end of the run', async () => {
    const later = Date.parse(newest());
    const ids = [...records.keys()].slice(0, 150);
    ids.forEach((id, i) => records.set(id, { ...records.get(id)!, modified: new Date(later + 1_000 * (i + 1)).toISOString() }));
    const notes: { syncedUntil: string | undefined; count: boolean }[] = [];
    const spied = Object.assign(Object.create(advisories) as AdvisoryStore, {
      noteLoaded: (ecosystems: readonly string[], now: Date, syncedUntil?: string, options: { count?: boolean } = {}) => {
        notes.push({ syncedUntil, count: options.count ?? true });
        return advisories.noteLoaded(ecosystems, now, syncedUntil, options);
      },
    });
    const report = await new AdvisorySync({ loader: new AdvisoryLoader({ advisories, now: () => new Date() }), advisories: spied, sourceUrl: `${base}/`, fetch: (url) => fetch(url), now: () => new Date(), remainingMs: () => 600_000 }).sync('PyPI');
    expect(report).toMatchObject({ mode: 'incremental', changed: 150, syncedUntil: newest() });
    // Two batches of at most 100: two progress notes without a count, then one count (a count reads every entry of the ecosystem).
    expect(notes.map((note) => note.count)).toEqual([false, false, true]);
    expect(notes.at(-1)!.syncedUntil).toBe(newest());
    expect((await advisories.sources()).find((source) => source.ecosystem === 'PyPI')).toMatchObject({ records: 212, syncedUntil: newest() });
  });

  it('fails a run whose source fails, without moving its progress', async () => {
    const state = (await advisories.sources()).find((source) => source.ecosystem === 'PyPI')!;
    failCsv = true;
    try {
      await expect(sync().sync('PyPI')).rejects.toThrow(new SourceError(`${base}/PyPI/modified_id.csv answered 503`));
    } finally {
      failCsv = false;
    }
    expect((await advisories.sources()).find((source) => source.ecosystem === 'PyPI')!.syncedUntil).toBe(state.syncedUntil);
  });

  it('reads modified_id.csv as OSV writes it, newest first, skipping what is no entry', () => {
    const text = '2024-05-01T00:00:00Z,PYSEC-3\n2024-04-01T00:00:00.5Z,PYSEC-2\r\nnot a line\n2024-03-01T00:00:00Z,bad id\n2024-02-01T00:00:00Z,PYSEC-1\n';
    expect(modifiedSince(text, '2024-04-01T00:00:00.5Z')).toEqual([
      { modified: '2024-04-01T00:00:00.5Z', id: 'PYSEC-2' },
      { modified: '2024-05-01T00:00:00Z', id: 'PYSEC-3' },
    ]);
  });
});
