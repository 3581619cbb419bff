/**
 * The one middy stack every API function is built with:
 *   authenticate (Authorization: Token <key>) → throttle per key (when a rate limiter is given) →
 *   parse and validate the body and query (zod, from the route table) → the route's handler → map any
 *   error through the error table (last).
 * A function serves one or more routes of shared/routes.ts and dispatches on the event's routeKey.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Caller } from '../domain/caller.ts';
import {
  AuthenticationError,
  ParseError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';
import { ROUTES, routeByKey, type Route } from '../routes/index.ts';
import { errorResponse } from './error-table.ts';
import { PARSE_OPTIONS, fieldErrorsFromZod } from './validation.ts';
import { logger } from '../logger.ts';
import type { Authenticator } from './authenticator.ts';
import type { RateLimiter } from './rate-limit.ts';
import { parseApiKey } from '../auth/api-key.ts';
import { etagOf, parseIfMatch, type IfMatch } from '../domain/etag.ts';

/** Bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ApiRequest<B = unknown, Q = Record<string, string>> {
  readonly caller: Caller;
  readonly body: B;
  readonly query: Q;
  readonly pathParameters: Readonly<Record<string, string>>;
  /** Scheme and host the client called, for absolute URLs in answers: https://api.example.com */
  readonly baseUrl: string;
  /** The absolute URL the client called, with its query: what next/previous links build on. */
  readonly url: URL;
  /** The If-Match precondition of a write (absent: none); the service checks it against the object's ETag. */
  readonly ifMatch: IfMatch | undefined;
  readonly event: APIGatewayProxyEventV2;
}

export interface ApiResult {
  readonly statusCode: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RouteHandler = (request: ApiRequest<any, any>) => Promise<ApiResult>;

type ApiContext = Context & { apiRequest?: ApiRequest };
type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** A host name, IPv4 or bracketed IPv6 address, with an optional port: what may stand in a URL's authority. */
const HOST_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Scheme and host the client called, for the absolute URLs of answers (api_url, next, previous).
 * Behind the console's CloudFront distribution the Host header is the API's own (API Gateway chooses the
 * API by it) and the host the viewer called arrives as X-Forwarded-Host, set by the distribution's
 * viewer-request function (lib/constructs/web-console.ts); it wins when present. Of a list (proxies
 * append) the first entry counts, and a value that is not a host is ignored rather than breaking the URL.
 */
export function baseUrlOf(event: Event): string {
  const proto = event.headers['x-forwarded-proto'] ?? 'https';
  const forwarded = event.headers['x-forwarded-host']?.split(',')[0]?.trim();
  const host = forwarded && HOST_PATTERN.test(forwarded) ? forwarded : (event.headers.host ?? event.requestContext.domainName);
  return `${proto}://${host}`;
}

export function jsonResult(statusCode: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Result {
  if (body === undefined) return { statusCode, headers: { Vary: 'Accept, Authorization', ...headers }, body: '' };
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', Vary: 'Accept, Authorization', ...headers },
    body: JSON.stringify(body),
  };
}

/** Reads `Authorization: Token <key>` exactly as DRF's TokenAuthentication does, with its messages. */
export function tokenFromHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(/\s+/);
  if (parts[0]?.toLowerCase() !== 'token') return undefined;
  if (parts.length === 1) throw new AuthenticationError('Invalid token header. No credentials provided.');
  if (parts.length > 2) throw new AuthenticationError('Invalid token header. Token string should not contain spaces.');
  return parts[1];
}

function authenticate(authenticator: Authenticator): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'authenticate',
    before: async (request) => {
      const token = tokenFromHeader(request.event.headers.authorization);
      if (token === undefined) throw new AuthenticationError();
      const caller = await authenticator.authenticate(token);
      // An authenticated token is a well-formed key, so it has a key id.
      request.internal = { ...request.internal, caller, keyId: parseApiKey(token)?.keyId };
    },
  };
}

/** Counts the request against its key's allowance, before anything is parsed or written: 429 when spent. */
function throttle(limiter: RateLimiter): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'throttle',
    before: async (request) => {
      const { keyId } = request.internal as { keyId?: string };
      if (keyId === undefined) throw new Error('throttle runs after authenticate, which names the key');
      await limiter.admit(keyId);
    },
  };
}

