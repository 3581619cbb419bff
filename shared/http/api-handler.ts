/**
 * The one middy stack every API function is built with, run as an instrumented invocation under the
 * request's correlation id (X-Correlation-Id, answered back; shared/observability/correlation.ts):
 *   check the request line (a malformed Host or X-Correlation-Id is 400, a path with dot segments 404; HEAD is answered as
 *   GET without the body) → authenticate (Authorization: Token <key>; a refused one counts against its
 *   source address, 429 past its allowance) → throttle per key, then per dataspace (when limiters are given) →
 *   the key's scope (a read key is 403 on anything but GET and HEAD, whatever its user may do) →
 *   parse and validate the body and query (zod, from the route table) → the route's handler → map any
 *   error through the error table (last).
 * A function serves one or more routes of shared/routes.ts and dispatches on the event's routeKey.
 */
import { randomUUID } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { AuthenticatedCaller, Caller } from '../domain/caller.ts';
import { READ_SCOPE_REFUSAL, mayUseMethod } from '../domain/api-keys.ts';
import {
  AuthenticationError,
  ForbiddenError,
  NotFoundError,
  ParseError,
  ThrottledError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';
import { ROUTES, isAmbiguousPath, routeByKey, type OperationId, type PathParameterName, type Route, type RouteOf } from '../routes/index.ts';
import { jsonProblem } from '../schemas/json-input.ts';
import { errorResponse } from './error-table.ts';
import { PARSE_OPTIONS, fieldErrorsFromZod } from './validation.ts';
import { logger } from '../observability/logger.ts';
import { instrumented, withCorrelation, withWriteStamps } from '../observability/invocation.ts';
import { CORRELATION_HEADER, INVALID_CORRELATION_ID, requestCorrelationId } from '../observability/correlation.ts';
import type { Authenticator } from './authenticator.ts';
import type { RateLimiter } from './rate-limit.ts';
import { parseApiKey } from '../auth/api-key.ts';
import { failureSource } from './auth-failures.ts';
import { etagOf, parseIfMatch, type IfMatch } from '../domain/etag.ts';

/** Bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * What a handler reads, typed from its route R: `body` is the output of the route's body schema (a
 * route without one, or with a rawBody the handler reads from `event`, gets whatever JSON came:
 * unknown), `query` the output of its query schema, `pathParameters` one string per `{name}` of its
 * path. Without R (the stack's own view of any route) they are loosely typed.
 */
export interface ApiRequest<R extends Route = Route> {
  readonly caller: AuthenticatedCaller;
  readonly body: BodyOf<R>;
  readonly query: QueryOf<R>;
  readonly pathParameters: PathParametersOf<R>;
  /** Scheme and host of absolute URLs in answers (baseUrlOf): https://api.example.com */
  readonly baseUrl: string;
  /** The absolute URL of the request on baseUrl, with its query: what next/previous links build on. */
  readonly url: URL;
  /** The If-Match precondition of a write (absent: none); the service checks it against the object's ETag. */
  readonly ifMatch: IfMatch | undefined;
  readonly event: APIGatewayProxyEventV2;
}

type BodyOf<R extends Route> = R extends { readonly body: infer S extends z.ZodType } ? z.output<S> : unknown;
type QueryOf<R extends Route> = R extends { readonly query: infer S extends z.ZodObject } ? z.output<S> : Readonly<Record<string, string | undefined>>;
type PathParametersOf<R extends Route> = string extends R['path']
  ? Readonly<Record<string, string | undefined>>
  : { readonly [Name in PathParameterName<R['path']>]: string };

type Headers = Readonly<Record<string, string>>;

type ReadonlyDeep<T> = T extends readonly (infer E)[]
  ? readonly ReadonlyDeep<E>[]
  : T extends object
    ? { readonly [K in keyof T]: ReadonlyDeep<T[K]> }
    : T;

/** A route's documented success statuses (2xx): what its handler may answer; errors are thrown. */
type SuccessStatus<R extends Route> = { [S in keyof R['responses']]: S extends number ? (`${S}` extends `2${string}` ? S : never) : never }[keyof R['responses']];

/**
 * One success answer of a route: its status, and a body of the output type of that status's schema,
 * as the OpenAPI document renders response schemas (io: 'output'): a field with a default is one the
 * answer always carries. Read-only throughout, as the stack only serializes it (a view may hold
 * readonly arrays). A status without a schema (204) has no body.
 */
type Reply<S, Response> = Response extends { readonly schemas: infer M extends Readonly<Record<string, z.ZodType>> }
  ? { readonly statusCode: S; readonly body: ReadonlyDeep<z.output<M[keyof M]>>; readonly headers?: Headers }
  : Response extends { readonly schema: infer Z extends z.ZodType }
    ? { readonly statusCode: S; readonly body: ReadonlyDeep<z.output<Z>>; readonly headers?: Headers }
    : { readonly statusCode: S; readonly body?: undefined; readonly headers?: Headers };

/**
 * What a handler of route R answers: one of the route's success statuses with its body. Without R
 * (the stack's own view of any route), any status and body.
 */
export type ApiResult<R extends Route = Route> = string extends R['operationId']
  ? { readonly statusCode: number; readonly body?: unknown; readonly headers?: Headers }
  : { [S in SuccessStatus<R>]: Reply<S, R['responses'][S]> }[SuccessStatus<R>];

export type RouteHandler<R extends Route> = (request: ApiRequest<R>) => Promise<ApiResult<R>>;

/** The stack's view of a handler: a request of whichever route, an answer of whatever status. */
type Dispatch = (request: ApiRequest) => Promise<ApiResult>;

/** The handler of an operationId of the route table, typed from its route. */
export type HandlerOf<Op extends OperationId> = RouteHandler<RouteOf<Op>>;

/** Handlers by operationId: a key that is not an operationId of the route table fails the type check. */
export type RouteHandlers = { readonly [Op in OperationId]?: HandlerOf<Op> };

type ApiContext = Context & { apiRequest?: ApiRequest };
type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/**
 * Scheme and host of the absolute URLs of answers (api_url, next, previous): the configured public base
 * URL (PUBLIC_BASE_URL, read once at cold start: the console's CloudFront origin on AWS, the gateway's
 * own address locally), else the API's own domain from the request context, which API Gateway sets.
 * Never a request header: Host, X-Forwarded-Host and X-Forwarded-Proto are the client's to choose, and a
 * link built on them would be one caller's to poison for every other.
 */
export function baseUrlOf(event: Event, publicBaseUrl?: string): string {
  return publicBaseUrl ?? `https://${event.requestContext.domainName}`;
}

export function jsonResult(statusCode: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Result {
  if (body === undefined) return { statusCode, headers: { Vary: 'Accept, Authorization', ...headers }, body: '' };
  // A text answer (an attribution notice: text/html, text/plain; a CycloneDX XML export) goes as written, under the type its handler set.
  if (typeof body === 'string' && /^text\/|[/+]xml(;|$)/i.test(headers['Content-Type'] ?? '')) return { statusCode, headers: { Vary: 'Accept, Authorization', ...headers }, body };
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

function authenticate(authenticator: Authenticator, failures: RateLimiter | undefined): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'authenticate',
    before: async (request) => {
      const token = presentedToken(request.event.headers.authorization);
      if (token === undefined) throw new AuthenticationError();
      let caller: AuthenticatedCaller;
      try {
        if (token instanceof AuthenticationError) throw token;
        caller = await authenticator.authenticate(token);
      } catch (error) {
        if (failures && error instanceof AuthenticationError) await countFailure(failures, request.event, error);
        throw error;
      }
      // An authenticated token is a well-formed key, so it has a key id.
      request.internal = { ...request.internal, caller, keyId: parseApiKey(token)?.keyId };
    },
  };
}

/** The token of the header; a refused header (a credential presented badly) as its error; undefined when none is presented. */
function presentedToken(header: string | undefined): string | AuthenticationError | undefined {
  try {
    return tokenFromHeader(header);
  } catch (error) {
    if (error instanceof AuthenticationError) return error;
    throw error;
  }
}

/**
 * Counts a refused credential against the request's source (shared/http/auth-failures.ts): a source
 * past its allowance is answered 429 with Retry-After instead of 401. Should the limiter itself fail,
 * the 401 stands: its outage must not turn refusals into 5xx.
 */
async function countFailure(failures: RateLimiter, event: Event, refusal: AuthenticationError): Promise<void> {
  try {
    await failures.admit(failureSource(event));
  } catch (error) {
    if (error instanceof ThrottledError) throw error;
    logger.warn('Failed-authentication throttle unavailable; answering 401', { error: error as Error, refusal: refusal.message });
  }
}

/**
 * Counts the request against its key's allowance, then against its dataspace's quota, before anything
 * is parsed or written: 429 when either is spent. The key first: a key over its own limit is refused
 * without taking from its dataspace, so one busy key cannot spend the quota its dataspace's other keys share.
 */
function throttle(keys: RateLimiter | undefined, dataspaces: RateLimiter | undefined): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'throttle',
    before: async (request) => {
      const { keyId, caller } = request.internal as { keyId?: string; caller?: Caller };
      if (keyId === undefined || caller === undefined) throw new Error('throttle runs after authenticate, which names the key and caller');
      await keys?.admit(keyId);
      await dataspaces?.admit(caller.dataspace);
    },
  };
}

