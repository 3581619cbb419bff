/**
 * Brings items written by earlier versions of the service to the current layout. Idempotent and safe
 * while the API serves: `npm start` runs it at every start, the admin CLI's `migrate` on demand, and
 * on AWS a trigger of the stack after each deployment (lib/compliance-stack.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdentityStore } from './identity-store.ts';
import { foldLegacyRequestCounters } from './request-counters.ts';
import { indexCatalogLookups } from './catalog-lookups.ts';

export interface MigrationReport {
  /** Request counter items of the layout before grouping, folded into their groups. */
  readonly requestCountersFolded: number;
  /** Lookup entries given to packages (by name) and licenses (by SPDX key) written before they existed. */
  readonly catalogLookupsWritten: number;
}

export async function migrateData(doc: DynamoDBDocumentClient, tableName: string): Promise<MigrationReport> {
  let requestCountersFolded = 0;
  let catalogLookupsWritten = 0;
  const identity = new IdentityStore(doc, tableName);
  for (const dataspace of await identity.listDataspaces()) {
    const usernames = new Set((await identity.listUsers(dataspace.name)).map((user) => user.username));
    requestCountersFolded += await foldLegacyRequestCounters(doc, tableName, dataspace.name, usernames);
    catalogLookupsWritten += await indexCatalogLookups(doc, tableName, dataspace.name);
  }
  return { requestCountersFolded, catalogLookupsWritten };
}