function parseBody(event: Event): unknown {
  if (event.body === undefined || event.body === '') return NO_BODY;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  const contentType = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(contentType || 'none');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
  if (!wellFormed(parsed)) throw new ParseError('JSON parse error - a string holds an unpaired surrogate (\\ud800-\\udfff).');
  return parsed;
}

/** True when every string and key of a parsed JSON value is well-formed Unicode. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, inner]) => key.isWellFormed() && wellFormed(inner));
  }
  return true;
}

const NO_BODY = Symbol('no body');

function validate<T>(schema: z.ZodType<T> | undefined, value: unknown, wrapErrors = false): T {
  if (!schema) return value as T;
  const parsed = schema.safeParse(value, PARSE_OPTIONS);
  if (!parsed.success) throw new ValidationError(fieldErrorsFromZod(parsed.error), wrapErrors);
  return parsed.data;
}

function prepareRequest(): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'prepare-request',
    before: async (request) => {
      const event = request.event;
      const route = routeByKey(event.routeKey);
      if (!route) throw new Error(`No route ${event.routeKey} in the route table`);
      const query = validate(route.query, event.queryStringParameters ?? {});
      // The body is parsed and validated when the handler first reads it: as in DRF, a route that
      // looks up an object answers 404 or 403 before it judges the body.
      let body: { value: unknown } | undefined;
      request.context.apiRequest = {
        caller: (request.internal as { caller: Caller }).caller,
        get body() {
          if (!body) {
            // An absent body is an empty object; a JSON null is refused by the schema, as DRF refuses it.
            const parsed = parseBody(event);
            const value = parsed === NO_BODY ? (route.body ? {} : undefined) : parsed;
            body = { value: route.body ? validate(route.body, value, route.wrapErrors) : value };
          }
          return body.value;
        },
        query: query as Record<string, string>,
        pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
        baseUrl: baseUrlOf(event),
        url: new URL(`${baseUrlOf(event)}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`),
        ifMatch: parseIfMatch(event.headers['if-match']),
        event,
      };
    },
  };
}

/** Maps errors through the error table; last in the stack so it sees every error. */
export function errorMapper(): MiddlewareObj<Event, Result, Error, Context> {
  return {
    name: 'error-mapper',
    onError: async (request) => {
      const mapped = errorResponse(request.error);
      if (!mapped.expected) {
        logger.error('Unhandled error', {
          routeKey: request.event.routeKey,
          requestId: request.event.requestContext?.requestId,
          error: request.error as Error,
        });
      }
      request.response = jsonResult(mapped.statusCode, mapped.body, mapped.headers);
    },
  };
}

export interface ApiFunctionDeps {
  readonly authenticator: Authenticator;
  /** Per-key throttling; none when RATE_LIMIT_PER_SECOND is 0. */
  readonly rateLimiter?: RateLimiter;
}

/**
 * Builds the Lambda handler of an API function, given a handler per route it serves, keyed by the
 * route's operationId in the route table.
 */
export function apiFunction(deps: ApiFunctionDeps, handlers: Readonly<Record<string, RouteHandler>>) {
  for (const operationId of Object.keys(handlers)) {
    if (!ROUTES.some((route) => route.operationId === operationId)) {
      throw new Error(`Handler for ${operationId}, which is not in the route table`);
    }
  }
  const stack = middy<Event, Result, Error, ApiContext>()
    .use(errorMapper())
    .use(authenticate(deps.authenticator));
  if (deps.rateLimiter) stack.use(throttle(deps.rateLimiter));
  return stack
    .use(prepareRequest())
    .handler(async (event, context) => {
      const route = routeByKey(event.routeKey);
      const handler = route && handlers[route.operationId];
      if (!handler || !context.apiRequest) throw new Error(`No handler for ${event.routeKey}`);
      const result = await handler(context.apiRequest);
      // A single object's answer carries its entity tag (shared/domain/etag.ts).
      const etag = etagOf(result.body);
      return jsonResult(result.statusCode, result.body, etag === undefined ? result.headers : { ETag: etag, ...result.headers });
    });
}

export type { Route };
