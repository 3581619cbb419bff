/**
 * The factories of the SBOM functions' parts (exports, uploads, imports), apart from shared/runtime.ts:
 * they bring the SBOM writers, the readers (Ajv, the CycloneDX library) and the S3 client, which no
 * other function needs in its bundle (and the export function needs no reader, nor S3). They make
 * their parts in the same Composition as the others'.
 */
import { randomUUID } from 'node:crypto';
import { S3SbomUploads, type SbomUploads } from './aws/sbom-uploads.ts';
import { s3Client } from './s3-runtime.ts';
import { withWriteStamps } from './observability/invocation.ts';
import { scancodeLibrary } from './reference/scancode-licensedb.ts';
import { catalogStore, dynamoClient, policyStore, productService, requiredSetting, type Composition } from './runtime.ts';
import { LicenseIndexes } from './services/license-indexes.ts';
import { SbomExportService } from './services/sbom-export.ts';
import { SbomImportService } from './services/sbom-import.ts';
import { SbomImportStore } from './store/sbom-import-store.ts';

/** What an export names as its tool (package.json's name and version). */
const SERVICE_TOOL = { name: 'compliance-service', version: '0.1.0' } as const;

export { s3Client };

export function sbomExportService(c: Composition): SbomExportService {
  return c.once(
    sbomExportService,
    () =>
      new SbomExportService({
        products: productService(c),
        policy: policyStore(c),
        catalog: catalogStore(c),
        licenseIndexes: new LicenseIndexes(catalogStore(c)),
        now: () => new Date(),
        newUuid: randomUUID,
        tool: SERVICE_TOOL,
      }),
  );
}

export function sbomUploads(c: Composition): SbomUploads {
  return c.once(sbomUploads, () => new S3SbomUploads(s3Client(c), requiredSetting(c.config.SBOM_UPLOADS_BUCKET, 'SBOM_UPLOADS_BUCKET')));
}

export function sbomImportService(c: Composition): SbomImportService {
  return c.once(
    sbomImportService,
    () =>
      new SbomImportService({
        store: new SbomImportStore(dynamoClient(c), c.config.TABLE_NAME, catalogStore(c)),
        products: productService(c),
        library: scancodeLibrary,
        // Made when first used: a function that only reads imports needs no bucket.
        uploads: () => sbomUploads(c),
        now: () => new Date(),
        newUuid: randomUUID,
        runAs: (actor, work) => withWriteStamps(work, actor),
      }),
  );
}

/** The SBOM parts, by the name a function's makeHandler takes them under. */
export interface SbomDependencies {
  readonly sbomExport: SbomExportService;
  readonly sbomUploads: SbomUploads;
  readonly sbomImports: SbomImportService;
}

/** The makers of every SBOM part of `c` (for the local stack). */
export function sbomDependencyFactories(c: Composition): { readonly [K in keyof SbomDependencies]: () => SbomDependencies[K] } {
  return {
    sbomExport: () => sbomExportService(c),
    sbomUploads: () => sbomUploads(c),
    sbomImports: () => sbomImportService(c),
  };
}