/**
 * A read key may only read: any other method is 403 before the body is parsed or anything written,
 * whatever the key's user may do. After the throttle, so that a read key's refused writes still count
 * against its allowance.
 */
function checkScope(): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'check-scope',
    before: async (request) => {
      const { caller } = request.internal as { caller?: AuthenticatedCaller };
      if (caller === undefined) throw new Error('check-scope runs after authenticate, which names the caller');
      const method = request.event.requestContext?.http?.method ?? request.event.routeKey.split(' ')[0] ?? '';
      if (!mayUseMethod(caller.apiKey.scope, method)) throw new ForbiddenError(READ_SCOPE_REFUSAL);
    },
  };
}

/** Strict UTF-8: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. A BOM is kept (and is then bad JSON). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NOT_UTF8 = 'JSON parse error - the body is not valid UTF-8.';

/**
 * The body as JSON, or NO_BODY. Refused: over MAX_BODY_BYTES (413), not JSON (415), not UTF-8 (400,
 * whether it came base64-encoded or as text), malformed, nested deeper than MAX_JSON_DEPTH or holding
 * an unpaired surrogate (400). Nothing here recurses, whatever the depth.
 */
function parseBody(event: Event): unknown {
  if (event.body === undefined || event.body === '') return NO_BODY;
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : undefined;
  const size = bytes ? bytes.byteLength : Buffer.byteLength(event.body, 'utf8');
  if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  const contentType = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    throw new UnsupportedMediaTypeError(contentType || 'none');
  }
  let text: string;
  if (bytes) {
    try {
      text = UTF8.decode(bytes);
    } catch {
      throw new ParseError(NOT_UTF8);
    }
  } else {
    // A text body with a lone surrogate came from bytes that were not UTF-8.
    if (!event.body.isWellFormed()) throw new ParseError(NOT_UTF8);
    text = event.body;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ParseError(`JSON parse error - ${(error as Error).message}`);
  }
  const problem = jsonProblem(parsed);
  if (problem !== undefined) throw new ParseError(`JSON parse error - ${problem}.`);
  return parsed;
}

