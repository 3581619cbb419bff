/**
 * The compliance service on AWS: one DynamoDB table, one function per catalog entry, the queues with
 * their dead-letter queues, the event bus, the event-source mappings, the HTTP API, the web console
 * (CloudFront in front of the console's bucket and of the API, lib/constructs/web-console.ts), and the
 * alarms and dashboard that watch them (lib/constructs/service-alarms.ts, service-dashboard.ts).
 * Every part is built from the plain-data declarations in shared/ (table, resources, functions, routes),
 * the same ones the local runner reads.
 */
import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as triggers from 'aws-cdk-lib/triggers';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import { FUNCTIONS, type FunctionDefinition, type FunctionName } from '../shared/functions.ts';
import {
  AUDIT_BUCKET,
  EVENT_BUS,
  EVENT_RULES,
  EVENT_SOURCES,
  QUEUES,
  SCHEDULES,
  type EventRuleDefinition,
  type ScheduleDefinition,
  type EventSourceDefinition,
  type QueueName,
} from '../shared/resources.ts';
import { DEFAULT_AUDIT_RETENTION_DAYS, type AuthFailureConfig, type RateLimitConfig } from '../shared/config.ts';
import { ROUTES } from '../shared/routes/index.ts';
import { TABLE, type IndexDefinition } from '../shared/table.ts';
import { ServiceHttpApi, type ThrottleProps } from './constructs/http-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { WebConsole } from './constructs/web-console.ts';
import { SbomUploadBucket } from './constructs/sbom-upload-bucket.ts';
import { AuditBucket } from './constructs/audit-bucket.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { ServiceDashboard } from './constructs/service-dashboard.ts';
import { UPLOAD_PREFIX } from '../shared/aws/sbom-uploads.ts';
import type { WebhookDestination } from './webhook-destinations.ts';
import { pascalCase } from './names.ts';

/** POWERTOOLS_SERVICE_NAME of every function: the service's name, which is also its event source. */
const SERVICE_NAME = EVENT_BUS.source;

/**
 * Per-API-key throttling of the API functions (shared/http/rate-limit.ts). DejaCode's default is 2
 * requests a second with bursts; 5 with bursts of 20 keeps one busy client well inside its dataspace's quota.
 */
export const DEFAULT_KEY_RATE_LIMIT: KeyRateLimitProps = { perSecond: 5, burst: 20 };

/**
 * Each dataspace's quota, across all its keys (shared/http/rate-limit.ts): 100 a second with bursts of
 * 200, so one tenant takes at most a hundredth of the default stage, and 100 busy tenants fill it. One
 * limiter item per dataspace takes every one of its requests' writes: DynamoDB's 1,000 writes a second
 * per item is the ceiling of a dataspace's quota.
 */
export const DEFAULT_DATASPACE_RATE_LIMIT: KeyRateLimitProps = { perSecond: 100, burst: 200 };

/**
 * Throttling of failed authentication per source address (shared/http/auth-failures.ts): a client
 * whose key is wrong sees ten 401s at once, then one every two seconds; a valid key is never slowed.
 */
export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimitProps = { perMinute: 30, burst: 10 };

export interface AuthFailureLimitProps {
  /** Steady failed authentications a minute per source address. */
  readonly perMinute: number;
  /** Failures a source may make at once. */
  readonly burst: number;
}

export interface KeyRateLimitProps {
  /** Steady requests a second per API key. */
  readonly perSecond: number;
  /** Requests a key may make at once. */
  readonly burst: number;
}

/** How long an on-failure destination keeps the descriptions of stream batches that failed for good. */
const STREAM_FAILURE_RETENTION = Duration.days(14);

