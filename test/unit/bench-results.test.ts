/**
 * The pure parts of the benchmark suite (bench/): the table, the results file, the merge of a filtered
 * rerun, scenario selection, and the statistics the figures are computed with.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatMarkdownTable,
  formatTable,
  formatValue,
  mergeResults,
  parseResults,
  readResults,
  resultsJson,
  validateFigures,
  writeResults,
  type BenchFigure,
} from '../../bench/lib/results.ts';
import { measureAsync, median, percentile, timeInterleaved } from '../../bench/lib/load.ts';
import { selectScenarios } from '../../bench/lib/scenario.ts';

function aFigure(overrides: Partial<BenchFigure> = {}): BenchFigure {
  return { scenario: 'cold start', figure: 'api-root import time', value: 52.5, target: '< 200 ms', met: true, unit: 'ms', ...overrides };
}

describe('the results table', () => {
  const figures = [
    aFigure({ figure: 'api-root bundle size', value: 493022, unit: 'bytes', target: '< 1 MB' }),
    aFigure({ scenario: 'permission-filtered list', figure: 'user / superuser first page', value: 2.4567, unit: undefined, target: '≤ 2', met: false, note: '5,000 products, K = 20' }),
  ];

  it('aligns the columns, right-aligns values, marks met and missed targets, and lists the notes', () => {
    const lines = formatTable(figures).split('\n');

    expect(lines.slice(0, 4)).toEqual([
      'scenario                  figure                               value  target  met',
      '------------------------  ---------------------------  -------------  ------  ---',
      'cold start                api-root bundle size         493,022 bytes  < 1 MB  ✓',
      'permission-filtered list  user / superuser first page          2.457  ≤ 2     ✗',
    ]);
    expect(lines).toContain('  permission-filtered list / user / superuser first page: 5,000 products, K = 20');
    expect(lines).toContain('1 of 2 targets missed (✗).');
  });

  it('says so when every target is met', () => {
    expect(formatTable([aFigure()])).toContain('All 1 targets met.');
  });

  it('renders the same rows in Markdown, escaping pipes', () => {
    const markdown = formatMarkdownTable([aFigure({ figure: 'a | b' })]).split('\n');

    expect(markdown[0]).toBe('| scenario | figure | value | target | met |');
    expect(markdown[2]).toBe('| cold start | a \\| b | 52.5 ms | < 200 ms | ✓ |');
  });

  it.each([
    [{ value: 1234567, unit: 'bytes' }, '1,234,567 bytes'],
    [{ value: 0.43349, unit: undefined }, '0.433'],
    [{ value: 1290.17, unit: 'req/s' }, '1,290.2 req/s'],
  ])('formats %o as %s', (figure, text) => {
    expect(formatValue(figure)).toBe(text);
  });
});

describe('the results file', () => {
  it('is a pretty-printed JSON array of figures with keys in a fixed order, values rounded, and a trailing newline', () => {
    const text = resultsJson([aFigure({ note: 'n', unit: 'ms', met: true, target: '< 200 ms', value: 52.03349, figure: 'f', scenario: 's' })]);

    expect(text.endsWith('}\n]\n')).toBe(true);
    const parsed = JSON.parse(text) as unknown[];
    expect(parsed).toEqual([{ scenario: 's', figure: 'f', value: 52.033, target: '< 200 ms', met: true, unit: 'ms', note: 'n' }]);
    expect(Object.keys(parsed[0] as object)).toEqual(['scenario', 'figure', 'value', 'target', 'met', 'unit', 'note']);
  });

  it('leaves out the optional keys a figure does not have', () => {
    const [figure] = JSON.parse(resultsJson([aFigure({ unit: undefined })])) as object[];

    expect(Object.keys(figure!)).toEqual(['scenario', 'figure', 'value', 'target', 'met']);
  });

  it('is written (creating its folder) and read back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-test-'));
    try {
      const file = join(dir, 'results', 'latest.json');
      expect(readResults(file)).toEqual([]);

      writeResults([aFigure()], file);

      expect(readResults(file)).toEqual([aFigure()]);
      expect(readFileSync(file, 'utf8')).toBe(resultsJson([aFigure()]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses anything but an array of figures', () => {
    expect(() => parseResults('{"figures": []}')).toThrow(/JSON array/);
    expect(() => parseResults('[{"scenario": "s", "figure": "f", "target": "t", "met": true}]')).toThrow(/finite value/);
  });

  it.each([
    [[aFigure(), aFigure()], /appears twice/],
    [[aFigure({ value: Number.NaN })], /finite value/],
    [[aFigure({ target: '' })], /target/],
  ])('rejects malformed figure lists (%#)', (figures, message) => {
    expect(() => validateFigures(figures)).toThrow(message);
  });
});

describe('merging a filtered rerun', () => {
  const previous = [
    aFigure({ scenario: 'API overhead', figure: 'ratio', value: 0.6 }),
    aFigure({ scenario: 'products', figure: 'ratio', value: 1.5 }),
    aFigure({ scenario: 'products', figure: 'user p50', value: 3 }),
    aFigure({ scenario: 'cold start', figure: 'size', value: 1 }),
  ];

  it('replaces only the rerun scenario, in its place', () => {
    const fresh = [aFigure({ scenario: 'products', figure: 'ratio', value: 1.8 })];

    expect(mergeResults(previous, fresh, ['products'])).toEqual([
      previous[0],
      aFigure({ scenario: 'products', figure: 'ratio', value: 1.8 }),
      previous[3],
    ]);
  });

  it('appends a scenario the file did not have yet', () => {
    const fresh = [aFigure({ scenario: 'burst', figure: 'evaluations per 1,000 changes', value: 12 })];

    expect(mergeResults(previous, fresh, ['burst'])).toEqual([...previous, ...fresh]);
  });

  it('refuses a figure of a scenario that was not rerun', () => {
    expect(() => mergeResults(previous, [aFigure({ scenario: 'burst' })], ['products'])).toThrow(/no rerun scenario/);
  });
});

describe('selecting scenarios', () => {
  const scenarios = [{ name: 'API overhead' }, { name: 'permission-filtered list' }, { name: 'cold start' }];

  it.each([
    [[], ['API overhead', 'permission-filtered list', 'cold start']],
    [['cold'], ['cold start']],
    [['LIST', 'api'], ['API overhead', 'permission-filtered list']],
    [['webhooks'], []],
  ])('%o selects %o', (words, names) => {
    expect(selectScenarios(scenarios, words).map((scenario) => scenario.name)).toEqual(names);
  });
});

describe('statistics', () => {
  it.each([
    [[5], 50, 5],
    [[1, 2, 3, 4], 50, 2.5],
    [[4, 1, 3, 2], 0, 1],
    [[4, 1, 3, 2], 100, 4],
    [[10, 20, 30, 40, 50], 25, 20],
    [Array.from({ length: 101 }, (_, i) => i), 99, 99],
    [Array.from({ length: 100 }, (_, i) => i + 1), 99, 99.01],
  ])('percentile(%o, %i) = %d', (values, p, expected) => {
    expect(percentile(values, p)).toBeCloseTo(expected, 9);
  });

  it('does not reorder its input, and the median is the 50th percentile', () => {
    const values = [3, 1, 2];
    expect(median(values)).toBe(2);
    expect(values).toEqual([3, 1, 2]);
  });

  it('refuses no values and percentiles outside 0–100', () => {
    expect(() => percentile([], 50)).toThrow();
    expect(() => percentile([1], 101)).toThrow();
  });

  it('measureAsync makes exactly `amount` calls from `concurrency` loops at once', async () => {
    let running = 0;
    let mostAtOnce = 0;
    const result = await measureAsync({
      concurrency: 4,
      amount: 40,
      warmupSeconds: 0,
      fn: async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolveSoon) => setTimeout(resolveSoon, 1));
        running -= 1;
      },
    });

    expect(result).toMatchObject({ total: 40, errors: 0, non2xx: 0 });
    expect(mostAtOnce).toBe(4);
    expect(result.p50Ms).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
    expect(result.requestsPerSecond).toBeCloseTo(40 / result.durationSeconds, 6);
  });

  it('measureAsync fails loudly when a call throws, unless errors are allowed', async () => {
    let calls = 0;
    const fn = async () => {
      calls += 1;
      if (calls % 2 === 0) throw new Error('throttled');
    };

    await expect(measureAsync({ concurrency: 1, amount: 4, warmupSeconds: 0, fn })).rejects.toThrow(/2 of 4 call\(s\) failed; first: Error: throttled/);
    await expect(measureAsync({ concurrency: 1, amount: 4, warmupSeconds: 0, fn, allowErrors: true })).resolves.toMatchObject({ total: 4, errors: 2 });
  });

  it('timeInterleaved alternates the order of the functions each round', async () => {
    const calls: string[] = [];
    const record = (name: string) => async () => void calls.push(name);

    const medians = await timeInterleaved({ a: record('a'), b: record('b') }, 3, 0);

    expect(calls).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
    expect(Object.keys(medians)).toEqual(['a', 'b']);
  });
});
