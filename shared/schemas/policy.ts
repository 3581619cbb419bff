/** zod schemas of the policy endpoints, for OpenAPI (the configuration itself is checked by the domain). */
import * as z from 'zod';
import { RULE_TYPES } from '../domain/policy-rules.ts';
import { expectedDictionary, jsonObject } from './json-input.ts';

/** The policy rules configuration, rule type → options. Validated by checkConfig, which names every bad key. */
export const PolicyConfigSchema = z
  .union(
    [
      jsonObject(expectedDictionary),
      // The rule list GET answers, sent back: rule_type keys each rule's options; label, description, severity are
      // ignored. Its entries are judged by configFromRuleList, which names a bad one by its index.
      z.array(z.unknown()),
    ],
    { error: (issue) => expectedDictionary(issue.input) },
  )
  .meta({ id: 'PolicyRulesConfiguration', description: 'Rule type → {is_active, threshold, parameters}; or the rule list GET answers, sent back', example: { vulnerability_stale: { is_active: true, threshold: 0, parameters: { max_days: 30, min_risk_score: 8 } }, license_policy_error: { is_active: true, parameters: { categories: ['Copyleft'] } } } });

export const PolicyRuleSchema = z
  .object({
    rule_type: z.enum(RULE_TYPES),
    label: z.string(),
    description: z.string(),
    severity: z.enum(['error', 'warning']),
    is_active: z.boolean(),
    threshold: z.int().nonnegative(),
    parameters: z.record(z.string(), z.union([z.number(), z.array(z.string())])).describe('Numbers, or (categories) a list of license categories'),
  })
  .meta({ id: 'PolicyRule' });

export const PolicyViolationSchema = z
  .object({
    rule_type: z.enum(RULE_TYPES),
    rule_label: z.string(),
    rule_description: z.string(),
    rule_severity: z.enum(['error', 'warning']),
    violation_count: z.int().positive(),
    detected_date: z.string(),
  })
  .meta({ id: 'PolicyViolation' });

export const ViolationPackageSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    purl: z.string(),
    reasons: z
      .array(z.string())
      .describe('License keys (the flagged licenses that caused it; for license_unknown the unknown licenses as written), or vulnerability ids'),
    license_expression: z
      .string()
      .optional()
      .describe("License rules: the expression judged (the product package's concluded one when set, else the package's)"),
    concluded: z.boolean().optional().describe("License rules: license_expression is the product's concluded expression"),
    no_compliant_choice: z
      .boolean()
      .optional()
      .describe('License policy rules: true when an OR of the expression had every choice flagged (the product could not comply by choosing)'),
  })
  .meta({ id: 'ViolationPackage' });

export const PolicyStatusSchema = z
  .object({
    status: z.enum(['fail', 'warn', 'pass']),
    errors: z.int().nonnegative(),
    warnings: z.int().nonnegative(),
    evaluated_at: z.string().nullable(),
  })
  .meta({ id: 'PolicyStatus' });

export const BulkEvaluationSchema = z
  .object({ products: z.array(z.string().max(100)).min(1, 'This list may not be empty.').max(1000, 'Ensure this list has no more than 1000 items.') })
  .catchall(z.never({ error: 'Unknown field.' }))
  .meta({ id: 'BulkEvaluation' });

export const EvaluateQuery = z.object({ wait: z.string().optional().describe('true: evaluate now and answer the violations') });
