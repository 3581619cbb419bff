/**
 * The front door of SBOM and VEX reading: a request body (or an uploaded file) → an Inventory, or the
 * reason it cannot be one, as the HTTP status and DRF-style body the API answers with. Pure apart from
 * the schema validators it compiles once per process (schema-validation.ts, openvex.ts) and the XML
 * schema check, which runs in a worker (cyclonedx-xml-schema.ts).
 *
 * The format is sniffed from the document, whatever the Content-Type says, except that a type naming
 * one format (application/vnd.cyclonedx+json or +xml, application/spdx+json, text/spdx) must not carry
 * another. Read (docs/sbom-formats.md): CycloneDX JSON 1.2-1.6 and XML 1.0-1.6 (converted to the JSON
 * document of the same content, cyclonedx-xml.ts), SPDX JSON 2.2/2.3, SPDX tag-value 2.2/2.3 (converted
 * to the JSON document, spdx-tag-value.ts), SPDX 3.0.x JSON-LD (spdx3.ts) and OpenVEX 0.2 (openvex.ts).
 *
 * Failures:
 * - 415 `{"detail": "..."}`: SPDX RDF/XML or YAML: the detail names the accepted media types.
 * - 400 `{"input_file": ["...", ...]}`: the document (the multipart field `input_file`, or the whole
 *   body) is not UTF-8, not JSON, XML or tag-value that is read here, of a spec version not read here,
 *   hostile XML (a DTD, an entity, nesting past 100: xml.ts), or fails its schema. Schema errors are
 *   listed as "<JSON pointer>: <message>" (JSON) or "line N: <message>" (XML, tag-value), the first ones
 *   (at most 20), e.g. "/components/3/purl: must be string"; or it holds, in its own metadata, a string
 *   the service cannot store (an unpaired surrogate, a control character: shared/domain/stored-text.ts),
 *   e.g. "/metadata/component/name: must not hold an unpaired surrogate (U+D800)". Such a string in a
 *   component skips the component, with the reason (inventory-builder.ts).
 *
 * Never throws, whatever the document: every message it answers or stores is storable text.
 */
import type { FieldErrors } from '../domain/errors.ts';
import { printable } from '../domain/stored-text.ts';
import { cyclonedxInventory, cyclonedxTextErrors } from './cyclonedx.ts';
import { cyclonedxXmlDocument, cyclonedxXmlVersion, isCycloneDxXml } from './cyclonedx-xml.ts';
import { checkCycloneDxXml } from './cyclonedx-xml-schema.ts';
import { parseXml } from './xml.ts';
import { looksLikeSpdxTagValue, spdxTagValueDocument } from './spdx-tag-value.ts';
import { checkSpdx3, spdx3Inventory, spdx3TextErrors, spdx3Version } from './spdx3.ts';
import { CYCLONEDX_MEDIA_TYPE, CYCLONEDX_XML_MEDIA_TYPE, OPENVEX_MEDIA_TYPE, SBOM_MEDIA_TYPES, SPDX_MEDIA_TYPE, SPDX_TAG_VALUE_MEDIA_TYPE } from './media-types.ts';
import { checkOpenVex, isOpenVex, openVexInventory, openVexTextErrors, openVexVersion } from './openvex.ts';
import type { Inventory } from './inventory.ts';
import { isObject } from './inventory-builder.ts';
import { clip } from './purl.ts';
import { checkCycloneDx, checkSpdx, CYCLONEDX_VERSIONS, MAX_SCHEMA_ERRORS, SPDX_VERSIONS, type CycloneDxVersion, type CycloneDxXmlVersion } from './schema-validation.ts';
import { spdxInventory, spdxTextErrors } from './spdx.ts';

/** The media types the import takes, in the order the API documents them. */
export const ACCEPTED_MEDIA_TYPES = SBOM_MEDIA_TYPES;

/** The field the errors of the document are listed under (DejaCode's multipart field name). */
export const DOCUMENT_FIELD = 'input_file';

export type ReadResult =
  | { readonly ok: true; readonly inventory: Inventory }
  | { readonly ok: false; readonly status: 400; readonly errors: FieldErrors }
  | { readonly ok: false; readonly status: 415; readonly errors: { readonly detail: string } };

export type ReadFailure = Extract<ReadResult, { ok: false }>;

