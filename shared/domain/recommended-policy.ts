/**
 * The recommended starting policy, pure: three license usage policies and a configuration of the rules,
 * each with why it is chosen (README "The recommended starting policy"), and the plan of what applying
 * it to a dataspace would change. It never changes what the dataspace already set: a usage policy whose
 * label exists is kept as it is, and so is a rule the dataspace configured to anything but the default
 * (inactive, threshold 0, default parameters: what a rule never touched says, and what the console's
 * form saves for a rule left alone).
 */
import type { ComplianceAlert } from './catalog.ts';
import { RULES, RULE_TYPES, effectiveConfig, ruleReason, sameConfig, type PolicyConfig, type RuleConfig, type RuleType } from './policy-rules.ts';

export interface RecommendedUsagePolicy {
  readonly label: string;
  readonly content_type: 'license';
  readonly compliance_alert: ComplianceAlert;
  readonly description: string;
}

export const RECOMMENDED_USAGE_POLICIES: readonly RecommendedUsagePolicy[] = [
  { label: 'Approved', content_type: 'license', compliance_alert: '', description: 'Fine to use and ship; no review needed.' },
  { label: 'Caution', content_type: 'license', compliance_alert: 'warning', description: 'Allowed after review of its obligations for the product (notices, source offers, linking).' },
  { label: 'Prohibited', content_type: 'license', compliance_alert: 'error', description: 'Not to be shipped in a product.' },
];

/** Each rule's recommended configuration, and why. */
export const RECOMMENDED_RULES: Readonly<Record<RuleType, { readonly config: RuleConfig; readonly why: string }>> = {
  usage_policy_error: {
    config: { is_active: true, threshold: 0, parameters: {} },
    why: 'A package someone marked Prohibited must not ship.',
  },
  usage_policy_warning: {
    config: { is_active: true, threshold: 0, parameters: {} },
    why: 'A package marked Caution needs a look before release.',
  },
  license_policy_error: {
    config: { is_active: true, threshold: 0, parameters: { categories: ['Commercial', 'Proprietary Free'] } },
    why: 'Commercial and Proprietary Free licenses need a contract or forbid redistribution: shipping one without an agreement is the costliest mistake.',
  },
  license_policy_warning: {
    config: { is_active: true, threshold: 0, parameters: { categories: ['Copyleft', 'Copyleft Limited'] } },
    why: 'Copyleft licenses are fine in many products but bring obligations (source offers, same-license linking): a warning to review, not a stop.',
  },
  license_coverage_gap: {
    config: { is_active: true, threshold: 0, parameters: {} },
    why: 'A package with no license statement cannot be judged at all: someone has to find its license.',
  },
  vulnerability_detected: {
    config: { is_active: true, threshold: 0, parameters: { min_risk_score: 7 } },
    why: 'A risk score of 7 or more is high or critical: fix or triage before shipping. Lower scores are left to the teams, so the gate stays meaningful.',
  },
  vulnerability_unresolved: {
    config: { is_active: false, threshold: 0, parameters: {} },
    why: 'Left off: every low-risk vulnerability without an analysis would warn; Vulnerability Stale catches the high-risk ones left alone.',
  },
  vulnerability_stale: {
    config: { is_active: true, threshold: 0, parameters: { max_days: 30, min_risk_score: 8 } },
    why: 'A vulnerability scoring 8 or more left without a completed analysis for over 30 days is a process failure worth an error.',
  },
  license_unknown: {
    config: { is_active: true, threshold: 0, parameters: {} },
    why: 'An unknown license may hide any of the above: a warning until it is mapped or concluded.',
  },
};

export type PlanAction = 'create' | 'keep';

export interface RecommendedPlan {
  readonly usage_policies: readonly (RecommendedUsagePolicy & { readonly action: PlanAction })[];
  readonly rules: readonly {
    readonly rule_type: RuleType;
    readonly label: string;
    /** set: it will take the recommended configuration; keep: the dataspace configured it otherwise; unchanged: it is already as recommended. */
    readonly action: 'set' | 'keep' | 'unchanged';
    readonly is_active: boolean;
    readonly threshold: number;
    readonly parameters: RuleConfig['parameters'];
    /** Why it fires, as recommended. */
    readonly reason: string;
    readonly why: string;
  }[];
  /** Usage policies to create plus rules to set: 0 once applied. */
  readonly changes: number;
}

/** Whether the dataspace left this rule as it comes: inactive, threshold 0, default parameters. */
function isUnset(config: PolicyConfig, type: RuleType): boolean {
  return sameConfig({ [type]: effectiveConfig(config, type) }, { [type]: effectiveConfig({}, type) });
}

/** What applying the recommended policy to a dataspace holding these usage policy labels and this configuration would change. */
export function recommendedPlan(existingLabels: ReadonlySet<string>, config: PolicyConfig): RecommendedPlan {
  const usagePolicies = RECOMMENDED_USAGE_POLICIES.map((policy) => ({ ...policy, action: existingLabels.has(policy.label) ? ('keep' as const) : ('create' as const) }));
  const rules = RULE_TYPES.map((type) => {
    const { config: recommended, why } = RECOMMENDED_RULES[type];
    return {
      rule_type: type,
      label: RULES[type].label,
      action: sameConfig({ [type]: effectiveConfig(config, type) }, { [type]: recommended })
        ? ('unchanged' as const)
        : isUnset(config, type)
          ? ('set' as const)
          : ('keep' as const),
      ...recommended,
      reason: ruleReason(type, recommended),
      why,
    };
  });
  const changes = usagePolicies.filter((policy) => policy.action === 'create').length + rules.filter((rule) => rule.action === 'set').length;
  return { usage_policies: usagePolicies, rules, changes };
}

/** The rules of the plan to set (those the dataspace has not configured), as a configuration. */
export function rulesToSet(plan: RecommendedPlan): PolicyConfig {
  return Object.fromEntries(
    plan.rules.filter((rule) => rule.action === 'set').map((rule) => [rule.rule_type, { is_active: rule.is_active, threshold: rule.threshold, parameters: rule.parameters }]),
  );
}
