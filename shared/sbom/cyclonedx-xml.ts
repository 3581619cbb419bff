/**
 * CycloneDX XML 1.0-1.6 → the CycloneDX JSON document of the same content, so that one reader
 * (cyclonedx.ts) gives XML and JSON the same semantics: the same document in both forms is the same
 * inventory. Converts what the reader reads (the described product, components with their licenses,
 * hashes, external references and nested components, evidence licenses, the dependency graph,
 * vulnerabilities with ratings, references, analyses and affects), each into its JSON name and shape;
 * the rest of the document (tools, services, compositions, formulation, …) is validated by the XML
 * schema (cyclonedx-xml-schema.ts) and not read, as in JSON. Pure.
 *
 * Where XML differs from JSON:
 * - the version is the namespace (`http://cyclonedx.org/schema/bom/1.x`), and 1.0 and 1.1 exist only in XML;
 * - collections are wrapper elements (`<components><component>`, `<hashes><hash alg>`);
 * - in 1.1 the dependency graph is an extension in its own namespace
 *   (`http://cyclonedx.org/schema/ext/dependency-graph/1.0`), read as `dependencies`;
 * - a license's and an expression's `acknowledgement` (1.6), a hash's `alg`, a reference's `type` are attributes;
 * - names, identifiers and URLs are trimmed, as the schema's token and normalizedString types read
 *   them; prose (descriptions, copyrights, details, license texts) is kept as written, as in JSON.
 */
import { childNamed, childrenNamed, type XmlElement } from './xml.ts';
import { CYCLONEDX_XML_VERSIONS, type CycloneDxXmlVersion } from './schema-validation.ts';

const BOM_NAMESPACE = /^http:\/\/cyclonedx\.org\/schema\/bom\/(\d+\.\d+)$/;
const DEPENDENCY_GRAPH_NAMESPACE = 'http://cyclonedx.org/schema/ext/dependency-graph/1.0';

/** Whether the root looks like a CycloneDX BOM at all (a `bom` element of a CycloneDX namespace). */
export function isCycloneDxXml(root: XmlElement): boolean {
  return root.name === 'bom' && root.ns.startsWith('http://cyclonedx.org/schema/bom/');
}

/** The spec version the root's namespace names, or why it is not read here. */
export function cyclonedxXmlVersion(root: XmlElement): { readonly version: CycloneDxXmlVersion } | { readonly error: string } {
  if (root.name !== 'bom') return { error: `The root element is <${root.name.slice(0, 60)}>: a CycloneDX XML document's is <bom>.` };
  const version = BOM_NAMESPACE.exec(root.ns)?.[1];
  if (version === undefined) {
    return { error: `The <bom> element's namespace is ${root.ns ? `"${root.ns.slice(0, 100)}"` : 'missing'}: a CycloneDX document's is http://cyclonedx.org/schema/bom/1.x.` };
  }
  if (!(CYCLONEDX_XML_VERSIONS as readonly string[]).includes(version)) {
    return { error: `CycloneDX XML ${version} is not read here: 1.0 to 1.6 are.` };
  }
  return { version: version as CycloneDxXmlVersion };
}

/** The JSON document of a CycloneDX XML BOM of `version` (its root already checked by cyclonedxXmlVersion). */
export function cyclonedxXmlDocument(root: XmlElement, version: CycloneDxXmlVersion): Record<string, unknown> {
  const document: Record<string, unknown> = { bomFormat: 'CycloneDX', specVersion: version };
  const serial = root.attributes.get('serialNumber');
  if (serial !== undefined) document.serialNumber = serial.trim();
  const bomVersion = Number(root.attributes.get('version') ?? '1');
  document.version = Number.isInteger(bomVersion) ? bomVersion : 1;
  const metadata = childNamed(root, 'metadata');
  if (metadata) {
    const converted: Record<string, unknown> = {};
    set(converted, 'timestamp', leaf(metadata, 'timestamp'));
    const subject = childNamed(metadata, 'component');
    if (subject) converted.component = component(subject);
    document.metadata = converted;
  }
  const components = childNamed(root, 'components');
  if (components) document.components = childrenNamed(components, 'component').map(component);
  const dependencies = childNamed(root, 'dependencies') ?? childNamed(root, 'dependencies', DEPENDENCY_GRAPH_NAMESPACE);
  if (dependencies) {
    document.dependencies = dependencies.children
      .filter((entry) => entry.name === 'dependency')
      .map((entry) => {
        const dependsOn = entry.children.filter((target) => target.name === 'dependency').map((target) => attribute(target, 'ref'));
        return { ref: attribute(entry, 'ref'), ...(dependsOn.length > 0 ? { dependsOn } : {}) };
      });
  }
  const vulnerabilities = childNamed(root, 'vulnerabilities');
  if (vulnerabilities) document.vulnerabilities = childrenNamed(vulnerabilities, 'vulnerability').map(vulnerability);
  return document;
}

