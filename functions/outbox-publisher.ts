/**
 * The outbox: the table's stream → the event bus. Two kinds of records reach it (filter criteria):
 * events an evaluation committed (OutboxEvent items), and requests and comments written by the API,
 * which become request.added, request.updated and request_comment.added. Every event keeps its id
 * on every retry (an outbox item's own, or one derived from the stream record), so consumers
 * deduplicate on it. The first record that fails stops the batch: it and the records after it are
 * reported (partial batch failure), and Lambda retries from it, so events keep the stream's order.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { EVENT_SOURCE, type Envelope } from '../shared/events/envelope.ts';
import { REQUEST_ADDED, REQUEST_COMMENT_ADDED, REQUEST_UPDATED, requestEvent } from '../shared/events/request-events.ts';
import { stableUuid } from '../shared/domain/identifiers.ts';
import { eventBaseUrl } from '../shared/config.ts';
import { eventPublisher, lambdaHandler, requestStore, type Dependencies } from '../shared/runtime.ts';
import { commentView, requestView } from '../shared/services/requests.ts';
import type { RequestStore } from '../shared/store/request-store.ts';
import { isoWithOffset } from '../shared/domain/time.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';

type OutboxDependencies = Pick<Dependencies, 'config' | 'requestStore' | 'publisher'>;

export const makeHandler =
  (deps: OutboxDependencies) =>
  (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> =>
    publish(deps, event, context);

export const handler = lambdaHandler((c) => makeHandler({ config: c.config, requestStore: requestStore(c), publisher: eventPublisher(c) }));

/** The event a stream record stands for, or undefined when it stands for none. */
async function eventOf(record: DynamoDBRecord, requests: RequestStore, baseUrl: string): Promise<Envelope | undefined> {
  if (!record.dynamodb?.NewImage) return undefined;
  const item = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
  // Derived from the stream record: the same record always makes the same event id.
  const id = stableUuid(`${record.eventSourceARN}|${record.eventID}`);
  const at = isoWithOffset(new Date((record.dynamodb.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000));
  switch (item.entity) {
    case 'OutboxEvent':
      return record.eventName === 'INSERT' ? (item.envelope as Envelope) : undefined;
    case 'Request': {
      const found = await requests.getWithComments(String(item.uuid));
      if (!found) return undefined;
      const type = record.eventName === 'INSERT' ? REQUEST_ADDED : REQUEST_UPDATED;
      return requestEvent(type, id, String(item.lastModifiedDate ?? at), String(item.dataspace), {
        request: requestView(found.request, found.comments, baseUrl),
      });
    }
    case 'RequestComment': {
      if (record.eventName !== 'INSERT') return undefined;
      const found = await requests.getWithComments(String(item.requestUuid));
      if (!found) return undefined;
      const comment = found.comments.find((c) => c.uuid === item.uuid) ?? {
        uuid: String(item.uuid),
        username: String(item.username),
        text: String(item.text),
        createdDate: String(item.createdDate),
      };
      return requestEvent(REQUEST_COMMENT_ADDED, id, comment.createdDate, found.request.dataspace, {
        request: requestView(found.request, found.comments, baseUrl),
        comment: commentView(comment),
      });
    }
    default:
      return undefined;
  }
}

async function publish(deps: OutboxDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const { publisher } = deps;
  const baseUrl = eventBaseUrl(deps.config);
  return processStreamBatch(event, context, async (record: DynamoDBRecord) => {
    try {
      const envelope = await eventOf(record, deps.requestStore, baseUrl);
      if (!envelope) return;
      await publisher.publish([{ source: EVENT_SOURCE, detailType: envelope.type, detail: { ...envelope }, time: new Date(envelope.timestamp) }]);
    } catch (error) {
      logger.error('Could not publish an event', { eventID: record.eventID, error: error as Error });
      throw error;
    }
  });
}
