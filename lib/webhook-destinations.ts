/**
 * Static webhook destinations declared in cdk.json (context `webhookDestinations`): for engineers
 * who would rather wire a fixed endpoint in infrastructure than subscribe through the API. Each
 * becomes an EventBridge connection (its auth header's value read from Secrets Manager), an API
 * destination, and a rule on the bus with a retry policy and a dead-letter queue.
 */
import * as z from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../shared/domain/webhooks.ts';

export const WebhookDestinationSchema = z.strictObject({
  /** Letters, digits and dashes: part of resource names. */
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,40}$/),
  endpoint: z.url({ protocol: /^https$/ }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
  /** Name or ARN of the Secrets Manager secret that holds the header's value. */
  secretName: z.string().min(1),
  headerName: z.string().min(1).default('Authorization'),
  /** Invocations per second the destination accepts. */
  rateLimitPerSecond: z.int().positive().max(300).default(10),
});

export type WebhookDestination = z.output<typeof WebhookDestinationSchema>;

/** Reads and validates the context value, naming the path of any problem. */
export function webhookDestinations(value: unknown): WebhookDestination[] {
  if (value === undefined || value === null) return [];
  const parsed = z.array(WebhookDestinationSchema).safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `webhookDestinations${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${issue.message}`);
    throw new Error(`Invalid cdk.json context:\n${problems.join('\n')}`);
  }
  return parsed.data;
}
