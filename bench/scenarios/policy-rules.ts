/**
 * Policy rules speed, the rules alone: evaluateRules over 10,000 packages with all nine rule types
 * active (license expressions judged AND / OR, with a categories parameter), in the bench process.
 * A reference figure: the median of 20 evaluations, and the packages per second it makes. The floor
 * in the note is the same 10,000 facts merely iterated (summing their vulnerabilities and
 * licenses), measured interleaved with the rules.
 */
import type { Scenario } from '../lib/scenario.ts';
import { timeInterleaved } from '../lib/load.ts';
import {
  RULE_TYPES,
  evaluateRules,
  type PackageFacts,
  type PolicyConfig,
  type RuleResult,
} from '../../shared/domain/policy-rules.ts';
import { ANALYSIS_STATES, type AnalysisState, type ComplianceAlert } from '../../shared/domain/catalog.ts';
import { DAY_MS, isoWithOffset } from '../../shared/domain/time.ts';

const PACKAGES = 10_000;
const REPETITIONS = 20;
const NOW = new Date('2026-03-01T12:00:00Z');

/** Every rule type active, with parameters that make each one select some packages but not all. */
export const ALL_RULES_CONFIG: PolicyConfig = {
  usage_policy_error: { is_active: true, threshold: 0, parameters: {} },
  usage_policy_warning: { is_active: true, threshold: 5, parameters: {} },
  license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft'] } },
  license_policy_warning: { is_active: true, threshold: 0, parameters: {} },
  license_coverage_gap: { is_active: true, threshold: 0, parameters: {} },
  vulnerability_detected: { is_active: true, threshold: 0, parameters: { min_risk_score: 4.0 } },
  vulnerability_unresolved: { is_active: true, threshold: 0, parameters: {} },
  vulnerability_stale: { is_active: true, threshold: 0, parameters: { max_days: 30, min_risk_score: 7.0 } },
  license_unknown: { is_active: true, threshold: 0, parameters: {} },
};

/** A small deterministic generator (LCG), so every run evaluates the same facts. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

const ALERTS: readonly ComplianceAlert[] = ['', '', '', 'warning', 'error'];
const CATEGORIES: readonly string[] = ['Permissive', 'Permissive', 'Copyleft Limited', 'Copyleft', 'Proprietary Free'];
const STATES: readonly (AnalysisState | null)[] = [null, null, ...ANALYSIS_STATES];

/** 10,000 packages: a tenth without license expression, 40 % with 1–4 vulnerabilities, alerts of all kinds. */
export function benchFacts(count: number, now: Date): PackageFacts[] {
  const random = generator(20_260_301);
  return Array.from({ length: count }, (_, i): PackageFacts => {
    const hasLicenseExpression = i % 10 !== 0;
    const drawn = hasLicenseExpression
      ? Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
          key: `license-${Math.floor(random() * 200)}`,
          alert: pick(random, ALERTS),
          category: pick(random, CATEGORIES),
        }))
      : [];
    // One in fifty also names an unknown license (free text an SBOM carried).
    if (hasLicenseExpression && i % 50 === 7) drawn.push({ key: 'unknown-license-reference', alert: '', category: 'Unstated License' });
    // Each key once, as an expression's keys are.
    const licenses = drawn.filter((license, n) => drawn.findIndex((other) => other.key === license.key) === n);
    // Every fifth expression a choice (OR), the others all required (AND): both ways of judging run.
    const licenseExpression = licenses.map((license) => license.key).join(i % 5 === 0 ? ' OR ' : ' AND ');
    const vulnerabilities =
      random() < 0.4
        ? Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({
            id: `VCID-${Math.floor(random() * 5_000)}`,
            riskScore: random() < 0.15 ? null : Math.round(random() * 100) / 10,
            linkedDate: isoWithOffset(new Date(now.getTime() - Math.floor(random() * 90 * DAY_MS))),
            analysisState: pick(random, STATES),
          }))
        : [];
    return {
      uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      purl: `pkg:npm/bench-rules-${i}@1.0.0`,
      licenseExpression,
      concluded: false,
      licenses,
      unknownLicenses: i % 50 === 7 && hasLicenseExpression ? ['SEE LICENSE IN LICENSE'] : [],
      usagePolicyAlert: pick(random, ALERTS),
      vulnerabilities,
    };
  });
}

export const policyRules: Scenario = {
  name: 'policy rules',
  async run({ log }) {
    const facts = benchFacts(PACKAGES, NOW);
    let results: RuleResult[] = [];
    // What the floor computes is kept, so the JIT cannot drop the loop.
    let sink = 0;
    const floor = () => {
      let sum = 0;
      for (const pkg of facts) {
        sum += pkg.vulnerabilities.length + pkg.licenses.length;
        for (const v of pkg.vulnerabilities) sum += v.riskScore ?? 0;
      }
      sink += sum;
    };
    const medians = await timeInterleaved(
      {
        rules: async () => {
          results = evaluateRules(ALL_RULES_CONFIG, facts, NOW);
        },
        floor: async () => floor(),
      },
      REPETITIONS,
      3,
    );

    // The rules really ran, all of them, on what was generated.
    if (results.length !== RULE_TYPES.length) throw new Error(`expected ${RULE_TYPES.length} rule results, got ${results.length}`);
    const gap = results.find((result) => result.type === 'license_coverage_gap')?.count;
    if (gap !== PACKAGES / 10) throw new Error(`license_coverage_gap counted ${gap}, expected ${PACKAGES / 10}`);
    if (!(sink > 0)) throw new Error('the floor computed nothing');
    const counts = results.map((result) => `${result.type} ${result.count}`).join(', ');
    log(`rules ${medians.rules.toFixed(2)} ms, floor ${medians.floor.toFixed(3)} ms; counts: ${counts}`);

    const perSecond = PACKAGES / (medians.rules / 1000);
    const ratio = medians.rules / medians.floor;
    const common = `median of ${REPETITIONS} runs in the bench process, interleaved with the floor`;
    return [
      {
        scenario: this.name,
        figure: `evaluateRules, ${PACKAGES.toLocaleString('en-US')} packages, all ${RULE_TYPES.length} rules active`,
        value: medians.rules,
        unit: 'ms',
        target: 'reference',
        met: true,
        note: `${common}; floor (the same facts merely iterated, summing vulnerabilities and licenses) ${medians.floor.toFixed(3)} ms, rules / floor = ${ratio.toFixed(0)}×; offenders per rule: ${counts}`,
      },
      {
        scenario: this.name,
        figure: `packages per second through all ${RULE_TYPES.length} rules`,
        value: Math.round(perSecond),
        unit: 'packages/s',
        target: 'reference',
        met: true,
        note: `${PACKAGES.toLocaleString('en-US')} packages / ${medians.rules.toFixed(2)} ms`,
      },
    ];
  },
};
