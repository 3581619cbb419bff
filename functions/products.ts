/** /api/v2/products/ and /api/v2/products/{uuid}/: list, create, retrieve, update, delete. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, productService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, products }: Pick<Dependencies, 'api' | 'products'>) => apiFunction(api, {
  list_products: async (request) => ({
    statusCode: 200,
    body: await products.list(request.caller, request.query, request.url, request.baseUrl),
  }),
  create_product: async ({ caller, body, baseUrl }) => ({
    statusCode: 201,
    body: await products.create(caller, body, baseUrl),
  }),
  retrieve_product: async ({ caller, pathParameters, baseUrl }) => ({
    statusCode: 200,
    body: await products.retrieve(caller, pathParameters.uuid, baseUrl),
  }),
  update_product: async (request) => ({
    statusCode: 200,
    body: await products.update(request.caller, request.pathParameters.uuid, () => request.body, request.baseUrl, request.ifMatch),
  }),
  partial_update_product: async (request) => ({
    statusCode: 200,
    body: await products.update(request.caller, request.pathParameters.uuid, () => request.body, request.baseUrl, request.ifMatch),
  }),
  destroy_product: async ({ caller, pathParameters, ifMatch }) => {
    await products.destroy(caller, pathParameters.uuid, ifMatch);
    return { statusCode: 204 };
  },
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), products: productService(c) }));
