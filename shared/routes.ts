/**
 * The route table: every endpoint of the API as plain data (method, path, function, who may call it,
 * and the zod schemas of what it takes and answers). The CDK HTTP API construct creates exactly these
 * routes, the local gateway serves exactly these, and the OpenAPI document is generated from them.
 */
import * as z from 'zod';
import type { FunctionName } from './functions.ts';
import { ApiRootSchema, DetailErrorSchema, FieldErrorsSchema, pageQuery, paginated } from './schemas/common.ts';
import {
  PermissionChangeSchema,
  PermissionListingSchema,
  ProductCreateSchema,
  ProductListQuery,
  ProductPatchSchema,
  ProductSchema,
  ProductUpdateSchema,
  StatusSchema,
} from './schemas/product.ts';
import {
  CommentCreateSchema,
  RequestCreateSchema,
  RequestListQuery,
  RequestPatchSchema,
  RequestSchema,
  RequestTemplateSchema,
  RequestUpdateSchema,
} from './schemas/request.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteResponse {
  readonly description: string;
  readonly schema?: z.ZodType;
}

export interface Route {
  readonly method: HttpMethod;
  /** API Gateway path syntax, with DRF's trailing slash: /api/v2/products/{uuid}/ */
  readonly path: string;
  readonly function: FunctionName;
  readonly operationId: string;
  readonly summary: string;
  /** Who may call it. Every route of the API needs an API key; finer checks live in the services. */
  readonly auth: 'api-key';
  /** Set on list endpoints: the name under which GET /api/v2/ lists it. */
  readonly listName?: string;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** Body errors answered inside an `errors` object, as DejaCode's permissions endpoint does. */
  readonly wrapErrors?: boolean;
  readonly responses: Readonly<Record<number, RouteResponse>>;
}

