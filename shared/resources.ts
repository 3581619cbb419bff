/**
 * The queues, event bus and event-source mappings of the service, declared once as plain data.
 * lib/compliance-stack.ts turns them into AWS resources; bin/local/ creates the same queues (with the
 * same redrive settings) on the SQS emulator and runs the same mappings with its pollers.
 */
import { EVALUATED_ENTITIES } from './domain/change-records.ts';

export interface QueueDefinition {
  /** Queue name on the local emulator; on AWS CloudFormation names it. */
  readonly localName: string;
  /** The environment variable through which functions receive the queue URL. */
  readonly urlEnvVar: string;
  /** At least six times the timeout of the consuming function, as AWS advises. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  readonly retentionDays: number;
  readonly deadLetterRetentionDays: number;
}

export const QUEUES = {
  /** Products to (re-)evaluate against the policy rules of their dataspace. */
  evaluation: {
    localName: 'evaluation',
    urlEnvVar: 'EVALUATION_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionDays: 4,
    deadLetterRetentionDays: 14,
  },
  /** Events from the bus's webhook rule, to fan out to subscriptions. */
  webhookEvents: {
    localName: 'webhook-events',
    urlEnvVar: 'WEBHOOK_EVENTS_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    retentionDays: 4,
    deadLetterRetentionDays: 14,
  },
  /**
   * One message per webhook delivery. A failed attempt puts its message back with a backoff; after
   * maxReceiveCount receives (the schedule's attempts: about 24 hours) it moves to the DLQ.
   */
  webhookDeliveries: {
    localName: 'webhook-deliveries',
    urlEnvVar: 'WEBHOOK_DELIVERIES_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 14,
    retentionDays: 2,
    deadLetterRetentionDays: 14,
  },
  /**
   * The upload bucket's object-created events (S3 → SQS → the import function). Six times the import
   * function's timeout; an import that fails three times is recorded as failed and its event moves to the DLQ.
   */
  sbomUploads: {
    localName: 'sbom-uploads',
    urlEnvVar: 'SBOM_UPLOADS_QUEUE_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 3,
    retentionDays: 4,
    deadLetterRetentionDays: 14,
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueName = keyof typeof QUEUES;

export function deadLetterQueueName(queue: QueueDefinition): string {
  return `${queue.localName}-dlq`;
}

export const EVENT_BUS = {
  /** Bus name locally and the default on AWS (the stack prefixes it with the stack name). */
  localName: 'compliance-events',
  /** The `source` of every event the service publishes. */
  source: 'compliance-service',
} as const;

/**
 * A Lambda event-source mapping: which function consumes the table stream or a queue, and how.
 * Both the CDK stack and the local pollers read these; an entry is added by the issue that
 * brings its consumer function (the evaluation pipeline adds the stream router and the evaluator).
 */
export type EventSourceDefinition =
  | {
      readonly kind: 'table-stream';
      readonly function: string;
      readonly batchSize: number;
      readonly maxRetryAttempts: number;
      readonly bisectBatchOnError: boolean;
      /** Lambda filter criteria patterns (EventBridge pattern syntax) over the stream record. */
      readonly filterPatterns?: readonly Record<string, unknown>[];
    }
  | {
      readonly kind: 'queue';
      readonly queue: QueueName;
      readonly function: string;
      readonly batchSize: number;
      readonly maxBatchingWindowSeconds?: number;
    };

const entityFilter = (entities: readonly string[]) => [
  { dynamodb: { NewImage: { entity: { S: [...entities] } } } },
  // A REMOVE has no new image.
  { dynamodb: { OldImage: { entity: { S: [...entities] } } } },
];

export const EVENT_SOURCES: readonly EventSourceDefinition[] = [
  {
    kind: 'table-stream',
    function: 'stream-router',
    batchSize: 100,
    maxRetryAttempts: 5,
    bisectBatchOnError: true,
    // The entities whose changes can change an evaluation (shared/domain/change-records.ts).
    filterPatterns: entityFilter(EVALUATED_ENTITIES),
  },
  {
    kind: 'table-stream',
    function: 'outbox-publisher',
    batchSize: 10,
    maxRetryAttempts: 10,
    bisectBatchOnError: true,
    filterPatterns: [
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['OutboxEvent', 'RequestComment'] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['Request'] } } } },
    ],
  },
  { kind: 'queue', queue: 'evaluation', function: 'evaluator', batchSize: 10, maxBatchingWindowSeconds: 1 },
  { kind: 'queue', queue: 'webhookEvents', function: 'webhook-fanout', batchSize: 10 },
  // One message per invocation: a slow subscriber never holds up another one's delivery.
  { kind: 'queue', queue: 'webhookDeliveries', function: 'webhook-delivery', batchSize: 1 },
  // One upload per invocation: an import is long, and a failed one retries alone.
  { kind: 'queue', queue: 'sbomUploads', function: 'sbom-import', batchSize: 1 },
];

/** The bucket SBOMs are uploaded to (lib/compliance-stack.ts on AWS, the S3 API of the SQS emulator locally). */
export const UPLOAD_BUCKET = {
  /** Bucket name on the local emulator; on AWS CloudFormation names it. */
  localName: 'sbom-uploads',
  /** Uploads not imported (or not removed) by then are deleted by the bucket's lifecycle. */
  expireAfterDays: 1,
} as const;

/** A rule of the event bus: events matching the pattern go to the queue (EventBridge → SQS). */
export interface EventRuleDefinition {
  readonly name: string;
  readonly description: string;
  readonly pattern: Readonly<Record<string, unknown>>;
  readonly queue: QueueName;
}

export const EVENT_RULES: readonly EventRuleDefinition[] = [
  {
    name: 'webhooks',
    description: "The service's events, to deliver to webhook subscriptions",
    pattern: { source: [EVENT_BUS.source] },
    queue: 'webhookEvents',
  },
];
