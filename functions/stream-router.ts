/**
 * The table's stream → the evaluation queue, the audit trail, the advisory link queue and the license
 * re-resolution queue. Filter criteria select the changes of evaluated and of audited entities. Each
 * change that can change an evaluation is mapped to the products it affects, and each product is queued
 * once per batch and correlation id, with that id. A license mapping made or changed is queued to be
 * applied to its dataspace's packages (once per batch, however often the batch changed it). A
 * change that affects a whole dataspace queues its first fan-out page instead (once per batch,
 * dataspace and id): the evaluator walks the pages. Each change of an audited object makes an audit
 * record (shared/services/audit.ts): the batch's are written together once its records are handled,
 * then exported. A violation item's change that makes it active or not counts in its dataspace's daily
 * violation counts (shared/store/violation-day-store.ts: once per record, whatever the redeliveries). The
 * first record that fails stops the batch: it and the records after it are reported (partial batch
 * failure), and Lambda retries from it; both writes are idempotent.
 *
 * One consumer for both, not one each: DynamoDB Streams serves at most two readers of a shard at once
 * without throttling, and the outbox publisher is the other.
 */
import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { changeTargets } from '../shared/domain/change-records.ts';
import { changeRecordOf } from '../shared/store/change-targets.ts';
import { advisoryLinkQueue, changeTargetResolver, evaluationQueue, lambdaHandler, licenseReresolutionQueue, violationDayStore, type Dependencies } from '../shared/runtime.ts';
import type { LicenseReresolutionMessage, LicenseReresolutionQueue } from '../shared/aws/license-reresolution-queue.ts';
import { reresolutionTarget } from '../shared/domain/license-mapping.ts';
import { CatalogStore } from '../shared/store/catalog-store.ts';
import { linkMessages, type AdvisoryLinkQueue } from '../shared/aws/advisory-link-queue.ts';
import { linkTargets, type LinkTarget } from '../shared/domain/link-targets.ts';
import { linkImageOf } from '../shared/store/advisory-store.ts';
import { ViolationDayStore } from '../shared/store/violation-day-store.ts';
import { violationDayChange } from '../shared/domain/portfolio.ts';
import type { StreamImage } from '../shared/store/dynamo.ts';
import { auditTrailWriter, type AuditDependencies } from '../shared/audit-runtime.ts';
import type { PlacedAuditRecord } from '../shared/services/audit.ts';
import { isoWithOffset } from '../shared/domain/time.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { streamCorrelationId } from '../shared/observability/correlation.ts';
import { countMetric } from '../shared/observability/metrics.ts';

type RouterDependencies = Pick<Dependencies, 'changeTargetResolver' | 'evaluationQueue'> & AuditDependencies & {
  /** The daily violation counts; without it (tests of routing and auditing alone) violations are not counted. */
  readonly violationDays?: Pick<ViolationDayStore, 'count'>;
  /** The advisory link queue; without it (tests of routing and auditing alone) nothing is sent to match. */
  readonly advisoryLinkQueue?: Pick<AdvisoryLinkQueue, 'send'>;
  /** The license re-resolution queue; without it (tests of routing and auditing alone) no mapping is applied. */
  readonly licenseReresolutionQueue?: Pick<LicenseReresolutionQueue, 'send'>;
};

