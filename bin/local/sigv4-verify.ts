/**
 * Verifies an incoming request's AWS Signature Version 4 as S3 and SQS do, for the local stack's signed
 * front (signed-front.ts): a presigned URL (X-Amz-* query) or an Authorization header. The signature is
 * recomputed with the AWS SDK's own signer (@smithy/signature-v4) from the request as it arrived, with
 * the local stack's credentials, and compared in constant time; the credential, the scope's date and
 * service, the signed headers (Host included), the expiry of a presigned URL and the clock skew of a
 * signed request are checked as AWS checks them. Pure: the caller reads the body, this says yes or why not.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** What S3 and SQS answer a request they refuse: the status and the error code of their error bodies. */
export interface Refusal {
  readonly status: 400 | 403;
  readonly code: string;
  readonly message: string;
}

export interface Verified {
  /** The service the request was signed for (the credential scope's): `s3` or `sqs`. */
  readonly service: string;
  readonly presigned: boolean;
  /** The payload hash the request declared (`x-amz-content-sha256`), when it is one to check the body against. */
  readonly bodySha256?: string;
}

export interface IncomingSigned {
  readonly method: string;
  /** The request target as it arrived, path and query, still percent-encoded. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, when the caller has read it (needed for a header-signed request without x-amz-content-sha256). */
  readonly body?: Buffer;
}

/** S3's and SQS's limit on a presigned URL's life: 7 days. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/** How far a signed request's X-Amz-Date may be from the server's clock (S3: RequestTimeTooSkewed). */
const MAX_SKEW_MS = 15 * 60 * 1000;
const ALGORITHM = 'AWS4-HMAC-SHA256';

