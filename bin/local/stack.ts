/**
 * The whole local stack in one process: DynamoDB Local (on disk under DATA_DIR), the SQS emulator with
 * the queues of shared/resources.ts, the in-process event bus, the event-source pollers, and the HTTP
 * gateway, all feeding the same handler functions Lambda runs. `npm start` and the end-to-end tests
 * start it through startLocalStack(); stop() ends everything it started.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startSignedFront } from './signed-front.ts';
import { startSqsEmulator } from './sqs-emulator.ts';
import { ensureLocalSecret, localCredentials } from '../../shared/aws/local-credentials.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { ensureTable } from './table-setup.ts';
import { migrateData } from '../../shared/store/migrations.ts';
import { ensureQueues } from './queues.ts';
import { startHttpGateway, type HttpGateway } from './http-gateway.ts';
import { buildConsole } from './console-files.ts';
import { startQueuePoller } from './queue-poller.ts';
import { startStreamPoller } from './stream-poller.ts';
import { startScheduler } from './scheduler.ts';
import { InProcessEventBus } from './event-bus.ts';
import { lambdaContext } from './lambda-context.ts';
import { localFunctions, type LocalFunctions } from './functions.ts';
import { localDependencies } from './composition.ts';
import { freePort } from './ports.ts';
import { readRunningStack, readStackFile, removeStackFile, writeStackFile } from './stack-file.ts';
import { processRuns, readProcStat } from './process-guard.ts';
import { createDocumentClient, createDynamoClient, createSqsClient } from '../../shared/aws/clients.ts';
import { AUDIT_BUCKET, EVENT_BUS, EVENT_RULES, EVENT_SOURCES, QUEUES, SCHEDULES, UPLOAD_BUCKET, type QueueDefinition, type QueueName } from '../../shared/resources.ts';
import { CreateBucketCommand, PutBucketLifecycleConfigurationCommand } from '@aws-sdk/client-s3';
import { UPLOAD_PREFIX, createS3Client } from '../../shared/aws/sbom-uploads.ts';
import { startUploadNotifier } from './upload-events.ts';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { parseConfig, publicOrigin, type ConfigInput, type ServiceConfig } from '../../shared/config.ts';

export interface LocalStackOptions {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly tableName: string;
  readonly region: string;
  readonly log: (line: string) => void;
  /**
   * The public origin links are built on (PUBLIC_BASE_URL), when the stack is reached through another
   * address than its own. @default the gateway's own http://HOST:PORT
   */
  readonly publicBaseUrl?: string;
  /** Build the web console into DATA_DIR/console and serve it at `/` (npm start does; tests of the API need not). */
  readonly serveConsole?: boolean;
  /**
   * The functions' settings, by their shared/config.ts names (EVALUATION_DELAY_SECONDS, the WEBHOOK_*
   * schedule, RATE_LIMIT_*, AUTH_FAILURES_*, ALLOW_PRIVATE_WEBHOOK_TARGETS...): `npm start` passes its
   * environment. The stack's own resources (table, endpoints, queues, bucket, bus, public origin) override
   * whatever this says of them.
   */
  readonly settings?: ConfigInput | NodeJS.ProcessEnv;
  /**
   * A DynamoDB Local already running, to make the stack's table in instead of starting one under
   * DATA_DIR (tests share one for their whole run: a Java start costs seconds of CPU). The stack
   * neither starts nor stops it.
   */
  readonly dynamodbEndpoint?: string;
}

export interface LocalStack {
  readonly apiUrl: string;
  readonly bus: InProcessEventBus;
  /** The configuration the stack's functions are made from (its queue URLs among others). */
  readonly config: ServiceConfig;
  readonly queues: Readonly<Record<QueueName, { readonly url: string; readonly arn: string }>>;
  stop(): Promise<void>;
}

/** Settings of the local stack that differ from AWS's defaults, unless the caller gives its own. */
const LOCAL_DEFAULTS: ConfigInput = {
  EVALUATION_DELAY_SECONDS: 1,
  // Local receivers live on 127.0.0.1: allowed unless the caller says otherwise (never on AWS).
  ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
};

