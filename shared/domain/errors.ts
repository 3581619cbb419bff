/**
 * Named domain errors. Services throw these; shared/http/error-table.ts is the one place that turns
 * them into HTTP status codes and DRF-style bodies.
 */
export type FieldErrors = Record<string, string[]>;

export abstract class DomainError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input. `fieldErrors` is keyed by field name, `non_field_errors` for errors of the whole body. */
export class ValidationError extends DomainError {
  constructor(
    readonly fieldErrors: FieldErrors,
    /** Some DejaCode endpoints wrap field errors in an `errors` object; most answer them bare. */
    readonly wrapped = false,
  ) {
    super(Object.entries(fieldErrors).map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; '));
  }
}

export class NotFoundError extends DomainError {
  constructor(readonly detail = 'Not found.') {
    super(detail);
  }
}

export class ForbiddenError extends DomainError {
  constructor(readonly detail = 'You do not have permission to perform this action.') {
    super(detail);
  }
}

/** A uniqueness or state conflict; the API reports it as a 400 field error, as DRF does. */
export class ConflictError extends DomainError {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/**
 * The client sent If-Match with entity tags, and the object's current one is not among them: it was
 * changed since the client read it. Nothing was written. (RFC 9110: 412 Precondition Failed.)
 */
export class PreconditionFailedError extends DomainError {
  constructor(readonly detail = 'The object was changed since you read it: its ETag no longer matches If-Match. Read it again.') {
    super(detail);
  }
}

/** The object is still named by others (a license by packages, a usage policy by licenses and packages). */
export class InUseError extends DomainError {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export class AuthenticationError extends DomainError {
  constructor(readonly detail = 'Authentication credentials were not provided.') {
    super(detail);
  }
}

/** The request body is not valid JSON, or not a JSON object where one is required. */
export class ParseError extends DomainError {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export class MethodNotAllowedError extends DomainError {
  constructor(
    readonly method: string,
    readonly allowed: string[],
  ) {
    super(`Method "${method}" not allowed.`);
  }
}

export class PayloadTooLargeError extends DomainError {
  /** `detail`: what to do instead (the SBOM import points to its upload endpoint). */
  constructor(
    readonly limitBytes: number,
    detail?: string,
  ) {
    super(detail ?? `Request body is larger than ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  /** `accepted`: the media types the endpoint takes, named in the message; `why`: what the body was found to be, when it was read (it names them itself). */
  constructor(
    readonly mediaType: string,
    accepted?: readonly string[],
    why?: string,
  ) {
    super(why ? `Unsupported media type "${mediaType}" in request: ${why}` : `Unsupported media type "${mediaType}" in request.${accepted ? ` Accepted: ${accepted.join(', ')}.` : ''}`);
  }
}

/** Too many requests for the caller's key: try again after `retryAfterSeconds`. */
export class ThrottledError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(`Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
  }
}

/**
 * A dependency (DynamoDB, SQS) is throttling or timing out after our retries, or a write kept losing
 * races with other writes of the same object: try again shortly.
 */
export class ServiceUnavailableError extends DomainError {
  constructor(readonly retryAfterSeconds = 1, options?: ErrorOptions) {
    super('The service is busy; try again shortly.', options);
  }
}