const unauthorized: RouteResponse = { description: 'Missing, malformed or unknown API key', schema: DetailErrorSchema };
const notFound: RouteResponse = { description: 'No such product, or not visible to the caller', schema: DetailErrorSchema };
const forbidden: RouteResponse = { description: 'Visible, but the caller may not do this', schema: DetailErrorSchema };
const invalid: RouteResponse = { description: 'Invalid body: errors by field', schema: FieldErrorsSchema };
const ProductPageSchema = paginated(ProductSchema, 'ProductPage');
const RequestPageSchema = paginated(RequestSchema.omit({ comments: true }), 'RequestPage');
const TemplatePageSchema = paginated(RequestTemplateSchema, 'RequestTemplatePage');
const requestNotFound: RouteResponse = { description: 'No such request, or not visible to the caller', schema: DetailErrorSchema };
const WrappedErrorsSchema = z.object({ errors: FieldErrorsSchema }).meta({ id: 'WrappedFieldErrors' });

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v2/',
    function: 'api-root',
    operationId: 'api_root',
    summary: 'The list endpoints of the API, by name',
    auth: 'api-key',
    responses: { 200: { description: 'Map of list endpoints', schema: ApiRootSchema }, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/schema/',
    function: 'api-schema',
    operationId: 'schema',
    summary: 'This OpenAPI 3.1 document',
    auth: 'api-key',
    responses: { 200: { description: 'OpenAPI 3.1 document' }, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/products/',
    function: 'products',
    operationId: 'list_products',
    summary: 'Products the caller can see, by name and version; filters name and version (exact)',
    auth: 'api-key',
    listName: 'products',
    query: ProductListQuery,
    responses: { 200: { description: 'A page of products', schema: ProductPageSchema }, 401: unauthorized, 404: { description: 'Invalid page.', schema: DetailErrorSchema } },
  },
  {
    method: 'POST',
    path: '/api/v2/products/',
    function: 'products',
    operationId: 'create_product',
    summary: 'Create a product; its creator is granted view, change and delete',
    auth: 'api-key',
    body: ProductCreateSchema,
    responses: { 201: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'retrieve_product',
    summary: 'One product (needs view_product)',
    auth: 'api-key',
    responses: { 200: { description: 'The product', schema: ProductSchema }, 401: unauthorized, 404: notFound },
  },
  {
    method: 'PUT',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'update_product',
    summary: 'Replace name and version (needs change_product)',
    auth: 'api-key',
    body: ProductUpdateSchema,
    responses: { 200: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'PATCH',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'partial_update_product',
    summary: 'Change some fields (needs change_product)',
    auth: 'api-key',
    body: ProductPatchSchema,
    responses: { 200: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'DELETE',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'destroy_product',
    summary: 'Delete a product (needs delete_product)',
    auth: 'api-key',
    responses: { 204: { description: 'Deleted' }, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'list_product_permissions',
    summary: "Users and groups holding permissions on the product (superusers and the product's creator)",
    auth: 'api-key',
    responses: {
      200: { description: 'Users and groups with their permissions', schema: PermissionListingSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
  {
    method: 'POST',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'assign_product_permissions',
    summary: 'Grant permissions to one user or one group (all or nothing)',
    auth: 'api-key',
    body: PermissionChangeSchema,
    wrapErrors: true,
    responses: {
      200: { description: '{"status": "permissions assigned"}', schema: StatusSchema },
      400: { description: 'Invalid body, errors by field inside `errors`', schema: WrappedErrorsSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
  {
    method: 'DELETE',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'remove_product_permissions',
    summary: 'Revoke permissions from one user or one group (all or nothing); same body as POST',
    auth: 'api-key',
    body: PermissionChangeSchema,
    wrapErrors: true,
    responses: {
      200: { description: '{"status": "permissions removed"}', schema: StatusSchema },
      400: { description: 'Invalid body, errors by field inside `errors`', schema: WrappedErrorsSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
  {
    method: 'GET',
    path: '/api/v2/request_templates/',
    function: 'request-templates',
    operationId: 'list_request_templates',
    summary: "The dataspace's request templates, with the form_data_layout of their answers",
    auth: 'api-key',
    listName: 'request_templates',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of templates', schema: TemplatePageSchema }, 401: unauthorized, 404: { description: 'Invalid page.', schema: DetailErrorSchema } },
  },
  {
    method: 'GET',
    path: '/api/v2/request_templates/{uuid}/',
    function: 'request-templates',
    operationId: 'retrieve_request_template',
    summary: 'One request template',
    auth: 'api-key',
    responses: { 200: { description: 'The template', schema: RequestTemplateSchema }, 401: unauthorized, 404: { description: 'No such template', schema: DetailErrorSchema } },
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
      400: { description: 'A filter value that matches nothing of the dataspace, or a bad date', schema: FieldErrorsSchema },
      401: unauthorized,
      404: { description: 'Invalid page.', schema: DetailErrorSchema },
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
    summary: 'One request with its comments, oldest first',
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
];

/** The function behind API Gateway's $default route: answers paths and methods no route serves. */
export const DEFAULT_ROUTE_FUNCTION: FunctionName = 'not-found';

/**
 * The path of a route as API Gateway holds it. An HTTP API refuses a route path ending in '/', and
 * matches '/api/v2/' and '/api/v2' alike to the route '/api/v2'. So the DRF paths of the table lose
 * their trailing slash at the gateway, and the event's `routeKey` carries this form.
 */
export function gatewayPath(route: Pick<Route, 'path'>): string {
  return trimSlash(route.path);
}

/** The route key API Gateway puts in the event: `GET /api/v2/products/{uuid}`. */
export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${gatewayPath(route)}`;
}

const routesByKey = new Map(ROUTES.map((route) => [routeKey(route), route]));

export function routeByKey(key: string): Route | undefined {
  return routesByKey.get(key);
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

const patterns = new Map<string, RegExp>();

function pathPattern(path: string): RegExp {
  let pattern = patterns.get(path);
  if (!pattern) {
    const source = trimSlash(path)
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? `(?<${part.slice(1, -1)}>[^/]+)` : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    pattern = new RegExp(`^${source}$`);
    patterns.set(path, pattern);
  }
  return pattern;
}

export interface RouteMatch {
  readonly route: Route;
  readonly pathParameters: Record<string, string>;
}

/** Matches a request path against the table as API Gateway does: with or without its trailing slash. */
export function matchPath(path: string): RouteMatch[] {
  const matches: RouteMatch[] = [];
  for (const route of ROUTES) {
    const found = pathPattern(route.path).exec(trimSlash(path));
    if (found) matches.push({ route, pathParameters: { ...found.groups } });
  }
  return matches;
}

export function matchRoute(method: string, path: string): RouteMatch | undefined {
  return matchPath(path).find((match) => match.route.method === method);
}
