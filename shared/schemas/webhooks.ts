/** zod schemas of the webhooks endpoints. */
import * as z from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks.ts';
import { shown, writableObject } from './common.ts';

const events = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, {
      error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${shown(issue.input)}" is not a valid choice.`),
    }),
  )
  .min(1, 'This list may not be empty.')
  .max(WEBHOOK_EVENT_TYPES.length * 2);
const targetUrl = z.string().trim().min(1, 'This field may not be blank.').max(2000, 'Ensure this field has no more than 2000 characters.');
const description = z.string().max(1000, 'Ensure this field has no more than 1000 characters.');
const READ_ONLY = ['uuid', 'api_url', 'created_date', 'secret'];

export const WebhookCreateSchema = writableObject(
  { target_url: targetUrl, events, is_active: z.boolean().default(true), description: description.default('') },
  READ_ONLY,
).meta({ id: 'WebhookCreate' });
export const WebhookUpdateSchema = writableObject({ target_url: targetUrl, events, is_active: z.boolean(), description }, READ_ONLY).meta({ id: 'WebhookUpdate' });
export const WebhookPatchSchema = writableObject(
  { target_url: targetUrl.optional(), events: events.optional(), is_active: z.boolean().optional(), description: description.optional() },
  READ_ONLY,
).meta({ id: 'WebhookPatch' });

export const WebhookSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    target_url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    is_active: z.boolean(),
    description: z.string(),
    created_date: z.string(),
    secret: z.string().optional().describe('whsec_…: only in the answers to create and rotate_secret'),
  })
  .meta({ id: 'Webhook' });

export const DeliveryAttemptSchema = z
  .object({
    id: z.uuid().describe('The delivery (event × subscription): redeliver it by this id'),
    event_id: z.string(),
    event_type: z.string(),
    attempt: z.int().positive(),
    attempted_at: z.string(),
    outcome: z.enum(['delivered', 'failed', 'disabled']),
    response_status: z.int().nullable(),
    duration_ms: z.number(),
    response: z.string().describe('The first 1 KB of the answer, or the error'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const PingResultSchema = z
  .object({ event_id: z.string(), delivered: z.boolean(), response_status: z.int().nullable(), duration_ms: z.number(), response: z.string() })
  .meta({ id: 'WebhookPing' });
