/**
 * The one Lambda function construct of the service: every function gets the same runtime, architecture,
 * bundling, log group and tracing, and its access is granted through `bind*` helpers that also set the
 * environment variable the function reads, so a grant and its configuration can never drift apart.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Size, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceConfig } from '../../shared/config.ts';
import { REFERENCE_DATA_FILE } from '../../shared/reference/scancode-licensedb.ts';
import { RULES_DATA_FILE } from '../../shared/reference/scancode-rules.ts';
import { TEXTS_DATA_FILE } from '../../shared/reference/scancode-texts.ts';
import { XML_VALIDATOR_FILES, XML_VALIDATOR_MODULE } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { CYCLONEDX_SCHEMA_FOLDER, cyclonedxSchemaFiles, VENDORED_SCHEMA_FILES } from '../../shared/sbom/schema-validation.ts';

/** Where the CycloneDX library keeps its JSON schemas, from the repository root. */
const CYCLONEDX_SCHEMA_SOURCE = path.join('node_modules', '@cyclonedx', 'cyclonedx-library', 'res', 'schema');

/** The reference license data, from the repository root; each bundle gets a copy beside it. */
const REFERENCE_DATA_PATH = path.join('shared', 'reference', REFERENCE_DATA_FILE);
/** ScanCode's license rules index (license names, URLs, text digests), copied the same way. */
const RULES_DATA_PATH = path.join('shared', 'reference', RULES_DATA_FILE);
/** The reference license texts, copied beside the bundles of the functions that serve them. */
const TEXTS_DATA_PATH = path.join('shared', 'reference', TEXTS_DATA_FILE);

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The repository root: entry files, package.json and package-lock.json are resolved from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Names of configuration variables, checked against shared/config.ts at compile time. */
const TABLE_NAME: keyof ServiceConfig = 'TABLE_NAME';
const EVENT_BUS_NAME: keyof ServiceConfig = 'EVENT_BUS_NAME';
const SBOM_UPLOADS_BUCKET: keyof ServiceConfig = 'SBOM_UPLOADS_BUCKET';
const AUDIT_EXPORT_BUCKET: keyof ServiceConfig = 'AUDIT_EXPORT_BUCKET';
const AUDIT_RETENTION_DAYS: keyof ServiceConfig = 'AUDIT_RETENTION_DAYS';

export type TableAccess = 'read' | 'read-write';

/**
 * Read actions, granted on the table and on each named index. Spelled out (rather than
 * `table.grantReadData`) so no grant needs an `index/*` wildcard. Transactions need no actions of
 * their own: IAM checks TransactGet/TransactWrite against the Get/Put/Update/Delete/ConditionCheck items.
 */
const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
] as const;
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

