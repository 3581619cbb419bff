/**
 * The queues, event bus and event-source mappings of the service, declared once as plain data.
 * lib/compliance-stack.ts turns them into AWS resources; bin/local/ creates the same queues (with the
 * same redrive settings) on the SQS emulator and runs the same mappings with its pollers.
 */
import { EVALUATED_ENTITIES } from './domain/change-records.ts';
import { keys } from './keys.ts';
import { AUDITED_ENTITIES } from './domain/audit.ts';

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
    // Six times the evaluator's 300 s timeout (AWS's advice for a queue a Lambda function consumes).
    visibilityTimeoutSeconds: 1800,
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
   * One message per webhook delivery the fan-out could not make (its first attempt is the fan-out's).
   * A failed attempt puts its message back with a backoff; after maxReceiveCount receives (the
   * schedule's other 13 attempts: about 24 hours) it moves to the DLQ.
   */
  webhookDeliveries: {
    localName: 'webhook-deliveries',
    urlEnvVar: 'WEBHOOK_DELIVERIES_QUEUE_URL',
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 13,
    retentionDays: 2,
    deadLetterRetentionDays: 14,
  },
  /**
   * Packages to match against the published advisories, and advisory package keys to match against the
   * packages of every dataspace (shared/aws/advisory-link-queue.ts). Six times the linker's 120 s timeout.
   */
  advisoryLinks: {
    localName: 'advisory-links',
    urlEnvVar: 'ADVISORY_LINKS_QUEUE_URL',
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    retentionDays: 4,
    deadLetterRetentionDays: 14,
  },
  /**
   * License mappings made or changed, to apply to the packages already in their dataspace
   * (shared/aws/license-reresolution-queue.ts). Six times the re-resolver's 300 s timeout.
   */
  licenseReresolution: {
    localName: 'license-reresolution',
    urlEnvVar: 'LICENSE_RERESOLUTION_QUEUE_URL',
    visibilityTimeoutSeconds: 1800,
    maxReceiveCount: 5,
    retentionDays: 4,
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
      /**
       * Lambda filter criteria patterns (EventBridge pattern syntax) over the stream record. Build them with
       * withoutLimiterItems: no stream consumer is woken for the rate limiters' items.
       */
      readonly filterPatterns?: readonly Record<string, unknown>[];
    }
  | {
      readonly kind: 'queue';
      readonly queue: QueueName;
      readonly function: string;
      readonly batchSize: number;
      readonly maxBatchingWindowSeconds?: number;
      /**
       * Batches handled at once at most (the mapping's ScalingConfig.MaximumConcurrency, 2 to 1000 on
       * AWS; the local poller runs this many batches side by side). Unset: AWS scales as it likes, and
       * the local poller handles one batch at a time.
       */
      readonly maxConcurrency?: number;
    };

const entityFilter = (entities: readonly string[]) => [
  { dynamodb: { NewImage: { entity: { S: [...entities] } } } },
  // A REMOVE has no new image.
  { dynamodb: { OldImage: { entity: { S: [...entities] } } } },
];

/**
 * The sort keys of the limiter items (shared/store/rate-limit-store.ts): each API key's throttling state
 * (PK RATE#<keyId>, SK RATE) and each source address's failed authentications (PK AUTHFAIL#<source>,
 * SK AUTHFAIL). The API functions write one of them on nearly every request, and TTL removes them a
 * minute later: most of the table's stream, and nothing any stream consumer has a use for.
 */
export const LIMITER_SORT_KEYS: readonly string[] = [keys.rateLimit('-').SK, keys.authFailures('-').SK];

/**
 * The part of every table-stream filter that keeps the limiter items away from the consumer: the record's
 * sort key is none of LIMITER_SORT_KEYS. It looks at `dynamodb.Keys`, which every record carries (INSERT,
 * MODIFY and a TTL REMOVE alike), and it is an exclusion, so a key kind added later reaches the consumers
 * without anyone touching this (a list of the prefixes each consumer needs would silently drop it).
 *
 * Why the sort key and an exact `anything-but`, not `"PK": {"S": [{"anything-but": {"prefix": "RATE#"}}]}`:
 * Lambda's list of event-filtering operators (the "Filter rule syntax" of the Lambda developer guide) has
 * `anything-but` with a list of values, and `prefix`, but not `anything-but` with `prefix`: that one is
 * EventBridge's, and EventBridge's own operator table marks it unsupported by Pipes. Nothing offline can
 * tell whether CreateEventSourceMapping accepts it, so the filter uses the operator the documentation
 * promises. The limiter items are the only ones whose sort key is exactly RATE or AUTHFAIL
 * (test/infra/stream-filters.test.ts checks every key builder of shared/keys.ts).
 *
 * Today the consumers' entity filters leave these items out as well (they carry entity RateLimit or
 * AuthFailures); this exclusion does not depend on each consumer's list, nor on the `entity` attribute.
 */
const LIMITER_EXCLUSION = { dynamodb: { Keys: { SK: { S: [{ 'anything-but': [...LIMITER_SORT_KEYS] }] } } } } as const;

/**
 * A table-stream mapping's filter patterns with the limiter items taken out: the exclusion is ANDed into
 * each pattern (Lambda ORs the patterns of a mapping, and ANDs the fields of one), or is the only pattern
 * of a consumer that filters nothing else.
 */
export function withoutLimiterItems(patterns: readonly Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (patterns.length === 0) return [structuredClone(LIMITER_EXCLUSION) as Record<string, unknown>];
  return patterns.map((pattern) => andPatterns(pattern, LIMITER_EXCLUSION));
}

/** Both patterns' fields in one pattern; two matchers on the same field cannot be ANDed, so that throws. */
function andPatterns(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, path = ''): Record<string, unknown> {
  const merged: Record<string, unknown> = structuredClone(a) as Record<string, unknown>;
  for (const [field, value] of Object.entries(b)) {
    const at = path ? `${path}.${field}` : field;
    const existing = merged[field];
    if (existing === undefined) merged[field] = structuredClone(value);
    else if (isObject(existing) && isObject(value)) merged[field] = andPatterns(existing, value, at);
    else throw new Error(`Cannot combine two filter patterns that both match "${at}"`);
  }
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const EVENT_SOURCES: readonly EventSourceDefinition[] = [
  {
    kind: 'table-stream',
    function: 'stream-router',
    batchSize: 100,
    maxRetryAttempts: 10,
    bisectBatchOnError: true,
    // The entities whose changes can change an evaluation (shared/domain/change-records.ts), and the
    // audited ones (shared/domain/audit.ts): the router queues evaluations and writes the audit trail.
    // Also the violations, whose changes it counts per day for the policy portfolio (shared/store/violation-day-store.ts).
    // And the advisories' package items, whose changes it sends to the advisory linker with the packages
    // written (shared/domain/advisory-links.ts linkTargets). License mappings are audited, so in already:
    // a mapping made or changed is sent to the license re-resolver.
    filterPatterns: withoutLimiterItems(entityFilter([...new Set<string>([...EVALUATED_ENTITIES, ...AUDITED_ENTITIES, 'Violation', 'AdvisoryPackage'])])),
  },
  {
    kind: 'table-stream',
    function: 'outbox-publisher',
    batchSize: 10,
    maxRetryAttempts: 10,
    bisectBatchOnError: true,
    filterPatterns: withoutLimiterItems([
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['OutboxEvent', 'RequestComment'] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['Request', 'PolicyWaiver'] } } } },
    ]),
  },
  { kind: 'queue', queue: 'evaluation', function: 'evaluator', batchSize: 10, maxBatchingWindowSeconds: 1 },
  // The fan-out attempts every delivery of an event itself, the events of a batch at once, and gives a
  // receiver FIRST_TRY_TIMEOUT_MS (2 s) before it hands the delivery to the deliveries queue: a batch
  // takes that long at most plus its log writes, and up to 50 run side by side (about 250 events a
  // second to 100 subscriptions each when every receiver is slow; more when they answer), so a slow
  // receiver holds up no other delivery (shared/services/webhooks.ts).
  { kind: 'queue', queue: 'webhookEvents', function: 'webhook-fanout', batchSize: 10, maxConcurrency: 50 },
  // Retries and hand-overs: the messages of a batch are attempted at once, each with its own 10 s
  // timeout, so a slow subscriber holds up only its own message.
  { kind: 'queue', queue: 'webhookDeliveries', function: 'webhook-delivery', batchSize: 10, maxConcurrency: 10 },
  // A batch's packages are grouped by package key: one advisory lookup a key (shared/services/advisory-links.ts).
  { kind: 'queue', queue: 'advisoryLinks', function: 'advisory-linker', batchSize: 10, maxBatchingWindowSeconds: 1 },
  // One mapping per invocation: each reads its dataspace's packages, and a failed one retries alone.
  { kind: 'queue', queue: 'licenseReresolution', function: 'license-reresolver', batchSize: 1 },
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

