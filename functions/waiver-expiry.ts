/**
 * Scheduled every minute (an EventBridge rule on AWS, the local stack's scheduler locally): marks the
 * policy waivers whose expiry has passed as expired (shared/services/waiver-expiry.ts). Idempotent: a
 * run that overlaps another, or is retried, marks each waiver once.
 */
import type { Context } from 'aws-lambda';
import { lambdaHandler, policyWaiverStore, type Dependencies } from '../shared/runtime.ts';
import { WaiverExpiry, type WaiverExpiryReport } from '../shared/services/waiver-expiry.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';

export const makeHandler = ({ waiverStore }: Pick<Dependencies, 'waiverStore'>) => {
  const job = new WaiverExpiry({ waivers: waiverStore, now: () => new Date() });
  return instrumented((_event: unknown, _context?: Context): Promise<WaiverExpiryReport> =>
    // One correlation id per run, on its writes: the evaluations and events they lead to carry it.
    withCorrelation(
      undefined,
      async () => {
        const report = await job.run();
        if (report.due > 0) logger.info('Waivers expired', { ...report });
        return report;
      },
      { stampWrites: true },
    ),
  );
};

export const handler = lambdaHandler((c) => makeHandler({ waiverStore: policyWaiverStore(c) }));
