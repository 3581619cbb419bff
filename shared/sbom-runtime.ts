/**
 * The wiring of the SBOM functions (imports, uploads, exports), apart from shared/runtime.ts: it brings
 * the SBOM readers (Ajv, the CycloneDX library), the S3 client and the writers, which no other function
 * needs in its bundle. Built once per cold start, from the same configuration and stores.
 */
import { randomUUID } from 'node:crypto';
import { getDocumentClient } from './aws/clients.ts';
import { S3SbomUploads, createS3Client, type SbomUploads } from './aws/sbom-uploads.ts';
import { getConfig } from './config.ts';
import { scancodeLibrary } from './reference/scancode-licensedb.ts';
import { getProductService, getStores } from './runtime.ts';
import { LicenseIndexes } from './services/license-indexes.ts';
import { SbomExportService } from './services/sbom-export.ts';
import { SbomImportService } from './services/sbom-import.ts';
import { SbomImportStore } from './store/sbom-import-store.ts';

/** What an export names as its tool (package.json's name and version). */
const SERVICE_TOOL = { name: 'compliance-service', version: '0.1.0' } as const;

let sbomExportService: SbomExportService | undefined;

export function getSbomExportService(): SbomExportService {
  const { catalog, policy } = getStores();
  sbomExportService ??= new SbomExportService({
    products: getProductService(),
    policy,
    catalog,
    licenseIndexes: new LicenseIndexes(catalog),
    now: () => new Date(),
    newUuid: randomUUID,
    tool: SERVICE_TOOL,
  });
  return sbomExportService;
}

let sbomUploads: SbomUploads | undefined;

export function getSbomUploads(): SbomUploads {
  if (!sbomUploads) {
    const config = getConfig();
    if (!config.SBOM_UPLOADS_BUCKET) throw new Error('SBOM_UPLOADS_BUCKET is not set');
    sbomUploads = new S3SbomUploads(createS3Client({ region: config.AWS_REGION, endpoint: config.S3_ENDPOINT }), config.SBOM_UPLOADS_BUCKET);
  }
  return sbomUploads;
}

let sbomImportService: SbomImportService | undefined;

export function getSbomImportService(): SbomImportService {
  if (!sbomImportService) {
    const config = getConfig();
    const { catalog } = getStores();
    sbomImportService = new SbomImportService({
      store: new SbomImportStore(getDocumentClient(config), config.TABLE_NAME, catalog),
      products: getProductService(),
      library: scancodeLibrary,
      // Resolved when first used: a function that only reads imports needs no bucket.
      uploads: getSbomUploads,
      now: () => new Date(),
      newUuid: randomUUID,
    });
  }
  return sbomImportService;
}
