/**
 * The license re-resolution queue → the packages of a dataspace resolved again with a license mapping
 * made or changed (shared/store/license-reresolution.ts applyMapping). Each package written is a MODIFY on
 * the table's stream, which queues the evaluation of the products that hold it. One message per
 * invocation (shared/resources.ts); a message whose work failed is reported for retry (partial batch
 * failure) and, after the queue's maxReceiveCount, moves to the dead-letter queue. Applying a mapping
 * again is idempotent: a package resolved already has nothing left to change.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LicenseReresolutionMessageSchema } from '../shared/aws/license-reresolution-queue.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { logger } from '../shared/observability/logger.ts';
import { countMetric } from '../shared/observability/metrics.ts';
import { lambdaHandler, licenseMappingApplier, type Dependencies } from '../shared/runtime.ts';

class MalformedReresolutionMessageError extends Error {
  constructor(messageId: string) {
    super(`Message ${messageId} is not a license re-resolution request`);
    this.name = 'MalformedReresolutionMessageError';
  }
}

export const makeHandler = ({ licenseMappingApplier }: Pick<Dependencies, 'licenseMappingApplier'>) =>
  instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> =>
    processQueueBatch('licenseReresolution', event, context, async (record: SQSRecord) => {
      const parsed = LicenseReresolutionMessageSchema.safeParse(messageBody(record));
      if (!parsed.success) {
        logger.error('Malformed license re-resolution request', { messageId: record.messageId });
        throw new MalformedReresolutionMessageError(record.messageId);
      }
      const { dataspace, mapping, correlationId } = parsed.data;
      // Its writes carry the mapping's correlation id, so the evaluations they queue are found under it.
      await withCorrelation(
        correlationId,
        async () => {
          const { found, written } = await licenseMappingApplier(dataspace, mapping);
          countMetric('PackagesReresolved', written);
          logger.info(found ? 'License mapping applied' : 'License mapping gone: nothing to apply', { dataspace, mapping, packagesWritten: written });
        },
        { stampWrites: true },
      );
    }),
  );

export const handler = lambdaHandler((c) => makeHandler({ licenseMappingApplier: licenseMappingApplier(c) }));
