/**
 * CycloneDX XML validation against the official XML schemas (bom-1.x.SNAPSHOT.xsd, with the
 * spdx.SNAPSHOT.xsd they import) that @cyclonedx/cyclonedx-library ships, by libxml2's schema
 * validator compiled to WebAssembly (xmllint-wasm): the validator the library's own XmlValidator
 * uses (libxmljs2), without a native build. It runs in a worker thread, so it is asynchronous.
 *
 * Only documents that parseXml (xml.ts) has already accepted reach it: no DOCTYPE, no entity but
 * XML's own, bounded depth. libxml2 is then never asked to process a DTD or fetch anything.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { printable } from '../domain/stored-text.ts';
import { clip } from './purl.ts';
import { cyclonedxSchemaDirectory, MAX_SCHEMA_ERRORS, type CycloneDxXmlVersion } from './schema-validation.ts';

/**
 * The validator's package is not bundled: it starts its worker from a script and loads its
 * WebAssembly from files beside its own module. A Lambda bundle keeps it external, and the function
 * construct copies these files of it into node_modules beside the bundle (readsSboms functions). It is
 * imported on first use, so a bundle that never reads XML never looks for it.
 */
export const XML_VALIDATOR_MODULE = 'xmllint-wasm';
export const XML_VALIDATOR_FILES = ['package.json', 'index-node.js', 'xmllint-node.js', 'xmllint.wasm', 'COPYING'] as const;

const schemas = new Map<string, string>();
function schema(file: string): string {
  let contents = schemas.get(file);
  if (contents === undefined) {
    contents = readFileSync(path.join(cyclonedxSchemaDirectory(), file), 'utf8');
    schemas.set(file, contents);
  }
  return contents;
}

/** WebAssembly memory pages (64 KiB) the validator may grow to: 1 GiB, for a 50 MB upload's tree. */
const MAX_MEMORY_PAGES = 16_384;

/**
 * The schema errors of `xml` as "line N: message" (at most MAX_SCHEMA_ERRORS), or none. The
 * messages are libxml2's, with the namespace in braces shortened to the element's local name.
 */
export async function checkCycloneDxXml(xml: string, version: CycloneDxXmlVersion): Promise<string[]> {
  const bom = `bom-${version}.SNAPSHOT.xsd`;
  let result;
  try {
    const { validateXML } = await import('xmllint-wasm');
    result = await validateXML({
      xml: [{ fileName: 'document.xml', contents: xml }],
      schema: [{ fileName: bom, contents: schema(bom) }],
      preload: [{ fileName: 'spdx.SNAPSHOT.xsd', contents: schema('spdx.SNAPSHOT.xsd') }],
      maxMemoryPages: MAX_MEMORY_PAGES,
    });
  } catch (error) {
    // xmllint ended otherwise than valid or invalid (libxml2 refused to parse what saxes accepted, or
    // ran out of memory): the document is not accepted, and the answer says libxml2's first words.
    const first = String((error as Error).message ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
    return [printable(`The document could not be validated against its CycloneDX XML schema${first ? `: ${clip(first.replace(/^document\.xml:/, 'line '), 300)}` : '.'}`)];
  }
  if (result.valid) return [];
  const errors = result.errors
    .filter((error) => error.message.trim() !== '' && !/fails to validate$/.test(error.message))
    .map((error) => {
      const message = error.message.replace(/^Schemas validity error : /, '').replace(/\{http:\/\/cyclonedx\.org\/schema\/[^}]*\}/g, '');
      return printable(`${error.loc ? `line ${error.loc.lineNumber}: ` : ''}${clip(message, 400)}`);
    });
  return errors.length > 0 ? errors.slice(0, MAX_SCHEMA_ERRORS) : ['The document does not validate against its CycloneDX XML schema.'];
}
