/**
 * The figures a benchmark run produces, how they are printed (an aligned text table, or Markdown for
 * the README) and how they are kept: bench/results/latest.json, a plain JSON array of figures, one per
 * row of the table. Everything here is pure except readResults/writeResults.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchFigure {
  /** The scenario's name, as in bench/scenarios/index.ts: "cold start". */
  scenario: string;
  /** What was measured: "api-root bundle size". */
  figure: string;
  value: number;
  /** The target, as a reader would say it: "< 1 MB", "≥ 0.5". */
  target: string;
  met: boolean;
  /** Unit of `value` when it has one: "bytes", "ms", "req/s". Ratios have none. */
  unit?: string;
  /** What a reader needs to judge the figure: the floor it was divided by, the sample size. */
  note?: string;
}

/** Where `npm run bench` keeps the latest figures (committed by whoever runs the bench). */
export const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'latest.json');

/**
 * Rounds non-integers to three decimals, so a rerun that measured the same thing does not rewrite
 * every digit of the committed file.
 */
export function roundValue(value: number): number {
  return Number.isInteger(value) ? value : Math.round(value * 1000) / 1000;
}

/** A figure with its keys in one fixed order and its value rounded: what the JSON file holds. */
export function normalizeFigure(figure: BenchFigure): BenchFigure {
  const normalized: BenchFigure = {
    scenario: figure.scenario,
    figure: figure.figure,
    value: roundValue(figure.value),
    target: figure.target,
    met: figure.met,
  };
  if (figure.unit !== undefined) normalized.unit = figure.unit;
  if (figure.note !== undefined) normalized.note = figure.note;
  return normalized;
}

/** Throws unless every figure is well formed and each (scenario, figure) pair appears once. */
export function validateFigures(figures: readonly BenchFigure[]): void {
  const seen = new Set<string>();
  for (const figure of figures) {
    const label = `${figure.scenario} / ${figure.figure}`;
    if (!figure.scenario || !figure.figure || !figure.target) {
      throw new Error(`Figure "${label}" needs a scenario, a figure name and a target`);
    }
    if (!Number.isFinite(figure.value)) throw new Error(`Figure "${label}" has no finite value: ${figure.value}`);
    if (typeof figure.met !== 'boolean') throw new Error(`Figure "${label}" must say whether its target is met`);
    if (seen.has(label)) throw new Error(`Figure "${label}" appears twice`);
    seen.add(label);
  }
}

/** The JSON text of bench/results/latest.json: a pretty-printed array with a trailing newline. */
export function resultsJson(figures: readonly BenchFigure[]): string {
  return `${JSON.stringify(figures.map(normalizeFigure), null, 2)}\n`;
}

/** Parses a results file, refusing anything but an array of figures. */
export function parseResults(text: string): BenchFigure[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('A results file holds a JSON array of figures');
  const figures = parsed as BenchFigure[];
  validateFigures(figures);
  return figures;
}

/**
 * The figures of a filtered rerun merged into the previous ones: each rerun scenario's old entries
 * are replaced, in place, by its new ones; every other scenario's entries stay as they were. A rerun
 * scenario that was not there before is appended.
 */
export function mergeResults(
  previous: readonly BenchFigure[],
  fresh: readonly BenchFigure[],
  rerunScenarios: readonly string[],
): BenchFigure[] {
  const rerun = new Set(rerunScenarios);
  const stray = fresh.find((figure) => !rerun.has(figure.scenario));
  if (stray) throw new Error(`Figure "${stray.scenario} / ${stray.figure}" belongs to no rerun scenario`);

  const merged: BenchFigure[] = [];
  const placed = new Set<string>();
  for (const figure of previous) {
    if (!rerun.has(figure.scenario)) {
      merged.push(figure);
    } else if (!placed.has(figure.scenario)) {
      placed.add(figure.scenario);
      merged.push(...fresh.filter((candidate) => candidate.scenario === figure.scenario));
    }
  }
  for (const scenario of rerunScenarios) {
    if (!placed.has(scenario)) merged.push(...fresh.filter((candidate) => candidate.scenario === scenario));
  }
  return merged;
}

export function readResults(file: string = RESULTS_FILE): BenchFigure[] {
  return existsSync(file) ? parseResults(readFileSync(file, 'utf8')) : [];
}

export function writeResults(figures: readonly BenchFigure[], file: string = RESULTS_FILE): void {
  validateFigures(figures);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, resultsJson(figures));
}

/** A value as the table shows it: integers with thousands separators, others to three significant decimals. */
export function formatValue(figure: Pick<BenchFigure, 'value' | 'unit'>): string {
  const { value, unit } = figure;
  const number = Number.isInteger(value)
    ? value.toLocaleString('en-US')
    : value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) >= 100 ? 1 : 3 });
  return unit ? `${number} ${unit}` : number;
}

const HEADERS = ['scenario', 'figure', 'value', 'target', 'met'] as const;

function rows(figures: readonly BenchFigure[]): string[][] {
  return figures.map((figure) => [figure.scenario, figure.figure, formatValue(figure), figure.target, figure.met ? '✓' : '✗']);
}

/**
 * The figures as an aligned text table, values right-aligned, followed by the notes. Ends with a
 * newline. (Widths count UTF-16 units, which is right for the ASCII, ≤, ≥ and ✓ this table holds.)
 */
export function formatTable(figures: readonly BenchFigure[]): string {
  const body = rows(figures);
  const widths = HEADERS.map((header, column) => Math.max(header.length, ...body.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 2 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const lines = [line(HEADERS), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)];
  const notes = figures.filter((figure) => figure.note).map((figure) => `  ${figure.scenario} / ${figure.figure}: ${figure.note}`);
  if (notes.length > 0) lines.push('', 'Notes:', ...notes);
  const missed = figures.filter((figure) => !figure.met).length;
  lines.push('', missed === 0 ? `All ${figures.length} targets met.` : `${missed} of ${figures.length} targets missed (✗).`);
  return `${lines.join('\n')}\n`;
}

/** The same table in Markdown, for the README. */
export function formatMarkdownTable(figures: readonly BenchFigure[]): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|');
  const lines = [
    `| ${HEADERS.join(' | ')} |`,
    '| --- | --- | ---: | --- | :---: |',
    ...rows(figures).map((row) => `| ${row.map(escape).join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}
