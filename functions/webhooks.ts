/** /api/v2/webhooks/: subscriptions, rotate_secret, ping, the delivery log and redelivery. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, webhookService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, webhooks }: Pick<Dependencies, 'api' | 'webhooks'>) => apiFunction(api, {
  list_webhooks: async (r) => ({ statusCode: 200, body: await webhooks.list(r.caller, r.query, r.url, r.baseUrl) }),
  create_webhook: async (r) => ({ statusCode: 201, body: await webhooks.create(r.caller, () => r.body, r.baseUrl) }),
  retrieve_webhook: async (r) => ({ statusCode: 200, body: await webhooks.retrieve(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_webhook: async (r) => ({ statusCode: 200, body: await webhooks.update(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_webhook: async (r) => ({ statusCode: 200, body: await webhooks.update(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_webhook: async (r) => (await webhooks.delete(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),
  rotate_webhook_secret: async (r) => ({ statusCode: 200, body: await webhooks.rotateSecret(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  ping_webhook: async (r) => ({ statusCode: 200, body: await webhooks.ping(r.caller, r.pathParameters.uuid) }),
  list_webhook_deliveries: async (r) => ({ statusCode: 200, body: await webhooks.deliveries(r.caller, r.pathParameters.uuid, r.query, r.url) }),
  redeliver_webhook_delivery: async (r) => ({ statusCode: 202, body: await webhooks.redeliver(r.caller, r.pathParameters.uuid, r.pathParameters.id) }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), webhooks: webhookService(c) }));
