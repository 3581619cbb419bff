/**
 * Published advisories, as OSV records (the schema at ossf.github.io/osv-schema, which GitHub's
 * advisory database, PyPA, Go, RustSec and osv.dev publish in), and the form the service keeps them
 * in: public data, one per deployment, not a dataspace's. A record is checked field by field (every
 * problem reported at once, as a person can read it) and bounded so that it fits an item: the
 * details are cut at MAX_DETAILS_CHARS (at a word, marked), references and aliases are capped, and an
 * ecosystem_specific object larger than MAX_ECOSYSTEM_SPECIFIC_BYTES is left out. Pure.
 */
import { z } from 'zod';
import { cvssBaseScore } from './cvss.ts';

export const MAX_SUMMARY_CHARS = 1_000;
/** Details beyond this are cut at a word and marked (detailsTruncated); the record's own page has them whole. */
export const MAX_DETAILS_CHARS = 8_000;
export const MAX_REFERENCES = 100;
export const MAX_ALIASES = 100;
export const MAX_ECOSYSTEM_SPECIFIC_BYTES = 4_000;
/** What one stored record may weigh at most (a DynamoDB item holds 400 KB; keys and attribute names aside). */
export const MAX_RECORD_BYTES = 350_000;

/** The ids the service stores a vulnerability under (as SBOM imports and the API take them). */
export const ADVISORY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

export type RangeType = 'SEMVER' | 'ECOSYSTEM' | 'GIT';

/** One event of a range: exactly one of its keys. */
export type RangeEvent = { readonly introduced: string } | { readonly fixed: string } | { readonly last_affected: string } | { readonly limit: string };

export interface AffectedRange {
  readonly type: RangeType;
  readonly events: readonly RangeEvent[];
  /** GIT ranges only. */
  readonly repo?: string;
}

/** One affected entry of a record: a package, the versions it names, by range and by list. */
export interface AffectedEntry {
  readonly ecosystem: string;
  readonly name: string;
  readonly ranges: readonly AffectedRange[];
  readonly versions: readonly string[];
  readonly ecosystemSpecific?: Readonly<Record<string, unknown>>;
}

export interface AdvisorySeverity {
  readonly type: string;
  readonly score: string;
  /** The CVSS base score of the vector, or null for a type that is not CVSS. */
  readonly baseScore: number | null;
}

export interface AdvisoryReference {
  readonly type: string;
  readonly url: string;
}

export interface Advisory {
  readonly id: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly details: string;
  readonly detailsTruncated: boolean;
  readonly modified: string;
  readonly published: string | null;
  readonly withdrawn: string | null;
  readonly severity: readonly AdvisorySeverity[];
  /** The highest CVSS base score among the record's and its entries' vectors, or null. */
  readonly riskScore: number | null;
  readonly references: readonly AdvisoryReference[];
  readonly affected: readonly AffectedEntry[];
}

/** RFC 3339, as OSV writes its times (fractions and offsets allowed). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
const timestamp = z.string().regex(TIMESTAMP, { error: 'must be an RFC 3339 time, such as 2024-01-31T12:00:00Z', abort: true }).refine((value) => !Number.isNaN(Date.parse(value)), 'is no date');
const text = z.string().max(1_000_000);

const eventSchema = z.union([
  z.strictObject({ introduced: z.string().min(1) }),
  z.strictObject({ fixed: z.string().min(1) }),
  z.strictObject({ last_affected: z.string().min(1) }),
  z.strictObject({ limit: z.string().min(1) }),
], { error: 'each event has exactly one of introduced, fixed, last_affected, limit' });

const severitySchema = z.array(z.object({ type: z.string().min(1).max(40), score: z.string().min(1).max(400) }));

const recordSchema = z.object({
  schema_version: z.string().optional(),
  id: z.string().min(1).max(100).regex(ADVISORY_ID, 'uses letters, digits and . _ : - only'),
  modified: timestamp,
  published: timestamp.optional(),
  withdrawn: timestamp.optional(),
  aliases: z.array(z.string().min(1).max(100)).optional(),
  related: z.array(z.string()).optional(),
  summary: text.optional(),
  details: text.optional(),
  severity: severitySchema.optional(),
  affected: z
    .array(
      z.object({
        package: z.object({ ecosystem: z.string().min(1).max(100), name: z.string().min(1).max(1_000), purl: z.string().optional() }).optional(),
        severity: severitySchema.optional(),
        ranges: z.array(z.object({ type: z.enum(['SEMVER', 'ECOSYSTEM', 'GIT']), repo: z.string().optional(), events: z.array(eventSchema).min(1) })).optional(),
        versions: z.array(z.string().min(1).max(400)).optional(),
        ecosystem_specific: z.record(z.string(), z.unknown()).optional(),
        database_specific: z.unknown().optional(),
      }),
    )
    .optional(),
  references: z.array(z.object({ type: z.string().max(40), url: z.string().max(2_000) })).optional(),
});

export type OsvRecord = z.infer<typeof recordSchema>;

export type AdvisoryResult = { readonly ok: true; readonly advisory: Advisory } | { readonly ok: false; readonly id: string | undefined; readonly problems: readonly string[] };

/** The record's details, cut at a word before `max` characters and marked, when longer. */
function bounded(details: string, max: number): { details: string; truncated: boolean } {
  if (details.length <= max) return { details, truncated: false };
  const cut = details.slice(0, max);
  const atWord = cut.replace(/\s+\S*$/, '');
  return { details: `${atWord.length > max / 2 ? atWord : cut} […]`, truncated: true };
}

