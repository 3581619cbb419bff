/**
 * Brings items written by earlier versions of the service to the current layout. Idempotent and safe
 * while the API serves: `npm start` runs it at every start, the admin CLI's `migrate` on demand, and
 * on AWS a trigger of the stack after each deployment (lib/compliance-stack.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdentityStore } from './identity-store.ts';
import { foldLegacyRequestCounters } from './request-counters.ts';
import { indexCatalogLookups } from './catalog-lookups.ts';
import { indexAdvisoryKeys } from './advisory-keys.ts';
import { ApiKeyStore } from './api-key-store.ts';
import { ProductStore } from './product-store.ts';
import { reresolveWithRules } from './license-reresolution.ts';

export interface MigrationReport {
  /** Request counter items of the layout before grouping, folded into their groups. */
  readonly requestCountersFolded: number;
  /** Lookup entries given to packages (by name) and licenses (by SPDX key) written before they existed. */
  readonly catalogLookupsWritten: number;
  /** API keys written before keys were named, named `default` (scope write) with their uuid, reference and name items. */
  readonly apiKeysNamed: number;
  /** Products written before gates, given their entry in the `none` gate's list (?gate=none). */
  readonly productGatesIndexed: number;
  /** Packages written before advisories were matched, given their OSV package entry (then matched through the stream). */
  readonly advisoryKeysWritten: number;
  /** Packages whose unknown licenses ScanCode's rules index (of this version) now recognises, written resolved (then evaluated through the stream). */
  readonly packagesReresolved: number;
}

export interface MigrationOptions {
  /** The date of a key whose item and user item hold none. */
  readonly now?: Date;
  readonly newUuid?: () => string;
}

export async function migrateData(doc: DynamoDBDocumentClient, tableName: string, options: MigrationOptions = {}): Promise<MigrationReport> {
  const now = options.now ?? new Date();
  const newUuid = options.newUuid ?? randomUUID;
  let requestCountersFolded = 0;
  let catalogLookupsWritten = 0;
  let apiKeysNamed = 0;
  let productGatesIndexed = 0;
  let advisoryKeysWritten = 0;
  let packagesReresolved = 0;
  const products = new ProductStore(doc, tableName);
  const identity = new IdentityStore(doc, tableName);
  const apiKeys = new ApiKeyStore(doc, tableName);
  for (const dataspace of await identity.listDataspaces()) {
    const usernames = new Set((await identity.listUsers(dataspace.name)).map((user) => user.username));
    requestCountersFolded += await foldLegacyRequestCounters(doc, tableName, dataspace.name, usernames);
    catalogLookupsWritten += await indexCatalogLookups(doc, tableName, dataspace.name);
    apiKeysNamed += await apiKeys.nameLegacyKeys(dataspace.name, now, newUuid);
    productGatesIndexed += await products.indexLegacyGates(dataspace.name);
    advisoryKeysWritten += await indexAdvisoryKeys(doc, tableName, dataspace.name);
    packagesReresolved += await reresolveWithRules(doc, tableName, dataspace.name);
  }
  return { requestCountersFolded, catalogLookupsWritten, apiKeysNamed, productGatesIndexed, advisoryKeysWritten, packagesReresolved };
}
