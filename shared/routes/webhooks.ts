/** Webhook subscriptions, their delivery log, redelivery and ping (superusers of the dataspace). */
import * as z from 'zod';
import { pageQuery, paginated } from '../schemas/common.ts';
import { DeliveryAttemptSchema, PingResultSchema, WebhookCreateSchema, WebhookPatchSchema, WebhookSchema, WebhookUpdateSchema } from '../schemas/webhooks.ts';
import { forbidden, invalid, invalidPage, notFound, unauthorized, type Route } from './route.ts';

const missing = notFound('webhook');
const detail = '/api/v2/webhooks/{uuid}/';
const one = { description: 'The subscription', schema: WebhookSchema };

export const WEBHOOK_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/webhooks/',
    function: 'webhooks',
    operationId: 'list_webhooks',
    summary: "The dataspace's webhook subscriptions (superusers)",
    auth: 'api-key',
    listName: 'webhooks',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of subscriptions', schema: paginated(WebhookSchema, 'WebhookPage') }, 401: unauthorized, 403: forbidden, 404: invalidPage },
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/',
    function: 'webhooks',
    operationId: 'create_webhook',
    summary: 'Subscribe a URL to event types; the answer holds the signing secret, shown once',
    auth: 'api-key',
    body: WebhookCreateSchema,
    responses: { 201: one, 400: invalid, 401: unauthorized, 403: forbidden },
  },
  { method: 'GET', path: detail, function: 'webhooks', operationId: 'retrieve_webhook', summary: 'One subscription', auth: 'api-key', responses: { 200: one, 401: unauthorized, 403: forbidden, 404: missing } },
  { method: 'PUT', path: detail, function: 'webhooks', operationId: 'update_webhook', summary: 'Replace a subscription', auth: 'api-key', body: WebhookUpdateSchema, responses: { 200: one, 400: invalid, 401: unauthorized, 403: forbidden, 404: missing } },
  { method: 'PATCH', path: detail, function: 'webhooks', operationId: 'partial_update_webhook', summary: 'Change a subscription (is_active: true switches it back on)', auth: 'api-key', body: WebhookPatchSchema, responses: { 200: one, 400: invalid, 401: unauthorized, 403: forbidden, 404: missing } },
  { method: 'DELETE', path: detail, function: 'webhooks', operationId: 'destroy_webhook', summary: 'Delete a subscription', auth: 'api-key', responses: { 204: { description: 'Deleted' }, 401: unauthorized, 403: forbidden, 404: missing } },
  {
    method: 'POST',
    path: '/api/v2/webhooks/{uuid}/rotate_secret/',
    function: 'webhooks',
    operationId: 'rotate_webhook_secret',
    summary: 'A new signing secret, shown once; the old one stops signing at once',
    auth: 'api-key',
    responses: { 200: one, 401: unauthorized, 403: forbidden, 404: missing },
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/{uuid}/ping/',
    function: 'webhooks',
    operationId: 'ping_webhook',
    summary: 'Send a signed test event now and answer how it went',
    auth: 'api-key',
    responses: { 200: { description: 'The delivery result', schema: PingResultSchema }, 401: unauthorized, 403: forbidden, 404: missing },
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/{uuid}/deliveries/',
    function: 'webhooks',
    operationId: 'list_webhook_deliveries',
    summary: 'The delivery log, newest first (kept 30 days)',
    auth: 'api-key',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of attempts', schema: paginated(DeliveryAttemptSchema, 'WebhookDeliveryPage') }, 401: unauthorized, 403: forbidden, 404: missing },
  },
  {
    method: 'POST',
    path: '/api/v2/webhooks/{uuid}/deliveries/{id}/redeliver/',
    function: 'webhooks',
    operationId: 'redeliver_webhook_delivery',
    summary: 'Send a delivery again',
    auth: 'api-key',
    responses: { 202: { description: '{"status": "redelivery queued"}', schema: z.object({ status: z.string(), id: z.string() }) }, 401: unauthorized, 403: forbidden, 404: notFound('delivery') },
  },
] as const satisfies readonly Route[];
