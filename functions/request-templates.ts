/** /api/v2/request_templates/: list and retrieve. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, requestService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, requests }: Pick<Dependencies, 'api' | 'requests'>) => apiFunction(api, {
  list_request_templates: async ({ caller, query, url, baseUrl }) => ({
    statusCode: 200,
    body: await requests.listTemplates(caller, query, url, baseUrl),
  }),
  retrieve_request_template: async ({ caller, pathParameters, baseUrl }) => ({
    statusCode: 200,
    body: await requests.retrieveTemplate(caller, pathParameters.uuid, baseUrl),
  }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), requests: requestService(c) }));
