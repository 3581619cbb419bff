/**
 * Builds the license rules index the service ships (shared/reference/scancode-license-rules.json) from
 * ScanCode's license knowledge: the `.RULE` files (names, tags, references and notices as the world
 * writes them, each with its license_expression) and the `.LICENSE` files (names, URLs and full texts)
 * of aboutcode-org/scancode-toolkit.
 *
 *   git clone --depth 1 https://github.com/aboutcode-org/scancode-toolkit
 *   npm run build:license-rules -- --toolkit ./scancode-toolkit [--commit <sha>]
 *
 * What is kept, and what is not (docs/license-expressions.md):
 * - names: short rules (≤ 200 characters) that ScanCode marks as a license reference, tag or notice,
 *   and every license's name and short name, normalised (shared/domain/license-names.ts);
 * - URLs: each license's text, other, OSI, FAQ and home page URLs, and the URLs of short single-license
 *   reference and tag rules;
 * - texts: the digest of each license's full text and of each full-text rule.
 * A normalised name, URL or text that ScanCode's data gives two different expressions is ambiguous and
 * left out, as is one that a false-positive rule names; so is a rule naming a key the reference
 * library does not hold. The output is sorted, one entry per line, so a rebuild reads as a diff.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLicenseExpression } from '../shared/domain/license-expression.ts';
import { licenseTextDigest, MIN_LICENSE_TEXT_LENGTH, normaliseLicenseName, normaliseLicenseUrl } from '../shared/domain/license-names.ts';
import { readReferenceRecords } from '../shared/reference/scancode-licensedb.ts';
import { RULES_DATA_FILE, type RulesData } from '../shared/reference/scancode-rules.ts';

const OUTPUT = fileURLToPath(new URL(`../shared/reference/${RULES_DATA_FILE}`, import.meta.url));
/** Rules longer than this are passages of license text, not the way a license is named. */
const MAX_NAME_LENGTH = 200;

type Front = Record<string, string | string[]>;

/** The YAML front matter of a .RULE or .LICENSE file: `key: value`, `key:` with `- item` lines, `key: |` blocks. */
export function parseFrontMatter(file: string): { front: Front; text: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(file);
  if (!match) return { front: {}, text: file };
  const front: Front = {};
  let list: string[] | undefined;
  let block = false;
  for (const line of match[1]!.split(/\r?\n/)) {
    const item = /^\s+-\s+(.*)$/.exec(line);
    if (item && list) {
      list.push(unquote(item[1]!));
      continue;
    }
    const field = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (field) {
      const [, name, value] = field as unknown as [string, string, string];
      block = value === '|' || value === '>';
      if (value === '' || block) front[name] = list = [];
      else {
        front[name] = unquote(value);
        list = undefined;
      }
      continue;
    }
    if (block && list) list.push(line.trim());
  }
  return { front, text: match[2]! };
}

const unquote = (value: string) => value.trim().replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
const yes = (front: Front, flag: string) => front[flag] === 'yes' || front[flag] === 'true';
const many = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

interface Claim {
  expression: string;
  source: string;
  tier: Tier;
}

/**
 * How strongly a source says what a value means, strongest first: a license's own record (its names,
 * its text and other URLs), then a rule that is nothing but that value, then a license's home page or
 * FAQ (often shared by a family: gnu.org/licenses/), then a URL merely found in a short rule.
 */
export const TIERS = { license: 0, rule: 1, homepage: 2, mentioned: 3 } as const;
type Tier = (typeof TIERS)[keyof typeof TIERS];

/**
 * Claims of one kind (names, URLs or digests). A stronger claim replaces weaker ones; two claims of the
 * same strength for different expressions make the value ambiguous at that strength (a stronger claim
 * arriving later still decides it).
 */
