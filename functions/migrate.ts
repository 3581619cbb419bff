/**
 * Invoked (asynchronously) by the stack's deployment trigger in every deployment that changes this
 * function, that is each new version of the service: brings items an earlier version wrote to this
 * version's layout (shared/store/migrations.ts). Idempotent, and safe while the API serves; a run that
 * fails is retried by Lambda, and one cut short is finished by the next.
 */
import { migrateData, type MigrationReport } from '../shared/store/migrations.ts';
import { dynamoClient, lambdaHandler } from '../shared/runtime.ts';
import { logger } from '../shared/observability/logger.ts';

export const makeHandler =
  (deps: { readonly migrate: () => Promise<MigrationReport> }) =>
  async (): Promise<MigrationReport> => {
    const report = await deps.migrate();
    logger.info('Data migrated to this version', { ...report });
    return report;
  };

export const handler = lambdaHandler((c) => makeHandler({ migrate: () => migrateData(dynamoClient(c), c.config.TABLE_NAME) }));