export interface ServiceFunctionProps {
  /** Entry file, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** Value of POWERTOOLS_SERVICE_NAME. */
  readonly serviceName: string;
  /** @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Copy the CycloneDX JSON schemas beside the bundle, where the SBOM reader looks for them. */
  readonly readsSboms?: boolean;
  /** Copy the reference license texts beside the bundle (shared/reference/scancode-texts.ts). */
  readonly servesLicenseTexts?: boolean;
  /** The /tmp of the function, when it needs more than Lambda's 512 MB (the advisory sync's archives). */
  readonly ephemeralStorageMb?: number;
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });

    // An explicit role instead of the default one with the AWS-managed AWSLambdaBasicExecutionRole
    // (which may write to every log group of the account): this role may write to its own log group only.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.entry}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb,
      ...(props.ephemeralStorageMb ? { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) } : {}),
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        // Prefer the ES module builds of dependencies (the AWS SDK ships both) so esbuild can tree-shake.
        mainFields: ['module', 'main'],
        // Some CommonJS dependencies call require(); an ES module bundle has to provide it.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        minify: true,
        sourceMap: true,
        // Stack traces only need file:line mappings; leaving the sources out keeps the asset small.
        sourcesContent: false,
        // The SDK is bundled rather than taken from the runtime, so its version is the one in package-lock.json.
        bundleAwsSDK: true,
        externalModules: [XML_VALIDATOR_MODULE],
        forceDockerBundling: false,
        // The reference license library and ScanCode's rules index are data files read at run time beside
        // index.mjs (shared/reference/): bundled, they would add about 0.5 MB and 2.4 MB to a bundle.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [
            `cp ${shellQuote(path.join(inputDir, REFERENCE_DATA_PATH))} ${shellQuote(path.join(outputDir, REFERENCE_DATA_FILE))}`,
            `cp ${shellQuote(path.join(inputDir, RULES_DATA_PATH))} ${shellQuote(path.join(outputDir, RULES_DATA_FILE))}`,
            ...(props.servesLicenseTexts ? [`cp ${shellQuote(path.join(inputDir, TEXTS_DATA_PATH))} ${shellQuote(path.join(outputDir, TEXTS_DATA_FILE))}`] : []),
            // The SBOM reader's CycloneDX schemas are read at run time from a folder beside the bundle.
            ...(props.readsSboms
              ? [
                  `mkdir -p ${shellQuote(path.join(outputDir, CYCLONEDX_SCHEMA_FOLDER))}`,
                  ...cyclonedxSchemaFiles().map(
                    (file) => `cp ${shellQuote(path.join(inputDir, CYCLONEDX_SCHEMA_SOURCE, file))} ${shellQuote(path.join(outputDir, CYCLONEDX_SCHEMA_FOLDER, file))}`,
                  ),
                  // The schemas this repository vendors (SPDX 3.0.1, OpenVEX 0.2.0), in the same folder.
                  ...VENDORED_SCHEMA_FILES.map(
                    (file) => `cp ${shellQuote(path.join(inputDir, 'shared', 'sbom', file))} ${shellQuote(path.join(outputDir, CYCLONEDX_SCHEMA_FOLDER, file))}`,
                  ),
                  // The XML schema validator, kept out of the bundle (cyclonedx-xml-schema.ts), installed beside it.
                  `mkdir -p ${shellQuote(path.join(outputDir, 'node_modules', XML_VALIDATOR_MODULE))}`,
                  ...XML_VALIDATOR_FILES.map(
                    (file) => `cp ${shellQuote(path.join(inputDir, 'node_modules', XML_VALIDATOR_MODULE, file))} ${shellQuote(path.join(outputDir, 'node_modules', XML_VALIDATOR_MODULE, file))}`,
                  ),
                ]
              : []),
          ],
        },
      },
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Pinned to nodejs22.x for parity with the Node 22 the project develops and tests on locally; move with the toolchain.',
    });
    // The X-Ray statement CDK adds for active tracing lands on the role's default policy.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) support no resource-level permissions, so they need Resource "*".',
    });
  }

  /** Read or read-write on the table and the named indexes; sets TABLE_NAME. */
  bindTable(table: dynamodb.ITable, access: TableAccess, indexNames: readonly string[] = []): this {
    const actions = access === 'read-write' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : [...TABLE_READ_ACTIONS];
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions,
      resourceArns: [table.tableArn, ...indexNames.map((indexName) => `${table.tableArn}/index/${indexName}`)],
    });
    this.function.addEnvironment(TABLE_NAME, table.tableName);
    return this;
  }

  /** SendMessage to the queue; sets `envVar` to the queue URL. */
  bindQueue(queue: sqs.IQueue, envVar: string): this {
    queue.grantSendMessages(this.role);
    this.function.addEnvironment(envVar, queue.queueUrl);
    return this;
  }

  /**
   * The SBOM upload bucket, objects under `prefix` only: `presign` may PutObject (the presigned URLs it
   * signs act with its role), `read` may GetObject and DeleteObject. Sets SBOM_UPLOADS_BUCKET.
   */
  bindUploads(bucket: s3.IBucket, access: 'presign' | 'read', prefix: string): this {
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: access === 'presign' ? ['s3:PutObject'] : ['s3:GetObject', 's3:DeleteObject'],
      resourceArns: [bucket.arnForObjects(`${prefix}*`)],
    });
    this.function.addEnvironment(SBOM_UPLOADS_BUCKET, bucket.bucketName);
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/${prefix}*]`,
      reason: `An SBOM upload's key is uploads/<import uuid>, made per import: the grant covers the uploads prefix of the upload bucket, nothing else of it.`,
    });
    return this;
  }

  /**
   * The audit bucket, PutObject under `prefix` only (the audit trail's export); sets AUDIT_EXPORT_BUCKET,
   * and AUDIT_RETENTION_DAYS, the days its records stay in the table.
   */
  bindAuditExport(bucket: s3.IBucket, prefix: string, retentionDays: number): this {
    iam.Grant.addToPrincipal({ grantee: this.role, actions: ['s3:PutObject'], resourceArns: [bucket.arnForObjects(`${prefix}*`)] });
    this.function.addEnvironment(AUDIT_EXPORT_BUCKET, bucket.bucketName);
    this.function.addEnvironment(AUDIT_RETENTION_DAYS, String(retentionDays));
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/${prefix}*]`,
      reason: `An export's key names its dataspace, date and first record, made per batch: the grant covers the audit prefix of the audit bucket, and only PutObject.`,
    });
    return this;
  }

  /** PutEvents to the bus; sets EVENT_BUS_NAME. */
  bindEventBus(bus: events.IEventBus): this {
    bus.grantPutEventsTo(this.role);
    this.function.addEnvironment(EVENT_BUS_NAME, bus.eventBusName);
    return this;
  }
}

/** The logical id of a bucket, as cdk-nag names it in a finding. */
function bucketLogicalId(bucket: s3.IBucket): string {
  return Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement);
}
