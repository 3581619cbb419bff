/**
 * The outbox: the table's stream → the event bus. Three kinds of records reach it (filter criteria):
 * events an evaluation committed (OutboxEvent items); requests and comments written by the API,
 * which become request.added, request.updated and request_comment.added; and policy waivers, which
 * become policy.waiver_created, policy.waiver_revoked and (marked by the expiry job) policy.waiver_expired. Every event keeps its id
 * on every retry (an outbox item's own, or one derived from the stream record), so consumers
 * deduplicate on it. The first record that fails stops the batch: it and the records after it are
 * reported (partial batch failure), and Lambda retries from it, so events keep the stream's order.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_SOURCE, correlated, type Envelope } from '../shared/events/envelope.ts';
import { REQUEST_ADDED, REQUEST_COMMENT_ADDED, REQUEST_UPDATED, requestEvent } from '../shared/events/request-events.ts';
import { stableUuid } from '../shared/domain/identifiers.ts';
import { eventBaseUrl } from '../shared/config.ts';
import { eventPublisher, lambdaHandler, requestStore, type Dependencies } from '../shared/runtime.ts';
import { commentView, requestSummary } from '../shared/services/requests.ts';
import { RequestStore } from '../shared/store/request-store.ts';
import { PolicyWaiverStore } from '../shared/store/policy-waiver-store.ts';
import { waiverCreated, waiverExpired, waiverRevoked } from '../shared/events/waiver-events.ts';
import { imageItem, type StreamImage } from '../shared/store/dynamo.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { streamCorrelationId } from '../shared/observability/correlation.ts';
import { countMetric } from '../shared/observability/metrics.ts';

type OutboxDependencies = Pick<Dependencies, 'config' | 'requestStore' | 'publisher'>;

export const makeHandler =
  (deps: OutboxDependencies) =>
    instrumented((event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => publish(deps, event, context));

export const handler = lambdaHandler((c) => makeHandler({ config: c.config, requestStore: requestStore(c), publisher: eventPublisher(c) }));

/**
 * The event a stream record stands for, or undefined when it stands for none. A request's event shows
 * the request as the record's new image holds it (the change itself, not whatever the request became
 * since), with the number of comments made up to that change and the latest of them.
 */
async function eventOf(record: DynamoDBRecord, requests: RequestStore, baseUrl: string): Promise<Envelope | undefined> {
  const image = record.dynamodb?.NewImage as StreamImage | undefined;
  if (!image) return undefined;
  // Derived from the stream record: the same record always makes the same event id.
  const id = stableUuid(`${record.eventSourceARN}|${record.eventID}`);
  const request = RequestStore.requestFromImage(image);
  if (request) {
    const inserted = record.eventName === 'INSERT';
    const comments = inserted ? { count: 0, latest: null } : await requests.commentsAsOf(request.uuid, request.lastModifiedDate);
    return requestEvent(inserted ? REQUEST_ADDED : REQUEST_UPDATED, id, request.lastModifiedDate, request.dataspace, {
      request: requestSummary(request, comments, baseUrl),
    });
  }
  const added = RequestStore.commentFromImage(image);
  if (added) {
    if (record.eventName !== 'INSERT') return undefined;
    // The request itself is another item: read as it is now; its comments up to this one.
    const [found, count] = await Promise.all([requests.get(added.requestUuid), requests.commentsUpTo(added.requestUuid, added.comment)]);
    if (!found) return undefined;
    return requestEvent(REQUEST_COMMENT_ADDED, id, added.comment.createdDate, found.dataspace, {
      request: requestSummary(found, { count, latest: added.comment }, baseUrl),
      comment: commentView(added.comment),
    });
  }
  const waiver = PolicyWaiverStore.fromImage(image);
  if (waiver) {
    const before = PolicyWaiverStore.fromImage(record.dynamodb?.OldImage as StreamImage | undefined);
    if (record.eventName === 'INSERT') return waiverCreated(id, waiver, baseUrl);
    if (waiver.revokedDate !== null && !before?.revokedDate) return waiverRevoked(id, waiver, waiver.revokedBy ?? '', waiver.revokedDate, baseUrl);
    if (waiver.expiredDate !== null && !before?.expiredDate) return waiverExpired(id, waiver, waiver.expiredDate, baseUrl);
    return undefined;
  }
  const outbox = imageItem(image, 'OutboxEvent');
  return outbox && record.eventName === 'INSERT' ? (outbox.envelope as Envelope) : undefined;
}

async function publish(deps: OutboxDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const { publisher } = deps;
  const baseUrl = eventBaseUrl(deps.config);
  // Each record under the correlation id its item carries: the API request's that wrote a request or
  // comment, the evaluation's (its request's) that wrote an outbox event. The event carries it on.
  return processStreamBatch(event, context, (record: DynamoDBRecord) =>
    withCorrelation(streamCorrelationId(record), async (correlationId) => {
      try {
        const found = await eventOf(record, deps.requestStore, baseUrl);
        if (!found) return;
        const envelope = found.correlation_id === undefined ? correlated(found, correlationId) : found;
        await publisher.publish([{ source: EVENT_SOURCE, detailType: envelope.type, detail: { ...envelope }, time: new Date(envelope.timestamp) }]);
        countMetric('EventsPublished', 1);
        logger.info('Event published', { id: envelope.id, type: envelope.type, dataspace: envelope.dataspace });
      } catch (error) {
        logger.error('Could not publish an event', { eventID: record.eventID, error: error as Error });
        throw error;
      }
    }),
  );
}
