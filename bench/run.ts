/**
 * `npm run bench [-- WORD...] [--markdown]`: starts the local stack on a fresh DATA_DIR, runs the
 * scenarios of bench/scenarios/index.ts (those whose name contains a WORD, or all), prints the table
 * and writes bench/results/latest.json.
 *
 * The file holds the latest successful measurement of each scenario: a full run that succeeds
 * replaces it; a filtered run, or one where a scenario failed, replaces only the entries of the
 * scenarios that just ran and succeeded. Exit code 0 when every scenario ran, even with missed
 * targets (the table marks them ✗); 1 when a scenario or the stack failed; 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { relative } from 'node:path';
import { SCENARIOS } from './scenarios/index.ts';
import { selectScenarios } from './lib/scenario.ts';
import { withFreshStack } from './lib/stack.ts';
import {
  RESULTS_FILE,
  formatMarkdownTable,
  formatTable,
  mergeResults,
  readResults,
  validateFigures,
  writeResults,
  type BenchFigure,
} from './lib/results.ts';

const USAGE = `Usage: npm run bench [-- [WORD ...] [--markdown] [--list]]

  WORD        run only the scenarios whose name contains WORD (case insensitive)
  --markdown  also print the table in Markdown, for the README
  --list      list the scenarios and exit

Scenarios: ${SCENARIOS.map((scenario) => `"${scenario.name}"`).join(', ')}`;

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function usage(message?: string): never {
  if (message) console.error(message);
  console.error(USAGE);
  process.exit(message ? 2 : 0);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: { markdown: { type: 'boolean' }, list: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
}
try {
  args = parse();
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
if (args.values.help) usage();
if (args.values.list) {
  for (const scenario of SCENARIOS) console.log(scenario.name);
  process.exit(0);
}

const words = args.positionals;
const selected = selectScenarios(SCENARIOS, words);
if (selected.length === 0) usage(`No scenario name contains ${words.map((word) => `"${word}"`).join(' or ')}.`);

const runStarted = performance.now();
const figures: BenchFigure[] = [];
const succeeded: string[] = [];
const failed: { scenario: string; error: unknown }[] = [];

try {
  console.error(`Starting the local stack on a fresh DATA_DIR...`);
  const stackStarted = performance.now();
  await withFreshStack(async (stack) => {
    console.error(`Local stack ready at ${stack.apiUrl} (${seconds(stackStarted)}); DATA_DIR ${stack.dataDir}`);
    for (const scenario of selected) {
      const started = performance.now();
      console.error(`\n▶ ${scenario.name}`);
      try {
        const result = await scenario.run({ ...stack, log: (line) => console.error(`  ${line}`) });
        const stray = result.find((figure) => figure.scenario !== scenario.name);
        if (stray) throw new Error(`returned a figure of scenario "${stray.scenario}"`);
        if (result.length === 0) throw new Error('returned no figure');
        validateFigures([...figures, ...result]);
        figures.push(...result);
        succeeded.push(scenario.name);
        console.error(`  ${result.length} figure(s) in ${seconds(started)}`);
      } catch (error) {
        failed.push({ scenario: scenario.name, error });
        console.error(`  FAILED after ${seconds(started)}:`, error);
      }
    }
  });
} catch (error) {
  console.error('\nThe benchmark run failed:', error);
  process.exitCode = 1;
}

if (figures.length > 0) {
  console.log(`\n${formatTable(figures)}`);
  if (args.values.markdown) console.log(formatMarkdownTable(figures));
}

const file = relative(process.cwd(), RESULTS_FILE);
if (succeeded.length > 0) {
  const complete = words.length === 0 && failed.length === 0 && process.exitCode === undefined;
  const kept = complete ? figures : mergeResults(readResults(), figures, succeeded);
  writeResults(kept);
  console.error(
    complete
      ? `Wrote ${file} (${kept.length} figures).`
      : `Updated ${file}: replaced the figures of ${succeeded.map((name) => `"${name}"`).join(', ')} (${kept.length} figures in all).`,
  );
}
if (failed.length > 0) {
  console.error(`\n${failed.length} scenario(s) failed, their previous figures (if any) are kept: ${failed.map((f) => `"${f.scenario}"`).join(', ')}`);
  process.exitCode = 1;
}
console.error(`Benchmark run took ${seconds(runStarted)}.`);