export const makeHandler =
  (deps: RouterDependencies) =>
    instrumented((event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => route(deps, event, context));

export const handler = lambdaHandler((c) =>
  makeHandler({
    changeTargetResolver: changeTargetResolver(c),
    evaluationQueue: evaluationQueue(c),
    auditTrail: auditTrailWriter(c),
    violationDays: violationDayStore(c),
    advisoryLinkQueue: advisoryLinkQueue(c),
    licenseReresolutionQueue: licenseReresolutionQueue(c),
  }),
);

async function route(deps: RouterDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const resolver = deps.changeTargetResolver;
  const queue = deps.evaluationQueue;
  // Coalescing spans the batch, which a record handler alone cannot see: a product already queued by an
  // earlier record of this invocation, with the same correlation id, is not queued again. (A product
  // queued under two ids gets two messages, which the evaluator still evaluates once: each path finds
  // the evaluation in the logs under its own id.) Records that carry no id (deletes, writes made outside
  // the API) share one for the batch, so that they coalesce as before.
  const queued = new Set<string>();
  const batchCorrelationId = randomUUID();
  const audited: PlacedAuditRecord[] = [];
  const toLink: LinkTarget[] = [];
  const toReresolve = new Map<string, LicenseReresolutionMessage>();
  const response = await processStreamBatch(event, context, (record: DynamoDBRecord) =>
    withCorrelation(streamCorrelationId(record) ?? batchCorrelationId, async (correlationId) => {
      try {
        const audit = await deps.auditTrail.recordOf(record);
        if (audit) audited.push(audit);
        await countViolationDay(deps, record);
        toLink.push(...linkTargets(linkImageOf(record.dynamodb?.OldImage as StreamImage | undefined), linkImageOf(record.dynamodb?.NewImage as StreamImage | undefined)));
        const mapped = reresolutionTarget(
          CatalogStore.fromImage('licenseMappings', record.dynamodb?.OldImage as StreamImage | undefined),
          CatalogStore.fromImage('licenseMappings', record.dynamodb?.NewImage as StreamImage | undefined),
        );
        if (mapped) toReresolve.set(mapped.mapping, { ...mapped, correlationId });
        const targets = changeTargets(changeRecordOf(record));
        const products = await resolver.products(targets);
        const fresh = products.filter((product) => !queued.has(`${product.uuid}|${correlationId}`));
        const dataspaces = [...new Set(targets.flatMap((target) => (target.kind === 'dataspace' ? [target.dataspace] : [])))].filter(
          (dataspace) => !queued.has(`DS#${dataspace}|${correlationId}`),
        );
        if (fresh.length === 0 && dataspaces.length === 0) return;
        const requestedAt = isoWithOffset(new Date());
        await queue.send([
          ...dataspaces.map((dataspace) => ({ fanOut: 'dataspace' as const, dataspace, requestedAt, correlationId })),
          ...fresh.map((product) => ({ dataspace: product.dataspace, product: product.uuid, requestedAt, correlationId })),
        ]);
        for (const dataspace of dataspaces) queued.add(`DS#${dataspace}|${correlationId}`);
        for (const product of fresh) queued.add(`${product.uuid}|${correlationId}`);
        // A package shared by many products may queue many: the line names the first few.
        logger.info('Evaluations queued', {
          eventID: record.eventID,
          count: fresh.length,
          products: fresh.slice(0, 10).map((product) => product.uuid),
          ...(dataspaces.length > 0 ? { dataspaces } : {}),
        });
      } catch (error) {
        logger.error('Could not route a change record', { eventID: record.eventID, error: error as Error });
        throw error;
      }
    }),
  );
  // The audit records of the records handled (a failed record's come with its retry), in a few calls: a
  // write that fails fails the invocation, and Lambda retries the batch (the same items, re-queued
  // evaluations the evaluator finds answered). An export that fails is counted (an alarm watches it), not retried through the stream: evaluations
  // must not wait on the audit bucket, and the records stay in the table for the retention period.
  // The packages and advisory keys to match, in as few messages as the batch allows (one lookup a key
  // in the linker however many packages an import wrote). Sent once the records are handled: a send that
  // fails fails the invocation, and the batch comes again (matching again is idempotent).
  const messages = linkMessages(toLink);
  if (messages.length > 0 && deps.advisoryLinkQueue) {
    await deps.advisoryLinkQueue.send(messages);
    logger.info('Advisory matching queued', { messages: messages.length, targets: toLink.length });
  }
  // Mappings made or changed, once each however often the batch changed them (the re-resolver reads it as it is then).
  if (toReresolve.size > 0 && deps.licenseReresolutionQueue) {
    await deps.licenseReresolutionQueue.send([...toReresolve.values()]);
    logger.info('License re-resolution queued', { mappings: [...toReresolve.keys()] });
  }
  await deps.auditTrail.write(audited);
  try {
    await deps.auditTrail.export(audited);
  } catch (error) {
    countMetric('AuditExportFailures', audited.length);
    logger.error('Could not export audit records', { count: audited.length, first: audited[0]?.record.uuid, error: error as Error });
  }
  return response;
}

/** A violation that became active or stopped being: counted once per stream record (its event id). */
async function countViolationDay(deps: RouterDependencies, record: DynamoDBRecord): Promise<void> {
  const before = ViolationDayStore.fromImage(record.dynamodb?.OldImage as StreamImage | undefined);
  const after = ViolationDayStore.fromImage(record.dynamodb?.NewImage as StreamImage | undefined);
  if ((!before && !after) || !deps.violationDays) return;
  const at = record.dynamodb?.ApproximateCreationDateTime;
  const removedAt = new Date(at !== undefined ? at * 1000 : Date.now()).toISOString();
  const change = violationDayChange(before, after, removedAt);
  if (!change || !record.eventID) return;
  const counted = await deps.violationDays.count(record.eventID, change, new Date());
  if (!counted) logger.info('Violation change already counted', { eventID: record.eventID });
}
