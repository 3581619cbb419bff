/** GET /api/v2/schema/: the OpenAPI 3.1 document, generated from the route table. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { ROUTES } from '../shared/routes/index.ts';
import { apiDependencies, lambdaHandler, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api }: Pick<Dependencies, 'api'>) => apiFunction(api, {
  schema: async ({ baseUrl }) => ({ statusCode: 200, body: buildOpenApiDocument(ROUTES, baseUrl) }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c) }));
