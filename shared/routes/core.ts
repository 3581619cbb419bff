/** The API root and its OpenAPI document. */
import { ApiRootSchema } from '../schemas/common.ts';
import { unauthorized, type Route } from './route.ts';

export const CORE_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v2/',
    function: 'api-root',
    operationId: 'api_root',
    summary: 'The list endpoints of the API, by name',
    auth: 'api-key',
    responses: { 200: { description: 'Map of list endpoints', schema: ApiRootSchema }, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/schema/',
    function: 'api-schema',
    operationId: 'schema',
    summary: 'This OpenAPI 3.1 document',
    auth: 'api-key',
    responses: { 200: { description: 'OpenAPI 3.1 document' }, 401: unauthorized },
  },
];
