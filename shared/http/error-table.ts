/**
 * The one error table: every named domain error to its HTTP status, headers and DRF-style body.
 * Anything not in the table is a 500 whose body reveals nothing; it is logged once, by the caller.
 */
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  InUseError,
  MethodNotAllowedError,
  NotFoundError,
  ParseError,
  PayloadTooLargeError,
  PreconditionFailedError,
  ServiceUnavailableError,
  ThrottledError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';

export interface ErrorResponse {
  readonly statusCode: number;
  readonly headers?: Record<string, string>;
  readonly body: Record<string, unknown>;
  /** False for errors the table does not know: those are bugs and get logged. */
  readonly expected: boolean;
}

/** One row of the table: the answer to an error of its type, or undefined for any other error. */
type Mapper = (error: unknown) => Omit<ErrorResponse, 'expected'> | undefined;

function entry<E extends Error>(type: new (...args: never[]) => E, map: (error: E) => Omit<ErrorResponse, 'expected'>): Mapper {
  return (error) => (error instanceof type ? map(error) : undefined);
}

const TABLE: readonly Mapper[] = [
  entry(ValidationError, (e) => ({
    statusCode: 400,
    body: e.wrapped ? { errors: e.fieldErrors } : e.fieldErrors,
  })),
  entry(ConflictError, (e) => ({ statusCode: 400, body: { [e.field]: [e.detail] } })),
  entry(ParseError, (e) => ({ statusCode: 400, body: { detail: e.detail } })),
  entry(AuthenticationError, (e) => ({
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Token' },
    body: { detail: e.detail },
  })),
  entry(ForbiddenError, (e) => ({ statusCode: 403, body: { detail: e.detail } })),
  entry(NotFoundError, (e) => ({ statusCode: 404, body: { detail: e.detail } })),
  entry(InUseError, (e) => ({ statusCode: 409, body: { detail: e.detail } })),
  entry(MethodNotAllowedError, (e) => ({
    statusCode: 405,
    headers: { Allow: e.allowed.join(', ') },
    body: { detail: e.message },
  })),
  entry(PreconditionFailedError, (e) => ({ statusCode: 412, body: { detail: e.detail } })),
  entry(PayloadTooLargeError, (e) => ({ statusCode: 413, body: { detail: e.message } })),
  entry(UnsupportedMediaTypeError, (e) => ({ statusCode: 415, body: { detail: e.message } })),
  entry(ThrottledError, (e) => ({ statusCode: 429, headers: { 'Retry-After': String(e.retryAfterSeconds) }, body: { detail: e.message } })),
  entry(ServiceUnavailableError, (e) => ({ statusCode: 503, headers: { 'Retry-After': String(e.retryAfterSeconds) }, body: { detail: e.message } })),
];

/**
 * AWS errors that mean "busy", left after the SDK's own retries: throttling, capacity, a transaction
 * that kept conflicting, a timeout. The client is told to come back (503 with Retry-After), not that
 * the service broke; transactions are all-or-nothing, so nothing was half-written.
 */
const BUSY = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

export function isBusy(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (BUSY.has(error.name)) return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return error.name === 'TransactionCanceledException' && (reasons ?? []).some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError');
}

export function errorResponse(error: unknown): ErrorResponse {
  for (const map of TABLE) {
    const mapped = map(error);
    if (mapped) return { ...mapped, expected: true };
  }
  if (isBusy(error)) return { ...TABLE_BUSY, expected: true };
  return { statusCode: 500, body: { detail: 'A server error occurred.' }, expected: false };
}

const TABLE_BUSY = { statusCode: 503, headers: { 'Retry-After': '1' }, body: { detail: new ServiceUnavailableError().message } };