/** A CycloneDX XML document parsed and of a version read here, before its schema check (asynchronous). */
interface PendingXml {
  readonly ok: 'xml';
  readonly text: string;
  readonly convert: () => ReadResult;
  readonly version: CycloneDxXmlVersion;
}

// Messages may quote the document (a schema error names a key it did not expect): storable, whatever it holds.
const invalid = (...messages: string[]): ReadFailure => ({ ok: false, status: 400, errors: { [DOCUMENT_FIELD]: messages.map(printable) } });
const unsupported = (what: string): ReadFailure => ({
  ok: false,
  status: 415,
  errors: {
    detail: `${what} is not read here: send CycloneDX JSON (1.2 to 1.6) or XML (1.0 to 1.6), SPDX JSON (2.2, 2.3, 3.0) or tag-value (2.2, 2.3), or OpenVEX (0.2), as ${ACCEPTED_MEDIA_TYPES.join(', ')}.`,
  },
});

/**
 * Reads an SBOM or VEX document of any format read here. `contentType` is the request's (or the
 * multipart part's) Content-Type, if any. Asynchronous for CycloneDX XML alone, whose schema check
 * runs in a worker (cyclonedx-xml-schema.ts).
 */
export async function readSbom(body: Buffer | string, contentType?: string): Promise<ReadResult> {
  const read = readDocument(body, contentType);
  if (read.ok !== 'xml') return read;
  // The schema check runs in a worker thread: the conversion and the reading run meanwhile, and
  // what they found is used only when the document is valid.
  const checking = checkCycloneDxXml(read.text, read.version);
  const converted = read.convert();
  const errors = await checking;
  if (errors.length > 0) return invalid(...errors);
  return converted;
}

/**
 * readSbom for every format but CycloneDX XML, synchronously (tests and tools that read JSON, SPDX
 * tag-value or OpenVEX in a loop). A CycloneDX XML document is a 400 saying to use readSbom: its
 * schema check cannot run synchronously, and it is never read without it.
 */
export function readSbomSync(body: Buffer | string, contentType?: string): ReadResult {
  const read = readDocument(body, contentType);
  return read.ok === 'xml' ? invalid('CycloneDX XML is read with its schema check: use readSbom.') : read;
}

function readDocument(body: Buffer | string, contentType: string | undefined): ReadResult | PendingXml {
  const decoded = decode(body);
  if (typeof decoded !== 'string') return decoded;
  const text = decoded;

  const start = text.slice(0, 4096).trimStart();
  if (!start.startsWith('{') && !start.startsWith('[')) {
    if (start.startsWith('<')) return readXml(text, contentType);
    // Tag-value documents open with SPDXVersion (comment lines may come first); YAML ones have spdxVersion or bomFormat keys.
    if (looksLikeSpdxTagValue(start)) return readTagValue(text, contentType);
    if (/^(?:spdxVersion|bomFormat)\s*:/m.test(start)) return unsupported('A YAML document');
  }

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return invalid(`Not valid JSON: ${clip((error as Error).message, 200)}`);
  }
  if (!isObject(document)) return invalid('The document is not a JSON object: an SBOM is one.');
  return readJson(document, contentType);
}

/** SPDX 2.2/2.3 tag-value: converted to the JSON document of the same content, then read as SPDX JSON is. */
function readTagValue(text: string, contentType: string | undefined): ReadResult {
  const declared = mediaType(contentType);
  if (declared === CYCLONEDX_MEDIA_TYPE || declared === CYCLONEDX_XML_MEDIA_TYPE) {
    return invalid(`The document is SPDX tag-value, but the Content-Type says CycloneDX (${declared}): send it as ${SPDX_TAG_VALUE_MEDIA_TYPE}.`);
  }
  const converted = spdxTagValueDocument(text);
  if (!converted.ok) return invalid(...converted.errors);
  const read = readJson(converted.document, undefined);
  if (!read.ok) return read.status === 400 ? invalid(...(read.errors[DOCUMENT_FIELD] ?? []).map(inTagValueTerms)) : read;
  return converted.warnings.length > 0 ? { ok: true, inventory: withWarnings(read.inventory, converted.warnings) } : read;
}

/** The lines a document-level JSON field is written as in tag-value. */
const TAG_OF_FIELD: Readonly<Record<string, string>> = {
  SPDXID: 'SPDXID line',
  name: 'DocumentName line',
  documentNamespace: 'DocumentNamespace line',
  dataLicense: 'DataLicense line',
  creationInfo: 'Creator and Created lines',
};