function component(element: XmlElement): Record<string, unknown> {
  const converted: Record<string, unknown> = {};
  set(converted, 'type', element.attributes.get('type'));
  set(converted, 'bom-ref', element.attributes.get('bom-ref'));
  const supplier = childNamed(element, 'supplier');
  if (supplier) converted.supplier = { ...optional('name', leaf(supplier, 'name')) };
  for (const field of ['author', 'publisher', 'group', 'name', 'version', 'scope', 'cpe', 'purl']) set(converted, field, leaf(element, field));
  for (const field of ['description', 'copyright']) setProse(converted, field, element);
  const hashes = childNamed(element, 'hashes');
  if (hashes) converted.hashes = hashList(hashes);
  const licenses = childNamed(element, 'licenses');
  if (licenses) converted.licenses = licenseList(licenses);
  const references = childNamed(element, 'externalReferences');
  if (references) {
    converted.externalReferences = childrenNamed(references, 'reference').map((reference) => {
      const hashes = childNamed(reference, 'hashes');
      return {
        ...optional('type', reference.attributes.get('type')),
        ...optional('url', leaf(reference, 'url')),
        ...optional('comment', leaf(reference, 'comment')),
        ...(hashes ? { hashes: hashList(hashes) } : {}),
      };
    });
  }
  const nested = childNamed(element, 'components');
  if (nested) converted.components = childrenNamed(nested, 'component').map(component);
  const evidence = childNamed(element, 'evidence');
  const evidenceLicenses = childNamed(evidence, 'licenses');
  if (evidenceLicenses) converted.evidence = { licenses: licenseList(evidenceLicenses) };
  return converted;
}

function hashList(hashes: XmlElement): Record<string, unknown>[] {
  return childrenNamed(hashes, 'hash').map((hash) => ({ alg: attribute(hash, 'alg'), content: hash.text.trim() }));
}

/** `<license>` ({id|name, text, url}) and `<expression>` entries, in document order, as JSON's `licenses`. */
function licenseList(licenses: XmlElement): Record<string, unknown>[] {
  return licenses.children.flatMap((entry): Record<string, unknown>[] => {
    if (entry.ns !== licenses.ns) return [];
    if (entry.name === 'expression') return [{ expression: entry.text.trim(), ...optional('acknowledgement', entry.attributes.get('acknowledgement')) }];
    if (entry.name !== 'license') return [];
    const license: Record<string, unknown> = {};
    set(license, 'id', leaf(entry, 'id'));
    set(license, 'name', leaf(entry, 'name'));
    set(license, 'acknowledgement', entry.attributes.get('acknowledgement'));
    set(license, 'url', leaf(entry, 'url'));
    const text = childNamed(entry, 'text');
    if (text) license.text = { content: text.text, ...optional('contentType', text.attributes.get('content-type')), ...optional('encoding', text.attributes.get('encoding')) };
    return [{ license }];
  });
}

function vulnerability(element: XmlElement): Record<string, unknown> {
  const converted: Record<string, unknown> = {};
  set(converted, 'bom-ref', element.attributes.get('bom-ref'));
  for (const field of ['id', 'created', 'published', 'updated']) set(converted, field, leaf(element, field));
  for (const field of ['description', 'detail', 'recommendation']) setProse(converted, field, element);
  const source = childNamed(element, 'source');
  if (source) converted.source = { ...optional('name', leaf(source, 'name')), ...optional('url', leaf(source, 'url')) };
  const references = childNamed(element, 'references');
  if (references) {
    converted.references = childrenNamed(references, 'reference').map((reference) => {
      const referenceSource = childNamed(reference, 'source');
      return { ...optional('id', leaf(reference, 'id')), ...(referenceSource ? { source: { ...optional('name', leaf(referenceSource, 'name')), ...optional('url', leaf(referenceSource, 'url')) } } : {}) };
    });
  }
  const ratings = childNamed(element, 'ratings');
  if (ratings) {
    converted.ratings = childrenNamed(ratings, 'rating').map((rating) => {
      const score = leaf(rating, 'score');
      return {
        ...(score !== undefined && score !== '' && Number.isFinite(Number(score)) ? { score: Number(score) } : {}),
        ...optional('severity', leaf(rating, 'severity')),
        ...optional('method', leaf(rating, 'method')),
        ...optional('vector', leaf(rating, 'vector')),
      };
    });
  }
  const cwes = childNamed(element, 'cwes');
  if (cwes) converted.cwes = childrenNamed(cwes, 'cwe').map((cwe) => Number(cwe.text.trim())).filter(Number.isInteger);
  const analysis = childNamed(element, 'analysis');
  if (analysis) {
    const responses = childNamed(analysis, 'responses');
    converted.analysis = {
      ...optional('state', leaf(analysis, 'state')),
      ...optional('justification', leaf(analysis, 'justification')),
      ...(responses ? { response: childrenNamed(responses, 'response').map((response) => response.text.trim()) } : {}),
      ...(childNamed(analysis, 'detail') ? { detail: childNamed(analysis, 'detail')!.text } : {}),
    };
  }
  const affects = childNamed(element, 'affects');
  if (affects) {
    converted.affects = childrenNamed(affects, 'target').map((target) => {
      const versions = childNamed(target, 'versions');
      return {
        ...optional('ref', leaf(target, 'ref')),
        ...(versions
          ? {
              versions: childrenNamed(versions, 'version').map((entry) => ({
                ...optional('version', leaf(entry, 'version')),
                ...optional('range', leaf(entry, 'range')),
                ...optional('status', leaf(entry, 'status')),
              })),
            }
          : {}),
      };
    });
  }
  return converted;
}

/** The trimmed text of the child element `name` (in the parent's namespace), if there is one. */
function leaf(parent: XmlElement, name: string): string | undefined {
  return childNamed(parent, name)?.text.trim();
}

/** Prose (a description, a copyright) is kept as written. */
function setProse(target: Record<string, unknown>, key: string, parent: XmlElement): void {
  const element = childNamed(parent, key);
  if (element) target[key] = element.text;
}

function attribute(element: XmlElement, name: string): string {
  return (element.attributes.get(name) ?? '').trim();
}

function set(target: Record<string, unknown>, key: string, value: string | undefined): void {
  if (value !== undefined) target[key] = value.trim();
}

function optional(key: string, value: string | undefined): Record<string, string> {
  return value === undefined ? {} : { [key]: value.trim() };
}
