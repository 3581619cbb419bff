/**
 * The API's answers as the console reads them. Where the schema module is browser-clean, the type is
 * the output of the very zod schema the API answers with and its OpenAPI document is built from
 * (type-only imports: nothing of zod reaches the bundle). The request and webhook schema modules pull
 * in Node code (Buffer, node:net), so those types are written here, and test/unit/web-console.test.ts
 * checks at compile time that what those schemas describe fits them.
 */
import type * as z from 'zod';
import type { PackageSchema } from '../../../shared/schemas/catalog.ts';
import type { PolicyStatusSchema, PolicyViolationSchema, ViolationPackageSchema } from '../../../shared/schemas/policy.ts';
import type { PermissionListingSchema, ProductSchema } from '../../../shared/schemas/product.ts';

export type Product = z.output<typeof ProductSchema>;
export type Package = z.output<typeof PackageSchema>;
export type Violation = z.output<typeof PolicyViolationSchema>;
export type ViolationPackage = z.output<typeof ViolationPackageSchema>;
export type PolicyStatus = z.output<typeof PolicyStatusSchema>;
export type Permissions = z.output<typeof PermissionListingSchema>;

export interface Comment {
  readonly uuid: string;
  readonly username: string;
  readonly text: string;
  readonly created_date: string;
}

export interface ServiceRequest {
  readonly uuid: string;
  readonly api_url: string;
  readonly title: string;
  readonly request_template: string;
  readonly request_template_name: string;
  readonly status: 'open' | 'closed' | 'draft';
  readonly priority: string | null;
  readonly assignee: string | null;
  readonly requester: string;
  readonly product_context: string | null;
  readonly content_object: string | null;
  readonly content_type: string;
  readonly notes: string;
  readonly serialized_data: Readonly<Record<string, string | boolean>>;
  readonly is_private: boolean;
  readonly cc_emails: readonly string[];
  readonly created_date: string;
  readonly last_modified_date: string;
  readonly comment_count: number;
  readonly comments: readonly Comment[];
}

/** The event types a subscription may ask for (test/unit/web-console.test.ts keeps them equal to the API's event catalog). */
export const WEBHOOK_EVENT_TYPES = [
  'policy.violation_detected',
  'policy.violation_resolved',
  'policy.waiver_created',
  'policy.waiver_revoked',
  'policy.waiver_expired',
  'request.added',
  'request.updated',
  'request_comment.added',
] as const;

export interface Webhook {
  readonly uuid: string;
  readonly api_url: string;
  readonly target_url: string;
  readonly events: readonly string[];
  readonly is_active: boolean;
  readonly description: string;
  readonly created_date: string;
  readonly secret?: string;
}

export interface Delivery {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly attempt: number;
  readonly attempted_at: string;
  readonly outcome: string;
  readonly response_status: number | null;
  readonly duration_ms: number | null;
  readonly response: string;
}

export interface PingResult {
  readonly event_id: string;
  readonly delivered: boolean;
  readonly response_status: number | null;
  readonly duration_ms: number;
  readonly response: string;
}