/** A schema error of the JSON form of a tag-value document, said in tag-value's terms where it can be. */
function inTagValueTerms(message: string): string {
  const missing = /^\/: must have required property '([^']+)'$/.exec(message)?.[1];
  if (missing !== undefined && Object.hasOwn(TAG_OF_FIELD, missing)) return `The document has no ${TAG_OF_FIELD[missing]}: an SPDX document's creation information needs it.`;
  return `In the document's SPDX JSON form, ${message}`;
}

function readJson(document: Record<string, unknown>, contentType: string | undefined): ReadResult {
  if (isOpenVex(document)) return readOpenVex(document, contentType);
  if (JSON.stringify(document['@context'] ?? '').includes('spdx.org/rdf/3')) return readSpdx3(document, contentType);
  const format = sniff(document);
  if (format.kind === 'unknown') return invalid(format.message);

  const declared = mediaType(contentType);
  if (declared === CYCLONEDX_MEDIA_TYPE && format.kind === 'spdx') {
    return invalid(`The document is SPDX, but the Content-Type says CycloneDX (${CYCLONEDX_MEDIA_TYPE}): send it as ${SPDX_MEDIA_TYPE} or application/json.`);
  }
  if (declared === SPDX_MEDIA_TYPE && format.kind === 'cyclonedx') {
    return invalid(`The document is CycloneDX, but the Content-Type says SPDX (${SPDX_MEDIA_TYPE}): send it as ${CYCLONEDX_MEDIA_TYPE} or application/json.`);
  }

  if (format.kind === 'cyclonedx') {
    const check = checkCycloneDx(document, format.version);
    if (check.errors.length > 0) return invalid(...check.errors);
    return cyclonedxRead(check.document, format.version, check.warnings);
  }
  const check = checkSpdx(document, format.version);
  if (check.errors.length > 0) return invalid(...check.errors);
  const unstorable = spdxTextErrors(check.document);
  if (unstorable.length > 0) return invalid(...unstorable.slice(0, MAX_SCHEMA_ERRORS));
  return { ok: true, inventory: withWarnings(spdxInventory(check.document, format.version), check.warnings) };
}

/** SPDX 3.0.x JSON-LD, against the SPDX 3.0.1 JSON schema (spdx3.ts). */
function readSpdx3(document: Record<string, unknown>, contentType: string | undefined): ReadResult {
  const declared = mediaType(contentType);
  if (declared === CYCLONEDX_MEDIA_TYPE) {
    return invalid(`The document is SPDX 3, but the Content-Type says CycloneDX (${CYCLONEDX_MEDIA_TYPE}): send it as ${SPDX_MEDIA_TYPE} or application/json.`);
  }
  const version = spdx3Version(document);
  if ('error' in version) return invalid(version.error);
  const check = checkSpdx3(document);
  if (check.errors.length > 0) return invalid(...check.errors);
  const unstorable = spdx3TextErrors(document);
  if (unstorable.length > 0) return invalid(...unstorable.slice(0, MAX_SCHEMA_ERRORS));
  return { ok: true, inventory: withWarnings(spdx3Inventory(document, version.version), check.warnings) };
}

function readOpenVex(document: Record<string, unknown>, contentType: string | undefined): ReadResult {
  const declared = mediaType(contentType);
  if (declared === CYCLONEDX_MEDIA_TYPE || declared === SPDX_MEDIA_TYPE) {
    return invalid(`The document is OpenVEX, but the Content-Type says ${declared === SPDX_MEDIA_TYPE ? 'SPDX' : 'CycloneDX'} (${declared}): send it as ${OPENVEX_MEDIA_TYPE} or application/json.`);
  }
  const version = openVexVersion(document);
  if ('error' in version) return invalid(version.error);
  const check = checkOpenVex(document);
  if (check.errors.length > 0) return invalid(...check.errors);
  const unstorable = openVexTextErrors(document);
  if (unstorable.length > 0) return invalid(...unstorable.slice(0, MAX_SCHEMA_ERRORS));
  return { ok: true, inventory: openVexInventory(document, version.version) };
}

function cyclonedxRead(document: Record<string, unknown>, version: string, warnings: readonly string[]): ReadResult {
  const unstorable = cyclonedxTextErrors(document);
  if (unstorable.length > 0) return invalid(...unstorable.slice(0, MAX_SCHEMA_ERRORS));
  return { ok: true, inventory: withWarnings(cyclonedxInventory(document, version), warnings) };
}

