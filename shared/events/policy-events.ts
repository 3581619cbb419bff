/**
 * The policy events, versioned contracts: policy.violation_detected (version 2) and
 * policy.violation_resolved, with their zod schemas (docs/events/*.schema.json are generated from
 * these) and builders. The waiver events are in waiver-events.ts.
 */
import * as z from 'zod';
import { RULES, RULE_TYPES, type RuleType } from '../domain/policy-rules.ts';
import { EnvelopeSchema, envelope, type Envelope } from './envelope.ts';

const ProductRef = z.object({ uuid: z.uuid(), name: z.string(), version: z.string(), api_url: z.url() });
const ViolationSummary = z.object({
  rule_type: z.enum(RULE_TYPES),
  rule_label: z.string(),
  rule_severity: z.enum(['error', 'warning']),
  violation_count: z.int().nonnegative(),
});

export const VIOLATION_DETECTED = 'policy.violation_detected';
export const VIOLATION_RESOLVED = 'policy.violation_resolved';

/** Why violations were detected: the rules found them, or waivers that held packages back expired. */
export const DETECTION_REASONS = ['rule_triggered', 'waiver_expired'] as const;
export type DetectionReason = (typeof DETECTION_REASONS)[number];

/** Version 2: `reason`, and each violation's `expired_waivers` (docs/events/README.md). */
export const VIOLATION_DETECTED_VERSION = 2;

export const ViolationDetectedData = z.object({
  product: ProductRef,
  dataspace: z.string(),
  violations: z.array(
    ViolationSummary.extend({
      reactivated: z.boolean().describe('It had been resolved and recurs'),
      expired_waivers: z.array(z.uuid()).describe('Waivers that expired since the last evaluation and held back packages it counts again (empty: none)'),
    }),
  ),
  count: z.int().positive().describe('Violations detected in this run'),
  reason: z
    .enum(DETECTION_REASONS)
    .describe('waiver_expired when waivers that expired brought packages back into a violation (their uuids in `expired_waivers`); rule_triggered otherwise'),
  expired_waivers: z.array(z.uuid()).describe("Every violation's expired_waivers, once each"),
  evaluated_at: z.iso.datetime({ offset: true }),
  text: z.string().describe('A Slack-friendly summary'),
});

export const ViolationResolvedData = z.object({
  product: ProductRef,
  dataspace: z.string(),
  violations: z.array(ViolationSummary),
  resolved_count: z.int().positive(),
  evaluated_at: z.iso.datetime({ offset: true }),
  text: z.string(),
});

export const ViolationDetectedEvent = EnvelopeSchema(VIOLATION_DETECTED, ViolationDetectedData, VIOLATION_DETECTED_VERSION).meta({ id: 'PolicyViolationDetected' });
export const ViolationResolvedEvent = EnvelopeSchema(VIOLATION_RESOLVED, ViolationResolvedData).meta({ id: 'PolicyViolationResolved' });

export interface ProductOfEvent {
  readonly uuid: string;
  readonly name: string;
  readonly version: string;
  readonly api_url: string;
}

const productName = (product: ProductOfEvent) => (product.version ? `${product.name} ${product.version}` : product.name);
const line = (type: RuleType, count: number) => `• ${RULES[type].label}: ${count} package${count === 1 ? '' : 's'}`;
const summary = (type: RuleType, count: number) => ({
  rule_type: type,
  rule_label: RULES[type].label,
  rule_severity: RULES[type].severity,
  violation_count: count,
});

export function violationDetected(
  id: string,
  at: string,
  product: ProductOfEvent,
  dataspace: string,
  violations: readonly { ruleType: RuleType; count: number; reactivated: boolean; expiredWaivers?: readonly string[] | undefined }[],
): Envelope<z.infer<typeof ViolationDetectedData>> {
  const expired = [...new Set(violations.flatMap((v) => v.expiredWaivers ?? []))].sort();
  return envelope(
    VIOLATION_DETECTED,
    id,
    at,
    dataspace,
    {
      product,
      dataspace,
      violations: violations.map((v) => ({ ...summary(v.ruleType, v.count), reactivated: v.reactivated, expired_waivers: [...(v.expiredWaivers ?? [])] })),
      count: violations.length,
      reason: expired.length > 0 ? ('waiver_expired' as const) : ('rule_triggered' as const),
      expired_waivers: expired,
      evaluated_at: at,
      text: [
        `Policy violations detected for ${productName(product)}${expired.length > 0 ? ` (${expired.length === 1 ? 'a waiver' : `${expired.length} waivers`} expired)` : ''}`,
        ...violations.map((v) => line(v.ruleType, v.count)),
      ].join('\n'),
    },
    VIOLATION_DETECTED_VERSION,
  );
}

export function violationResolved(
  id: string,
  at: string,
  product: ProductOfEvent,
  dataspace: string,
  violations: readonly { ruleType: RuleType; count: number }[],
): Envelope<z.infer<typeof ViolationResolvedData>> {
  return envelope(VIOLATION_RESOLVED, id, at, dataspace, {
    product,
    dataspace,
    violations: violations.map((v) => summary(v.ruleType, v.count)),
    resolved_count: violations.length,
    evaluated_at: at,
    text: [
      `Policy violations resolved for ${productName(product)}`,
      ...violations.map((v) => `• ${RULES[v.ruleType].label}`),
    ].join('\n'),
  });
}
