/**
 * The advisory sync: keeps the published advisories of a few ecosystems up to date from OSV's public
 * bucket (https://osv-vulnerabilities.storage.googleapis.com), or any mirror laid out as it is, so an
 * air-gapped deployment points it at its own copy. Per ecosystem:
 *
 * - the first run reads the ecosystem's whole archive (`<Ecosystem>/all.zip`, streamed to a temporary
 *   file and read as the admin load reads it);
 * - later runs read `<Ecosystem>/modified_id.csv` (every record's `modified` and id, newest first) and
 *   fetch only the records modified after what the last run took in (`<Ecosystem>/<id>.json`), oldest
 *   first, noting its progress after each batch: a run cut short by its time budget goes on from there.
 *
 * Loading is the admin load's (AdvisoryLoader): idempotent, malformed records refused and counted; the
 * links follow through the stream (shared/services/advisory-links.ts).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { osvInputsAt } from '../admin/osv-files.ts';
import type { AdvisoryLoader, AdvisoryLoadReport, OsvInput } from './advisory-load.ts';
import type { AdvisoryStore } from '../store/advisory-store.ts';

/** The fetch the sync reads its source with (the global one on Lambda; tests pass it too). */
export type Fetch = (url: string) => Promise<Response>;

export interface AdvisorySyncDeps {
  readonly loader: Pick<AdvisoryLoader, 'load'>;
  readonly advisories: Pick<AdvisoryStore, 'sources' | 'noteLoaded'>;
  /** The source's base URL: OSV's bucket or a mirror (`<base>/<Ecosystem>/modified_id.csv`, `.../all.zip`, `.../<id>.json`). */
  readonly sourceUrl: string;
  readonly fetch: Fetch;
  readonly now: () => Date;
  /** Milliseconds left before the run must stop starting new batches. */
  readonly remainingMs: () => number;
}

export interface EcosystemSyncReport {
  readonly ecosystem: string;
  readonly mode: 'archive' | 'incremental';
  /** Records the run fetched (incremental) or read from the archive. */
  readonly fetched: number;
  readonly new: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly withdrawn: number;
  readonly refused: number;
  /** The newest `modified` taken in: where the next run starts. */
  readonly syncedUntil: string | null;
  /** Records left for the next run (the time budget ran out). */
  readonly left: number;
}

/** Records fetched and loaded together, and fetched at once. */
const BATCH = 100;
const CONCURRENT_FETCHES = 8;
/** A run starts no new batch with less than this left. */
const RESERVE_MS = 30_000;

export class SourceError extends Error {}

export class AdvisorySync {
  constructor(private readonly deps: AdvisorySyncDeps) {}

  async syncAll(ecosystems: readonly string[]): Promise<EcosystemSyncReport[]> {
    const reports: EcosystemSyncReport[] = [];
    for (const ecosystem of ecosystems) reports.push(await this.sync(ecosystem));
    return reports;
  }

  async sync(ecosystem: string): Promise<EcosystemSyncReport> {
    const state = (await this.deps.advisories.sources()).find((source) => source.ecosystem === ecosystem);
    return state?.syncedUntil ? this.incremental(ecosystem, state.syncedUntil) : this.archive(ecosystem);
  }

  private url(...parts: string[]): string {
    return [this.deps.sourceUrl.replace(/\/+$/, ''), ...parts.map(encodeURIComponent)].join('/');
  }

  private async get(url: string): Promise<Response> {
    let response: Response;
    try {
      response = await this.deps.fetch(url);
    } catch (error) {
      throw new SourceError(`${url} could not be read: ${(error as Error).message}`);
    }
    if (!response.ok) throw new SourceError(`${url} answered ${response.status}`);
    return response;
  }

