/**
 * The factories of the advisory functions' parts (the linker, the sync), apart from shared/runtime.ts:
 * they bring the ecosystems' version libraries, the CVSS calculator, the OSV record checks and the zip
 * reader, which no other function needs in its bundle. They make their parts in the same Composition as
 * the others'.
 */
import { randomUUID } from 'node:crypto';
import { advisoryStore, catalogStore, dynamoClient, type Composition } from './runtime.ts';
import { AdvisoryLinker } from './services/advisory-links.ts';
import { AdvisoryLoader } from './services/advisory-load.ts';
import { AdvisorySync } from './services/advisory-sync.ts';

const now = () => new Date();

export function advisoryLinker(c: Composition): AdvisoryLinker {
  return c.once(
    advisoryLinker,
    () => new AdvisoryLinker({ advisories: advisoryStore(c), catalog: catalogStore(c), doc: dynamoClient(c), tableName: c.config.TABLE_NAME, now, newUuid: randomUUID }),
  );
}

/** The advisory sync of one run (its time budget), or undefined when no source is configured. */
export function advisorySync(c: Composition, remainingMs: () => number): AdvisorySync | undefined {
  if (!c.config.OSV_SOURCE_URL) return undefined;
  return new AdvisorySync({
    loader: new AdvisoryLoader({ advisories: advisoryStore(c), now }),
    advisories: advisoryStore(c),
    sourceUrl: c.config.OSV_SOURCE_URL,
    fetch: (url) => fetch(url, { signal: AbortSignal.timeout(120_000) }),
    now,
    remainingMs,
  });
}

/** The advisory functions' parts, for the local stack (bin/local/composition.ts). */
export interface AdvisoryDependencies {
  readonly advisoryLinker: AdvisoryLinker;
  /** The advisory sync of a run with this time budget (undefined: no source configured). */
  readonly advisorySync: (remainingMs: () => number) => AdvisorySync | undefined;
}

export function advisoryDependencyFactories(c: Composition): { readonly [K in keyof AdvisoryDependencies]: () => AdvisoryDependencies[K] } {
  return {
    advisoryLinker: () => advisoryLinker(c),
    advisorySync: () => (remainingMs) => advisorySync(c, remainingMs),
  };
}