export interface ComplianceStackProps extends StackProps {
  /**
   * An existing SNS topic that every alarm notifies (context `alarmTopicArn`); whoever operates the
   * service owns its subscriptions. Without it and without alarmEmail the alarms still exist and change
   * state (console, `aws cloudwatch describe-alarms`); they just notify no one.
   */
  readonly alarmTopicArn?: string;
  /**
   * An address to page: the stack creates an SNS topic for the alarms with this address subscribed
   * (AWS mails a confirmation link first). Without it no topic is created. @default the `alarmEmail`
   * context value, if any
   */
  readonly alarmEmail?: string;
  /** @default EVENT_SOURCES; tests pass their own to check how mappings are built. */
  readonly eventSources?: readonly EventSourceDefinition[];
  /** Throttling of the API's default stage. @default DEFAULT_THROTTLE (10,000 a second, bursts of 5,000) */
  readonly apiThrottle?: ThrottleProps;
  /** Throttling of each API key, in the API functions. @default DEFAULT_KEY_RATE_LIMIT (5 a second, bursts of 20) */
  readonly keyRateLimit?: KeyRateLimitProps;
  /** Each dataspace's quota across its keys, in the API functions. @default DEFAULT_DATASPACE_RATE_LIMIT (100 a second, bursts of 200) */
  readonly dataspaceRateLimit?: KeyRateLimitProps;
  /** Throttling of failed authentication per source address. @default DEFAULT_AUTH_FAILURE_LIMIT (30 a minute, bursts of 10) */
  readonly authFailureLimit?: AuthFailureLimitProps;
  /** Static webhook destinations (context `webhookDestinations`): lib/webhook-destinations.ts. */
  readonly webhookDestinations?: readonly WebhookDestination[];
  /**
   * Deploy the web console (CloudFront in front of the console and the API; context `webConsole`).
   * Without it, the API is reached at its own endpoint, and links are built on that. @default true
   */
  readonly webConsole?: boolean;
  /**
   * The projection of the request list's ordering indexes (GSI2..GSI9; context `requestIndexProjection`).
   * INCLUDE (their filters' attributes, shared/table.ts) halves what a request write costs them. A table
   * created by an earlier version has ALL, which DynamoDB cannot change in place: such a deployment sets
   * ALL and keeps working unchanged (README, Upgrading). @default 'INCLUDE'
   */
  readonly requestIndexProjection?: 'ALL' | 'INCLUDE';
  /**
   * Days an audit record stays in the table, listed by GET /api/v2/audit_events/ (its TTL; context
   * `auditRetentionDays`). The audit bucket keeps the exported records longer. @default 400
   */
  readonly auditRetentionDays?: number;
  /**
   * The advisory sync (functions/advisory-sync.ts): which OSV ecosystems, how often, from where. @default
   * the context values `osvEcosystems` (comma-separated; default DEFAULT_OSV_ECOSYSTEMS), `osvSyncSchedule`
   * (an EventBridge Scheduler expression; default daily) and `osvSourceUrl` (default OSV's public bucket;
   * a mirror laid out as it is for an air-gapped account)
   */
  readonly advisorySync?: AdvisorySyncProps;
}

export interface AdvisorySyncProps {
  readonly ecosystems: readonly string[];
  /** `rate(1 day)`, `cron(0 3 * * ? *)`, as EventBridge Scheduler takes them. */
  readonly schedule: string;
  readonly sourceUrl: string;
}

/** OSV's public bucket: `<ecosystem>/all.zip`, `<ecosystem>/modified_id.csv`, `<ecosystem>/<id>.json`. */
export const OSV_PUBLIC_BUCKET = 'https://osv-vulnerabilities.storage.googleapis.com';
/** The ecosystems synced unless the context names others: those the purls of real SBOMs name most. */
export const DEFAULT_OSV_ECOSYSTEMS = ['npm', 'PyPI', 'Maven', 'Go', 'crates.io', 'NuGet', 'RubyGems', 'Packagist'];

export interface ServiceQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

