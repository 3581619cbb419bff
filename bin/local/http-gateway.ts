/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): each HTTP request becomes the
 * event API Gateway would build, goes to the function the route table names (or the $default
 * function), and the function's result becomes the HTTP response, as API Gateway maps it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DEFAULT_ROUTE_FUNCTION, gatewayPath, matchRoute } from '../../shared/routes/index.ts';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { serveConsoleFile } from './console-files.ts';
import { readBody } from './http-body.ts';

/** API Gateway's own payload limit for HTTP APIs. */
const GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** Lambda's limit on a synchronous invocation's response. */
const LAMBDA_MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

export type Invoke = (name: FunctionName, event: APIGatewayProxyEventV2) => Promise<unknown>;
/**
 * A function's Init phase (loading its code), awaited before its first invocation's timeout starts, as
 * Lambda keeps Init out of the function's timeout. Without it, the first requests to a function share
 * its load time with their own budget, and a load slowed by a busy machine turns all of them into 503.
 */
export type Init = (name: FunctionName) => Promise<unknown>;

export interface HttpGateway {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Serves the API under /api/; with `consoleDir`, everything else is the web console's static files,
 * as CloudFront's default behaviour serves them from the bucket on AWS.
 */
export async function startHttpGateway(options: {
  host: string;
  port: number;
  invoke: Invoke;
  init?: Init;
  consoleDir?: string;
  /** The origin of the SBOM upload URLs (the S3 emulator's CORS front), allowed by the console's CSP. */
  uploadOrigin?: string;
  onError?: (error: unknown) => void;
}): Promise<HttpGateway> {
  const inFlight = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const url = parseTarget(req.url ?? '/');
    if (!url) {
      writeJson(res, 400, { detail: 'Malformed request target.' });
      return;
    }
    const handling = (options.consoleDir !== undefined && !url.pathname.startsWith('/api/')
      ? serveConsoleFile(options.consoleDir, (req.method ?? 'GET').toUpperCase(), url.pathname, res, options.uploadOrigin)
      : handle(req, res, url, options.invoke, options.init)
    )
      .catch((error: unknown) => {
        options.onError?.(error);
        if (!res.headersSent) writeJson(res, 500, { detail: SERVER_ERROR });
        else res.destroy();
      })
      .finally(() => inFlight.delete(handling));
    inFlight.add(handling);
  });
  // Idle keep-alive connections outlive their clients' own idle timeouts (undici's fetch 4 s, Node's agent
  // 5 s), as a load balancer's do: the client closes first, so it never reuses a connection the gateway
  // has just closed ("fetch failed" on a plain GET in loaded runs). stop() still closes idle ones at once.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    /** Stops accepting, lets the requests in flight finish (as a draining load balancer), then closes. */
    stop: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      await Promise.all(inFlight);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** host:port the request reached this gateway on (an IPv6 address in brackets). */
function ownAuthority(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort ?? 0}`;
}

/**
 * The request target as a URL whose pathname is the path as sent: no dot segments resolved (a URL
 * parser turns /products/%2e%2e/requests/ into /requests/), so the route matcher sees them. API
 * Gateway's rawPath is the path as sent too. Undefined when the target is no URL at all.
 */
function parseTarget(target: string): RequestTarget | undefined {
  try {
    const url = new URL(target, 'http://gateway.local');
    // An absolute-form target (GET http://host/path) keeps its path as sent too: only the authority goes.
    const sent = target.startsWith('/') ? target : target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
    const pathname = sent.split(/[?#]/, 1)[0] || '/';
    return { pathname, search: url.search, searchParams: url.searchParams };
  } catch {
    return undefined;
  }
}

/** The parts of a request's URL the gateway reads (a URL has them, with its path resolved). */
export interface RequestTarget {
  readonly pathname: string;
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/**
 * What API Gateway answers itself, in the API's error format here. On AWS an HTTP API answers these
 * with {"message": ...} and cannot be told otherwise (docs/security.md).
 */
const SERVER_ERROR = 'A server error occurred.';
const TOO_LARGE = `Request body is larger than API Gateway's ${GATEWAY_MAX_PAYLOAD_BYTES} bytes.`;
const UNAVAILABLE = 'Service temporarily unavailable, try again later.';

