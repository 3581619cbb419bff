/**
 * Per-file test environment on the real stand-ins started by global-setup.ts: a fresh table with the
 * service's schema, and the environment the functions read, set before any function module loads.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createDocumentClient, createDynamoControlClient } from '../../shared/aws/clients.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';

/** This file's DynamoDB Local (lease-dynamodb.ts leases it before the file runs). */
export function dynamodbEndpoint(): string {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('No DynamoDB Local leased: the file runs outside a project with test/support/lease-dynamodb.ts in setupFiles');
  return endpoint;
}

export async function useTestTable() {
  const tableName = `test-${randomUUID().slice(0, 8)}`;
  const endpoint = dynamodbEndpoint();
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: endpoint,
    SQS_ENDPOINT: inject('sqsEndpoint'),
    // The SBOM upload bucket, on the SQS emulator's S3 API as on the local stack (presigning needs no bucket to exist).
    S3_ENDPOINT: inject('sqsEndpoint'),
    SBOM_UPLOADS_BUCKET: 'sbom-uploads',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'CRITICAL',
  });
  // The test's own calls (set-up, checks, services a test drives directly) are not what is measured:
  // they get the long timeouts of set-up code, so that a loaded machine slows them down instead of
  // failing them. The functions behind the gateway make their own clients, as on AWS.
  const client = createDynamoControlClient({ region: 'us-east-1', endpoint });
  await ensureTable({ region: 'us-east-1', endpoint }, tableName);
  const doc = createDocumentClient(client);
  return {
    tableName,
    client,
    doc,
    identity: new IdentityStore(doc, tableName),
    requests: new RequestStore(doc, tableName),
    catalog: new CatalogStore(doc, tableName),
    productPackages: new ProductPackageStore(doc, tableName),
    policy: new PolicyStore(doc, tableName),
  };
}
