/**
 * The local stack's S3 and SQS endpoint: the one door to its emulator (fauxqs, ./sqs-emulator.ts), as
 * strict as AWS's. Every request must be signed with the stack's credentials (SigV4, a presigned URL or
 * an Authorization header, ./sigv4-verify.ts, with the AWS SDK's own signer): an unsigned, wrongly signed,
 * expired or tampered request (another object's path, another Content-Type than the URL was signed for,
 * another body than the one whose hash was signed) is refused 403 or 400 in the service's own error
 * format (S3's XML, SQS's JSON), and reaches nothing. What passes goes on to the emulator with the
 * emulator's secret header, which nothing else has.
 *
 * It also stands in for the upload bucket's CORS rule (lib/constructs/sbom-upload-bucket.ts), which the
 * emulator lacks: PUT from the console's origin only, with the Content-Type header the URL was signed with.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { UPLOAD_CORS } from '../../shared/aws/sbom-uploads.ts';
import type { LocalCredentials } from '../../shared/aws/local-credentials.ts';
import { verifySigV4, type Refusal } from './sigv4-verify.ts';
import { FRONT_SECRET_HEADER } from './sqs-emulator.ts';
import { readBody } from './http-body.ts';

/**
 * The largest body read whole to check it against its signed hash (a header-signed call of the
 * service's own clients: SQS messages up to 1 MiB in their JSON, audit export objects): the emulator's
 * own request limit, 11 MiB.
 */
const MAX_BUFFERED_BYTES = 11 * 1024 * 1024;

export interface SignedFront {
  /** http://127.0.0.1:<port>: the S3 and SQS endpoint of the stack (presigned upload URLs name it). */
  readonly endpoint: string;
  stop(): Promise<void>;
}

export interface SignedFrontOptions {
  /** The emulator, and the secret it asks of every request. */
  readonly emulator: { readonly endpoint: string; readonly frontSecret: string };
  readonly credentials: LocalCredentials;
  readonly host?: string;
  /** The console's origin, read on every request: it is known once the gateway listens, after this front has started. */
  readonly allowedOrigin: () => string | undefined;
  readonly now?: () => Date;
}

export async function startSignedFront(options: SignedFrontOptions): Promise<SignedFront> {
  const target = new URL(options.emulator.endpoint);
  const now = options.now ?? (() => new Date());
  const server: Server = createServer((req, res) => {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origin === options.allowedOrigin();
    // S3 answers a CORS preflight by the bucket's rule, before any signature (a preflight carries none).
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      preflight(req, res, allowed);
      return;
    }
    const corsHeaders: Record<string, string> = allowed ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': 'ETag' } : {};
    void handle(req, res, corsHeaders).catch(() => {
      if (!res.headersSent) refuse(req, res, { status: 400, code: 'InvalidRequest', message: 'The request could not be read.' }, corsHeaders);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, corsHeaders: Record<string, string>): Promise<void> {
    const requestTarget = req.url ?? '/';
    // A header-signed call is read whole: its body is part of what was signed (its hash). A presigned
    // upload (no Authorization header) streams on: its payload is UNSIGNED-PAYLOAD, as S3's presigner
    // signs it. A request with both forms is refused by the check, as S3 refuses it.
    let body: Buffer | undefined;
    if (req.headers.authorization) {
      const read = await readBody(req, MAX_BUFFERED_BYTES);
      if (read === 'too-large') {
        refuse(req, res, { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size.' }, corsHeaders);
        return;
      }
      body = read;
    }
    const verdict = await verifySigV4({ method: req.method ?? 'GET', target: requestTarget, headers: req.headers, ...(body ? { body } : {}) }, options.credentials, now());
    if ('status' in verdict) {
      req.resume();
      refuse(req, res, verdict, corsHeaders);
      return;
    }
    const headers = { ...req.headers, [FRONT_SECRET_HEADER]: options.emulator.frontSecret };
    const upstream = request({ protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: requestTarget, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...corsHeaders });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain', ...corsHeaders });
      res.end('The S3 emulator did not answer.');
    });
    if (body) upstream.end(body);
    else req.pipe(upstream);
  }

  // Idle keep-alive connections outlive their clients' own idle timeouts (undici's fetch 4 s, Node's agent
  // 5 s), as the gateway's do (bin/local/http-gateway.ts): with Node's default 5 s, a second PUT to an upload
  // URL after a six-second wait reused a connection the front had just closed (ECONNRESET, in a loaded
  // fresh-clone run, 2026-11-29).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The refusal in the service's error format: SQS's JSON protocol for a JSON call (its error type in
 * `__type` and the x-amzn-query-error header), S3's XML error otherwise.
 */
function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal, corsHeaders: Record<string, string>): void {
  const requestId = randomUUID();
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-amz-json-1.0')) {
    res.writeHead(refusal.status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': requestId, 'x-amzn-query-error': `${refusal.code};Sender`, ...corsHeaders });
    res.end(JSON.stringify({ __type: `com.amazon.coral.service#${refusal.code}`, message: refusal.message }));
    return;
  }
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  res.writeHead(refusal.status, { 'Content-Type': 'application/xml', 'x-amz-request-id': requestId, ...corsHeaders, Connection: 'close' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escape(refusal.message)}</Message><RequestId>${requestId}</RequestId></Error>`);
}

/** S3's answer to a CORS preflight: 200 with the rule's headers when it matches, 403 otherwise. */
function preflight(req: IncomingMessage, res: ServerResponse, allowedOrigin: boolean): void {
  const method = String(req.headers['access-control-request-method']).toUpperCase();
  const asked = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const ok = allowedOrigin && (UPLOAD_CORS.methods as readonly string[]).includes(method) && asked.every((name) => (UPLOAD_CORS.headers as readonly string[]).includes(name));
  if (!ok) {
    res.writeHead(403, { 'Content-Type': 'text/plain' });
    res.end('CORSResponse: This CORS request is not allowed.');
    return;
  }
  res.writeHead(200, {
    'Access-Control-Allow-Origin': req.headers.origin!,
    'Access-Control-Allow-Methods': UPLOAD_CORS.methods.join(', '),
    'Access-Control-Allow-Headers': asked.join(', '),
    'Access-Control-Max-Age': String(UPLOAD_CORS.maxAgeSeconds),
    Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    'Content-Length': '0',
  });
  res.end();
}
