/** zod schemas of the policy endpoints, for OpenAPI (the configuration itself is checked by the domain). */
import * as z from 'zod';
import { RULE_TYPES } from '../domain/policy-rules.ts';
import { MAX_WAIVER_DAYS, MAX_WAIVER_REASON_LENGTH } from '../domain/policy-waivers.ts';
import { expectedDictionary, jsonObject } from './json-input.ts';
import { pageQuery, shown, writableObject } from './common.ts';

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
    reason: z.string().describe('Why the rule fires in this dataspace, in the terms of its configuration (alert, categories, scores, days, threshold)'),
    severity: z.enum(['error', 'warning']),
    is_active: z.boolean(),
    threshold: z.int().nonnegative(),
    parameters: z.record(z.string(), z.union([z.number(), z.array(z.string())])).describe('Numbers, or (categories) a list of license categories'),
  })
  .meta({ id: 'PolicyRule' });

/** POST .../recommended/ takes no options: no body, or an empty JSON object (what DRF clients send). */
export const RecommendedApplySchema = writableObject({}, []).meta({ id: 'RecommendedPolicyApply' });

export const RecommendedPlanSchema = z
  .object({
    usage_policies: z
      .array(
        z.object({
          label: z.string(),
          content_type: z.literal('license'),
          compliance_alert: z.enum(['', 'warning', 'error']),
          description: z.string(),
          action: z.enum(['create', 'keep']).describe('create: the label is free; keep: the dataspace has a usage policy of that label, left as it is'),
        }),
      )
      .describe('The three license usage policies: Approved, Caution, Prohibited'),
    rules: z
      .array(
        z.object({
          rule_type: z.enum(RULE_TYPES),
          label: z.string(),
          action: z
            .enum(['set', 'keep', 'unchanged'])
            .describe('set: the rule is as it comes (inactive, defaults) and takes the recommended configuration; keep: the dataspace configured it otherwise, and it stays so; unchanged: it is already as recommended'),
          is_active: z.boolean(),
          threshold: z.int().nonnegative(),
          parameters: z.record(z.string(), z.union([z.number(), z.array(z.string())])),
          reason: z.string().describe('Why it fires, as recommended'),
          why: z.string().describe('Why it is recommended so'),
        }),
      )
      .describe('Every rule type, with the recommended configuration'),
    changes: z.int().nonnegative().describe('Usage policies to create plus rules to set: 0 once applied'),
  })
  .meta({ id: 'RecommendedPolicyPlan' });

export const PolicyViolationSchema = z
  .object({
    rule_type: z.enum(RULE_TYPES),
    rule_label: z.string(),
    rule_description: z.string(),
    rule_reason: z.string().describe("Why the rule fires in this dataspace, in the terms of its configuration, as it is now"),
    rule_severity: z.enum(['error', 'warning']),
    violation_count: z.int().positive().describe('Packages in violation, those waived left out'),
    detected_date: z.string(),
    waived_count: z.int().nonnegative().describe('Packages in violation that waivers hold back (not in violation_count)'),
    waivers: z
      .array(
        z.object({
          uuid: z.uuid(),
          api_url: z.url(),
          package: z.string().nullable().describe('The purl of the package waived; null: the whole rule'),
          reason: z.string(),
          expires_at: z.iso.datetime({ offset: true }),
        }),
      )
      .describe('The waivers that hold back some of its packages'),
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
    errors: z.int().nonnegative().describe('Active violations of error rules'),
    warnings: z.int().nonnegative().describe('Active violations of warning rules'),
    waived_errors: z.int().nonnegative().describe('Error rules that would be in violation but for their waivers (not in errors)'),
    waived_warnings: z.int().nonnegative().describe('Warning rules that would be in violation but for their waivers (not in warnings)'),
    evaluated_at: z.string().nullable(),
  })
  .meta({ id: 'PolicyStatus' });

export const BulkEvaluationSchema = z
  .object({ products: z.array(z.string().max(100)).min(1, 'This list may not be empty.').max(1000, 'Ensure this list has no more than 1000 items.') })
  .catchall(z.never({ error: 'Unknown field.' }))
  .meta({ id: 'BulkEvaluation' });

export const EvaluateQuery = z.object({ wait: z.string().optional().describe('true: evaluate now and answer the violations') });

// ---- waivers ------------------------------------------------------------------------------------

const noControl = (value: string) => !/\p{Cc}/u.test(value.replace(/[\n\r\t]/g, ''));

/** Fields of the waiver representation a client may send back, ignored. */
const WAIVER_READ_ONLY = ['uuid', 'api_url', 'product', 'rule_label', 'package_uuid', 'is_expired', 'created_by', 'created_date'] as const;

export const PolicyWaiverCreateSchema = writableObject(
  {
    rule_type: z
      .enum(RULE_TYPES, {
        error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${shown(issue.input)}" is not a valid choice.`),
      })
      .describe('The rule waived'),
    package: z
      .string()
      .trim()
      .max(2048, 'Ensure this field has no more than 2048 characters.')
      .nullable()
      .default(null)
      .describe("The package waived (its purl, uuid or API URL), which the product must hold. Absent or null: the rule is waived for the whole product"),
    reason: z
      .string()
      .trim()
      .max(MAX_WAIVER_REASON_LENGTH, `Ensure this field has no more than ${MAX_WAIVER_REASON_LENGTH} characters.`)
      .refine((value) => value.length > 0, 'This field may not be blank.')
      .refine(noControl, 'Control characters are not allowed.')
      .describe('Why the violation is accepted'),
    expires_at: z.iso
      .datetime({ offset: true, error: (issue) => (issue.input === undefined ? 'This field is required.' : 'Enter a valid ISO 8601 date/time with a time zone.') })
      .describe(`When the waiver stops applying: in the future, at most ${MAX_WAIVER_DAYS} days ahead`),
  },
  WAIVER_READ_ONLY,
).meta({ id: 'PolicyWaiverCreate' });

export const PolicyWaiverSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    product: z.url(),
    rule_type: z.enum(RULE_TYPES),
    rule_label: z.string(),
    package: z.string().nullable().describe('The purl of the package waived; null: the whole rule, for the product'),
    package_uuid: z.uuid().nullable(),
    reason: z.string(),
    expires_at: z.iso.datetime({ offset: true }),
    is_expired: z.boolean().describe('expires_at has passed: the waiver no longer applies'),
    created_by: z.string(),
    created_date: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'PolicyWaiver' });

export const PolicyWaiverListQuery = pageQuery({
  is_expired: z
    .enum(['true', 'false'], { error: (issue) => `"${shown(issue.input)}" is not a valid boolean: use true or false.` })
    .optional()
    .describe('true: only expired waivers; false: only those that still apply'),
});

/** A waiver in the dataspace-wide list: with its product's uuid, name and version. */
export const PolicyWaiverListItemSchema = PolicyWaiverSchema.extend({
  product_uuid: z.uuid(),
  product_name: z.string(),
  product_version: z.string(),
}).meta({ id: 'PolicyWaiverListItem' });

export const PolicyWaiverDataspaceQuery = PolicyWaiverListQuery.extend({
  product: z.string().optional().describe('A product (uuid or API URL): its waivers only'),
});
