/**
 * The upload bucket's object-created events (S3 → SQS → here, one message a call): each uploaded SBOM
 * is imported into the product its import names. A failure is reported for retry (partial batch
 * failure); on the queue's last receive the import records the failure instead, and the message moves
 * to the dead-letter queue. S3's test event and objects outside uploads/ are acknowledged and ignored.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaHandler } from '../shared/runtime.ts';
import { sbomImportService, type SbomDependencies } from '../shared/sbom-runtime.ts';
import type { SbomImportService } from '../shared/services/sbom-import.ts';
import { importOfKey } from '../shared/aws/sbom-uploads.ts';
import { QUEUES } from '../shared/resources.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';

interface S3EventRecord {
  readonly eventName?: string;
  readonly s3?: { readonly bucket?: { readonly name?: string }; readonly object?: { readonly key?: string; readonly size?: number; readonly eTag?: string } };
}

export const makeHandler =
  ({ sbomImports }: Pick<SbomDependencies, 'sbomImports'>) =>
    instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => importUploads(sbomImports, event, context));

export const handler = lambdaHandler((c) => makeHandler({ sbomImports: sbomImportService(c) }));

async function importUploads(imports: SbomImportService, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  // S3's notification carries no correlation id: each message starts its own. The import's record keeps
  // the id of the API request that made it, and the evaluation its finishing asks for carries that one.
  return processQueueBatch('sbomUploads', event, context, (message: SQSRecord) => withCorrelation(undefined, () => importMessage(imports, message)));
}

async function importMessage(imports: SbomImportService, message: SQSRecord): Promise<void> {
  const lastAttempt = Number(message.attributes.ApproximateReceiveCount ?? 1) >= QUEUES.sbomUploads.maxReceiveCount;
  try {
    const records = (messageBody(message) as { Records?: S3EventRecord[] } | undefined)?.Records ?? [];
    for (const record of records) {
      if (!record.eventName?.startsWith('ObjectCreated:')) continue;
      // S3 event keys are URL-encoded, spaces as '+'.
      const key = decodeURIComponent((record.s3?.object?.key ?? '').replace(/\+/g, ' '));
      const importUuid = importOfKey(key);
      if (!importUuid) {
        logger.warn('Object outside uploads/ ignored', { key });
        continue;
      }
      await imports.runUpload(importUuid, key, record.s3?.object?.size ?? 0, record.s3?.object?.eTag ?? '', lastAttempt);
      logger.info('Upload imported', { importUuid, key });
    }
  } catch (error) {
    logger.error('Import of an upload failed', { messageId: message.messageId, lastAttempt, error: error as Error });
    throw error;
  }
}
