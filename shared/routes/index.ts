/**
 * The route table: every endpoint of the API as plain data (method, path, function, who may call it,
 * and the zod schemas of what it takes and answers), gathered from one module per area. The CDK HTTP
 * API construct creates exactly these routes, the local gateway serves exactly these, and the OpenAPI
 * document is generated from them.
 */
import type { FunctionName } from '../functions.ts';
import type { Route } from './route.ts';
import { CORE_ROUTES } from './core.ts';
import { PRODUCT_ROUTES } from './products.ts';
import { REQUEST_ROUTES } from './requests.ts';
import { CATALOG_ROUTES } from './catalog.ts';
import { POLICY_ROUTES } from './policy.ts';
import { WEBHOOK_ROUTES } from './webhooks.ts';
import { SBOM_EXPORT_ROUTES } from './sbom-export.ts';
import { SBOM_IMPORT_ROUTES } from './sbom-imports.ts';
import { API_KEY_ROUTES } from './api-keys.ts';
import { AUDIT_ROUTES } from './audit.ts';
import { USER_ROUTES } from './users.ts';
import { PORTFOLIO_ROUTES } from './portfolio.ts';

export type { HttpMethod, PathParameterName, Route, RouteResponse } from './route.ts';

/** The table with each entry's literal types: the handlers' types derive from it (ApiRoute, RouteOf). */
const TABLE = [
  ...CORE_ROUTES,
  ...PRODUCT_ROUTES,
  ...REQUEST_ROUTES,
  ...CATALOG_ROUTES,
  ...POLICY_ROUTES,
  ...WEBHOOK_ROUTES,
  ...SBOM_IMPORT_ROUTES,
  ...SBOM_EXPORT_ROUTES,
  ...API_KEY_ROUTES,
  ...AUDIT_ROUTES,
  ...USER_ROUTES,
  ...PORTFOLIO_ROUTES,
] as const satisfies readonly Route[];

export const ROUTES: readonly Route[] = TABLE;

/** One route of the table, with its own literal operationId and path and its own schemas. */
export type ApiRoute = (typeof TABLE)[number];
/** The operationIds of the table: the only keys apiFunction takes handlers by. */
export type OperationId = ApiRoute['operationId'];
/** The route of an operationId. */
export type RouteOf<Op extends OperationId> = Extract<ApiRoute, { readonly operationId: Op }>;


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

/**
 * The route keys API Gateway holds for a route: a GET route also answers HEAD (as GET without the
 * body), which an HTTP API does not do by itself.
 */
export function gatewayRouteKeys(route: Pick<Route, 'method' | 'path'>): string[] {
  return route.method === 'GET' ? [routeKey(route), `HEAD ${gatewayPath(route)}`] : [routeKey(route)];
}

const routesByKey = new Map(ROUTES.map((route) => [routeKey(route), route]));

/** The route of an event's routeKey; `HEAD /x` is the route `GET /x`. */
export function routeByKey(key: string): Route | undefined {
  return routesByKey.get(key) ?? (key.startsWith('HEAD ') ? routesByKey.get(`GET ${key.slice('HEAD '.length)}`) : undefined);
}

/**
 * True for a path with a segment that is "." or ".." once %2e is decoded (in any case), or a segment
 * holding an encoded slash (%2f). Such a path names no route: a URL parser would resolve the dot
 * segments (so /products/%2e%2e/requests/ would reach /requests/), and %2f would split a parameter.
 */
export function isAmbiguousPath(path: string): boolean {
  return path.split('/').some((segment) => {
    const dots = segment.replace(/%2e/gi, '.');
    return dots === '.' || dots === '..' || /%2f/i.test(segment);
  });
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
  if (isAmbiguousPath(path)) return matches;
  for (const route of ROUTES) {
    const found = pathPattern(route.path).exec(trimSlash(path));
    if (found) matches.push({ route, pathParameters: { ...found.groups } });
  }
  return matches;
}

/** The route serving `method` on `path`; HEAD is served by the GET route. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const served = method === 'HEAD' ? 'GET' : method;
  return matchPath(path).find((match) => match.route.method === served);
}
