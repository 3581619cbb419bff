/** SBOM imports: load a document into a product (within the call, or uploaded to S3), and read an import back. */
import { DetailErrorSchema } from '../schemas/common.ts';
import {
  LoadSbomsFormSchema,
  LoadSbomsQuery,
  SbomDocumentSchema,
  SbomImportSchema,
  SbomTextDocumentSchema,
  SbomUploadCreateSchema,
  SbomUploadSchema,
} from '../schemas/sbom-import.ts';
import { IMPORT_LIMITS } from '../domain/sbom-import.ts';
import { SBOM_MEDIA_TYPES } from '../sbom/media-types.ts';
import { forbidden, invalid, notFound, unauthorized, type Route } from './route.ts';

const MB = (bytes: number) => `${bytes / 1024 / 1024} MB`;

export const SBOM_IMPORT_ROUTES = [
  {
    method: 'POST',
    path: '/api/v2/products/{uuid}/load_sboms/',
    function: 'sbom-imports',
    operationId: 'load_sboms',
    summary:
      `Import an SBOM or VEX (CycloneDX JSON 1.2-1.6 or XML 1.0-1.6, SPDX 2.2/2.3 JSON or tag-value, SPDX 3.0 JSON-LD, OpenVEX 0.2) into the product within the call (needs change_product): ` +
      `up to ${MB(IMPORT_LIMITS.syncBytes)} and ${IMPORT_LIMITS.syncComponents.toLocaleString('en-US')} components; larger ones through sbom_uploads`,
    auth: 'api-key',
    query: LoadSbomsQuery,
    rawBody: {
      description:
        "A multipart form with the document in `input_file` (DejaCode's form), or the document itself with Content-Type " +
        `${SBOM_MEDIA_TYPES.join(', ')} (the format is read from the document; docs/sbom-formats.md)`,
      content: {
        'multipart/form-data': LoadSbomsFormSchema,
        ...Object.fromEntries(SBOM_MEDIA_TYPES.map((type) => [type, /xml|spdx$/.test(type) ? SbomTextDocumentSchema : SbomDocumentSchema])),
      },
    },
    responses: {
      200: { description: 'The completed import, with its summary', schema: SbomImportSchema },
      400: { description: 'Not a document of a format and version read here, not valid against its schema, hostile XML, or invalid options: errors by field, JSON pointer or line; nothing changed', schema: invalid.schema! },
      401: unauthorized,
      403: forbidden,
      404: notFound('product'),
      413: {
        description: `A document over ${MB(IMPORT_LIMITS.syncBytes)} or ${IMPORT_LIMITS.syncComponents.toLocaleString('en-US')} components: the detail points to sbom_uploads; nothing changed`,
        schema: DetailErrorSchema,
      },
    },
  },
  {
    method: 'POST',
    path: '/api/v2/products/{uuid}/sbom_uploads/',
    function: 'sbom-imports',
    operationId: 'create_sbom_upload',
    summary:
      `Start the import of a large SBOM (needs change_product): give its size in bytes; answers the queued import and a presigned URL to PUT ` +
      `exactly that many bytes to, once (up to ${MB(IMPORT_LIMITS.uploadBytes)} and ${IMPORT_LIMITS.uploadComponents.toLocaleString('en-US')} components); poll the import`,
    auth: 'api-key',
    body: SbomUploadCreateSchema,
    responses: {
      201: { description: 'The queued import, and where to upload its document', schema: SbomUploadSchema },
      400: invalid,
      401: unauthorized,
      403: forbidden,
      404: notFound('product'),
    },
  },
  {
    method: 'GET',
    path: '/api/v2/sbom_imports/{uuid}/',
    function: 'sbom-imports',
    operationId: 'retrieve_sbom_import',
    summary: 'One SBOM import: its status, and its summary once it has run (needs view_product on its product)',
    auth: 'api-key',
    responses: { 200: { description: 'The import', schema: SbomImportSchema }, 401: unauthorized, 404: notFound('SBOM import') },
  },
] as const satisfies readonly Route[];
