/** zod schemas of the SBOM import endpoints: load_sboms, sbom_uploads and sbom_imports. */
import * as z from 'zod';
import { IMPORT_LIMITS, IMPORT_MODES, IMPORT_STATUSES } from '../domain/sbom-import.ts';
import { SBOM_MEDIA_TYPES } from '../sbom/media-types.ts';
import { shown, writableObject } from './common.ts';
import { ResolvedFromSchema } from './catalog.ts';

const BOOLEAN_WORDS = ['true', 'True', '1', 'on', 'yes', 'false', 'False', '0', 'off', 'no', ''] as const;

const choice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => `"${shown(issue.input)}" is not a valid choice.` });
const formBoolean = z.enum(BOOLEAN_WORDS, { error: () => 'Must be a valid boolean.' });

const MODE = 'replace (the default): the product\'s packages become exactly the document\'s; merge: they are added to and updated';
const UPDATE = 'false (the default): packages already in the catalog are matched and left as they are; true: their empty fields are filled from the document';

/** The options of POST load_sboms, as query parameters (a multipart form may carry them as fields instead). */
export const LoadSbomsQuery = z.object({
  mode: choice(IMPORT_MODES).optional().describe(MODE),
  update_existing_packages: formBoolean.optional().describe(UPDATE),
  infer_download_urls: formBoolean.optional().describe("DejaCode's form field: accepted and ignored (this service fetches nothing)"),
  scan_all_packages: formBoolean.optional().describe("DejaCode's form field: accepted and ignored"),
  create_dependencies: formBoolean.optional().describe("DejaCode's form field: accepted and ignored (dependencies are always kept)"),
});

/** The multipart form of POST load_sboms, for the OpenAPI document (the handler reads it: shared/http/sbom-request.ts). */
export const LoadSbomsFormSchema = z
  .object({
    input_file: z.string().meta({ format: 'binary' }).describe('The SBOM or VEX document: CycloneDX JSON 1.2-1.6 or XML 1.0-1.6, SPDX 2.2/2.3 JSON or tag-value, SPDX 3.0 JSON-LD, OpenVEX 0.2'),
    mode: z.enum(IMPORT_MODES).optional().describe(MODE),
    update_existing_packages: z.enum(BOOLEAN_WORDS).optional().describe(UPDATE),
    infer_download_urls: z.enum(BOOLEAN_WORDS).optional(),
    scan_all_packages: z.enum(BOOLEAN_WORDS).optional(),
    create_dependencies: z.enum(BOOLEAN_WORDS).optional(),
  })
  .meta({ id: 'LoadSbomsForm' });

/** An SBOM document sent as the body: a JSON object of whatever shape (the reader judges it). */
export const SbomDocumentSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'SbomDocument', description: 'A CycloneDX JSON 1.2-1.6, SPDX 2.2/2.3 JSON, SPDX 3.0 JSON-LD or OpenVEX 0.2 document' });
export const SbomTextDocumentSchema = z.string().meta({ id: 'SbomTextDocument', description: 'A CycloneDX XML 1.0-1.6 or SPDX 2.2/2.3 tag-value document, UTF-8' });

export const SbomUploadCreateSchema = writableObject(
  {
    mode: choice(IMPORT_MODES).default('replace').describe(MODE),
    update_existing_packages: z.boolean({ error: () => 'Must be a valid boolean.' }).default(false).describe(UPDATE),
    content_type: choice(SBOM_MEDIA_TYPES).default('application/json').describe('The Content-Type the upload will be PUT with (part of the signature)'),
    size: z
      .int()
      .min(1, { error: 'The document must have at least 1 byte.' })
      .max(IMPORT_LIMITS.uploadBytes, { error: `An upload may have at most ${IMPORT_LIMITS.uploadBytes.toLocaleString('en-US')} bytes.` })
      .describe('The size of the document in bytes, which the PUT must send exactly (its Content-Length is part of the signature)'),
  },
  [],
).meta({ id: 'SbomUploadCreate' });

const SummarySchema = z
  .object({
    components: z.int().nonnegative().describe('Components read: packages_created + packages_matched + skipped'),
    packages_created: z.int().nonnegative(),
    packages_matched: z.int().nonnegative(),
    packages_updated: z.int().nonnegative().describe('Of the matched, those whose empty fields were filled'),
    added: z.int().nonnegative().describe('Product packages added'),
    removed: z.int().nonnegative().describe('Product packages removed (replace)'),
    unchanged: z.int().nonnegative().describe('Product packages kept'),
    skipped: z
      .array(
        z.object({
          component: z.string().describe("What identifies it in the document: its bom-ref or SPDXID, else its purl or name"),
          name: z.string().describe('How a person recognises it: its purl, else its name and version (the component when it has neither)'),
          reason: z.string(),
        }),
      )
      .describe('Components that could not be used (the first 1,000)'),
    unknown_licenses: z.array(z.string()).describe('Symbols and texts kept as unknown licenses, as written'),
    resolved_licenses: z.array(ResolvedFromSchema).describe('Licenses as written that were recognised by name, URL, text or a dataspace mapping, each once, and what said so'),
    vulnerabilities: z.int().nonnegative().describe('Vulnerabilities of the document imported'),
    analyses: z.int().nonnegative().describe("Analyses of the product's packages the document states"),
    added_purls: z.array(z.string()).describe('The purls of the product packages added, sorted; at most 1,000 (`added` counts them all)'),
    removed_purls: z.array(z.string()).describe('The purls of the product packages removed (replace), sorted; at most 1,000'),
    updated_purls: z.array(z.string()).describe('The purls of the catalog packages whose empty fields were filled, sorted; at most 1,000'),
  })
  .meta({ id: 'SbomImportSummary' });

export const SbomImportSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    product: z.uuid(),
    product_url: z.url(),
    status: z.enum(IMPORT_STATUSES),
    format: z.enum(['cyclonedx', 'spdx', 'openvex']).nullable().describe('The format read (CycloneDX JSON or XML, SPDX JSON, tag-value or JSON-LD, OpenVEX); null until the document is read'),
    spec_version: z.string().nullable(),
    mode: z.enum(IMPORT_MODES),
    update_existing_packages: z.boolean(),
    errors: z.array(z.string()).describe('Why the import failed, or what of the document could not be used'),
    created_by: z.string(),
    created_date: z.iso.datetime({ offset: true }),
    completed_date: z.iso.datetime({ offset: true }).nullable(),
    summary: SummarySchema.nullable().describe('null until the import has run'),
  })
  .meta({ id: 'SbomImport' });

export const SbomUploadSchema = SbomImportSchema.extend({
  upload: z.object({
    url: z.url().describe('Presigned S3 URL: PUT the document to it'),
    method: z.literal('PUT'),
    headers: z.record(z.string(), z.string()).describe('Headers the PUT must carry, exactly'),
    expires_date: z.iso.datetime({ offset: true }),
    max_bytes: z.int().positive(),
  }),
}).meta({ id: 'SbomUpload' });
