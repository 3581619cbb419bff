/**
 * What a benchmark scenario is: a name (the "scenario" column of the table, and what
 * `npm run bench -- WORD` matches) and a run that measures and returns its figures.
 */
import type { BenchFigure } from './results.ts';
import type { BenchStack } from './stack.ts';

export interface ScenarioContext extends BenchStack {
  /** Progress lines for the person watching the run (stderr), not part of the results. */
  log(line: string): void;
}

export interface Scenario {
  readonly name: string;
  /**
   * Seeds what it needs (on the shared stack: use names or dataspaces of its own, so scenarios do not
   * see each other's data), measures, and returns its figures, each with `scenario` set to `name`.
   * Throws when it cannot measure; a missed target is a figure with `met: false`, not an error.
   */
  run(context: ScenarioContext): Promise<BenchFigure[]>;
}

/**
 * The scenarios `npm run bench -- WORD...` runs: those whose name contains any of the words (case
 * insensitive), in registry order; all of them when no word is given.
 */
export function selectScenarios<S extends Pick<Scenario, 'name'>>(scenarios: readonly S[], words: readonly string[]): S[] {
  if (words.length === 0) return [...scenarios];
  const wanted = words.map((word) => word.toLowerCase());
  return scenarios.filter((scenario) => wanted.some((word) => scenario.name.toLowerCase().includes(word)));
}
