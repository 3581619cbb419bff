/** Named API keys with scopes: a user's own, or every key of the dataspace for its superusers. */
import { paginated } from '../schemas/common.ts';
import { ApiKeyCreateSchema, ApiKeyListQuery, ApiKeySchema } from '../schemas/api-keys.ts';
import { forbidden, invalid, invalidPage, notFound, unauthorized, type Route } from './route.ts';

const missing = notFound('API key');
const detail = '/api/v2/api_keys/{uuid}/';

export const API_KEY_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/api_keys/',
    function: 'api-keys',
    operationId: 'list_api_keys',
    summary: "The caller's API keys (a superuser: every key of the dataspace), by user then name, without their secrets",
    auth: 'api-key',
    listName: 'api_keys',
    query: ApiKeyListQuery,
    responses: { 200: { description: 'A page of keys', schema: paginated(ApiKeySchema, 'ApiKeyPage') }, 401: unauthorized, 404: invalidPage },
  },
  {
    method: 'POST',
    path: '/api/v2/api_keys/',
    function: 'api-keys',
    operationId: 'create_api_key',
    summary: 'A new named key with a scope (read or write) and an optional expiry; the answer holds its secret, shown this once',
    auth: 'api-key',
    body: ApiKeyCreateSchema,
    responses: {
      201: { description: 'The key, with its secret', schema: ApiKeySchema },
      400: { ...invalid, description: 'Invalid body: errors by field (a name the user already has; at most 20 keys a user: non_field_errors)' },
      401: unauthorized,
      403: { ...forbidden, description: 'A read key; or a caller who is not a superuser naming another user' },
    },
  },
  { method: 'GET', path: detail, function: 'api-keys', operationId: 'retrieve_api_key', summary: 'One key, without its secret', auth: 'api-key', responses: { 200: { description: 'The key', schema: ApiKeySchema }, 401: unauthorized, 404: missing } },
  {
    method: 'DELETE',
    path: detail,
    function: 'api-keys',
    operationId: 'destroy_api_key',
    summary: 'Revoke a key: it is refused (401) from the very next request',
    auth: 'api-key',
    responses: { 204: { description: 'Revoked' }, 401: unauthorized, 403: forbidden, 404: missing },
  },
] as const satisfies readonly Route[];
