/** GET /api/v2/schema/: the OpenAPI 3.1 document, generated from the route table. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { ROUTES } from '../shared/routes/index.ts';
import { apiDeps } from '../shared/runtime.ts';

export const handler = apiFunction(apiDeps(), {
  schema: async ({ baseUrl }) => ({ statusCode: 200, body: buildOpenApiDocument(ROUTES, baseUrl) }),
});
