/**
 * EventBridge Scheduler → the advisory sync (shared/services/advisory-sync.ts): each configured
 * ecosystem brought up to date from OSV's bucket or a mirror. An ecosystem whose source fails is
 * logged and the others go on; the run then fails, so the function's error alarm says so (a failed
 * run is made up by the next: it starts where the last one's progress was noted).
 */
import type { Context } from 'aws-lambda';
import { lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import { advisorySync, type AdvisoryDependencies } from '../shared/advisory-runtime.ts';
import type { EcosystemSyncReport } from '../shared/services/advisory-sync.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented } from '../shared/observability/invocation.ts';

type SyncDependencies = Pick<Dependencies, 'config'> & Pick<AdvisoryDependencies, 'advisorySync'>;

export const makeHandler = (deps: SyncDependencies) => instrumented((_event: unknown, context?: Context) => run(deps, context));

export const handler = lambdaHandler((c) => makeHandler({ config: c.config, advisorySync: (remainingMs) => advisorySync(c, remainingMs) }));

async function run(deps: SyncDependencies, context?: Context): Promise<{ synced: EcosystemSyncReport[] } | { skipped: string }> {
  const ecosystems = deps.config.OSV_ECOSYSTEMS;
  const sync = deps.advisorySync(() => context?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY);
  if (!sync || ecosystems.length === 0) {
    logger.info('Advisory sync not configured: no OSV_SOURCE_URL or no OSV_ECOSYSTEMS');
    return { skipped: 'not configured' };
  }
  const synced: EcosystemSyncReport[] = [];
  const failed: string[] = [];
  for (const ecosystem of ecosystems) {
    try {
      const report = await sync.sync(ecosystem);
      synced.push(report);
      logger.info('Advisories synced', { ...report });
    } catch (error) {
      failed.push(ecosystem);
      logger.error('Advisory sync failed', { ecosystem, error: error as Error });
    }
  }
  if (failed.length > 0) throw new Error(`The advisory sync failed for ${failed.join(', ')} (the next run starts where this one's progress was noted)`);
  return { synced };
}
