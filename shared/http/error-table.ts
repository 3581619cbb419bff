/**
 * The one error table: every named domain error to its HTTP status, headers and DRF-style body.
 * Anything not in the table is a 500 whose body reveals nothing; it is logged once, by the caller.
 */
import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  ParseError,
  PayloadTooLargeError,
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

type Mapper<E extends Error> = readonly [new (...args: never[]) => E, (error: E) => Omit<ErrorResponse, 'expected'>];

function entry<E extends Error>(type: new (...args: never[]) => E, map: (error: E) => Omit<ErrorResponse, 'expected'>): Mapper<E> {
  return [type, map];
}

const TABLE: readonly Mapper<never>[] = [
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
  entry(MethodNotAllowedError, (e) => ({
    statusCode: 405,
    headers: { Allow: e.allowed.join(', ') },
    body: { detail: e.message },
  })),
  entry(PayloadTooLargeError, (e) => ({ statusCode: 413, body: { detail: e.message } })),
  entry(UnsupportedMediaTypeError, (e) => ({ statusCode: 415, body: { detail: e.message } })),
] as unknown as readonly Mapper<never>[];

export function errorResponse(error: unknown): ErrorResponse {
  for (const [type, map] of TABLE) {
    if (error instanceof type) return { ...map(error as never), expected: true };
  }
  return { statusCode: 500, body: { detail: 'A server error occurred.' }, expected: false };
}
