/**
 * XML documents from untrusted senders → a small element tree, or why not. The SBOM readers' only XML
 * parser: saxes (a strict, namespace-aware SAX parser) set up for hostile input. Pure and synchronous.
 *
 * What it refuses, before anything is read from the document (docs/sbom-formats.md):
 * - a document type declaration (`<!DOCTYPE`): no DTD is processed, so no external entity is fetched
 *   and no entity is expanded (billion laughs); an SBOM format never needs one;
 * - an entity other than XML's five and character references (saxes: "undefined entity");
 * - an encoding declaration other than UTF-8 (the bytes were decoded as UTF-8);
 * - more than MAX_DEPTH nested elements, MAX_ELEMENTS elements or MAX_ATTRIBUTES attributes on one
 *   element: bounded work and memory whatever the document;
 * - anything that is not well-formed XML 1.0 with namespaces, with the line and column.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

export interface XmlElement {
  /** The namespace URI ('' when none) and the local name. */
  readonly ns: string;
  readonly name: string;
  /** Attributes without a namespace prefix, by local name (namespaced ones, such as xsi:*, are left out). */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /**
   * The element's own text and CDATA, concatenated (the text of its children is theirs). Around a
   * CDATA section, text of whitespace alone is left out: it is the indentation of a producer that
   * wrote `<description>⏎  <![CDATA[…]]>⏎</description>` (the CycloneDX Maven plugin does).
   */
  readonly text: string;
  /** 1-based line of its start tag: for messages. */
  readonly line: number;
}

export type XmlParse = { readonly ok: true; readonly root: XmlElement } | { readonly ok: false; readonly message: string };

/**
 * Bounds on what a document may hold. Elements: a 10,000-component document (the upload limit) has
 * 300,000 to 500,000 (the Maven plugin writes eight hashes a component); a million element objects are
 * about 200 MB of heap, where a 50 MB upload of empty elements would otherwise be twelve million.
 */
export const XML_LIMITS = { depth: 100, elements: 1_000_000, attributes: 256 } as const;

class Refused extends Error {}

interface Building {
  ns: string;
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
  /** The text without its whitespace-only text nodes, and whether it had CDATA. */
  significant: string;
  cdata: boolean;
  line: number;
}

/** Parses `text` (already decoded) as XML 1.0 with namespaces. Never throws. */
export function parseXml(text: string): XmlParse {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Building[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  const refuse = (message: string): never => {
    throw new Refused(`line ${parser.line}, column ${parser.column}: ${message}`);
  };
  parser.on('error', (error) => {
    // saxes prefixes its messages with "<line>:<column>: ".
    throw new Refused(error.message.replace(/^(\d+):(\d+): /, 'line $1, column $2: '));
  });
  parser.on('doctype', () => refuse('a document type declaration (<!DOCTYPE …>) is not accepted: no DTD is processed here, and an SBOM needs none.'));
  parser.on('xmldecl', (declaration) => {
    if (declaration.encoding !== undefined && !/^utf-?8$/i.test(declaration.encoding)) refuse(`the document declares encoding "${declaration.encoding.slice(0, 40)}": send it as UTF-8.`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (++elements > XML_LIMITS.elements) refuse(`more than ${XML_LIMITS.elements.toLocaleString('en-US')} elements.`);
    if (stack.length >= XML_LIMITS.depth) refuse(`elements nested more than ${XML_LIMITS.depth} deep.`);
    const attributes = new Map<string, string>();
    let count = 0;
    for (const attribute of Object.values(tag.attributes)) {
      if (++count > XML_LIMITS.attributes) refuse(`more than ${XML_LIMITS.attributes} attributes on <${tag.name.slice(0, 60)}>.`);
      if (attribute.prefix === '' && attribute.local !== 'xmlns') attributes.set(attribute.local, attribute.value);
    }
    stack.push({ ns: tag.uri, name: tag.local, attributes, children: [], text: '', significant: '', cdata: false, line: parser.line });
  });
  parser.on('text', (value) => {
    const top = stack.at(-1);
    if (!top) return;
    top.text += value;
    if (value.trim() !== '') top.significant += value;
  });
  parser.on('cdata', (value) => {
    const top = stack.at(-1);
    if (!top) return;
    top.text += value;
    top.significant += value;
    top.cdata = true;
  });
  parser.on('closetag', () => {
    const building = stack.pop()!;
    const done: XmlElement = { ns: building.ns, name: building.name, attributes: building.attributes, children: building.children, text: building.cdata ? building.significant : building.text, line: building.line };
    const parent = stack.at(-1);
    if (parent) parent.children.push(done);
    else root = done;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof Refused) return { ok: false, message: error.message };
    // saxes reports through the handler above; anything else is a defect of the parser, still a refusal.
    return { ok: false, message: `not well-formed XML (${String((error as Error).message ?? error).slice(0, 200)}).` };
  }
  if (!root) return { ok: false, message: 'the document has no root element.' };
  return { ok: true, root };
}

/** The children of `element` named `name` in `ns`. */
export function childrenNamed(element: XmlElement | undefined, name: string, ns: string = element?.ns ?? ''): XmlElement[] {
  return element ? element.children.filter((child) => child.name === name && child.ns === ns) : [];
}

export function childNamed(element: XmlElement | undefined, name: string, ns: string = element?.ns ?? ''): XmlElement | undefined {
  return element?.children.find((child) => child.name === name && child.ns === ns);
}
