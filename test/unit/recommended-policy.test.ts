import { describe, expect, it } from 'vitest';
import { RECOMMENDED_RULES, recommendedPlan, rulesToSet } from '../../shared/domain/recommended-policy.ts';
import { RULE_TYPES, checkConfig, type PolicyConfig } from '../../shared/domain/policy-rules.ts';

describe('the recommended starting policy', () => {
  it('is a configuration the API accepts, with a reason for every rule', () => {
    const config = Object.fromEntries(RULE_TYPES.map((type) => [type, RECOMMENDED_RULES[type].config]));
    expect(checkConfig(config).ok).toBe(true);
    for (const type of RULE_TYPES) expect(RECOMMENDED_RULES[type].why.length, type).toBeGreaterThan(30);
  });

  it('plans everything on a fresh dataspace, except a rule recommended as it comes', () => {
    const plan = recommendedPlan(new Set(), {});
    expect(plan.usage_policies.map((policy) => [policy.label, policy.compliance_alert, policy.action])).toEqual([
      ['Approved', '', 'create'],
      ['Caution', 'warning', 'create'],
      ['Prohibited', 'error', 'create'],
    ]);
    expect(plan.rules.filter((rule) => rule.action === 'unchanged').map((rule) => rule.rule_type)).toEqual(['vulnerability_unresolved']);
    expect(plan.changes).toBe(3 + 8);
    expect(rulesToSet(plan).license_policy_error).toEqual({ is_active: true, threshold: 0, parameters: { categories: ['Commercial', 'Proprietary Free'] } });
    expect(rulesToSet(plan).vulnerability_unresolved).toBeUndefined();
  });

  it('keeps what the dataspace set: a taken label, a configured rule; a rule saved as it comes is still planned', () => {
    const config: PolicyConfig = {
      license_policy_error: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft'] } },
      license_unknown: { is_active: false, threshold: 2, parameters: {} },
      // What the console's form saves for a rule left alone: the defaults, written out.
      vulnerability_stale: { is_active: false, threshold: 0, parameters: { max_days: 30, min_risk_score: 8 } },
    };
    const plan = recommendedPlan(new Set(['Caution']), config);
    expect(plan.usage_policies.find((policy) => policy.label === 'Caution')!.action).toBe('keep');
    const action = (type: string) => plan.rules.find((rule) => rule.rule_type === type)!.action;
    expect(action('license_policy_error')).toBe('keep');
    expect(action('license_unknown')).toBe('keep');
    expect(action('vulnerability_stale')).toBe('set');
    expect(Object.keys(rulesToSet(plan))).not.toContain('license_policy_error');
    expect(plan.changes).toBe(2 + 6);
  });

  it('plans nothing once applied', () => {
    const applied = rulesToSet(recommendedPlan(new Set(), {}));
    expect(recommendedPlan(new Set(['Approved', 'Caution', 'Prohibited']), applied).changes).toBe(0);
  });
});
