/** /api/v2/request_templates/: list and retrieve. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDeps, getRequestService } from '../shared/runtime.ts';

const requests = getRequestService();

export const handler = apiFunction(apiDeps(), {
  list_request_templates: async ({ caller, query, url, baseUrl }) => ({
    statusCode: 200,
    body: await requests.listTemplates(caller, query, url, baseUrl),
  }),
  retrieve_request_template: async ({ caller, pathParameters, baseUrl }) => ({
    statusCode: 200,
    body: await requests.retrieveTemplate(caller, pathParameters.uuid, baseUrl),
  }),
});