/** The SDK signer's hash, on node:crypto (SHA-256, or HMAC-SHA-256 with a secret). */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** The query as the signer takes it: decoded values by name, a repeated name as a list; `skip` left out. */
function queryObject(params: URLSearchParams, skip?: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    if (name === skip) continue;
    const before = query[name];
    query[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return query;
}

const refuse = (status: 400 | 403, code: string, message: string): Refusal => ({ status, code, message });
const SIGNATURE_MISMATCH = refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');

/** `20261129T061429Z` → the Date, or undefined when it is not that form. */
function amzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function header(headers: IncomingSigned['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The credential scope's form of `date`'s day: `20261129`. */
const dayOf = (date: Date) => date.toISOString().slice(0, 10).replaceAll('-', '');

/** The values of the signed headers as the request carries them, or undefined when one is missing. */
function signedHeaderValues(request: IncomingSigned, signed: readonly string[]): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = header(request.headers, name);
    if (value === undefined) return undefined;
    headers[name] = value;
  }
  return headers;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `local/20261129/us-east-1/s3/aws4_request` → its parts, or a refusal. */
function scope(credential: string, credentials: Credentials): { date: string; region: string; service: string } | Refusal {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request' || !/^\d{8}$/.test(parts[1]!)) {
    return refuse(400, 'AuthorizationQueryParametersError', 'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed.');
  }
  if (parts[0] !== credentials.accessKeyId) return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  return { date: parts[1]!, region: parts[2]!, service: parts[3]! };
}

/**
 * Checks `request`'s signature against `credentials` at `now`. Answers the verified service, or the
 * refusal S3 or SQS would answer.
 */
export async function verifySigV4(request: IncomingSigned, credentials: Credentials, now: Date): Promise<Verified | Refusal> {
  const url = new URL(request.target, 'http://front.invalid');
  const query = url.searchParams;
  const authorization = header(request.headers, 'authorization');
  const host = header(request.headers, 'host');
  if (!host) return refuse(400, 'InvalidRequest', 'A request must carry a Host header.');

  if (query.has('X-Amz-Signature') || query.has('X-Amz-Algorithm') || query.has('X-Amz-Credential')) {
    if (authorization) return refuse(400, 'InvalidArgument', 'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified.');
    const signature = query.get('X-Amz-Signature') ?? '';
    const credential = query.get('X-Amz-Credential') ?? '';
    const signedHeaders = query.get('X-Amz-SignedHeaders') ?? '';
    const date = amzDate(query.get('X-Amz-Date') ?? undefined);
    const expires = Number(query.get('X-Amz-Expires'));
    if (query.get('X-Amz-Algorithm') !== ALGORITHM || !signature || !credential || !signedHeaders || !date || !Number.isInteger(expires)) {
      return refuse(400, 'AuthorizationQueryParametersError', 'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.');
    }
    if (expires < 1 || expires > MAX_EXPIRES_SECONDS) return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be between 1 and 604800 seconds.');
    const parsed = scope(credential, credentials);
    if ('status' in parsed) return parsed;
    if (now.getTime() > date.getTime() + expires * 1000) return refuse(403, 'AccessDenied', 'Request has expired');
    if (date.getTime() > now.getTime() + MAX_SKEW_MS) return refuse(403, 'AccessDenied', 'Request is not valid yet');
    if (dayOf(date) !== parsed.date) return SIGNATURE_MISMATCH;
    const signed = signedHeaders.split(';');
    if (!signed.includes('host')) return refuse(400, 'AuthorizationQueryParametersError', 'The host header must be signed.');
    const headers = signedHeaderValues(request, signed);
    if (!headers) return SIGNATURE_MISMATCH;
    // The payload hash of a presigned request: the one its URL names (S3's presigner sets this header,
    // which the signer reads as the payload hash and hoists into the query under this very name).
    headers['X-Amz-Content-Sha256'] = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
    const rest = queryObject(query, 'X-Amz-Signature');
    const signer = new SignatureV4({ credentials, region: parsed.region, service: parsed.service, sha256: NodeSha256, uriEscapePath: parsed.service !== 's3' });
    const presigned = await signer.presign(
      { method: request.method, protocol: 'http:', hostname: host, path: url.pathname, query: rest, headers },
      {
        signingDate: date,
        expiresIn: expires,
        signableHeaders: new Set(signed),
        unsignableHeaders: new Set(Object.keys(headers).filter((name) => !signed.includes(name))),
      },
    );
    const expected = String(presigned.query?.['X-Amz-Signature'] ?? '');
    return sameText(expected, signature) ? { service: parsed.service, presigned: true } : SIGNATURE_MISMATCH;
  }

  if (!authorization) return refuse(403, 'AccessDenied', 'Access Denied: the request is not signed.');
  const fields = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization.trim());
  if (!fields) return refuse(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  const [, credential, signedHeaders, signature] = fields as unknown as [string, string, string, string];
  const parsed = scope(credential, credentials);
  if ('status' in parsed) return parsed;
  const date = amzDate(header(request.headers, 'x-amz-date'));
  if (!date) return refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  if (Math.abs(date.getTime() - now.getTime()) > MAX_SKEW_MS) return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  if (dayOf(date) !== parsed.date) return SIGNATURE_MISMATCH;
  const signed = signedHeaders.split(';');
  if (!signed.includes('host')) return refuse(400, 'AuthorizationHeaderMalformed', 'The host header must be signed.');
  const headers = signedHeaderValues(request, signed);
  if (!headers) return SIGNATURE_MISMATCH;
  const declared = header(request.headers, 'x-amz-content-sha256');
  if (declared === undefined && request.body === undefined) throw new Error('verifySigV4: a header-signed request without x-amz-content-sha256 needs its body');
  const signer = new SignatureV4({ credentials, region: parsed.region, service: parsed.service, sha256: NodeSha256, uriEscapePath: parsed.service !== 's3' });
  const signedRequest = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: host,
      path: parsed.service === 's3' ? url.pathname : decodeURIComponent(url.pathname),
      query: queryObject(query),
      headers: declared === undefined ? headers : { ...headers, 'x-amz-content-sha256': declared },
      ...(declared === undefined ? { body: request.body } : {}),
    },
    { signingDate: date, signableHeaders: new Set(signed), unsignableHeaders: new Set(declared !== undefined && !signed.includes('x-amz-content-sha256') ? ['x-amz-content-sha256'] : []) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signedRequest.headers.authorization ?? signedRequest.headers.Authorization ?? ''))?.[1] ?? '';
  if (!sameText(expected, signature)) return SIGNATURE_MISMATCH;
  const bodySha256 = declared && /^[0-9a-f]{64}$/.test(declared) ? declared : undefined;
  // The signature covers the declared hash; the body must have it (S3: XAmzContentSHA256Mismatch).
  if (bodySha256 && request.body !== undefined && !bodyMatches(request.body, bodySha256)) {
    return refuse(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  return { service: parsed.service, presigned: false, ...(bodySha256 ? { bodySha256 } : {}) };
}

/** Whether `body` has the SHA-256 `expected` (S3's XAmzContentSHA256Mismatch check). */
export function bodyMatches(body: Buffer, expected: string): boolean {
  return sameText(createHash('sha256').update(body).digest('hex'), expected);
}