class Claims {
  readonly byValue = new Map<string, Claim>();
  /** Value → the tier at which it is ambiguous. */
  private readonly conflicts = new Map<string, Tier>();
  readonly refused = new Set<string>();
  claim(value: string, expression: string, source: string, tier: Tier): void {
    if (value === '') return;
    const conflict = this.conflicts.get(value);
    if (conflict !== undefined && conflict <= tier) return;
    const held = this.byValue.get(value);
    if (!held || tier < held.tier) {
      this.byValue.set(value, { expression, source, tier });
      if (conflict !== undefined) this.conflicts.delete(value);
    } else if (tier > held.tier) return;
    else if (held.expression !== expression) {
      this.byValue.delete(value);
      this.conflicts.set(value, tier);
    } else if (source < held.source) this.byValue.set(value, { expression, source, tier });
  }
  get ambiguous(): ReadonlySet<string> {
    return new Set(this.conflicts.keys());
  }
  /** A false-positive rule: the value names no license, whatever another rule says. */
  refuse(value: string): void {
    if (value !== '') this.refused.add(value);
  }
  entries(): [string, Claim][] {
    return [...this.byValue].filter(([value]) => !this.refused.has(value)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

export async function buildRulesData(toolkit: string, commit: string): Promise<{ data: RulesData; report: string[] }> {
  const dataDir = path.join(toolkit, 'src', 'licensedcode', 'data');
  const known = new Set(readReferenceRecords().map((record) => record.key));
  const names = new Claims();
  const urls = new Claims();
  const texts = new Claims();
  let unknownKeys = 0;
  let namingUnknown = 0;
  // ScanCode's "unknown" licenses (is_unknown: unknown-license-reference, see-license, free-unknown, …) say
  // that a text is a license reference it cannot resolve: such a rule resolves nothing here, and the text
  // stays among the package's unknown licenses (where a team finds it), not hidden behind a key.
  const unknownLicenseKeys = new Set<string>();
  for (const file of (await readdir(path.join(dataDir, 'licenses'))).filter((name) => name.endsWith('.LICENSE'))) {
    const { front } = parseFrontMatter(await readFile(path.join(dataDir, 'licenses', file), 'utf8'));
    if (yes(front, 'is_unknown')) unknownLicenseKeys.add(String(front.key ?? ''));
  }
  /** The expression in canonical form when every key is in the reference library and none is an unknown one, else ''. */
  const canonical = (written: string): string => {
    const parsed = parseLicenseExpression(written);
    if (!parsed.ok) return '';
    if (!parsed.keys.every((key) => known.has(key))) {
      unknownKeys++;
      return '';
    }
    if (parsed.keys.some((key) => unknownLicenseKeys.has(key))) {
      namingUnknown++;
      return '';
    }
    return parsed.normalized;
  };

  for (const file of (await readdir(path.join(dataDir, 'licenses'))).filter((name) => name.endsWith('.LICENSE')).sort()) {
    const { front, text } = parseFrontMatter(await readFile(path.join(dataDir, 'licenses', file), 'utf8'));
    const key = String(front.key ?? '');
    if (!known.has(key) || yes(front, 'is_deprecated') || yes(front, 'is_unknown') || yes(front, 'is_generic')) continue;
    const source = `licenses/${file}`;
    for (const name of [...many(front.name), ...many(front.short_name)]) names.claim(normaliseLicenseName(name), key, source, TIERS.license);
    // An exception's record often lists the URLs of the license it goes with (llvm-exception lists
    // Apache's LICENSE-2.0.txt): its URLs claim only as weakly as a home page.
    const ownTier = yes(front, 'is_exception') ? TIERS.homepage : TIERS.license;
    for (const url of ['text_urls', 'other_urls', 'osi_url'].flatMap((field) => many(front[field]))) urls.claim(normaliseLicenseUrl(url), key, source, ownTier);
    for (const url of ['faq_url', 'homepage_url'].flatMap((field) => many(front[field]))) urls.claim(normaliseLicenseUrl(url), key, source, TIERS.homepage);
    if (text.trim().length >= MIN_LICENSE_TEXT_LENGTH) texts.claim(licenseTextDigest(text), key, source, TIERS.license);
  }

  for (const file of (await readdir(path.join(dataDir, 'rules'))).filter((name) => name.endsWith('.RULE')).sort()) {
    const { front, text } = parseFrontMatter(await readFile(path.join(dataDir, 'rules', file), 'utf8'));
    const source = `rules/${file}`;
    const written = text.replace(/\{\{|\}\}/g, '').trim();
    if (yes(front, 'is_false_positive')) {
      names.refuse(normaliseLicenseName(written));
      continue;
    }
    if (yes(front, 'is_deprecated') || yes(front, 'is_license_intro') || yes(front, 'is_license_clue')) continue;
    const expression = canonical(String(front.license_expression ?? ''));
    if (expression === '') continue;
    if (yes(front, 'is_license_text')) {
      if (written.length >= MIN_LICENSE_TEXT_LENGTH) texts.claim(licenseTextDigest(written), expression, source, TIERS.rule);
      continue;
    }
    const short = written.length <= MAX_NAME_LENGTH;
    if (!short || !(yes(front, 'is_license_reference') || yes(front, 'is_license_tag') || yes(front, 'is_license_notice'))) continue;
    const url = normaliseLicenseUrl(written);
    if (url !== '') urls.claim(url, expression, source, TIERS.rule);
    else names.claim(normaliseLicenseName(written), expression, source, TIERS.rule);
    // The URLs a short reference or tag gives for one license (`<url>http://…</url>` beside a name).
    if (!/\s(AND|OR)\s/.test(expression) && !expression.includes(' WITH ')) {
      for (const ignorable of many(front.ignorable_urls)) urls.claim(normaliseLicenseUrl(ignorable), expression, source, TIERS.mentioned);
    }
  }

  const expressions: string[] = [];
  const indexOf = new Map<string, number>();
  const table = (claims: Claims): [string, number, string][] =>
    claims.entries().map(([value, claim]) => {
      let at = indexOf.get(claim.expression);
      if (at === undefined) {
        at = expressions.push(claim.expression) - 1;
        indexOf.set(claim.expression, at);
      }
      return [value, at, claim.source.replace(/^(rules|licenses)\//, '')];
    });
  const data: RulesData = {
    source: { repository: 'https://github.com/aboutcode-org/scancode-toolkit', path: 'src/licensedcode/data', commit, licence: 'CC-BY-4.0' },
    expressions,
    names: table(names),
    urls: table(urls),
    texts: table(texts),
  };
  const report = [
    `names: ${data.names.length} (${names.ambiguous.size} ambiguous, ${names.refused.size} false-positive texts left out)`,
    `URLs: ${data.urls.length} (${urls.ambiguous.size} ambiguous)`,
    `texts: ${data.texts.length} (${texts.ambiguous.size} ambiguous)`,
    `expressions: ${expressions.length}; rules left out for naming a key the reference library lacks: ${unknownKeys}, an unknown license (${[...unknownLicenseKeys].sort().join(', ')}): ${namingUnknown}`,
  ];
  return { data, report };
}

/** One entry per line: a rebuild reads as a reviewable diff. */
export function serialiseRulesData(data: RulesData): string {
  const rows = (entries: readonly unknown[]) => entries.map((entry) => JSON.stringify(entry)).join(',\n');
  return `{"source":${JSON.stringify(data.source)},\n"expressions":[\n${rows(data.expressions)}\n],\n"names":[\n${rows(data.names)}\n],\n"urls":[\n${rows(data.urls)}\n],\n"texts":[\n${rows(data.texts)}\n]}\n`;
}

/** The options both builders take (`--toolkit`, `--commit`, `--out`), or undefined after printing the usage. */
export function toolkitOptions(argv: readonly string[], script: string, output: string): { toolkit: string; commit: string; out: string } | undefined {
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const toolkit = at('--toolkit');
  if (!toolkit) {
    process.stderr.write(`Usage: npm run ${script} -- --toolkit <scancode-toolkit checkout> [--commit <sha>] [--out <file>]\n`);
    process.exitCode = 2;
    return undefined;
  }
  return { toolkit, commit: at('--commit') ?? 'unknown', out: at('--out') ?? output };
}

async function main(argv: string[]): Promise<void> {
  const options = toolkitOptions(argv, 'build:license-rules', OUTPUT);
  if (!options) return;
  const { data, report } = await buildRulesData(options.toolkit, options.commit);
  const out = options.out;
  await writeFile(out, serialiseRulesData(data));
  process.stdout.write(`Wrote ${out}\n${report.map((line) => `  ${line}`).join('\n')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main(process.argv.slice(2));
