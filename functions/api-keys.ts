/** /api/v2/api_keys/: a user's named API keys (a superuser's: the dataspace's), create and revoke. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, apiKeyService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, apiKeys }: Pick<Dependencies, 'api' | 'apiKeys'>) => apiFunction(api, {
  list_api_keys: async (r) => ({ statusCode: 200, body: await apiKeys.list(r.caller, r.query, r.url, r.baseUrl) }),
  create_api_key: async (r) => ({ statusCode: 201, body: await apiKeys.create(r.caller, () => r.body, r.baseUrl) }),
  retrieve_api_key: async (r) => ({ statusCode: 200, body: await apiKeys.retrieve(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  destroy_api_key: async (r) => (await apiKeys.delete(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), apiKeys: apiKeyService(c) }));
