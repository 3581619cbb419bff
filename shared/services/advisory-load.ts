/**
 * Loading published advisories: OSV records from any source (a file, a folder, an ecosystem's zip, the
 * sync's HTTP reads), checked one by one (a malformed one is refused with its reasons and the rest go
 * on), compared with what is stored, and written in batches. Idempotent by id and content: a record
 * loaded again writes nothing; one with an older `modified` than the stored one is left alone.
 */
import { advisoryFromOsv, isNewerRecord, type Advisory } from '../domain/advisories.ts';
import { contentHash, type AdvisoryStore, type AdvisoryWrite } from '../store/advisory-store.ts';

/** One record as a source read it, or why that entry of the source holds none. */
export type OsvInput = { readonly source: string; readonly record: unknown } | { readonly source: string; readonly problem: string };

export interface RefusedRecord {
  readonly source: string;
  readonly id: string | undefined;
  readonly problems: readonly string[];
}

export interface AdvisoryLoadReport {
  readonly new: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Stored already with a newer `modified`: left as they are. */
  readonly older: number;
  /** Records now withdrawn that were not (new or changed records, counted here only). */
  readonly withdrawn: number;
  readonly refused: readonly RefusedRecord[];
  /** The ecosystems the records loaded name. */
  readonly ecosystems: readonly string[];
  /** The newest `modified` among the records taken (new, changed or unchanged), or null. */
  readonly newestModified: string | null;
}

/** Records compared and written together: one BatchGetItem of their heads. */
const BATCH = 100;

export class AdvisoryLoader {
  constructor(private readonly deps: { readonly advisories: AdvisoryStore; readonly now: () => Date }) {}

  async load(inputs: AsyncIterable<OsvInput> | Iterable<OsvInput>): Promise<AdvisoryLoadReport> {
    const counts = { new: 0, changed: 0, unchanged: 0, older: 0, withdrawn: 0 };
    const refused: RefusedRecord[] = [];
    const ecosystems = new Set<string>();
    let newestModified: string | null = null;
    let batch = new Map<string, Advisory>();
    const flush = async () => {
      if (batch.size === 0) return;
      const advisories = [...batch.values()];
      batch = new Map();
      const heads = await this.deps.advisories.heads(advisories.map((advisory) => advisory.id));
      const writes: AdvisoryWrite[] = [];
      for (const advisory of advisories) {
        const before = heads.get(advisory.id);
        for (const entry of advisory.affected) ecosystems.add(entry.ecosystem.split(':')[0]!);
        if (newestModified === null || Date.parse(advisory.modified) > Date.parse(newestModified)) newestModified = advisory.modified;
        if (before && before.contentHash === contentHash(advisory)) counts.unchanged += 1;
        else if (before && isNewerRecord(advisory, before)) counts.older += 1;
        else {
          writes.push({ before, after: advisory });
          if (advisory.withdrawn !== null && before?.withdrawn == null) counts.withdrawn += 1;
          else if (before) counts.changed += 1;
          else counts.new += 1;
        }
      }
      await this.deps.advisories.save(writes, this.deps.now());
    };
    for await (const input of inputs) {
      if ('problem' in input) {
        refused.push({ source: input.source, id: undefined, problems: [input.problem] });
        continue;
      }
      const result = advisoryFromOsv(input.record);
      if (!result.ok) {
        refused.push({ source: input.source, id: result.id, problems: result.problems });
        continue;
      }
      // The same id twice in one load: the newer record counts (at the same time, the later one).
      const earlier = batch.get(result.advisory.id);
      if (earlier && isNewerRecord(result.advisory, earlier)) continue;
      batch.set(result.advisory.id, result.advisory);
      if (batch.size >= BATCH) await flush();
    }
    await flush();
    return { ...counts, refused, ecosystems: [...ecosystems].sort(), newestModified };
  }
}

/** What a load did, in one line a person reads ("12 new, 3 changed, ..."). */
export function loadSummary(report: AdvisoryLoadReport): string {
  return [
    `${report.new} new`,
    `${report.changed} changed`,
    `${report.unchanged} unchanged`,
    `${report.withdrawn} withdrawn`,
    ...(report.older > 0 ? [`${report.older} older than stored (left alone)`] : []),
    `${report.refused.length} refused`,
  ].join(', ');
}
