/**
 * The request events, versioned contracts: request.added, request.updated and request_comment.added.
 * They come from the table's stream (the outbox): the request or comment as written, with a bounded
 * summary of the request's comments (their number and the latest, as of the change, and the link to
 * them all), so that an event stays far below EventBridge's 256 KB whatever the number of comments.
 *
 * Version 2 (version 1 embedded every comment in `request.comments`, and failed past about 800):
 * `request` holds the request's fields as the list shows them, plus `comment_count`, `latest_comment`
 * and `comments_url`, instead of `comments`.
 */
import * as z from 'zod';
import { CommentSchema, RequestListItemSchema } from '../schemas/request.ts';
import { EnvelopeSchema, envelope, type Envelope } from './envelope.ts';

export const REQUEST_ADDED = 'request.added';
export const REQUEST_UPDATED = 'request.updated';
export const REQUEST_COMMENT_ADDED = 'request_comment.added';

/** The data version of the three request events. */
export const REQUEST_EVENT_VERSION = 2;

const RequestSummary = RequestListItemSchema.extend({
  comment_count: z.int().min(0).describe('How many comments the request had once this change was made'),
  latest_comment: CommentSchema.nullable().describe('The latest of those comments (null when there is none)'),
  comments_url: z.url().describe('All its comments, oldest first, a page at a time (GET with an API key)'),
})
  .describe('The request as of this change: its fields as GET /api/v2/requests/{uuid}/ shows them, and a summary of its comments')
  .meta({ id: 'RequestSummary' });

const RequestData = z.object({ request: RequestSummary });
const CommentData = z.object({ request: RequestSummary, comment: CommentSchema.describe('The comment added') });

export const RequestAddedEvent = EnvelopeSchema(REQUEST_ADDED, RequestData, REQUEST_EVENT_VERSION).meta({ id: 'RequestAdded' });
export const RequestUpdatedEvent = EnvelopeSchema(REQUEST_UPDATED, RequestData, REQUEST_EVENT_VERSION).meta({ id: 'RequestUpdated' });
export const RequestCommentAddedEvent = EnvelopeSchema(REQUEST_COMMENT_ADDED, CommentData, REQUEST_EVENT_VERSION).meta({ id: 'RequestCommentAdded' });

export function requestEvent(
  type: typeof REQUEST_ADDED | typeof REQUEST_UPDATED | typeof REQUEST_COMMENT_ADDED,
  id: string,
  at: string,
  dataspace: string,
  data: Record<string, unknown>,
): Envelope {
  return envelope(type, id, at, dataspace, data, REQUEST_EVENT_VERSION);
}
