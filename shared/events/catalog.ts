/**
 * The event catalog: every event type the service publishes, with its zod schema. docs/events/ holds
 * the JSON Schema of each, generated from here by `npm run docs:events` (a test keeps them in step).
 */
import * as z from 'zod';
import { ViolationDetectedEvent, ViolationResolvedEvent, VIOLATION_DETECTED, VIOLATION_RESOLVED } from './policy-events.ts';
import {
  REQUEST_ADDED,
  REQUEST_COMMENT_ADDED,
  REQUEST_UPDATED,
  RequestAddedEvent,
  RequestCommentAddedEvent,
  RequestUpdatedEvent,
} from './request-events.ts';
import { WAIVER_CREATED, WAIVER_EXPIRED, WAIVER_REVOKED, WaiverCreatedEvent, WaiverExpiredEvent, WaiverRevokedEvent } from './waiver-events.ts';

export const EVENT_TYPES = {
  [VIOLATION_DETECTED]: ViolationDetectedEvent,
  [VIOLATION_RESOLVED]: ViolationResolvedEvent,
  [WAIVER_CREATED]: WaiverCreatedEvent,
  [WAIVER_REVOKED]: WaiverRevokedEvent,
  [WAIVER_EXPIRED]: WaiverExpiredEvent,
  [REQUEST_ADDED]: RequestAddedEvent,
  [REQUEST_UPDATED]: RequestUpdatedEvent,
  [REQUEST_COMMENT_ADDED]: RequestCommentAddedEvent,
} as const satisfies Record<string, z.ZodType>;

export type EventType = keyof typeof EVENT_TYPES;

/** Every event type of the catalog, in its order: what a webhook subscription may ask for. */
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];

/** The JSON Schema (draft 2020-12) of an event's envelope, as docs/events/<type>.schema.json holds it. */
export function eventJsonSchema(type: EventType): string {
  const schema = z.toJSONSchema(EVENT_TYPES[type], { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  const titled = { $schema: schema.$schema, $id: `https://compliance-service/events/${type}.schema.json`, title: type, ...schema };
  return `${JSON.stringify(titled, null, 2)}\n`;
}