export class ComplianceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly functions: Readonly<Record<FunctionName, ServiceFunction>>;
  readonly queues: Readonly<Record<QueueName, ServiceQueue>>;
  readonly eventBus: events.EventBus;
  readonly httpApi: ServiceHttpApi;
  /** Where large SBOMs are uploaded; its object-created events go to the sbomUploads queue. */
  readonly uploads: SbomUploadBucket;
  /** Where the audit trail is exported for retention beyond the table's. */
  readonly audit: AuditBucket;
  /** Days an audit record stays in the table (props.auditRetentionDays, context `auditRetentionDays`). */
  readonly auditRetentionDays: number;
  /** Undefined when the stack is built without the console (props.webConsole false). */
  readonly webConsole: WebConsole | undefined;
  /** The public origin every absolute URL is built on: the console's when deployed, else the API's endpoint. */
  readonly publicBaseUrl: string;
  /** Every alarm of the stack, named `<stack name>-…`. */
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  /** Every queue of the stack, by construct id, for the dashboard. */
  private readonly allQueues = new Map<string, sqs.IQueue>();

  constructor(scope: Construct, id: string, props: ComplianceStackProps = {}) {
    super(scope, id, props);
    const alarmEmail = props.alarmEmail ?? contextString(this, 'alarmEmail');
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      namePrefix: `${this.stackName}-`,
      ...(alarmEmail !== undefined ? { email: alarmEmail } : {}),
      ...(props.alarmTopicArn !== undefined ? { topicArn: props.alarmTopicArn } : {}),
    });

    this.table = this.createTable(props.requestIndexProjection ?? requestIndexProjectionContext(this));
    this.queues = this.createQueues();
    this.eventBus = new events.EventBus(this, 'EventBus', { eventBusName: `${this.stackName}-${EVENT_BUS.localName}` });
    this.uploads = new SbomUploadBucket(this, 'SbomUploads', { events: this.queues.sbomUploads.queue });
    this.audit = new AuditBucket(this, 'AuditExports');
    this.auditRetentionDays = props.auditRetentionDays ?? auditRetentionDaysContext(this);
    this.functions = this.createFunctions();
    for (const [name, fn] of Object.entries(this.functions)) this.alarms.function(name, fn.function);
    this.limitKeyRate(
      props.keyRateLimit ?? DEFAULT_KEY_RATE_LIMIT,
      props.dataspaceRateLimit ?? DEFAULT_DATASPACE_RATE_LIMIT,
      props.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT,
    );
    for (const source of props.eventSources ?? EVENT_SOURCES) this.addEventSource(source);
    this.migrateOnDeploy();
    for (const rule of EVENT_RULES) this.addEventRule(rule);
    for (const schedule of SCHEDULES) this.addSchedule(schedule);
    this.addAdvisorySync(props.advisorySync ?? advisorySyncContext(this));
    for (const destination of props.webhookDestinations ?? []) this.addWebhookDestination(destination);
    this.httpApi = new ServiceHttpApi(this, 'HttpApi', {
      functions: mapValues(this.functions, (fn) => fn.function),
      ...(props.apiThrottle ? { throttle: props.apiThrottle } : {}),
    });
    const rateAlarms = [
      this.alarms.apiServerErrors(this.httpApi.api),
      this.alarms.webhookDeliveryFailures(this.queues.webhookDeliveries.queue),
    ];
    this.alarms.auditExportFailures();

    this.webConsole =
      props.webConsole === false ? undefined : new WebConsole(this, 'WebConsole', { api: this.httpApi.api, uploadOrigin: this.uploads.uploadOrigin });
    // The console PUTs large SBOMs to the upload bucket's presigned URLs from its own origin.
    if (this.webConsole) this.uploads.allowUploadsFrom(this.webConsole.origin);

    // Every absolute URL the service writes (api_url, next and previous in answers; the URLs in events) is
    // built on one configured public origin, never on a header a client sends: the console's, whose /api/*
    // is the API, or the API's own endpoint without the console. No cycle: the distribution and the
    // endpoint need the AWS::ApiGatewayV2::Api, which does not need the functions (its routes do).
    this.publicBaseUrl = this.webConsole?.origin ?? this.httpApi.api.apiEndpoint;
    for (const name of functionsWithPublicBaseUrl()) this.functions[name].function.addEnvironment('PUBLIC_BASE_URL', this.publicBaseUrl);

    // Last, so that it shows every queue and alarm made above.
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      dashboardName: `${this.stackName}-operations`,
      api: this.httpApi.api,
      functions: mapValues(this.functions, (fn) => fn.function),
      queues: this.allQueues,
      alarms: this.alarms.alarms,
      rateAlarms,
      serviceName: SERVICE_NAME,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.url, description: 'Base URL of the HTTP API' });
    if (this.webConsole) {
      new CfnOutput(this, 'ConsoleUrl', { value: this.webConsole.url, description: 'The web console; its API is /api/* of the same origin' });
    }
    new CfnOutput(this, 'PublicBaseUrl', { value: this.publicBaseUrl, description: "The origin of the API's links (PUBLIC_BASE_URL of the functions)" });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName });
    new CfnOutput(this, 'SbomUploadsBucketName', { value: this.uploads.bucket.bucketName });
    new CfnOutput(this, 'AuditBucketName', { value: this.audit.bucket.bucketName, description: 'The audit trail exported as JSON lines, under audit/<dataspace>/<date>/' });
    for (const [name, { queue, deadLetterQueue }] of Object.entries(this.queues)) {
      new CfnOutput(this, `${pascalCase(name)}QueueUrl`, { value: queue.queueUrl });
      new CfnOutput(this, `${pascalCase(name)}DlqUrl`, { value: deadLetterQueue.queueUrl });
    }
    new CfnOutput(this, 'DashboardName', { value: this.dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard of the service' });
    new CfnOutput(this, 'AlarmNamePrefix', {
      value: this.alarms.namePrefix,
      description: `Every alarm's name starts with it: aws cloudwatch describe-alarms --alarm-name-prefix ${this.alarms.namePrefix}`,
    });
    if (this.alarms.topic) new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'The SNS topic the alarms notify' });
  }

  /** A rule of the bus whose target is one of the stack's queues, with retries and the queue's DLQ. */
  private addEventRule(definition: EventRuleDefinition): events.Rule {
    const { queue, deadLetterQueue } = this.queues[definition.queue];
    const { 'detail-type': detailType, ...rest } = definition.pattern as Record<string, unknown>;
    return new events.Rule(this, `${pascalCase(definition.name)}Rule`, {
      eventBus: this.eventBus,
      description: definition.description,
      eventPattern: { ...(rest as events.EventPattern), ...(detailType ? { detailType: detailType as string[] } : {}) },
      targets: [new eventTargets.SqsQueue(queue, { deadLetterQueue, retryAttempts: 185, maxEventAge: Duration.hours(24) })],
    });
  }

  /**
   * A scheduled rule (on the account's default bus) that invokes a function every `everyMinutes`: the
   * local stack's scheduler runs the same handler on the same schedule.
   */
  private addSchedule(definition: ScheduleDefinition): events.Rule {
    if (!Object.hasOwn(FUNCTIONS, definition.function)) throw new Error(`Schedule for unknown function '${definition.function}': it is not in FUNCTIONS`);
    const fn = this.functions[definition.function as FunctionName].function;
    return new events.Rule(this, `${pascalCase(definition.name)}Schedule`, {
      description: definition.description,
      schedule: events.Schedule.rate(Duration.minutes(definition.everyMinutes)),
      // A run missed is made up by the next one (it reads every waiver due): no retries piling up.
      targets: [new eventTargets.LambdaFunction(fn, { retryAttempts: 0, maxEventAge: Duration.minutes(definition.everyMinutes) })],
    });
  }

  /**
   * The advisory sync on EventBridge Scheduler: the function told its source and ecosystems, invoked on the
   * schedule (no retry: a run cut short is made up by the next, which starts where its progress was noted;
   * a failed run raises the function's error alarm).
   */
  private addAdvisorySync(sync: AdvisorySyncProps): scheduler.Schedule {
    const fn = this.functions['advisory-sync'].function;
    fn.addEnvironment('OSV_SOURCE_URL', sync.sourceUrl);
    fn.addEnvironment('OSV_ECOSYSTEMS', sync.ecosystems.join(','));
    const role = new iam.Role(this, 'AdvisorySyncScheduleRole', {
      description: 'EventBridge Scheduler: invokes the advisory sync',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
    });
    const schedule = new scheduler.Schedule(this, 'AdvisorySyncSchedule', {
      description: `Brings the published advisories of ${sync.ecosystems.join(', ')} up to date from ${sync.sourceUrl}`,
      schedule: scheduler.ScheduleExpression.expression(sync.schedule),
      target: new schedulerTargets.LambdaInvoke(fn, { role, retryAttempts: 0 }),
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(fn.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the advisory sync function and its versions (`:*`), as the scheduler target grants it: one function, nothing else.',
    });
    return schedule;
  }

  /** A fixed HTTPS endpoint for some event types, through an EventBridge API destination. */
  private addWebhookDestination(destination: WebhookDestination): void {
    const id = `Webhook${pascalCase(destination.name)}`;
    const connection = new events.Connection(this, `${id}Connection`, {
      description: `Auth header of the ${destination.name} webhook destination`,
      authorization: events.Authorization.apiKey(destination.headerName, SecretValue.secretsManager(destination.secretName)),
    });
    const apiDestination = new events.ApiDestination(this, `${id}Destination`, {
      connection,
      endpoint: destination.endpoint,
      httpMethod: events.HttpMethod.POST,
      rateLimitPerSecond: destination.rateLimitPerSecond,
    });
    const deadLetterQueue = this.createDeadLetterQueue(
      `${id}Dlq`,
      { retentionPeriod: Duration.days(14) },
      `Events could not be delivered to the ${destination.name} webhook destination`,
    );
    Validations.of(deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `${id}Dlq is itself the dead-letter queue of the ${destination.name} webhook destination's rule.`,
    });
    new events.Rule(this, `${id}Rule`, {
      eventBus: this.eventBus,
      description: `Events for the ${destination.name} webhook destination`,
      eventPattern: { source: [EVENT_BUS.source], detailType: [...destination.events] },
      targets: [
        new eventTargets.ApiDestination(apiDestination, {
          // The receiver gets the envelope, as subscriptions through the API do.
          event: events.RuleTargetInput.fromEventPath('$.detail'),
          deadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
  }

  private createTable(requestIndexProjection: 'ALL' | 'INCLUDE'): dynamodb.Table {
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      stream: dynamodb.StreamViewType[TABLE.streamViewType],
      timeToLiveAttribute: TABLE.ttlAttribute,
      // The table is the system of record: neither a stack deletion nor a replacement may drop it.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    for (const gsi of TABLE.globalSecondaryIndexes as readonly IndexDefinition[]) {
      const projection = gsi.projection === 'INCLUDE' && requestIndexProjection === 'ALL' ? 'ALL' : gsi.projection;
      table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType[projection],
        ...(projection === 'INCLUDE' ? { nonKeyAttributes: [...(gsi.nonKeyAttributes ?? [])] } : {}),
      });
    }
    return table;
  }

  private createQueues(): Record<QueueName, ServiceQueue> {
    return mapValues(QUEUES, (definition, name) => {
      const id = pascalCase(name);
      // No SQS3 acknowledgment needed: cdk-nag sees that the queue is another queue's redrive target.
      const deadLetterQueue = this.createDeadLetterQueue(
        `${id}Dlq`,
        { retentionPeriod: Duration.days(definition.deadLetterRetentionDays) },
        `Messages of the ${name} queue failed ${definition.maxReceiveCount} times`,
      );
      const queue = this.createQueue(`${id}Queue`, {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(definition.retentionDays),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      return { queue, deadLetterQueue };
    });
  }

  /** Every queue of the stack: TLS only, SQS-managed encryption at rest, on the dashboard. */
  private createQueue(id: string, props: sqs.QueueProps): sqs.Queue {
    const queue = new sqs.Queue(this, id, { ...props, enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED });
    this.allQueues.set(id, queue);
    return queue;
  }

  /**
   * Every queue that holds what failed for good (a redrive target, a rule's or a stream mapping's
   * dead-letter destination) is made here, so none is without its alarm.
   */
  private createDeadLetterQueue(id: string, props: sqs.QueueProps, description: string): sqs.Queue {
    const queue = this.createQueue(id, props);
    this.alarms.deadLetterQueue(queue, id, description);
    return queue;
  }

  private createFunctions(): Record<FunctionName, ServiceFunction> {
    return mapValues(FUNCTIONS, (definition, name) => {
      const fn = new ServiceFunction(this, pascalCase(name), {
        entry: definition.entry,
        description: definition.description,
        memoryMb: definition.memoryMb,
        timeoutSeconds: definition.timeoutSeconds,
        serviceName: SERVICE_NAME,
        readsSboms: 'readsSboms' in definition && definition.readsSboms === true,
        servesLicenseTexts: (definition as FunctionDefinition).servesLicenseTexts === true,
        ...((definition as FunctionDefinition).ephemeralStorageMb ? { ephemeralStorageMb: (definition as FunctionDefinition).ephemeralStorageMb! } : {}),
      });
      if (definition.table !== 'none') {
        fn.bindTable(this.table, definition.table, TABLE.globalSecondaryIndexes.map((gsi) => gsi.indexName));
      }
      if ((definition as FunctionDefinition).updatesWaivers) {
        // UpdateItem on products' partitions only (the waivers' items live there), nothing else of the table.
        fn.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['dynamodb:UpdateItem'],
            resources: [this.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PRODUCT#*'] } },
          }),
        );
      }
      for (const queueName of definition.sendsTo as readonly QueueName[]) {
        fn.bindQueue(this.queues[queueName].queue, QUEUES[queueName].urlEnvVar);
      }
      if (definition.publishesEvents) fn.bindEventBus(this.eventBus);
      const uploads = (definition as FunctionDefinition).uploads;
      if (uploads) fn.bindUploads(this.uploads.bucket, uploads, UPLOAD_PREFIX);
      if ((definition as FunctionDefinition).auditExport) fn.bindAuditExport(this.audit.bucket, AUDIT_BUCKET.prefix, this.auditRetentionDays);
      return fn;
    });
  }

  /**
   * Sets the per-key rate limit and the failed-authentication limit on the functions behind the route
   * table's routes (not the stream and queue consumers). The limiters keep their state in the table with
   * conditional UpdateItems, so only the functions the catalog lets use the table get them; a read-only
   * one (api-root, api-schema, request-templates) may update the limiters' items and no other.
   */
  private limitKeyRate(limit: KeyRateLimitProps, dataspace: KeyRateLimitProps, failures: AuthFailureLimitProps): void {
    if (!(limit.perSecond > 0) || !Number.isInteger(limit.burst) || limit.burst < 1) {
      throw new Error(`Key rate limit needs perSecond above 0 and a whole burst of at least 1: ${JSON.stringify(limit)}`);
    }
    if (!(dataspace.perSecond > 0) || !Number.isInteger(dataspace.burst) || dataspace.burst < 1) {
      throw new Error(`Dataspace rate limit needs perSecond above 0 and a whole burst of at least 1: ${JSON.stringify(dataspace)}`);
    }
    if (!(failures.perMinute > 0) || !Number.isInteger(failures.burst) || failures.burst < 1) {
      throw new Error(`Failed-authentication limit needs perMinute above 0 and a whole burst of at least 1: ${JSON.stringify(failures)}`);
    }
    const environment: Record<keyof RateLimitConfig | keyof AuthFailureConfig, string> = {
      RATE_LIMIT_PER_SECOND: String(limit.perSecond),
      RATE_LIMIT_BURST: String(limit.burst),
      DATASPACE_RATE_LIMIT_PER_SECOND: String(dataspace.perSecond),
      DATASPACE_RATE_LIMIT_BURST: String(dataspace.burst),
      AUTH_FAILURES_PER_MINUTE: String(failures.perMinute),
      AUTH_FAILURES_BURST: String(failures.burst),
    };
    for (const name of new Set(ROUTES.map((route) => route.function))) {
      const fn = this.functions[name];
      if (FUNCTIONS[name].table === 'none') continue;
      if (FUNCTIONS[name].table === 'read') {
        // A read-only API function still keeps its callers' rate state and their keys' last use
        // (lastUsedAt, shared/store/api-key-store.ts): UpdateItem on limiter and API key items only.
        fn.role.addToPrincipalPolicy(
          new iam.PolicyStatement({
            actions: ['dynamodb:UpdateItem'],
            resources: [this.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*', 'AUTHFAIL#*', 'APIKEY#*'] } },
          }),
        );
      }
      for (const [variable, value] of Object.entries(environment)) fn.function.addEnvironment(variable, value);
    }
  }

  /**
   * Invokes the migrate function (functions/migrate.ts) in each deployment that changes it, once every
   * other function runs the new code: items an earlier version wrote are then brought to this version's
   * layout while nothing writes the earlier one any more. Asynchronously: the deployment does not wait
   * for it (however large the table), the API counts exactly meanwhile (it reads both layouts of a
   * dataspace not yet migrated), a failure is retried by Lambda and raises the function's error alarm,
   * and a run cut short is finished by the next (the migration is idempotent).
   */
  private migrateOnDeploy(): void {
    const others = Object.entries(this.functions).filter(([name]) => name !== 'migrate').map(([, fn]) => fn.function);
    new triggers.Trigger(this, 'MigrateData', {
      handler: this.functions.migrate.function,
      invocationType: triggers.InvocationType.EVENT,
      executeAfter: [this.table, ...others],
    });
  }

  private addEventSource(source: EventSourceDefinition): void {
    if (!Object.hasOwn(FUNCTIONS, source.function)) {
      throw new Error(`Event source for unknown function '${source.function}': it is not in FUNCTIONS`);
    }
    const consumer = this.functions[source.function as FunctionName];
    const id = pascalCase(source.function);

    if (source.kind === 'table-stream') {
      // Lambda puts a description of each batch that failed for good here (shard, sequence numbers);
      // the records themselves stay readable in the stream for 24 hours.
      const failures = this.createDeadLetterQueue(
        `${id}StreamFailures`,
        { retentionPeriod: STREAM_FAILURE_RETENTION },
        `Table-stream batches failed for good in ${source.function}`,
      );
      Validations.of(failures).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: `${id}StreamFailures is itself the on-failure destination of ${source.function}'s table-stream mapping.`,
      });
      consumer.function.addEventSource(
        new DynamoEventSource(this.table, {
          // The stream is the outbox: start from the oldest record so nothing written before the mapping is lost.
          startingPosition: lambda.StartingPosition.TRIM_HORIZON,
          batchSize: source.batchSize,
          retryAttempts: source.maxRetryAttempts,
          bisectBatchOnError: source.bisectBatchOnError,
          reportBatchItemFailures: true,
          onFailure: new SqsDlq(failures),
          ...(source.filterPatterns ? { filters: source.filterPatterns.map((pattern) => lambda.FilterCriteria.filter(pattern)) } : {}),
        }),
      );
      Validations.of(consumer.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: `dynamodb:ListStreams (granted to ${source.function} for the table-stream mapping) supports no resource-level permissions.`,
      });
      return;
    }

    const { queue } = this.queues[source.queue];
    const visibility = QUEUES[source.queue].visibilityTimeoutSeconds;
    const timeout = FUNCTIONS[source.function as FunctionName].timeoutSeconds;
    if (visibility < timeout) {
      throw new Error(`Queue '${source.queue}' hides a message for ${visibility}s, less than the ${timeout}s timeout of ${source.function}`);
    }
    consumer.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: source.batchSize,
        reportBatchItemFailures: true,
        ...(source.maxBatchingWindowSeconds !== undefined
          ? { maxBatchingWindow: Duration.seconds(source.maxBatchingWindowSeconds) }
          : {}),
        ...(source.maxConcurrency !== undefined ? { maxConcurrency: source.maxConcurrency } : {}),
      }),
    );
  }
}