function functionName(name: string): FunctionName {
  if (!(name in FUNCTIONS)) throw new Error(`Event source names unknown function "${name}"`);
  return name as FunctionName;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const running = readRunningStack(dataDir);
  if (running) {
    throw new Error(`Another local stack (pid ${running.pid}, ${running.apiUrl}) is using DATA_DIR ${dataDir}`);
  }
  await stopLeftovers(dataDir, options.log);

  const publicBaseUrl = options.publicBaseUrl === undefined ? undefined : publicOrigin(options.publicBaseUrl);
  if (options.publicBaseUrl !== undefined && publicBaseUrl === undefined) {
    throw new Error(`PUBLIC_BASE_URL must be an http(s) origin such as https://compliance.example.com, not "${options.publicBaseUrl}"`);
  }
  // The settings are checked before anything starts; the stack's resources are added once they exist.
  const settings = parseConfig({
    ...LOCAL_DEFAULTS,
    ...options.settings,
    TABLE_NAME: options.tableName,
    AWS_REGION: options.region,
    PUBLIC_BASE_URL: undefined,
  });

  const stoppers: (() => Promise<void>)[] = [];
  let stopping = false;
  // While stopping, the emulators may go first (a Ctrl-C reaches Java too): pollers' errors are expected.
  const log = (line: string) => {
    if (!stopping) options.log(line);
  };
  const stop = async () => {
    stopping = true;
    removeStackFile(dataDir);
    for (const stopOne of stoppers.splice(0).reverse()) {
      await stopOne().catch((error: unknown) => options.log(`[local] error while stopping: ${String(error)}`));
    }
  };

  try {
    const consoleDir = options.serveConsole ? join(dataDir, 'console') : undefined;
    const [dynamo, sqsServer] = await Promise.all([
      options.dynamodbEndpoint !== undefined
        ? { endpoint: options.dynamodbEndpoint, pid: undefined, stop: async () => undefined }
        : freePort().then((port): Promise<DynamoDbLocal> => startDynamoDbLocal({ port, dataDir: join(dataDir, 'dynamodb') })),
      // Its S3 API holds the SBOM uploads; its spy reports each upload (./upload-events.ts).
      startSqsEmulator({ dataDir: join(dataDir, 'sqs'), spyBufferSize: 2_000 }),
      ...(consoleDir ? [buildConsole(consoleDir)] : []),
    ]);
    stoppers.push(() => dynamo.stop(), () => sqsServer.stop());
    // The emulator answers its signed front only: every S3 and SQS call of the stack, and every presigned
    // upload URL, goes through the front, which verifies its signature with the stack's own secret (drawn
    // for this process, kept in the stack file for the stack's other processes) and carries the upload
    // bucket's CORS rule for the console (allowed once the gateway listens and its origin is known).
    const localSecret = ensureLocalSecret();
    let consoleOrigin: string | undefined;
    const front = await startSignedFront({ emulator: sqsServer, credentials: localCredentials(localSecret), allowedOrigin: () => consoleOrigin });
    stoppers.push(() => front.stop());
    const sqsEndpoint = front.endpoint;

    await ensureTable({ region: options.region, endpoint: dynamo.endpoint }, options.tableName);
    const sqs = createSqsClient({ region: options.region, endpoint: sqsEndpoint });
    stoppers.push(async () => sqs.destroy());
    // The retry schedule of webhook deliveries is configurable locally, so tests run in seconds: the
    // deliveries queue's receive limit follows its number of attempts, as on AWS (the fan-out makes the
    // first one: the queue the others).
    const queues = await ensureQueues(sqs, {
      ...QUEUES,
      webhookDeliveries: { ...QUEUES.webhookDeliveries, maxReceiveCount: Math.max(1, settings.WEBHOOK_MAX_ATTEMPTS - 1) },
    } as Record<QueueName, QueueDefinition>);
    const doc = createDocumentClient(createDynamoClient({ region: options.region, endpoint: dynamo.endpoint }));
    stoppers.push(async () => doc.destroy());
    // Items of an earlier version's layout, in a data directory it wrote, brought to this one's.
    await migrateData(doc, options.tableName);

    // The SBOM upload bucket, on the emulator's S3 API (the same endpoint), with the lifecycle it has on AWS.
    const s3 = createS3Client({ region: options.region, endpoint: sqsEndpoint });
    stoppers.push(async () => s3.destroy());
    await s3.send(new CreateBucketCommand({ Bucket: UPLOAD_BUCKET.localName }));
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: UPLOAD_BUCKET.localName,
        LifecycleConfiguration: {
          Rules: [{ ID: 'expire-uploads', Status: 'Enabled', Filter: { Prefix: UPLOAD_PREFIX }, Expiration: { Days: UPLOAD_BUCKET.expireAfterDays } }],
        },
      }),
    );
    // The audit trail's export bucket (the stream router writes a JSON-lines object per batch to it).
    await s3.send(new CreateBucketCommand({ Bucket: AUDIT_BUCKET.localName }));
    const serviceS3 = createS3Client({ region: options.region, endpoint: sqsEndpoint });
    stoppers.push(async () => serviceS3.destroy());
    const uploads = startUploadNotifier({
      spy: sqsServer.spy,
      s3,
      sqs,
      bucket: UPLOAD_BUCKET.localName,
      prefix: UPLOAD_PREFIX,
      queueUrl: queues.sbomUploads.url,
      region: options.region,
      onError: (error) => log(`[upload-events] ${String(error)}`),
    });
    stoppers.push(() => uploads.stop());

    const bus = new InProcessEventBus({ name: EVENT_BUS.localName, region: options.region });
    // The bus's rules, as EventBridge's SQS targets: the whole event as the message body.
    for (const rule of EVENT_RULES) {
      bus.addRule({
        name: rule.name,
        pattern: rule.pattern,
        target: async (event) => {
          await sqs.send(new SendMessageCommand({ QueueUrl: queues[rule.queue].url, MessageBody: JSON.stringify(event) }));
        },
      });
    }

    // The functions of this stack, made from its parts once the gateway listens (below): until then
    // nothing can ask for one.
    let functions: LocalFunctions | undefined;
    const loadHandler = async (name: FunctionName) => {
      if (!functions) throw new Error(`The local stack's functions are not made yet (${name})`);
      return functions.handler(name);
    };
    const gateway: HttpGateway = await startHttpGateway({
      host: options.host,
      port: options.port,
      invoke: async (name, event) =>
        (await loadHandler(name))(event, lambdaContext(name, FUNCTIONS[name].timeoutSeconds * 1000, { region: options.region })),
      init: loadHandler,
      ...(consoleDir ? { consoleDir, uploadOrigin: front.endpoint } : {}),
      onError: (error) => options.log(`[gateway] ${String(error)}`),
    });
    stoppers.push(() => gateway.stop());
    consoleOrigin = new URL(publicBaseUrl ?? gateway.url).origin;
    // The configuration the functions are made from: the settings, and where the stack's resources are.
    // Answers and events build their links on the public origin: the gateway's own, now that it listens,
    // unless one was given. Never the Host a client sends. (Set in the same turn as the gateway began to
    // listen, so before it can take a request.)
    const config: ServiceConfig = {
      ...settings,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SQS_ENDPOINT: sqsEndpoint,
      S3_ENDPOINT: sqsEndpoint,
      SBOM_UPLOADS_BUCKET: UPLOAD_BUCKET.localName,
      AUDIT_EXPORT_BUCKET: AUDIT_BUCKET.localName,
      EVENT_BUS_NAME: EVENT_BUS.localName,
      EVALUATION_QUEUE_URL: queues.evaluation.url,
      ADVISORY_LINKS_QUEUE_URL: queues.advisoryLinks.url,
      LICENSE_RERESOLUTION_QUEUE_URL: queues.licenseReresolution.url,
      WEBHOOK_DELIVERIES_QUEUE_URL: queues.webhookDeliveries.url,
      PUBLIC_BASE_URL: publicBaseUrl ?? gateway.url,
    };
    functions = localFunctions(localDependencies(config, { dynamo: doc, sqs, s3: serviceS3, bus }));

    // The pollers stop together: each may be waiting out a receive, and one after the other adds up.
    const pollers: { stop(): Promise<void> }[] = [];
    stoppers.push(async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    });
    for (const source of EVENT_SOURCES) {
      const name = functionName(source.function);
      const context = () => lambdaContext(name, FUNCTIONS[name].timeoutSeconds * 1000, { region: options.region });
      if (source.kind === 'queue') {
        const queue = queues[source.queue];
        const poller = startQueuePoller({
          sqs,
          queueUrl: queue.url,
          queueArn: queue.arn,
          region: options.region,
          batchSize: source.batchSize,
          maxBatchingWindowSeconds: source.maxBatchingWindowSeconds,
          maxConcurrency: source.maxConcurrency,
          handler: async (event) => (await loadHandler(name))(event, context()) as Promise<import('aws-lambda').SQSBatchResponse | void>,
          onError: (error) => log(`[${name}] ${String(error)}`),
        });
        pollers.push(poller);
      } else {
        const poller = startStreamPoller({
          dynamodbEndpoint: dynamo.endpoint,
          region: options.region,
          tableName: options.tableName,
          checkpointFile: join(dataDir, `stream-checkpoint-${name}.json`),
          startingPosition: 'TRIM_HORIZON',
          batchSize: source.batchSize,
          maxRetryAttempts: source.maxRetryAttempts,
          bisectBatchOnError: source.bisectBatchOnError,
          filterPatterns: source.filterPatterns,
          handler: async (event) => (await loadHandler(name))(event, context()) as Promise<import('aws-lambda').DynamoDBBatchResponse | void>,
          onFailure: async (records, error) => log(`[${name}] gave up on ${records.length} stream record(s): ${String(error)}`),
          onError: (error) => log(`[stream-poller ${name}] ${String(error)}`),
        });
        pollers.push(poller);
      }
    }
    // The scheduled rules: each function's handler on its interval (a minute, as on AWS, unless set
    // shorter), with a Scheduled Event as EventBridge sends it. Stopped with the pollers' turn.
    for (const schedule of SCHEDULES) {
      const name = functionName(schedule.function);
      const scheduler = startScheduler({
        intervalMs: config[schedule.localIntervalSetting] * 1000,
        run: async () =>
          (await loadHandler(name))(
            {
              version: '0',
              id: randomUUID(),
              'detail-type': 'Scheduled Event',
              source: 'aws.events',
              account: '000000000000',
              time: new Date().toISOString(),
              region: options.region,
              resources: [`arn:aws:events:${options.region}:000000000000:rule/${schedule.name}`],
              detail: {},
            },
            lambdaContext(name, FUNCTIONS[name].timeoutSeconds * 1000, { region: options.region }),
          ),
        onError: (error) => log(`[${name}] ${String(error)}`),
      });
      pollers.push(scheduler);
    }

    // Every function's code is loaded before the stack says it is ready: on a loaded machine, loading it
    // on the first request could take longer than the function's timeout (the gateway's 503).
    await Promise.all(Object.keys(FUNCTIONS).map((name) => loadHandler(name as FunctionName)));

    writeStackFile(dataDir, {
      pid: process.pid,
      apiUrl: gateway.url,
      dynamodbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      localSecret,
      tableName: options.tableName,
      region: options.region,
      startTime: readProcStat(process.pid)?.startTime,
      // Only a DynamoDB Local of its own, which a later start may stop should this stack be killed.
      ...(dynamo.pid !== undefined ? { dynamodbPid: dynamo.pid, dynamodbStartTime: readProcStat(dynamo.pid)?.startTime } : {}),
    });
    return { apiUrl: gateway.url, bus, config, queues, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A stack killed with SIGKILL leaves its stack file, and for a moment (until its watchdog notices) its
 * DynamoDB Local, which still holds the database under DATA_DIR. The next start ends that Java process
 * (the very one: pid and start time) and waits until it is gone, so it starts on a free database.
 */
async function stopLeftovers(dataDir: string, log: (line: string) => void): Promise<void> {
  const stale = readStackFile(dataDir);
  if (!stale?.dynamodbPid || stale.dynamodbStartTime === undefined || !processRuns(stale.dynamodbPid, stale.dynamodbStartTime)) return;
  log(`[local] stopping DynamoDB Local (pid ${stale.dynamodbPid}) left running by a stack that was killed`);
  try {
    process.kill(stale.dynamodbPid, 'SIGKILL');
  } catch {
    return;
  }
  for (let waited = 0; processRuns(stale.dynamodbPid, stale.dynamodbStartTime); waited += 100) {
    if (waited > 30_000) throw new Error(`DynamoDB Local (pid ${stale.dynamodbPid}) of a killed stack does not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
