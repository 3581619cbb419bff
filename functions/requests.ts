/** /api/v2/requests/: list, create, retrieve, update, comments and add_comment. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, requestService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, requests }: Pick<Dependencies, 'api' | 'requests'>) => apiFunction(api, {
  list_requests: async (request) => ({
    statusCode: 200,
    body: await requests.list(request.caller, request.query, request.url, request.baseUrl),
  }),
  create_request: async ({ caller, body, baseUrl }) => ({
    statusCode: 201,
    body: await requests.create(caller, body, baseUrl),
  }),
  retrieve_request: async ({ caller, pathParameters, baseUrl }) => ({
    statusCode: 200,
    body: await requests.retrieve(caller, pathParameters.uuid, baseUrl),
  }),
  update_request: async (request) => ({
    statusCode: 200,
    body: await requests.update(request.caller, request.pathParameters.uuid, () => request.body, request.baseUrl, request.ifMatch),
  }),
  partial_update_request: async (request) => ({
    statusCode: 200,
    body: await requests.update(request.caller, request.pathParameters.uuid, () => request.body, request.baseUrl, request.ifMatch),
  }),
  list_request_comments: async (request) => ({
    statusCode: 200,
    body: await requests.listComments(request.caller, request.pathParameters.uuid, request.query, request.url),
  }),
  add_request_comment: async (request) => {
    await requests.addComment(request.caller, request.pathParameters.uuid, () => request.body.text);
    return { statusCode: 201, body: { status: 'Comment added.' } };
  },
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), requests: requestService(c) }));
