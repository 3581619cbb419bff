/** /api/v2/product_packages/, /api/v2/vulnerability_analyses/ and /api/v2/products/{uuid}/packages/. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, productPackageService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, productPackages: service }: Pick<Dependencies, 'api' | 'productPackages'>) => apiFunction(api, {
  list_product_packages: async (r) => ({ statusCode: 200, body: await service.list(r.caller, r.query, r.url, r.baseUrl) }),
  create_product_package: async (r) => ({ statusCode: 201, body: await service.add(r.caller, () => r.body, r.baseUrl) }),
  retrieve_product_package: async (r) => ({ statusCode: 200, body: await service.retrieve(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_product_package: async (r) => ({ statusCode: 200, body: await service.update(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_product_package: async (r) => ({ statusCode: 200, body: await service.update(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_product_package: async (r) => (await service.remove(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),
  list_product_package_packages: async (r) => ({
    statusCode: 200,
    body: await service.packagesOfProduct(r.caller, r.pathParameters.uuid, r.query, r.url, r.baseUrl),
  }),

  list_vulnerability_analyses: async (r) => ({ statusCode: 200, body: await service.listAnalyses(r.caller, r.query, r.url, r.baseUrl) }),
  create_vulnerability_analysis: async (r) => ({ statusCode: 201, body: await service.createAnalysis(r.caller, () => r.body, r.baseUrl) }),
  retrieve_vulnerability_analysis: async (r) => ({ statusCode: 200, body: await service.retrieveAnalysis(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_vulnerability_analysis: async (r) => ({ statusCode: 200, body: await service.updateAnalysis(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_vulnerability_analysis: async (r) => ({ statusCode: 200, body: await service.updateAnalysis(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_vulnerability_analysis: async (r) => (await service.deleteAnalysis(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), productPackages: productPackageService(c) }));