async function handle(req: IncomingMessage, res: ServerResponse, url: RequestTarget, invoke: Invoke, init?: Init): Promise<void> {
  const body = await readBody(req, GATEWAY_MAX_PAYLOAD_BYTES);
  if (body === 'too-large') {
    writeJson(res, 413, { detail: TOO_LARGE });
    return;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const match = matchRoute(method, url.pathname);
  // As the HTTP API's routes are keyed: HEAD /x is a route of its own (lib/constructs/http-api.ts).
  const key = match ? `${method} ${gatewayPath(match.route)}` : '$default';
  const event = buildEvent(req, url, method, body, key, match?.pathParameters);
  const functionName = match ? match.route.function : DEFAULT_ROUTE_FUNCTION;
  const timeoutMs = FUNCTIONS[functionName].timeoutSeconds * 1000;
  let result: unknown;
  try {
    await init?.(functionName);
    result = await withTimeout(invoke(functionName, event), timeoutMs);
  } catch (error) {
    // API Gateway answers a function error or timeout this way; the details are only in the logs.
    console.error(`[gateway] ${functionName} failed on ${method} ${url.pathname}:`, error);
    if (error instanceof FunctionTimeoutError) {
      // The busy answer the API documents (the functions give their own a second before this).
      writeJson(res, 503, { detail: UNAVAILABLE }, { 'retry-after': '1' });
    } else {
      writeJson(res, 500, { detail: SERVER_ERROR });
    }
    return;
  }
  if (Buffer.byteLength(JSON.stringify(result ?? null)) > LAMBDA_MAX_RESPONSE_BYTES) {
    // Lambda refuses such a response, and API Gateway answers 500.
    console.error(`[gateway] ${functionName} answered more than ${LAMBDA_MAX_RESPONSE_BYTES} bytes on ${method} ${url.pathname}`);
    writeJson(res, 500, { detail: SERVER_ERROR });
    return;
  }
  writeResult(res, result, method === 'HEAD');
}

class FunctionTimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeoutError(`Function timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const TEXT_TYPES = /^(text\/|application\/(json|.*\+json|xml|x-www-form-urlencoded|javascript))/i;

export function buildEvent(
  req: IncomingMessage,
  url: RequestTarget,
  method: string,
  body: Buffer,
  key: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    if (name === 'cookie') cookies.push(...value.split(/;\s*/));
    else headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
  headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  }
  const now = new Date();
  // Text that is not UTF-8 goes base64-encoded, bytes as sent: decoding it here would turn the bad
  // bytes into U+FFFD, which the function could no longer tell from a real one (and refuse).
  const isText = body.byteLength === 0 || (TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body));
  const decodedParameters = pathParameters
    ? Object.fromEntries(Object.entries(pathParameters).map(([name, value]) => [name, safeDecode(value)]))
    : undefined;
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(decodedParameters ? { pathParameters: decodedParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      // The gateway's own address, as API Gateway names its own domain: never the client's Host header.
      domainName: ownAuthority(req),
      domainPrefix: ownAuthority(req).split('.')[0] ?? 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body.byteLength > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !isText,
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function clfTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/**
 * API Gateway's mapping of a payload-2.0 result, including its inference for non-structured results.
 * To HEAD, the function's Content-Length (the length of the body GET would send) stands, and node
 * sends no body.
 */
function writeResult(res: ServerResponse, result: unknown, head = false): void {
  const structured =
    typeof result === 'object' && result !== null && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result ?? '') };
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name] = String(value);
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body =
    structured.body === undefined
      ? Buffer.alloc(0)
      : structured.isBase64Encoded
        ? Buffer.from(structured.body, 'base64')
        : Buffer.from(structured.body, 'utf8');
  const given = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-length');
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length') delete headers[name];
  headers['content-length'] = head && given ? String(given[1]) : String(body.byteLength);
  res.writeHead(structured.statusCode ?? 200, headers);
  res.end(body);
}

function writeJson(res: ServerResponse, statusCode: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(statusCode, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

