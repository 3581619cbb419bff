/**
 * The waiver events, versioned contracts: policy.waiver_created, policy.waiver_revoked and
 * policy.waiver_expired, with their zod schemas (docs/events/*.schema.json are generated from these)
 * and builders. The outbox publisher makes them from the waiver items' stream records.
 */
import * as z from 'zod';
import { RULES, RULE_TYPES } from '../domain/policy-rules.ts';
import type { PolicyWaiver } from '../domain/policy-waivers.ts';
import { EnvelopeSchema, envelope, type Envelope } from './envelope.ts';

export const WAIVER_CREATED = 'policy.waiver_created';
export const WAIVER_REVOKED = 'policy.waiver_revoked';
export const WAIVER_EXPIRED = 'policy.waiver_expired';

const WaiverProductRef = z.object({ uuid: z.uuid(), api_url: z.url() });

export const WaiverSummary = z.object({
  uuid: z.uuid(),
  api_url: z.url(),
  rule_type: z.enum(RULE_TYPES),
  rule_label: z.string(),
  package: z.string().nullable().describe('The purl of the package waived; null: the rule is waived for the whole product'),
  package_uuid: z.uuid().nullable(),
  reason: z.string(),
  expires_at: z.iso.datetime({ offset: true }),
  created_by: z.string(),
  created_date: z.iso.datetime({ offset: true }),
});

const base = { waiver: WaiverSummary, product: WaiverProductRef, dataspace: z.string(), text: z.string().describe('A Slack-friendly summary') };

export const WaiverCreatedData = z.object(base);
export const WaiverRevokedData = z.object({ ...base, revoked_by: z.string(), revoked_at: z.iso.datetime({ offset: true }) });
export const WaiverExpiredData = z.object({ ...base, expired_at: z.iso.datetime({ offset: true }).describe('When the expiry job recorded it (at most about a minute after expires_at)') });

export const WaiverCreatedEvent = EnvelopeSchema(WAIVER_CREATED, WaiverCreatedData).meta({ id: 'PolicyWaiverCreated' });
export const WaiverRevokedEvent = EnvelopeSchema(WAIVER_REVOKED, WaiverRevokedData).meta({ id: 'PolicyWaiverRevoked' });
export const WaiverExpiredEvent = EnvelopeSchema(WAIVER_EXPIRED, WaiverExpiredData).meta({ id: 'PolicyWaiverExpired' });

/** Links of a waiver's answers and events: under its product. */
export function waiverUrl(baseUrl: string, productUuid: string, uuid: string): string {
  return `${baseUrl}/api/v2/products/${productUuid}/policy_waivers/${uuid}/`;
}

function summary(waiver: PolicyWaiver, baseUrl: string): z.infer<typeof WaiverSummary> {
  return {
    uuid: waiver.uuid,
    api_url: waiverUrl(baseUrl, waiver.productUuid, waiver.uuid),
    rule_type: waiver.ruleType,
    rule_label: RULES[waiver.ruleType].label,
    package: waiver.packagePurl,
    package_uuid: waiver.packageUuid,
    reason: waiver.reason,
    expires_at: waiver.expiresDate,
    created_by: waiver.createdBy,
    created_date: waiver.createdDate,
  };
}

const what = (waiver: PolicyWaiver) => `${RULES[waiver.ruleType].label} for ${waiver.packagePurl ?? 'the whole product'}`;

function data(waiver: PolicyWaiver, baseUrl: string, text: string) {
  return {
    waiver: summary(waiver, baseUrl),
    product: { uuid: waiver.productUuid, api_url: `${baseUrl}/api/v2/products/${waiver.productUuid}/` },
    dataspace: waiver.dataspace,
    text,
  };
}

export function waiverCreated(id: string, waiver: PolicyWaiver, baseUrl: string): Envelope<z.infer<typeof WaiverCreatedData>> {
  return envelope(WAIVER_CREATED, id, waiver.createdDate, waiver.dataspace, data(waiver, baseUrl, `Policy waiver created by ${waiver.createdBy}: ${what(waiver)}, until ${waiver.expiresDate}`));
}

export function waiverRevoked(id: string, waiver: PolicyWaiver, revokedBy: string, revokedAt: string, baseUrl: string): Envelope<z.infer<typeof WaiverRevokedData>> {
  return envelope(WAIVER_REVOKED, id, revokedAt, waiver.dataspace, {
    ...data(waiver, baseUrl, `Policy waiver revoked by ${revokedBy}: ${what(waiver)}`),
    revoked_by: revokedBy,
    revoked_at: revokedAt,
  });
}

export function waiverExpired(id: string, waiver: PolicyWaiver, expiredAt: string, baseUrl: string): Envelope<z.infer<typeof WaiverExpiredData>> {
  return envelope(WAIVER_EXPIRED, id, expiredAt, waiver.dataspace, {
    ...data(waiver, baseUrl, `Policy waiver expired: ${what(waiver)}`),
    expired_at: expiredAt,
  });
}