/** An XML document: CycloneDX XML (parsed for hostile input first), else a 415 naming what it is. */
function readXml(text: string, contentType: string | undefined): ReadResult | PendingXml {
  const parsed = parseXml(text);
  if (!parsed.ok) return invalid(`Not a well-formed XML document that is read here: ${parsed.message}`);
  const root = parsed.root;
  if (root.ns === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#' || root.ns.startsWith('http://spdx.org/rdf/')) return unsupported('An SPDX RDF/XML document');
  if (!isCycloneDxXml(root)) {
    return invalid(
      `The XML document's root element is <${clip(root.name, 60)}>${root.ns ? ` in namespace "${clip(root.ns, 100)}"` : ' without a namespace'}: a CycloneDX XML document's is <bom> in http://cyclonedx.org/schema/bom/1.x.`,
    );
  }
  const declared = mediaType(contentType);
  if (declared === SPDX_MEDIA_TYPE || declared === SPDX_TAG_VALUE_MEDIA_TYPE) {
    return invalid(`The document is CycloneDX XML, but the Content-Type says SPDX (${declared}): send it as ${CYCLONEDX_XML_MEDIA_TYPE}, application/xml or text/xml.`);
  }
  const version = cyclonedxXmlVersion(root);
  if ('error' in version) return invalid(version.error);
  return { ok: 'xml', text, version: version.version, convert: () => cyclonedxRead(cyclonedxXmlDocument(root, version.version), version.version, []) };
}

/** UTF-8 text without a byte-order mark, or why the bytes are not (JSON exchanged between systems is UTF-8: RFC 8259). */
function decode(body: Buffer | string): string | ReadFailure {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
      return invalid('The document is UTF-16: send it as UTF-8.');
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return invalid('The document is not valid UTF-8.');
    }
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

type Sniffed =
  | { readonly kind: 'cyclonedx'; readonly version: CycloneDxVersion }
  | { readonly kind: 'spdx'; readonly version: (typeof SPDX_VERSIONS)[number] }
  | { readonly kind: 'unknown'; readonly message: string };

function sniff(document: Record<string, unknown>): Sniffed {
  if (document.bomFormat !== undefined) {
    if (document.bomFormat !== 'CycloneDX') return { kind: 'unknown', message: `bomFormat is ${clip(JSON.stringify(document.bomFormat))}: a CycloneDX document says "CycloneDX".` };
    const version = document.specVersion;
    if (typeof version !== 'string') return { kind: 'unknown', message: 'A CycloneDX document needs its specVersion (a string such as "1.6").' };
    if (!(CYCLONEDX_VERSIONS as readonly string[]).includes(version)) {
      return { kind: 'unknown', message: `CycloneDX specVersion "${clip(version)}" is not read here: 1.2 to 1.6 are.` };
    }
    return { kind: 'cyclonedx', version: version as CycloneDxVersion };
  }
  if (document.spdxVersion !== undefined) {
    const version = typeof document.spdxVersion === 'string' ? /^SPDX-(\d+\.\d+)$/.exec(document.spdxVersion)?.[1] : undefined;
    if (version === undefined || !(SPDX_VERSIONS as readonly string[]).includes(version)) {
      return { kind: 'unknown', message: `spdxVersion ${clip(JSON.stringify(document.spdxVersion))} is not read here: SPDX-2.2 and SPDX-2.3 are.` };
    }
    return { kind: 'spdx', version: version as (typeof SPDX_VERSIONS)[number] };
  }
  return {
    kind: 'unknown',
    message:
      'Neither CycloneDX, SPDX nor OpenVEX: a CycloneDX document has "bomFormat": "CycloneDX" and a "specVersion", an SPDX 2 one an "spdxVersion", ' +
      'an SPDX 3 or OpenVEX one an "@context" (https://spdx.org/rdf/3.0.1/spdx-context.jsonld, https://openvex.dev/ns/v0.2.0).',
  };
}

/** The media type without parameters, in lower case ('' when none). */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function withWarnings(inventory: Inventory, warnings: readonly string[]): Inventory {
  if (warnings.length === 0) return inventory;
  return { ...inventory, warnings: [...warnings.map(printable), ...(inventory.warnings ?? [])] };
}
