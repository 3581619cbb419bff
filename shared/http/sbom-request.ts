/**
 * What POST /api/v2/products/{uuid}/load_sboms/ was sent: a multipart form with the document in
 * `input_file` (DejaCode's form), or the document itself as the body with a JSON media type; and the
 * options `mode` and `update_existing_packages`, as form fields or query parameters. API Gateway hands
 * binary and multipart bodies over base64-encoded; the local gateway does the same.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError, type FieldErrors } from '../domain/errors.ts';
import { IMPORT_LIMITS, IMPORT_MODES, type ImportMode } from '../domain/sbom-import.ts';
import { SBOM_MEDIA_TYPES } from '../sbom/media-types.ts';
import { MultipartError, multipartBoundary, parseMultipart } from './multipart.ts';

/** The document media types the endpoint takes as a body (shared/sbom/media-types.ts), and a multipart form. */
export const ACCEPTED_MEDIA_TYPES = [...SBOM_MEDIA_TYPES, 'multipart/form-data'] as const;

export interface ImportOptions {
  readonly mode: ImportMode;
  readonly updateExistingPackages: boolean;
}

export interface SbomRequest {
  readonly document: Buffer;
  /** The document's media type as sent (the file part's, in a form); the reader sniffs the format. */
  readonly contentType: string;
  readonly options: ImportOptions;
}

/** DejaCode's form fields this service has no use for: accepted (as booleans) for its clients, and ignored. */
const IGNORED_FIELDS = ['infer_download_urls', 'scan_all_packages', 'create_dependencies'];

const OPTION_NAMES = ['mode', 'update_existing_packages', ...IGNORED_FIELDS];

const TRUE = ['true', 'True', '1', 'on', 'yes'];
const FALSE = ['false', 'False', '0', 'off', 'no', ''];

/** A boolean as DRF's BooleanField reads a form or query value. */
export function formBoolean(value: string, field: string, errors: FieldErrors): boolean | undefined {
  if (TRUE.includes(value)) return true;
  if (FALSE.includes(value)) return false;
  errors[field] = ['Must be a valid boolean.'];
  return undefined;
}

function mode(value: string, errors: FieldErrors): ImportMode | undefined {
  if ((IMPORT_MODES as readonly string[]).includes(value)) return value as ImportMode;
  errors.mode = [`"${value.slice(0, 100)}" is not a valid choice.`];
  return undefined;
}

/** The body's bytes as sent: API Gateway base64-encodes what is not text. */
export function bodyBytes(event: APIGatewayProxyEventV2): Buffer {
  if (event.body === undefined || event.body === '') return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

export function readSbomRequest(event: APIGatewayProxyEventV2, productUuid: string): SbomRequest {
  const body = bodyBytes(event);
  if (body.byteLength > IMPORT_LIMITS.syncBytes) throw tooLarge(productUuid, `${body.byteLength.toLocaleString('en-US')} bytes, more than the ${IMPORT_LIMITS.syncBytes.toLocaleString('en-US')}`);
  const contentType = event.headers['content-type'] ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  const errors: FieldErrors = {};
  // The options may come as query parameters (other query parameters are ignored, as DRF ignores them).
  const given = new Map<string, string>(
    Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined && OPTION_NAMES.includes(entry[0])),
  );
  let document: Buffer;
  let documentType: string;
  let boundary: string | undefined;
  try {
    boundary = multipartBoundary(contentType);
  } catch (error) {
    if (error instanceof MultipartError) throw new ValidationError({ non_field_errors: [error.message] });
    throw error;
  }
  if (boundary !== undefined) {
    let parts;
    try {
      parts = parseMultipart(body, boundary);
    } catch (error) {
      if (error instanceof MultipartError) throw new ValidationError({ non_field_errors: [error.message] });
      throw error;
    }
    const file = parts.find((part) => part.name === 'input_file');
    for (const part of parts) {
      if (part.name === 'input_file') continue;
      if (part.filename !== undefined) errors[part.name] = ['Only input_file takes a file.'];
      else if (part.name === 'mode' || part.name === 'update_existing_packages' || IGNORED_FIELDS.includes(part.name)) {
        const value = part.data.toString('utf8');
        if (given.has(part.name) && given.get(part.name) !== value) errors[part.name] = ['Given as a form field and as a query parameter, differently.'];
        given.set(part.name, value);
      } else errors[part.name] = ['Unknown field.'];
    }
    if (!file) errors.input_file = ['No file was submitted.'];
    else if (file.filename === undefined) errors.input_file = ['The submitted data was not a file. Check the encoding type on the form.'];
    else if (file.data.byteLength === 0) errors.input_file = ['The submitted file is empty.'];
    document = file?.data ?? Buffer.alloc(0);
    // A file part's type says something only when it names JSON, XML or SPDX (curl -F sends
    // application/octet-stream): otherwise the reader tells the format from the document.
    const partType = (file?.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    documentType = /json|xml|spdx|cyclonedx/.test(partType) ? partType : '';
  } else if ((SBOM_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    if (body.byteLength === 0) errors.non_field_errors = ['The body is empty: send the SBOM document.'];
    document = body;
    documentType = mediaType;
  } else {
    throw new UnsupportedMediaTypeError(mediaType || 'none', ACCEPTED_MEDIA_TYPES);
  }
  const options = {
    mode: given.has('mode') ? mode(given.get('mode')!, errors) : 'replace',
    updateExistingPackages: given.has('update_existing_packages') ? formBoolean(given.get('update_existing_packages')!, 'update_existing_packages', errors) : false,
  };
  for (const name of IGNORED_FIELDS) if (given.has(name)) formBoolean(given.get(name)!, name, errors);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { document, contentType: documentType, options: options as ImportOptions };
}

/** The 413 of a document too large for the synchronous call: it names the upload endpoint. */
export function tooLarge(productUuid: string, what: string): PayloadTooLargeError {
  return new PayloadTooLargeError(
    IMPORT_LIMITS.syncBytes,
    `The document has ${what} imported within a call. Upload it instead: POST /api/v2/products/${productUuid}/sbom_uploads/ ` +
      `answers a URL to PUT it to (up to ${IMPORT_LIMITS.uploadComponents.toLocaleString('en-US')} components and ${IMPORT_LIMITS.uploadBytes / 1024 / 1024} MB), and the import to poll.`,
  );
}
