/** The Audit page's filters: the API's object types and actions, and a day as the API's time bounds. */

/**
 * The API's object types and actions (shared/domain/audit.ts AUDITED_OBJECT_TYPES, AUDIT_ACTIONS; that
 * module reads Node's Buffer, so the console keeps its own copy: an unknown one is the API's 400 at the field).
 */
export const AUDITED_OBJECT_TYPES = [
  'product', 'product_permission', 'product_package', 'request', 'request_comment', 'usage_policy', 'license', 'package',
  'vulnerability', 'vulnerability_analysis', 'policy_rules', 'policy_waiver', 'webhook', 'api_key', 'license_mapping', 'sbom_import',
] as const;
export const AUDIT_ACTIONS = ['create', 'update', 'delete'] as const;

/** A date input's day as the API's bounds: the start of the day (since) or its end (until), in UTC. */
export function dayBound(day: string | undefined, end: boolean): string | undefined {
  if (!day) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : day;
}

