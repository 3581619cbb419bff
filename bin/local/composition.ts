/**
 * The local stack's composition root: every function's parts, made from the stack's configuration by
 * the same factories as on Lambda (shared/runtime.ts, shared/sbom-runtime.ts, shared/advisory-runtime.ts), with the stand-ins'
 * clients provided for AWS's: DynamoDB Local, the SQS emulator and its S3 API, and the in-process bus
 * for EventBridge.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceConfig } from '../../shared/config.ts';
import { Composition, dependencyFactories, dynamoClient, eventBridgeClient, lazy, sqsClient, type Dependencies } from '../../shared/runtime.ts';
import { s3Client, sbomDependencyFactories, type SbomDependencies } from '../../shared/sbom-runtime.ts';
import type { InProcessEventBus } from './event-bus.ts';
import { auditTrailWriter, type AuditDependencies } from '../../shared/audit-runtime.ts';
import { advisoryDependencyFactories, type AdvisoryDependencies } from '../../shared/advisory-runtime.ts';

/** What the local stack hands each function's makeHandler: every part, each made when first taken. */
export type LocalDependencies = Dependencies & SbomDependencies & AuditDependencies & AdvisoryDependencies;

/** The stand-ins' clients, which the stack makes (and destroys) itself. */
export interface StandIns {
  readonly dynamo: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  readonly bus: InProcessEventBus;
}

export function localDependencies(config: ServiceConfig, { dynamo, sqs, s3, bus }: StandIns): LocalDependencies {
  const composition = new Composition(config)
    .provide(dynamoClient, dynamo)
    .provide(sqsClient, sqs)
    .provide(s3Client, s3)
    // PutEvents on the in-process bus: the functions publish through the EventBridge publisher, as on AWS.
    .provide(eventBridgeClient, bus);
  return lazy<LocalDependencies>({
    ...dependencyFactories(composition),
    ...sbomDependencyFactories(composition),
    ...advisoryDependencyFactories(composition),
    auditTrail: () => auditTrailWriter(composition),
  });
}
