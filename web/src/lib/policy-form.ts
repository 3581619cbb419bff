/**
 * The policy rules form: what the user typed, per rule, turned into the configuration object (rule
 * type → is_active, threshold, parameters) and checked by the very function the API checks it with
 * (shared/domain/policy-rules.ts), so the form's field errors use the API's key paths and words
 * before anything is sent.
 */
import type * as z from 'zod';
import { RULES, RULE_TYPES, checkConfig, effectiveConfig, ruleReason, type PolicyConfig, type RuleType } from '../../../shared/domain/policy-rules.ts';
import { REFERENCE_CATEGORIES } from '../../../shared/domain/reference-license.ts';
import type { PolicyRuleSchema } from '../../../shared/schemas/policy.ts';

export { RULES, RULE_TYPES, REFERENCE_CATEGORIES, type RuleType };

/** One rule as GET /api/v2/policy_rules/ answers it (the API's own schema; a type-only import). */
export type PolicyRule = z.output<typeof PolicyRuleSchema>;

/** The form's state for one rule: inputs hold text as typed. */
export interface RuleInputs {
  readonly is_active: boolean;
  readonly threshold: string;
  readonly parameters: Readonly<Record<string, string>>;
}

export type PolicyForm = Readonly<Record<RuleType, RuleInputs>>;

export function formFromRules(rules: readonly PolicyRule[]): PolicyForm {
  const byType = new Map(rules.map((rule) => [rule.rule_type, rule]));
  return Object.fromEntries(
    RULE_TYPES.map((type) => {
      const rule = byType.get(type);
      const parameters = Object.fromEntries(Object.keys(RULES[type].parameters).map((name) => [name, parameterText(rule?.parameters[name])]));
      return [type, { is_active: rule?.is_active ?? false, threshold: String(rule?.threshold ?? 0), parameters }];
    }),
  ) as PolicyForm;
}

/** A parameter as its input shows it: a number as typed, a list of categories comma-separated. */
function parameterText(value: number | readonly string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** Whether a parameter takes a list (comma-separated in its input) rather than a number. */
export function isListParameter(type: RuleType, name: string): boolean {
  return RULES[type].parameters[name]?.type === 'categories';
}

/** Text as a number when it is one; otherwise the text itself, which the check then names as wrong. */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

/** The body of PUT /api/v2/policy_rules/: every rule, an empty parameter left to its default. */
export function configFromForm(form: PolicyForm): Record<RuleType, { is_active: boolean; threshold: number | string; parameters: Record<string, number | string | string[]> }> {
  return Object.fromEntries(
    RULE_TYPES.map((type) => {
      const inputs = form[type];
      const parameters: Record<string, number | string | string[]> = {};
      for (const [name, text] of Object.entries(inputs.parameters)) {
        if (text.trim() === '') continue;
        parameters[name] = isListParameter(type, name)
          ? text
              .split(',')
              .map((item) => item.trim())
              .filter((item) => item !== '')
          : numberOrText(text);
      }
      return [type, { is_active: inputs.is_active, threshold: inputs.threshold.trim() === '' ? 0 : numberOrText(inputs.threshold), parameters }];
    }),
  ) as ReturnType<typeof configFromForm>;
}

export type FormCheck = { readonly ok: true; readonly config: PolicyConfig } | { readonly ok: false; readonly errors: Readonly<Record<string, readonly string[]>> };

/** The API's own validation, run in the browser: errors keyed `rule.threshold`, `rule.parameters.name`. */
export function checkForm(form: PolicyForm): FormCheck {
  return checkConfig(configFromForm(form));
}

/** The id of the input an error key path belongs to, so the message sits next to its field. */
export function inputId(path: string): string {
  return `rule-${path.replaceAll('.', '-')}`;
}

/** The categories a list parameter holds, as its input keeps them (comma-separated). */
export function categoriesOf(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The list parameter's text with `category` ticked or not, in the reference library's order. */
export function withCategory(text: string, category: string, ticked: boolean): string {
  const held = new Set(categoriesOf(text));
  if (ticked) held.add(category);
  else held.delete(category);
  return REFERENCE_CATEGORIES.filter((known) => held.has(known)).join(', ');
}

/**
 * Why the rule fires as the form now stands (the API's own words, shared/domain/policy-rules.ts
 * ruleReason); undefined while its inputs do not check.
 */
export function formReason(form: PolicyForm, type: RuleType): string | undefined {
  const check = checkConfig({ [type]: configFromForm(form)[type] });
  return check.ok ? ruleReason(type, effectiveConfig(check.config, type)) : undefined;
}
