/** GET /api/v2/: the list endpoints of the API by name, as DRF's API root answers. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { ROUTES } from '../shared/routes/index.ts';
import { apiDependencies, lambdaHandler, type Dependencies } from '../shared/runtime.ts';

const listEndpoints = ROUTES.filter((route) => route.listName !== undefined && route.method === 'GET');

export const makeHandler = ({ api }: Pick<Dependencies, 'api'>) => apiFunction(api, {
  api_root: async ({ baseUrl }) => ({
    statusCode: 200,
    body: Object.fromEntries(listEndpoints.map((route) => [route.listName, `${baseUrl}${route.path}`])),
  }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c) }));
