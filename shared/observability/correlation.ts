/**
 * One correlation id per path through the service. A client may give it in the X-Correlation-Id
 * header of an API request (else the API Gateway request id is used) and gets it back in the answer's
 * header. The path then carries it on explicitly:
 *
 *   API request ─ table writes (attribute `correlationId`, stamped by write-stamps.ts) ─ stream record
 *     ─ stream router ─ evaluation message (`correlationId`) ─ evaluator
 *     ─ outbox event and event envelope (`correlation_id`) ─ outbox publisher ─ event bus
 *     ─ webhook fan-out ─ delivery message (`correlationId`) ─ webhook delivery (header X-Correlation-Id)
 *
 * and every log line of every function on it carries `correlation_id` (logger.ts), so one id finds the
 * whole path in the logs (a CloudWatch Logs Insights query over the functions' log groups).
 */
import type { DynamoDBRecord } from 'aws-lambda';

/** The request and answer header (API Gateway hands handlers lower-cased header names). */
export const CORRELATION_HEADER = 'X-Correlation-Id';

/** The item attribute that names the correlation id of the API request that last wrote the item. */
export const CORRELATION_ATTRIBUTE = 'correlationId';

/**
 * What a given correlation id may be: 1 to 128 characters of letters, digits and `-_.:/+=@~`, which
 * covers UUIDs, W3C trace ids and API Gateway's own request ids, and keeps log lines and headers plain.
 */
export const VALID_CORRELATION_ID = /^[A-Za-z0-9\-_.:/+=@~]{1,128}$/;

export const INVALID_CORRELATION_ID = `Invalid ${CORRELATION_HEADER} header: give 1 to 128 letters, digits or - _ . : / + = @ ~.`;

/**
 * The correlation id of an API request: its header's (`valid: false` when the header is there but
 * malformed, which the API refuses with 400), else the request id.
 */
export function requestCorrelationId(headers: Readonly<Record<string, string | undefined>> | undefined, requestId: string): { id: string; valid: boolean } {
  const given = headers?.[CORRELATION_HEADER.toLowerCase()];
  if (given === undefined) return { id: requestId, valid: true };
  return VALID_CORRELATION_ID.test(given) ? { id: given, valid: true } : { id: requestId, valid: false };
}

/** A correlation id read from a message, an event or an item: kept when well-formed, else none. */
export function carriedCorrelationId(value: unknown): string | undefined {
  return typeof value === 'string' && VALID_CORRELATION_ID.test(value) ? value : undefined;
}

/**
 * The correlation id a stream record carries: the new image's (a REMOVE has none, and the old image's
 * is the id of an earlier write, not of the delete).
 */
export function streamCorrelationId(record: DynamoDBRecord): string | undefined {
  return carriedCorrelationId(record.dynamodb?.NewImage?.[CORRELATION_ATTRIBUTE]?.S);
}
