/**
 * The advisory link queue → the advisory linker (shared/services/advisory-links.ts). The batch's
 * packages are matched together, grouped by package key (one advisory lookup a key, however many
 * packages an import wrote), and each advisory key of the batch once, with every changed advisory its
 * messages name. A message whose work failed is reported for retry (partial batch failure); after the
 * queue's maxReceiveCount it moves to the dead-letter queue. Linking again is idempotent.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { AdvisoryLinkMessageSchema } from '../shared/aws/advisory-link-queue.ts';
import { lambdaHandler } from '../shared/runtime.ts';
import { advisoryLinker, type AdvisoryDependencies } from '../shared/advisory-runtime.ts';
import type { LinkReport, PackageRef } from '../shared/services/advisory-links.ts';
import { messageBody, processQueueBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented } from '../shared/observability/invocation.ts';
import { countMetric } from '../shared/observability/metrics.ts';

class MalformedLinkMessageError extends Error {
  constructor(messageId: string) {
    super(`Message ${messageId} is not an advisory link request`);
    this.name = 'MalformedLinkMessageError';
  }
}

type LinkerDependencies = Pick<AdvisoryDependencies, 'advisoryLinker'>;

export const makeHandler = (deps: LinkerDependencies) =>
  instrumented((event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => linkBatch(deps, event, context));

export const handler = lambdaHandler((c) => makeHandler({ advisoryLinker: advisoryLinker(c) }));

async function linkBatch({ advisoryLinker: linker }: LinkerDependencies, event: SQSEvent, context?: Context): Promise<SQSBatchResponse> {
  const parsed = new Map((event.Records ?? []).map((record) => [record.messageId, AdvisoryLinkMessageSchema.safeParse(messageBody(record))]));
  const packages = new Map<string, PackageRef>();
  const changedOfKey = new Map<string, Set<string>>();
  for (const result of parsed.values()) {
    if (!result.success) continue;
    if (result.data.kind === 'packages') for (const ref of result.data.packages) packages.set(ref.uuid, ref);
    else changedOfKey.set(result.data.packageKey, new Set([...(changedOfKey.get(result.data.packageKey) ?? []), ...result.data.changed]));
  }
  let packagesLinked: Promise<LinkReport> | undefined;
  const keysLinked = new Map<string, Promise<LinkReport>>();
  const logged = (work: Promise<LinkReport>, what: Record<string, unknown>) =>
    work.then((report) => {
      countMetric('AdvisoryLinksMade', report.linked);
      countMetric('AdvisoryLinksTakenBack', report.unlinked);
      logger.info('Advisory links brought up to date', { ...what, written: report.written, linked: report.linked, unlinked: report.unlinked, problems: report.problems.slice(0, 10) });
      return report;
    });
  return processQueueBatch('advisoryLinks', event, context, async (record: SQSRecord) => {
    const result = parsed.get(record.messageId);
    if (!result?.success) {
      logger.error('Malformed advisory link request', { messageId: record.messageId });
      throw new MalformedLinkMessageError(record.messageId);
    }
    const message = result.data;
    if (message.kind === 'packages') {
      packagesLinked ??= logged(linker.linkPackages([...packages.values()]), { packages: packages.size });
      await packagesLinked;
      return;
    }
    let linked = keysLinked.get(message.packageKey);
    if (!linked) {
      linked = logged(linker.linkKey(message.packageKey, [...changedOfKey.get(message.packageKey)!]), { packageKey: message.packageKey });
      keysLinked.set(message.packageKey, linked);
    }
    await linked;
  });
}
