/** /api/v2/products/{uuid}/permissions/: list, assign and remove a product's object permissions. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, productService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, products }: Pick<Dependencies, 'api' | 'products'>) => apiFunction(api, {
  list_product_permissions: async ({ caller, pathParameters }) => ({
    statusCode: 200,
    body: await products.permissions(caller, pathParameters.uuid),
  }),
  assign_product_permissions: async (request) => {
    await products.changePermissions(request.caller, request.pathParameters.uuid, () => request.body, 'assign');
    return { statusCode: 200, body: { status: 'permissions assigned' } };
  },
  remove_product_permissions: async (request) => {
    await products.changePermissions(request.caller, request.pathParameters.uuid, () => request.body, 'remove');
    return { statusCode: 200, body: { status: 'permissions removed' } };
  },
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), products: productService(c) }));
