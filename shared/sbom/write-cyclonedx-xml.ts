/**
 * The CycloneDX JSON document the export builds (write-cyclonedx.ts) as CycloneDX XML of the same
 * version (1.4, 1.5 or 1.6): the same BOM, each field in its XML form and in the element order that
 * version's XSD requires, written as a string without an XML library. Pure, deterministic, and linear
 * in the document's size.
 */
import type { CycloneDxDocument } from './write-cyclonedx.ts';
import type { CycloneDxSpecVersion } from './export-options.ts';

export { CYCLONEDX_XML_MEDIA_TYPE } from './media-types.ts';

type Json = Readonly<Record<string, unknown>>;

/**
 * The document as XML of `specVersion`. Throws when the document is of another version, and on a
 * field it has no XML form for rather than leave it out: the XML must say what the JSON says, and the
 * tests convert every field the JSON writer emits, so a field added there fails them until it is
 * taught here.
 */
export function cyclonedxXml(document: CycloneDxDocument, specVersion: CycloneDxSpecVersion): string {
  if (document.specVersion !== specVersion) throw new Error(`CycloneDX XML: the document is CycloneDX ${String(document.specVersion)}, not ${specVersion}`);
  const bom = fields(document, BOM_FIELDS, 'bom');
  const out = new XmlOut();
  const version = bom.version === undefined ? '' : attribute('version', String(integer(bom.version, 'bom.version')));
  // `$schema`, `bomFormat` and `specVersion` have no XML form: the namespace says all three.
  out.open('bom', `${attribute('xmlns', `http://cyclonedx.org/schema/bom/${specVersion}`)}${attribute('serialNumber', optionalText(bom, 'serialNumber', 'bom'))}${version}`);
  if (bom.metadata !== undefined) metadata(out, fields(bom.metadata, METADATA_FIELDS, 'metadata'), specVersion);
  if (bom.components !== undefined) out.list('components', array(bom.components, 'components'), (item, i) => component(out, item, `components[${i}]`, specVersion));
  if (bom.dependencies !== undefined) out.list('dependencies', array(bom.dependencies, 'dependencies'), (item, i) => dependency(out, item, `dependencies[${i}]`));
  if (bom.vulnerabilities !== undefined) out.list('vulnerabilities', array(bom.vulnerabilities, 'vulnerabilities'), (item, i) => vulnerability(out, item, `vulnerabilities[${i}]`));
  out.close('bom');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${out.text()}`;
}

// The fields each object may have: every one the JSON writer emits, and a few more of the same
// elements that cost nothing to carry (a reference's comment and hashes, `modified`, `cwes`, the rest
// of a rating, a license's name, text and url).
const BOM_FIELDS = names('$schema', 'bomFormat', 'specVersion', 'serialNumber', 'version', 'metadata', 'components', 'dependencies', 'vulnerabilities');
const METADATA_FIELDS = names('timestamp', 'tools', 'component');
const TOOL_FIELDS = names('vendor', 'name', 'version');
const TOOLS_FIELDS = names('components');
const COMPONENT_FIELDS = names(
  'type', 'bom-ref', 'supplier', 'author', 'publisher', 'group', 'name', 'version', 'description', 'scope', 'hashes', 'licenses', 'copyright', 'purl', 'modified', 'externalReferences', 'properties', 'evidence',
);
const ENTITY_FIELDS = names('name', 'url');
const HASH_FIELDS = names('alg', 'content');
const LICENSE_CHOICE_FIELDS = names('license');
const EXPRESSION_FIELDS = names('expression', 'acknowledgement');
const LICENSE_FIELDS = names('id', 'name', 'text', 'url', 'acknowledgement');
const ATTACHED_TEXT_FIELDS = names('content', 'contentType', 'encoding');
const REFERENCE_FIELDS = names('url', 'type', 'comment', 'hashes');
const PROPERTY_FIELDS = names('name', 'value');
const EVIDENCE_FIELDS = names('licenses');
const DEPENDENCY_FIELDS = names('ref', 'dependsOn');
const VULNERABILITY_FIELDS = names('bom-ref', 'id', 'source', 'references', 'ratings', 'cwes', 'description', 'detail', 'recommendation', 'analysis', 'affects', 'properties');
const SOURCE_FIELDS = names('name', 'url');
const ALIAS_FIELDS = names('id', 'source');
const RATING_FIELDS = names('source', 'score', 'severity', 'method', 'vector', 'justification');
const ANALYSIS_FIELDS = names('state', 'justification', 'response', 'detail');
const AFFECT_FIELDS = names('ref', 'versions');
const AFFECTED_VERSION_FIELDS = names('version', 'range', 'status');

function metadata(out: XmlOut, json: Json, specVersion: CycloneDxSpecVersion): void {
  out.open('metadata');
  leaves(out, json, ['timestamp'], 'metadata');
  if (json.tools !== undefined) tools(out, json.tools, specVersion);
  if (json.component !== undefined) component(out, json.component, 'metadata.component', specVersion);
  out.close('metadata');
}

/**
 * 1.4 knows only the list of tools (`tools/tool`). 1.5 deprecated it for JSON's `tools.components`,
 * XML's `tools/components/component`; its XSD takes either form, never both in one document.
 */
function tools(out: XmlOut, value: unknown, specVersion: CycloneDxSpecVersion): void {
  if (Array.isArray(value)) {
    out.list('tools', value, (item, i) => {
      out.open('tool');
      leaves(out, fields(item, TOOL_FIELDS, `metadata.tools[${i}]`), ['vendor', 'name', 'version'], `metadata.tools[${i}]`);
      out.close('tool');
    });
    return;
  }
  if (specVersion === '1.4') throw new Error('CycloneDX XML: metadata.tools is an object, which 1.4 does not have');
  const json = fields(value, TOOLS_FIELDS, 'metadata.tools');
  out.open('tools');
  if (json.components !== undefined) out.list('components', array(json.components, 'metadata.tools.components'), (item, i) => component(out, item, `metadata.tools.components[${i}]`, specVersion));
  out.close('tools');
}

/** `type` and `bom-ref` are attributes; the XSD puts `properties` before `evidence` (the JSON writer, after). */
function component(out: XmlOut, value: unknown, where: string, specVersion: CycloneDxSpecVersion): void {
  const json = fields(value, COMPONENT_FIELDS, where);
  out.open('component', `${attribute('type', text(json, 'type', where))}${attribute('bom-ref', optionalText(json, 'bom-ref', where))}`);
  if (json.supplier !== undefined) {
    const supplier = fields(json.supplier, ENTITY_FIELDS, `${where}.supplier`);
    out.open('supplier');
    leaves(out, supplier, ['name'], `${where}.supplier`);
    if (supplier.url !== undefined) array(supplier.url, `${where}.supplier.url`).forEach((url, i) => out.leaf('url', string(url, `${where}.supplier.url[${i}]`)));
    out.close('supplier');
  }
  // author and publisher: not written by this service's JSON writer, but by producers whose documents
  // the benchmark converts (cyclonedx-npm); scope likewise.
  leaves(out, json, ['author', 'publisher', 'group'], where);
  out.leaf('name', text(json, 'name', where));
  leaves(out, json, ['version', 'description', 'scope'], where);
  if (json.hashes !== undefined) hashes(out, json.hashes, `${where}.hashes`);
  if (json.licenses !== undefined) licenses(out, json.licenses, `${where}.licenses`, specVersion);
  leaves(out, json, ['copyright', 'purl'], where);
  if (json.modified !== undefined) out.leaf('modified', String(boolean(json.modified, `${where}.modified`)));
  if (json.externalReferences !== undefined) {
    out.list('externalReferences', array(json.externalReferences, `${where}.externalReferences`), (item, i) => {
      const at = `${where}.externalReferences[${i}]`;
      const reference = fields(item, REFERENCE_FIELDS, at);
      out.open('reference', attribute('type', text(reference, 'type', at)));
      out.leaf('url', text(reference, 'url', at));
      leaves(out, reference, ['comment'], at);
      if (reference.hashes !== undefined) hashes(out, reference.hashes, `${at}.hashes`);
      out.close('reference');
    });
  }
  if (json.properties !== undefined) properties(out, json.properties, `${where}.properties`);
  if (json.evidence !== undefined) {
    const evidence = fields(json.evidence, EVIDENCE_FIELDS, `${where}.evidence`);
    out.open('evidence');
    if (evidence.licenses !== undefined) licenses(out, evidence.licenses, `${where}.evidence.licenses`, specVersion);
    out.close('evidence');
  }
  out.close('component');
}

function hashes(out: XmlOut, value: unknown, where: string): void {
  out.list('hashes', array(value, where), (item, i) => {
    const hash = fields(item, HASH_FIELDS, `${where}[${i}]`);
    out.leaf('hash', text(hash, 'content', `${where}[${i}]`), attribute('alg', text(hash, 'alg', `${where}[${i}]`)));
  });
}

/**
 * JSON's list of license choices is, in XML, `license` elements or one `expression`, never both
 * (the XSD's choice; JSON's schema says the same, so a document breaking it is refused, not written
 * invalid). 1.6's `acknowledgement` is an attribute of either; 1.4 and 1.5 have none.
 */
function licenses(out: XmlOut, value: unknown, where: string, specVersion: CycloneDxSpecVersion): void {
  const choices = array(value, where).map((item, i) => fields(item, isObject(item) && 'expression' in item ? EXPRESSION_FIELDS : LICENSE_CHOICE_FIELDS, `${where}[${i}]`));
  const expressions = choices.filter((choice) => choice.expression !== undefined).length;
  if (expressions > 1 || (expressions === 1 && choices.length > 1)) throw new Error(`CycloneDX XML: ${where} holds licenses or one expression, not ${choices.length} choices of which ${expressions} expressions`);
  const acknowledgement = (json: Json, at: string): string => {
    if (json.acknowledgement === undefined) return '';
    if (specVersion !== '1.6') throw new Error(`CycloneDX XML: ${at}.acknowledgement is not in CycloneDX ${specVersion}`);
    return attribute('acknowledgement', text(json, 'acknowledgement', at));
  };
  out.list('licenses', choices, (choice, i) => {
    const at = `${where}[${i}]`;
    if (choice.expression !== undefined) return out.leaf('expression', text(choice, 'expression', at), acknowledgement(choice, at));
    const license = fields(choice.license, LICENSE_FIELDS, `${at}.license`);
    out.open('license', acknowledgement(license, `${at}.license`));
    // The XSD's choice: an SPDX id or a name.
    if (license.id !== undefined) out.leaf('id', text(license, 'id', `${at}.license`));
    else out.leaf('name', text(license, 'name', `${at}.license`));
    if (license.text !== undefined) {
      const attached = fields(license.text, ATTACHED_TEXT_FIELDS, `${at}.license.text`);
      const attributes = `${attribute('content-type', optionalText(attached, 'contentType', `${at}.license.text`))}${attribute('encoding', optionalText(attached, 'encoding', `${at}.license.text`))}`;
      out.leaf('text', text(attached, 'content', `${at}.license.text`), attributes);
    }
    leaves(out, license, ['url'], `${at}.license`);
    out.close('license');
  });
}

function properties(out: XmlOut, value: unknown, where: string): void {
  out.list('properties', array(value, where), (item, i) => {
    const property = fields(item, PROPERTY_FIELDS, `${where}[${i}]`);
    out.leaf('property', optionalText(property, 'value', `${where}[${i}]`) ?? '', attribute('name', text(property, 'name', `${where}[${i}]`)));
  });
}

/** JSON's `{ ref: a, dependsOn: [b] }` nests in XML: `<dependency ref="a"><dependency ref="b"/></dependency>`. */
function dependency(out: XmlOut, value: unknown, where: string): void {
  const json = fields(value, DEPENDENCY_FIELDS, where);
  out.open('dependency', attribute('ref', text(json, 'ref', where)));
  if (json.dependsOn !== undefined) array(json.dependsOn, `${where}.dependsOn`).forEach((target, i) => out.leaf('dependency', undefined, attribute('ref', string(target, `${where}.dependsOn[${i}]`))));
  out.close('dependency');
}

/**
 * A vulnerability in the XSD's order. JSON's lists are wrapped one element an item: `ratings/rating`,
 * `cwes/cwe`, `affects/target` with `versions/version`, and `analysis.response` is
 * `analysis/responses/response`.
 */
function vulnerability(out: XmlOut, value: unknown, where: string): void {
  const json = fields(value, VULNERABILITY_FIELDS, where);
  out.open('vulnerability', attribute('bom-ref', optionalText(json, 'bom-ref', where)));
  leaves(out, json, ['id'], where);
  if (json.source !== undefined) source(out, json.source, `${where}.source`);
  if (json.references !== undefined) {
    out.list('references', array(json.references, `${where}.references`), (item, i) => {
      const at = `${where}.references[${i}]`;
      const reference = fields(item, ALIAS_FIELDS, at);
      out.open('reference');
      leaves(out, reference, ['id'], at);
      if (reference.source !== undefined) source(out, reference.source, `${at}.source`);
      out.close('reference');
    });
  }
  if (json.ratings !== undefined) {
    out.list('ratings', array(json.ratings, `${where}.ratings`), (item, i) => {
      const at = `${where}.ratings[${i}]`;
      const rating = fields(item, RATING_FIELDS, at);
      out.open('rating');
      if (rating.source !== undefined) source(out, rating.source, `${at}.source`);
      if (rating.score !== undefined) out.leaf('score', decimal(rating.score, `${at}.score`));
      leaves(out, rating, ['severity', 'method', 'vector', 'justification'], at);
      out.close('rating');
    });
  }
  if (json.cwes !== undefined) out.list('cwes', array(json.cwes, `${where}.cwes`), (cwe, i) => out.leaf('cwe', String(integer(cwe, `${where}.cwes[${i}]`))));
  leaves(out, json, ['description', 'detail', 'recommendation'], where);
  if (json.analysis !== undefined) {
    const at = `${where}.analysis`;
    const analysis = fields(json.analysis, ANALYSIS_FIELDS, at);
    out.open('analysis');
    leaves(out, analysis, ['state', 'justification'], at);
    if (analysis.response !== undefined) out.list('responses', array(analysis.response, `${at}.response`), (response, i) => out.leaf('response', string(response, `${at}.response[${i}]`)));
    leaves(out, analysis, ['detail'], at);
    out.close('analysis');
  }
  if (json.affects !== undefined) {
    out.list('affects', array(json.affects, `${where}.affects`), (item, i) => {
      const at = `${where}.affects[${i}]`;
      const affect = fields(item, AFFECT_FIELDS, at);
      out.open('target');
      out.leaf('ref', text(affect, 'ref', at));
      if (affect.versions !== undefined) {
        out.list('versions', array(affect.versions, `${at}.versions`), (entry, j) => {
          const version = fields(entry, AFFECTED_VERSION_FIELDS, `${at}.versions[${j}]`);
          out.open('version');
          // The XSD's choice: one version or one range.
          if (version.version !== undefined) out.leaf('version', text(version, 'version', `${at}.versions[${j}]`));
          else out.leaf('range', text(version, 'range', `${at}.versions[${j}]`));
          leaves(out, version, ['status'], `${at}.versions[${j}]`);
          out.close('version');
        });
      }
      out.close('target');
    });
  }
  if (json.properties !== undefined) properties(out, json.properties, `${where}.properties`);
  out.close('vulnerability');
}

function source(out: XmlOut, value: unknown, where: string): void {
  const json = fields(value, SOURCE_FIELDS, where);
  out.open('source');
  leaves(out, json, ['name', 'url'], where);
  out.close('source');
}

/** `<key>value</key>` for each of `keys` the object has, in that order. */
function leaves(out: XmlOut, json: Json, keys: readonly string[], where: string): void {
  for (const key of keys) {
    const value = optionalText(json, key, where);
    if (value !== undefined) out.leaf(key, value);
  }
}

/**
 * Indented XML, one element a line; a text-only element on one line with nothing around its text
 * (whitespace between elements is insignificant in CycloneDX's element-only content, not inside a
 * value), and an element that got no content self-closed. Appended to one string, which V8 keeps as
 * a rope and flattens once: linear in the output's length, and faster (measured) than collecting
 * lines and joining them.
 */
class XmlOut {
  #text = '';
  /** Whether the last start tag is still open (`<name attrs`): `>` once content comes, `/>` if none does. */
  #startTagOpen = false;
  readonly #indents: string[] = [''];
  #depth = 0;

  /** `attributes` as attribute() writes them. */
  open(name: string, attributes = ''): void {
    this.#endStartTag();
    this.#text += `${this.#indent()}<${name}${attributes}`;
    this.#startTagOpen = true;
    this.#depth++;
  }

  close(name: string): void {
    this.#depth--;
    if (this.#startTagOpen) {
      this.#text += '/>\n';
      this.#startTagOpen = false;
    } else {
      this.#text += `${this.#indent()}</${name}>\n`;
    }
  }

  /** An element holding only text (none: an empty element). */
  leaf(name: string, content: string | undefined, attributes = ''): void {
    this.#endStartTag();
    this.#text += content === undefined ? `${this.#indent()}<${name}${attributes}/>\n` : `${this.#indent()}<${name}${attributes}>${escapeText(content)}</${name}>\n`;
  }

  /** A wrapper element with one child per item (an empty one when there are none, as JSON's `[]` is). */
  list<T>(name: string, items: readonly T[], each: (item: T, index: number) => void): void {
    this.open(name);
    items.forEach(each);
    this.close(name);
  }

  text(): string {
    return this.#text;
  }

  #endStartTag(): void {
    if (!this.#startTagOpen) return;
    this.#text += '>\n';
    this.#startTagOpen = false;
  }

  #indent(): string {
    while (this.#indents.length <= this.#depth) this.#indents.push(`${this.#indents[this.#indents.length - 1]}  `);
    return this.#indents[this.#depth]!;
  }
}

/** ` name="value"`, escaped; nothing when there is no value. */
function attribute(name: string, value: string | undefined): string {
  return value === undefined ? '' : ` ${name}="${escapeAttribute(value)}"`;
}

/**
 * Characters XML 1.0 cannot hold at all, not even as a character reference (`&#0;` is not
 * well-formed): C0 controls other than tab, newline and carriage return, U+FFFE, U+FFFF, and a lone
 * surrogate half (which a JavaScript string can hold). They are dropped, not refused: the service's
 * stored text excludes control characters, so one here is debris an imported document brought, and
 * it should not cost the whole export (the JSON export keeps it: JSON can).
 */
const NOT_XML = '[^\\t\\n\\r\\u0020-\\uD7FF\\uE000-\\uFFFD\\u{10000}-\\u{10FFFF}]';
/**
 * In text, `&` and `<` must be escaped; `>` is too, so that `]]>` never appears; and a carriage
 * return is written as a reference, which a reader's line-end handling would otherwise turn into a
 * newline.
 */
const TEXT_ESCAPES = new RegExp(`[&<>\\r]|${NOT_XML}`, 'gu');
/** In a double-quoted attribute also `"`, and tab and newline, which a reader's attribute-value normalization would turn into spaces. */
const ATTRIBUTE_ESCAPES = new RegExp(`[&<>"\\t\\n\\r]|${NOT_XML}`, 'gu');
/**
 * Whether a string may need either: a quick scan without the `u` flag that lets the usual string
 * (ASCII, no markup) through untouched. Any surrogate sends it to the full replace, which tells a
 * pair (kept) from a lone half (dropped).
 */
const MAY_ESCAPE = /[&<>"\t\n\r\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
const REFERENCES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };
const reference = (character: string): string => REFERENCES[character] ?? '';

function escapeText(text: string): string {
  return MAY_ESCAPE.test(text) ? text.replace(TEXT_ESCAPES, reference) : text;
}

function escapeAttribute(text: string): string {
  return MAY_ESCAPE.test(text) ? text.replace(ATTRIBUTE_ESCAPES, reference) : text;
}

// Reading the JSON. A path (`components[3].hashes[0]`) is built per object, and a field's only when
// it is wrong: the happy path allocates little.

function names(...fieldNames: string[]): ReadonlySet<string> {
  return new Set(fieldNames);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object with no field outside `known`. */
function fields(value: unknown, known: ReadonlySet<string>, where: string): Json {
  if (!isObject(value)) throw new Error(`CycloneDX XML: ${where} is not an object`);
  for (const key in value) if (!known.has(key)) throw new Error(`CycloneDX XML: ${where}.${key} has no XML form here`);
  return value;
}

function text(json: Json, key: string, where: string): string {
  const value = json[key];
  if (typeof value !== 'string') throw new Error(`CycloneDX XML: ${where}.${key} is not a string`);
  return value;
}

function optionalText(json: Json, key: string, where: string): string | undefined {
  return json[key] === undefined ? undefined : text(json, key, where);
}

function array(value: unknown, where: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Error(`CycloneDX XML: ${where} is not an array`);
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`CycloneDX XML: ${where} is not a string`);
  return value;
}

function boolean(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`CycloneDX XML: ${where} is not a boolean`);
  return value;
}

function integer(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new Error(`CycloneDX XML: ${where} is not an integer`);
  return value;
}

/**
 * xs:decimal: digits with an optional point, never JavaScript's exponent form (`1e-7`, `1e+21`),
 * which String() gives for very small and very large numbers: its digits are moved about the point instead.
 */
function decimal(value: unknown, where: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`CycloneDX XML: ${where} is not a finite number`);
  const written = String(value);
  const exponent = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(written);
  if (!exponent) return written;
  const [, sign, first, rest = '', power] = exponent;
  const digits = `${first}${rest}`;
  const point = 1 + Number(power);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  return point >= digits.length ? `${sign}${digits}${'0'.repeat(point - digits.length)}` : `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
