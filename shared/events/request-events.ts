/**
 * The request events, versioned contracts: request.added, request.updated and request_comment.added.
 * They come from the table's stream (the outbox): the request or comment as written.
 */
import * as z from 'zod';
import { RequestSchema, CommentSchema } from '../schemas/request.ts';
import { EnvelopeSchema, envelope, type Envelope } from './envelope.ts';

export const REQUEST_ADDED = 'request.added';
export const REQUEST_UPDATED = 'request.updated';
export const REQUEST_COMMENT_ADDED = 'request_comment.added';

const RequestData = z.object({ request: RequestSchema.describe('The request as GET /api/v2/requests/{uuid}/ shows it') });
const CommentData = z.object({ request: RequestSchema, comment: CommentSchema });

export const RequestAddedEvent = EnvelopeSchema(REQUEST_ADDED, RequestData).meta({ id: 'RequestAdded' });
export const RequestUpdatedEvent = EnvelopeSchema(REQUEST_UPDATED, RequestData).meta({ id: 'RequestUpdated' });
export const RequestCommentAddedEvent = EnvelopeSchema(REQUEST_COMMENT_ADDED, CommentData).meta({ id: 'RequestCommentAdded' });

export function requestEvent(
  type: typeof REQUEST_ADDED | typeof REQUEST_UPDATED | typeof REQUEST_COMMENT_ADDED,
  id: string,
  at: string,
  dataspace: string,
  data: Record<string, unknown>,
): Envelope {
  return envelope(type, id, at, dataspace, data);
}
