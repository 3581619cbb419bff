/**
 * Which published advisories affect a package, by its ecosystem's own rules: its version (the package
 * found by its OSV package key: shared/domain/osv-packages.ts) is compared with each range's events
 * and listed versions in that ecosystem's version order (shared/domain/versions). GIT ranges name
 * commits, not versions: they are not matched. A version the ecosystem cannot read is reported, never
 * guessed. Pure.
 */
import type { AffectedEntry, RangeEvent } from './advisories.ts';
import { versionScheme, type VersionScheme } from './versions/index.ts';

export interface VersionMatch {
  readonly affected: boolean;
  /** The fixed versions above the package's, in the ranges that affect it, oldest first. */
  readonly fixedVersions: readonly string[];
  /** What could not be judged: a version or event the ecosystem cannot read, a range type not matched. */
  readonly problems: readonly string[];
}

type Parsed = { readonly text: string; readonly value: unknown };

const eventKind = (event: RangeEvent) => Object.keys(event)[0] as 'introduced' | 'fixed' | 'last_affected' | 'limit';
const eventVersion = (event: RangeEvent) => Object.values(event)[0] as string;

/** OSV's evaluation of one range (osv-schema, "Evaluation"): events in version order; introduced "0" is before every version. */
function inRange(scheme: VersionScheme, version: unknown, events: readonly { kind: string; at: Parsed | 'zero' }[]): boolean {
  const order = (event: { at: Parsed | 'zero' }) => event.at;
  const sorted = [...events].sort((a, b) => {
    const x = order(a);
    const y = order(b);
    if (x === 'zero' || y === 'zero') return x === y ? 0 : x === 'zero' ? -1 : 1;
    return scheme.compare(x.value, y.value);
  });
  let affected = false;
  for (const event of sorted) {
    const at = event.at;
    const compared = at === 'zero' ? 1 : scheme.compare(version, at.value);
    if (event.kind === 'introduced' && compared >= 0) affected = true;
    else if (event.kind === 'fixed' && compared >= 0) affected = false;
    else if (event.kind === 'last_affected' && compared > 0) affected = false;
  }
  const limits = events.filter((event) => event.kind === 'limit');
  return affected && (limits.length === 0 || limits.some((limit) => limit.at !== 'zero' && scheme.compare(version, limit.at.value) < 0));
}

/**
 * Whether `version` is affected by the advisory's entries for one package (already found by its key),
 * and which versions fix it.
 */
export function matchVersion(entries: readonly AffectedEntry[], version: string): VersionMatch {
  const problems: string[] = [];
  const fixed = new Map<string, Parsed>();
  let affected = false;
  for (const entry of entries) {
    const scheme = versionScheme(entry.ecosystem);
    // A listed version is affected, whatever order the ecosystem has: the same string is the same version.
    if (entry.versions.includes(version)) affected = true;
    if (!scheme) {
      if (entry.ranges.some((range) => range.type !== 'GIT')) problems.push(`${entry.ecosystem} has no version order here: only its listed versions are matched`);
      continue;
    }
    const parsed = scheme.parse(version);
    if (parsed === undefined) {
      problems.push(`"${version}" is not a ${entry.ecosystem.split(':')[0]} version`);
      continue;
    }
    if (!affected && entry.versions.some((listed) => {
      const other = scheme.parse(listed);
      return other !== undefined && scheme.compare(parsed, other) === 0;
    })) affected = true;
    for (const range of entry.ranges) {
      if (range.type === 'GIT') continue;
      const events: { kind: string; at: Parsed | 'zero' }[] = [];
      let readable = true;
      for (const event of range.events) {
        const kind = eventKind(event);
        const text = eventVersion(event);
        if (kind === 'introduced' && text === '0') {
          events.push({ kind, at: 'zero' });
          continue;
        }
        const value = scheme.parse(text);
        if (value === undefined) {
          problems.push(`the range's ${kind} "${text}" is not a ${entry.ecosystem.split(':')[0]} version`);
          readable = false;
          break;
        }
        events.push({ kind, at: { text, value } });
      }
      if (!readable || !inRange(scheme, parsed, events)) continue;
      affected = true;
      for (const event of events) {
        if (event.kind === 'fixed' && event.at !== 'zero' && scheme.compare(event.at.value, parsed) > 0) fixed.set(event.at.text, event.at);
      }
    }
  }
  // One package's entries share its ecosystem (they were found by its key): one order sorts them.
  const scheme = entries.map((entry) => versionScheme(entry.ecosystem)).find((found) => found !== undefined);
  const fixedVersions = scheme ? [...fixed.values()].sort((a, b) => scheme.compare(a.value, b.value)).map((at) => at.text) : [];
  return { affected, fixedVersions: affected ? fixedVersions : [], problems };
}

/** What matching reads of an advisory: its id, whether it is withdrawn, and its entries for the package. */
export interface MatchableAdvisory {
  readonly id: string;
  readonly withdrawn: string | null;
  readonly entries: readonly AffectedEntry[];
}

export interface AdvisoryMatch<T extends MatchableAdvisory> {
  readonly advisory: T;
  readonly fixedVersions: readonly string[];
}

/**
 * The advisories (of one package, found by its key) that affect `version`, with the versions that fix
 * it; a withdrawn advisory affects nothing. `problems` says what could not be judged, once each.
 */
export function advisoriesAffecting<T extends MatchableAdvisory>(advisories: readonly T[], version: string): { matches: AdvisoryMatch<T>[]; problems: string[] } {
  const matches: AdvisoryMatch<T>[] = [];
  const problems = new Set<string>();
  for (const advisory of advisories) {
    if (advisory.withdrawn !== null) continue;
    const match = matchVersion(advisory.entries, version);
    for (const problem of match.problems) problems.add(`${advisory.id}: ${problem}`);
    if (match.affected) matches.push({ advisory, fixedVersions: match.fixedVersions });
  }
  return { matches, problems: [...problems] };
}
