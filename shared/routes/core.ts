/** The API root and its OpenAPI document. */
import * as z from 'zod';
import { ApiRootSchema } from '../schemas/common.ts';
import { unauthorized, type Route } from './route.ts';

const OpenApiDocumentSchema = z
  .looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document: this one.' });

export const CORE_ROUTES = [
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
    responses: { 200: { description: 'OpenAPI 3.1 document', schema: OpenApiDocumentSchema }, 401: unauthorized },
  },
] as const satisfies readonly Route[];