/** The bucket audit records are exported to for long retention (lib/compliance-stack.ts; the emulator's S3 API locally). */
export const AUDIT_BUCKET = {
  localName: 'audit-exports',
  /** Where the stream router puts each batch's records: audit/<dataspace>/<date>/<first record>.jsonl */
  prefix: 'audit/',
  /** Exported records move to Glacier Deep Archive after this many days... */
  archiveAfterDays: 90,
  /** ...and are deleted after this many (about seven years). */
  expireAfterDays: 2557,
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

/**
 * A function run on a fixed schedule: an EventBridge scheduled rule (`rate(N minutes)`) on AWS; on the
 * local stack its scheduler runs the handler every `everyMinutes` (or the interval its setting gives, so
 * tests need not wait a minute).
 */
export interface ScheduleDefinition {
  readonly name: string;
  readonly description: string;
  readonly function: string;
  readonly everyMinutes: number;
  /** The setting (shared/config.ts) that sets the local scheduler's interval, in seconds. */
  readonly localIntervalSetting: 'WAIVER_EXPIRY_INTERVAL_SECONDS';
}

export const SCHEDULES: readonly ScheduleDefinition[] = [
  {
    name: 'waiver-expiry',
    description: 'Marks expired policy waivers, so their products are re-evaluated about a minute after the expiry at most',
    function: 'waiver-expiry',
    everyMinutes: 1,
    localIntervalSetting: 'WAIVER_EXPIRY_INTERVAL_SECONDS',
  },
];
