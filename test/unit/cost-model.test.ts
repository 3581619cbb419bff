import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COST_DOC, RESULTS, bill, inputsOf, renderCostModel, SIZES } from '../../bench/cost-model.ts';
import type { BenchFigure } from '../../bench/lib/results.ts';

const figures = JSON.parse(readFileSync(RESULTS, 'utf8')) as BenchFigure[];

describe('docs/cost.md', () => {
  it('is what bench/cost-model.ts computes from the committed bench results (npm run cost writes it)', () => {
    expect(readFileSync(COST_DOC, 'utf8')).toBe(renderCostModel(figures));
  });

  it('follows the figures: more write units per request create cost more, at every size', () => {
    const inputs = inputsOf(figures);
    const doubled = { ...inputs, requestCreate: { ...inputs.requestCreate, write: inputs.requestCreate.write * 2 } };
    for (const size of SIZES) {
      const writes = (i: typeof inputs) => bill(size, i).find((line) => line.part === 'DynamoDB writes')!.usd;
      expect(writes(doubled)).toBeGreaterThan(writes(inputs));
    }
  });

  it('refuses results without the figures it needs, naming the scenario to run', () => {
    expect(() => renderCostModel(figures.filter((f) => f.scenario !== 'api capacity'))).toThrow(/npm run bench -- "api capacity"/);
  });

  it('grows with the size: each size costs more than the one before', () => {
    const inputs = inputsOf(figures);
    const totals = SIZES.map((size) => bill(size, inputs).reduce((sum, line) => sum + line.usd, 0));
    for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeGreaterThan(totals[i - 1]!);
  });
});
