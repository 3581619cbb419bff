/**
 * tornRead: whether a product's evaluation state and violation items, read apart, come from two
 * commits. Commit n writes the state at version n, lists the violations it wrote and stamps them n.
 */
import { describe, expect, it } from 'vitest';
import { tornRead, type EvaluationState } from '../../shared/store/policy-store.ts';

const state = (version: number, violationsWritten?: string[]): EvaluationState =>
  ({ version, evaluatedAt: null, coveredUntil: null, waived: [], ...(violationsWritten ? { violationsWritten } : {}) }) as EvaluationState;
const item = (ruleType: string, stateVersion?: number) => ({ ruleType, ...(stateVersion === undefined ? {} : { stateVersion }) });

describe('tornRead', () => {
  it('takes one commit read whole', () => {
    expect(tornRead(state(7, ['usage_policy_error']), [item('usage_policy_error', 7), item('license_coverage_gap', 3)])).toBe(false);
    // A commit that wrote no violation (only the state's dates or waivers) leaves the older stamps right.
    expect(tornRead(state(8, []), [item('usage_policy_error', 7)])).toBe(false);
    expect(tornRead(state(0), [])).toBe(false);
  });

  it("finds a violation the state's commit wrote, read as it was before that commit", () => {
    expect(tornRead(state(7, ['usage_policy_error']), [item('usage_policy_error', 6)])).toBe(true);
    // Or not yet there at all: a violation detected for the first time.
    expect(tornRead(state(7, ['license_coverage_gap']), [item('usage_policy_error', 6)])).toBe(true);
  });

  it("finds a violation of a commit after the state's", () => {
    expect(tornRead(state(6, ['usage_policy_error']), [item('usage_policy_error', 6), item('license_coverage_gap', 7)])).toBe(true);
  });

  it('takes items and states written before the stamps as read, and stamps them from the next commit on', () => {
    expect(tornRead(state(12), [item('usage_policy_error'), item('license_coverage_gap')])).toBe(false);
    expect(tornRead(state(13, ['usage_policy_error']), [item('usage_policy_error'), item('license_coverage_gap')])).toBe(true);
    expect(tornRead(state(13, ['usage_policy_error']), [item('usage_policy_error', 13), item('license_coverage_gap')])).toBe(false);
  });
});
