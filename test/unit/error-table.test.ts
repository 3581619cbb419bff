import { describe, expect, it } from 'vitest';
import { errorResponse } from '../../shared/http/error-table.ts';
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
  UnsupportedMediaTypeError,
  ValidationError,
  ThrottledError,
} from '../../shared/domain/errors.ts';

describe('the error table', () => {
  it.each([
    [new ValidationError({ name: ['This field is required.'] }), 400, { name: ['This field is required.'] }],
    [
      new ValidationError({ non_field_errors: ["Either 'user' or 'group' must be provided."] }, true),
      400,
      { errors: { non_field_errors: ["Either 'user' or 'group' must be provided."] } },
    ],
    [new ConflictError('name', 'Product with this name and version already exists.'), 400, {
      name: ['Product with this name and version already exists.'],
    }],
    [new ParseError('JSON parse error - bad'), 400, { detail: 'JSON parse error - bad' }],
    [new AuthenticationError(), 401, { detail: 'Authentication credentials were not provided.' }],
    [new ForbiddenError(), 403, { detail: 'You do not have permission to perform this action.' }],
    [new NotFoundError(), 404, { detail: 'Not found.' }],
    [new InUseError('This license is still used by 1 object: 1 package.'), 409, { detail: 'This license is still used by 1 object: 1 package.' }],
    [new MethodNotAllowedError('PUT', ['GET']), 405, { detail: 'Method "PUT" not allowed.' }],
    [new PreconditionFailedError(), 412, { detail: new PreconditionFailedError().detail }],
    [new PayloadTooLargeError(1024), 413, { detail: 'Request body is larger than 1024 bytes.' }],
    [new UnsupportedMediaTypeError('text/plain'), 415, { detail: 'Unsupported media type "text/plain" in request.' }],
  ])('%s → %i', (error, status, body) => {
    const mapped = errorResponse(error);
    expect(mapped).toMatchObject({ statusCode: status, body, expected: true });
  });

  it('sets WWW-Authenticate on 401 and Allow on 405', () => {
    expect(errorResponse(new AuthenticationError()).headers).toEqual({ 'WWW-Authenticate': 'Token' });
    expect(errorResponse(new MethodNotAllowedError('PUT', ['GET', 'OPTIONS'])).headers).toEqual({ Allow: 'GET, OPTIONS' });
  });

  it('answers throttling with 429 and Retry-After, as DRF words it', () => {
    expect(errorResponse(new ThrottledError(3))).toEqual({
      statusCode: 429,
      headers: { 'Retry-After': '3' },
      body: { detail: 'Request was throttled. Expected available in 3 seconds.' },
      expected: true,
    });
  });

  it.each(['ThrottlingException', 'ProvisionedThroughputExceededException', 'TimeoutError', 'RequestLimitExceeded'])(
    'answers an AWS %s left after retries with 503 and Retry-After',
    (name) => {
      const error = Object.assign(new Error('busy'), { name });
      expect(errorResponse(error)).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '1' }, expected: true });
    },
  );

  it('answers anything else as a 500 that reveals nothing', () => {
    const mapped = errorResponse(new Error('connection string with password=secret'));
    expect(mapped).toEqual({ statusCode: 500, body: { detail: 'A server error occurred.' }, expected: false });
  });
});