  /** The first run: the ecosystem's whole archive, streamed to a temporary file and loaded. */
  private async archive(ecosystem: string): Promise<EcosystemSyncReport> {
    const folder = await mkdtemp(join(tmpdir(), 'osv-'));
    try {
      const file = join(folder, 'all.zip');
      const response = await this.get(this.url(ecosystem, 'all.zip'));
      if (!response.body) throw new SourceError(`${this.url(ecosystem, 'all.zip')} answered no body`);
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(file));
      let fetched = 0;
      const counted = async function* (inputs: AsyncIterable<OsvInput>) {
        for await (const input of inputs) {
          fetched += 1;
          yield input;
        }
      };
      const report = await this.deps.loader.load(counted(osvInputsAt(file)));
      if (report.newestModified) await this.deps.advisories.noteLoaded([ecosystem], this.deps.now(), report.newestModified);
      return { ecosystem, mode: 'archive', fetched, ...counts(report), syncedUntil: report.newestModified, left: 0 };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  /** Later runs: the records modified since the last, oldest first, progress noted after each batch. */
  private async incremental(ecosystem: string, since: string): Promise<EcosystemSyncReport> {
    const csv = await (await this.get(this.url(ecosystem, 'modified_id.csv'))).text();
    const changed = modifiedSince(csv, since);
    const totals = { new: 0, changed: 0, unchanged: 0, withdrawn: 0, refused: 0 };
    let syncedUntil: string | null = since;
    let fetched = 0;
    for (let i = 0; i < changed.length; i += BATCH) {
      if (this.deps.remainingMs() < RESERVE_MS) {
        await this.deps.advisories.noteLoaded([ecosystem], this.deps.now(), syncedUntil ?? since);
        return { ecosystem, mode: 'incremental', fetched, ...totals, syncedUntil, left: changed.length - i };
      }
      const batch = changed.slice(i, i + BATCH);
      const inputs = await this.fetchRecords(ecosystem, batch.map((entry) => entry.id));
      fetched += inputs.length;
      const report = await this.deps.loader.load(inputs);
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts(report)[key];
      // Every record up to the batch's newest is in: the next run starts after it.
      syncedUntil = batch[batch.length - 1]!.modified;
      // Progress, so that a run cut short starts after it; the count once, at the end of the run.
      await this.deps.advisories.noteLoaded([ecosystem], this.deps.now(), syncedUntil, { count: false });
    }
    await this.deps.advisories.noteLoaded([ecosystem], this.deps.now(), syncedUntil ?? since);
    return { ecosystem, mode: 'incremental', fetched, ...totals, syncedUntil, left: 0 };
  }

  private async fetchRecords(ecosystem: string, ids: readonly string[]): Promise<OsvInput[]> {
    const inputs: OsvInput[] = [];
    const queue = [...ids];
    const worker = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const url = this.url(ecosystem, `${id}.json`);
        const text = await (await this.get(url)).text();
        try {
          inputs.push({ source: url, record: JSON.parse(text) });
        } catch (error) {
          inputs.push({ source: url, problem: `not JSON: ${(error as Error).message}` });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_FETCHES, queue.length) }, worker));
    return inputs;
  }
}

function counts(report: AdvisoryLoadReport) {
  // A record older than the stored one is left alone: unchanged, as far as the sync is concerned.
  return { new: report.new, changed: report.changed, unchanged: report.unchanged + report.older, withdrawn: report.withdrawn, refused: report.refused.length };
}

/**
 * The entries of a modified_id.csv (`<RFC 3339 time>,<id>` a line, newest first) modified at or after
 * `since` (records of the same time may have been left for this run), oldest first. Lines that are not
 * such an entry are skipped. The records at `since` itself are fetched again and found unchanged.
 */
export function modifiedSince(csv: string, since: string): { modified: string; id: string }[] {
  const after = Date.parse(since);
  const entries: { modified: string; id: string; at: number }[] = [];
  for (const line of csv.split(/\r?\n/)) {
    const comma = line.indexOf(',');
    if (comma === -1) continue;
    const modified = line.slice(0, comma).trim();
    const id = line.slice(comma + 1).trim();
    const at = Date.parse(modified);
    if (Number.isNaN(at) || !/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(id)) continue;
    if (at >= after) entries.push({ modified, id, at });
  }
  return entries.sort((a, b) => a.at - b.at).map(({ modified, id }) => ({ modified, id }));
}