/** Whether the value (a parsed JSON value) weighs more than `max` bytes as JSON. */
function heavierThan(value: unknown, max: number): boolean {
  return Buffer.byteLength(JSON.stringify(value)) > max;
}

/**
 * A record as OSV publishes it (parsed JSON, any shape), checked and bounded; or every reason it is
 * refused. Unknown fields are ignored, as the schema allows; a known field of the wrong shape refuses
 * the record.
 */
export function advisoryFromOsv(input: unknown): AdvisoryResult {
  const id = typeof (input as { id?: unknown } | null)?.id === 'string' ? ((input as { id: string }).id.slice(0, 100)) : undefined;
  const parsed = recordSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'record'}: ${issue.message}`);
    return { ok: false, id, problems: [...new Set(problems)].slice(0, 10) };
  }
  const record = parsed.data;
  const problems: string[] = [];
  const severity: AdvisorySeverity[] = [];
  const scored = (entries: readonly { type: string; score: string }[] | undefined, where: string) => {
    for (const entry of entries ?? []) {
      const cvss = entry.type.startsWith('CVSS_');
      const baseScore = cvss ? cvssBaseScore(entry.score) : null;
      if (cvss && baseScore === null) problems.push(`${where}: "${entry.score.slice(0, 120)}" is no complete ${entry.type} vector`);
      else severity.push({ type: entry.type, score: entry.score, baseScore });
    }
  };
  scored(record.severity, 'severity');
  const affected: AffectedEntry[] = [];
  for (const [index, entry] of (record.affected ?? []).entries()) {
    scored(entry.severity, `affected.${index}.severity`);
    // An entry without a package names a repository only (GIT ranges): nothing a purl can match.
    if (!entry.package) continue;
    const ecosystemSpecific = entry.ecosystem_specific && !heavierThan(entry.ecosystem_specific, MAX_ECOSYSTEM_SPECIFIC_BYTES) ? entry.ecosystem_specific : undefined;
    affected.push({
      ecosystem: entry.package.ecosystem,
      name: entry.package.name,
      ranges: (entry.ranges ?? []).map((range) => ({ type: range.type, events: range.events as RangeEvent[], ...(range.repo ? { repo: range.repo } : {}) })),
      versions: entry.versions ?? [],
      ...(ecosystemSpecific ? { ecosystemSpecific } : {}),
    });
  }
  if (problems.length > 0) return { ok: false, id: record.id, problems };
  const { details, truncated } = bounded(record.details ?? '', MAX_DETAILS_CHARS);
  const scores = severity.map((entry) => entry.baseScore).filter((score): score is number => score !== null);
  const advisory: Advisory = {
    id: record.id,
    aliases: [...new Set((record.aliases ?? []).filter((alias) => ADVISORY_ID.test(alias) && alias !== record.id))].slice(0, MAX_ALIASES),
    summary: (record.summary ?? '').slice(0, MAX_SUMMARY_CHARS),
    details,
    detailsTruncated: truncated,
    modified: record.modified,
    published: record.published ?? null,
    withdrawn: record.withdrawn ?? null,
    severity,
    riskScore: scores.length > 0 ? Math.max(...scores) : null,
    references: (record.references ?? []).slice(0, MAX_REFERENCES).map((reference) => ({ type: reference.type, url: reference.url })),
    affected,
  };
  if (heavierThan(advisory, MAX_RECORD_BYTES)) {
    return { ok: false, id: record.id, problems: [`record: weighs more than ${MAX_RECORD_BYTES.toLocaleString('en')} bytes once bounded (its affected versions are listed one by one)`] };
  }
  return { ok: true, advisory };
}

/**
 * Whether `after` was modified later than `before`. Records of the same time are told apart by their
 * content (the load's hash), not here: a repository may leave `modified` alone (golang/vulndb's files
 * all say 0001-01-01), and a changed record of the same time is then taken as changed.
 */
export function isNewerRecord(before: Pick<Advisory, 'modified'>, after: Pick<Advisory, 'modified'>): boolean {
  return Date.parse(after.modified) > Date.parse(before.modified);
}
