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

export type { HttpMethod, Route, RouteResponse } from './route.ts';

export const ROUTES: readonly Route[] = [...CORE_ROUTES, ...PRODUCT_ROUTES, ...REQUEST_ROUTES, ...CATALOG_ROUTES, ...POLICY_ROUTES, ...WEBHOOK_ROUTES];


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