const NO_BODY = Symbol('no body');

function validate<T>(schema: z.ZodType<T> | undefined, value: unknown, wrapErrors = false): T {
  if (!schema) return value as T;
  const parsed = schema.safeParse(value, PARSE_OPTIONS);
  if (!parsed.success) throw new ValidationError(fieldErrorsFromZod(parsed.error), wrapErrors);
  return parsed.data;
}

function prepareRequest(publicBaseUrl: string | undefined): MiddlewareObj<Event, Result, Error, ApiContext> {
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
      const baseUrl = baseUrlOf(event, publicBaseUrl);
      request.context.apiRequest = {
        caller: (request.internal as { caller: AuthenticatedCaller }).caller,
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
        baseUrl,
        url: new URL(`${baseUrl}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`),
        ifMatch: parseIfMatch(event.headers['if-match']),
        event,
      };
    },
  };
}

/** A host name, IPv4 or bracketed IPv6 address, and an optional port: what a Host header may hold (Django's check). */
const VALID_HOST = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

export function isValidHost(host: string): boolean {
  const match = VALID_HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65_535);
}

/**
 * Refuses, before authentication, what no route can answer: a malformed Host header (400, as Django
 * answers DisallowedHost; on AWS the event still carries the client's Host), a malformed
 * X-Correlation-Id (400: it would be written into every log line of the request's path), and a path whose dot
 * segments or encoded slashes would name another route once resolved (404, whatever API Gateway matched).
 */
function checkRequestLine(): MiddlewareObj<Event, Result, Error, ApiContext> {
  return {
    name: 'check-request-line',
    before: async (request) => {
      const host = request.event.headers.host;
      if (host !== undefined && !isValidHost(host)) throw new ParseError('Invalid Host header.');
      if (!requestCorrelationId(request.event.headers, '').valid) throw new ParseError(INVALID_CORRELATION_ID);
      if (isAmbiguousPath(request.event.rawPath ?? '')) throw new NotFoundError();
    },
  };
}

/**
 * HEAD is GET without the body: the GET route answers it, and this drops the body of the answer
 * (success or error), keeping its status and headers and the Content-Length GET would send.
 */