/** The functions that build absolute URLs: those behind the API's routes, and those marked `buildsEventUrls`. */
export function functionsWithPublicBaseUrl(): FunctionName[] {
  const names = new Set<FunctionName>(ROUTES.map((route) => route.function));
  for (const [name, definition] of Object.entries(FUNCTIONS) as [FunctionName, FunctionDefinition][]) {
    if (definition.buildsEventUrls) names.add(name);
  }
  return [...names].sort();
}

/** The context `requestIndexProjection`: ALL or INCLUDE (the default), anything else refused at synth. */
function requestIndexProjectionContext(scope: Construct): 'ALL' | 'INCLUDE' {
  const value = contextString(scope, 'requestIndexProjection') ?? 'INCLUDE';
  if (value !== 'ALL' && value !== 'INCLUDE') throw new Error(`Context 'requestIndexProjection' must be ALL or INCLUDE, not '${value}'`);
  return value;
}

/** The context `auditRetentionDays`: a whole number of days from 1 to 3,650 (400 by default); anything else refused at synth. */
function auditRetentionDaysContext(scope: Construct): number {
  const value = contextString(scope, 'auditRetentionDays');
  if (value === undefined) return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new Error(`Context auditRetentionDays must be a whole number of days from 1 to 3650, not ${JSON.stringify(value)}`);
  return days;
}

