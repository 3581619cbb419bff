/** Request templates, requests and their comments. */
import { DetailErrorSchema, FieldErrorsSchema, pageQuery, paginated } from '../schemas/common.ts';
import { StatusSchema } from '../schemas/product.ts';
import {
  CommentCreateSchema,
  CommentSchema,
  RequestCreateSchema,
  RequestListItemSchema,
  RequestListQuery,
  RequestPatchSchema,
  RequestSchema,
  RequestTemplateSchema,
  RequestUpdateSchema,
} from '../schemas/request.ts';
import { forbidden, invalid, invalidPage, notFound, unauthorized, type Route } from './route.ts';

const RequestPageSchema = paginated(RequestListItemSchema, 'RequestPage');
const CommentPageSchema = paginated(CommentSchema, 'CommentPage');
const TemplatePageSchema = paginated(RequestTemplateSchema, 'RequestTemplatePage');
const requestNotFound = notFound('request');

export const REQUEST_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/request_templates/',
    function: 'request-templates',
    operationId: 'list_request_templates',
    summary: "The dataspace's request templates, with the form_data_layout of their answers",
    auth: 'api-key',
    listName: 'request_templates',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of templates', schema: TemplatePageSchema }, 401: unauthorized, 404: invalidPage },
  },
  {
    method: 'GET',
    path: '/api/v2/request_templates/{uuid}/',
    function: 'request-templates',
    operationId: 'retrieve_request_template',
    summary: 'One request template',
    auth: 'api-key',
    responses: { 200: { description: 'The template', schema: RequestTemplateSchema }, 401: unauthorized, 404: notFound('request template') },
  },
  {
    method: 'GET',
    path: '/api/v2/requests/',
    function: 'requests',
    operationId: 'list_requests',
    summary: 'Requests the caller can see, with ordering and filters (filters combine with AND)',
    auth: 'api-key',
    listName: 'requests',
    query: RequestListQuery,
    responses: {
      200: { description: 'A page of requests (without comments)', schema: RequestPageSchema },
      400: { description: 'A filter value that matches nothing of the dataspace, a bad date, or a search with too many or too long terms', schema: FieldErrorsSchema },
      401: unauthorized,
      404: invalidPage,
    },
  },
  {
    method: 'POST',
    path: '/api/v2/requests/',
    function: 'requests',
    operationId: 'create_request',
    summary: 'Create a request from a template (by URL, uuid or name)',
    auth: 'api-key',
    body: RequestCreateSchema,
    responses: { 201: { description: 'The request', schema: RequestSchema }, 400: invalid, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/requests/{uuid}/',
    function: 'requests',
    operationId: 'retrieve_request',
    summary: 'One request with its number of comments and its latest 100, oldest first (all of them: comments_url)',
    auth: 'api-key',
    responses: { 200: { description: 'The request', schema: RequestSchema }, 401: unauthorized, 404: requestNotFound },
  },
  {
    method: 'PUT',
    path: '/api/v2/requests/{uuid}/',
    function: 'requests',
    operationId: 'update_request',
    summary: 'Replace every writable field (requester, assignee and superusers)',
    auth: 'api-key',
    body: RequestUpdateSchema,
    responses: { 200: { description: 'The request', schema: RequestSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: requestNotFound },
  },
  {
    method: 'PATCH',
    path: '/api/v2/requests/{uuid}/',
    function: 'requests',
    operationId: 'partial_update_request',
    summary: 'Change some fields, e.g. {"status": "closed"} (requester, assignee and superusers)',
    auth: 'api-key',
    body: RequestPatchSchema,
    responses: { 200: { description: 'The request', schema: RequestSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: requestNotFound },
  },
  {
    method: 'GET',
    path: '/api/v2/requests/{uuid}/comments/',
    function: 'requests',
    operationId: 'list_request_comments',
    summary: "A request's comments, oldest first (to whoever may see the request)",
    auth: 'api-key',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of comments', schema: CommentPageSchema }, 401: unauthorized, 404: notFound('request, or invalid page') },
  },
  {
    method: 'POST',
    path: '/api/v2/requests/{uuid}/add_comment/',
    function: 'requests',
    operationId: 'add_request_comment',
    summary: 'Comment on a request the caller can see',
    auth: 'api-key',
    body: CommentCreateSchema,
    responses: {
      201: { description: '{"status": "Comment added."}', schema: StatusSchema },
      400: invalid,
      401: unauthorized,
      404: requestNotFound,
    },
  },
] as const satisfies readonly Route[];