export function headAsGet(): MiddlewareObj<Event, Result, Error, Context> {
  const strip = async (request: { event: Event; response: Result | null | undefined }) => {
    if (request.event.requestContext?.http?.method?.toUpperCase() !== 'HEAD' || !request.response) return;
    const body = request.response.body ?? '';
    const length = request.response.isBase64Encoded ? Buffer.from(body, 'base64').byteLength : Buffer.byteLength(body);
    request.response = { ...request.response, headers: { ...request.response.headers, 'Content-Length': String(length) }, body: '' };
  };
  return { name: 'head-as-get', after: strip, onError: strip };
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
      } else if (mapped.statusCode === 503) {
        // Busy is the client's to retry, but an operator needs to see what kept the service busy.
        logger.warn('Busy: answered 503', {
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
  /** The per-dataspace quota, across its keys; none when DATASPACE_RATE_LIMIT_PER_SECOND is 0. */
  readonly dataspaceRateLimiter?: RateLimiter;
  /** Failed authentications per source address (auth-failures.ts); none when AUTH_FAILURES_PER_MINUTE is 0. */
  readonly authFailureLimiter?: RateLimiter;
  /** PUBLIC_BASE_URL, an origin: the base of every absolute URL; none: the request context's domain. */
  readonly publicBaseUrl?: string;
}

/** How long before the function's timeout a request still running answers busy. */
export const TIMEOUT_MARGIN_MS = 1_000;

/**
 * Builds the Lambda handler of an API function, given a handler per route it serves, keyed by the
 * route's operationId in the route table.
 */
export function apiFunction(deps: ApiFunctionDeps, handlers: RouteHandlers) {
  // The one place the typed handlers meet the untyped event: prepareRequest builds the request from the
  // route that the event's routeKey names, and the handler is looked up by that same route's operationId,
  // so each handler only ever gets a request of its own route. The type checker cannot follow that
  // through a string key, hence this view of the handlers as taking any route's request.
  const dispatch: Readonly<Record<string, Dispatch | undefined>> = handlers as Readonly<Record<string, Dispatch | undefined>>;
  for (const operationId of Object.keys(handlers)) {
    if (!ROUTES.some((route) => route.operationId === operationId)) {
      throw new Error(`Handler for ${operationId}, which is not in the route table`);
    }
  }
  // A handler still running a second before the function's timeout is cut short by middy and answers
  // the error table's busy (503 with Retry-After): a reply in the API's format, not the gateway's bare
  // timeout. (Middy's own margin, 5 ms, is less than one event-loop turn of a loaded machine.)
  const stack = middy<Event, Result, Error, ApiContext>({ timeoutEarlyInMillis: TIMEOUT_MARGIN_MS })
    // First, so that its after and onError run last: on the answer the error mapper made.
    .use(headAsGet())
    .use(errorMapper())
    .use(checkRequestLine())
    .use(authenticate(deps.authenticator, deps.authFailureLimiter));
  if (deps.rateLimiter || deps.dataspaceRateLimiter) stack.use(throttle(deps.rateLimiter, deps.dataspaceRateLimiter));
  const handle = stack.use(checkScope()).use(prepareRequest(deps.publicBaseUrl)).handler(async (event, context) => {
    const route = routeByKey(event.routeKey);
    const handler = route && dispatch[route.operationId];
    if (!handler || !context.apiRequest) throw new Error(`No handler for ${event.routeKey}`);
    // The route's own writes carry the request's correlation id into the table's stream (not the
    // authentication's and throttle's bookkeeping before it).
    const apiRequest = context.apiRequest;
    // ... and its caller, the audit trail's actor (shared/domain/audit.ts).
    const { caller } = apiRequest;
    const result = await withWriteStamps(() => handler(apiRequest), { user: caller.username, key: caller.apiKey.name });
    // A single object's answer carries its entity tag (shared/domain/etag.ts).
    const etag = etagOf(result.body);
    return jsonResult(result.statusCode, result.body, etag === undefined ? result.headers : { ETag: etag, ...result.headers });
  });
  // Every request runs under its correlation id, which every answer (errors too) gives back, and
  // ends in one log line: the access log of the service's own view.
  return instrumented(async (event: Event, context?: Context): Promise<Result> => {
    const started = performance.now();
    const correlation = requestCorrelationId(event.headers, event.requestContext?.requestId ?? randomUUID());
    return withCorrelation(correlation.id, async () => {
      const result = await handle(event, context as Context);
      logger.info('Answered', {
        method: event.requestContext?.http?.method,
        routeKey: event.routeKey,
        status: result.statusCode,
        durationMs: Math.round(performance.now() - started),
      });
      return { ...result, headers: { ...result.headers, [CORRELATION_HEADER]: correlation.id } };
    });
  });
}

export type { Route };