function advisorySyncContext(scope: Construct): AdvisorySyncProps {
  const ecosystems = (contextString(scope, 'osvEcosystems') ?? DEFAULT_OSV_ECOSYSTEMS.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const schedule = contextString(scope, 'osvSyncSchedule') ?? 'rate(1 day)';
  if (!/^(rate|cron|at)\(.+\)$/.test(schedule)) throw new Error(`Context osvSyncSchedule must be an EventBridge Scheduler expression such as rate(1 day), not ${JSON.stringify(schedule)}`);
  const sourceUrl = contextString(scope, 'osvSourceUrl') ?? OSV_PUBLIC_BUCKET;
  if (!/^https:\/\/[^/]/.test(sourceUrl)) throw new Error(`Context osvSourceUrl must be an https URL, not ${JSON.stringify(sourceUrl)}`);
  return { ecosystems, schedule, sourceUrl };
}

/** A string from the CDK context (`-c key=value` or cdk.json); empty means unset. */
function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context '${key}' must be a string`);
  return value;
}

function mapValues<K extends string, V, R>(record: Readonly<Record<K, V>>, map: (value: V, key: K) => R): Record<K, R> {
  return Object.fromEntries(Object.entries<V>(record).map(([key, value]) => [key, map(value, key as K)])) as Record<K, R>;
}
