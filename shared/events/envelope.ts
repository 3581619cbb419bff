/**
 * The one envelope of every event the service publishes: a stable id (the same on every retry and
 * redelivery, so consumers deduplicate on it), the type, when it happened, the dataspace, the data.
 */
import * as z from 'zod';

export const EVENT_SOURCE = 'compliance-service';

/** `version`: of the data schema of this type, bumped when a change could break a consumer of the last. */
export const EnvelopeSchema = <T extends z.ZodType>(type: string, data: T, version = 1) =>
  z.object({
    id: z.uuid().describe('Unique and stable across retries: deduplicate on it'),
    type: z.literal(type),
    version: z.literal(version).describe('Version of the data schema of this type'),
    timestamp: z.iso.datetime({ offset: true }),
    dataspace: z.string(),
    correlation_id: z
      .string()
      .optional()
      .describe('The X-Correlation-Id of the API request whose change led to this event (its request id when it gave none): the id its logs carry'),
    data,
  });

export interface Envelope<T = Record<string, unknown>> {
  readonly id: string;
  readonly type: string;
  readonly version: number;
  readonly timestamp: string;
  readonly dataspace: string;
  readonly correlation_id?: string;
  readonly data: T;
}

/** The envelope of an event of `type` (data `version`, 1 unless given) that happened `at` in `dataspace`. */
export function envelope<T>(type: string, id: string, at: string, dataspace: string, data: T, version = 1): Envelope<T> {
  return { id, type, version, timestamp: at, dataspace, data };
}

/** The envelope with the correlation id of the path that led to it, when there is one. */
export function correlated<T>(event: Envelope<T>, correlationId: string | undefined): Envelope<T> {
  return correlationId === undefined ? event : { ...event, correlation_id: correlationId };
}
