/**
 * SPDX 2.2/2.3 JSON → Inventory: packages (files and snippets are not packages and are not read),
 * their licenses, checksums and references, and the dependency relationships. Reads a document that
 * has passed its schema (read-sbom.ts), but never trusts a shape it did not check itself. Pure.
 * What is read from where: docs/sbom-formats.md. A string the service cannot store (an unpaired
 * surrogate, a control character) skips its package, and refuses the document in the document's own
 * fields or its described product (spdxTextErrors, before anything is read).
 */
import type { LicenseHint } from '../domain/license-resolution.ts';
import type { Inventory, SbomHashes } from './inventory.ts';
import { asserted, documentTextErrors, httpUrl, InventoryBuilder, isObject, list, text, TextCheck } from './inventory-builder.ts';

const CHECKSUMS: Readonly<Record<string, keyof SbomHashes>> = { MD5: 'md5', SHA1: 'sha1', SHA256: 'sha256', SHA512: 'sha512' };

/** `a DEPENDS_ON b`, `a HAS_PREREQUISITE b`: a depends on b. */
const DEPENDS_ON = new Set(['DEPENDS_ON', 'HAS_PREREQUISITE']);
/**
 * `a X_DEPENDENCY_OF b`, `a PREREQUISITE_FOR b`: b depends on a. npm sbom writes DEV_ and
 * OPTIONAL_DEPENDENCY_OF, and PREREQUISITE_FOR for peer dependencies, for the same edges its
 * CycloneDX output lists in `dependsOn`: every kind of dependency counts, as in CycloneDX.
 */
const DEPENDENCY_OF = new Set([
  'PREREQUISITE_FOR',
  'DEPENDENCY_OF',
  'DEV_DEPENDENCY_OF',
  'OPTIONAL_DEPENDENCY_OF',
  'BUILD_DEPENDENCY_OF',
  'RUNTIME_DEPENDENCY_OF',
  'PROVIDED_DEPENDENCY_OF',
  'TEST_DEPENDENCY_OF',
]);

/** The document's own fields (its metadata), and those of them that are names or identifiers. */
const DOCUMENT_FIELDS = ['SPDXID', 'name', 'documentNamespace', 'dataLicense', 'comment', 'creationInfo', 'documentDescribes'];
const DOCUMENT_NAMES = ['/SPDXID', '/name', '/documentNamespace', '/dataLicense'];

/**
 * What in the document's own fields (its SPDXID, name, namespace, data license, comment, creationInfo,
 * documentDescribes) and in the described product's SPDXID, name and version the service cannot
 * store: the document is then refused. The names it uses are checked as the catalog checks a name.
 */
export function spdxTextErrors(document: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const strict = [...DOCUMENT_NAMES, ...list(document.documentDescribes).map((_, i) => `/documentDescribes/${i}`)];
  for (const field of DOCUMENT_FIELDS) errors.push(...documentTextErrors(document[field], `/${field}`, { strict }));
  const { subject, index } = describedProduct(document);
  if (subject) {
    for (const field of ['SPDXID', 'name', 'versionInfo']) errors.push(...documentTextErrors(subject[field], `/packages/${index}/${field}`, { strict: [`/packages/${index}/${field}`] }));
  }
  return errors;
}

/**
 * The product the SBOM is of, when the document describes one package (npm sbom's root package,
 * syft's source): the subject, not a component. Several described are all components: no one of
 * them is the product. What is described: documentDescribes, and DESCRIBES / DESCRIBED_BY relationships.
 */
function describedProduct(document: Record<string, unknown>): { subject: Record<string, unknown> | undefined; index: number } {
  const documentId = text(document.SPDXID) || 'SPDXRef-DOCUMENT';
  const described = new Set(list(document.documentDescribes).filter((id): id is string => typeof id === 'string'));
  for (const relationship of list(document.relationships).filter(isObject)) {
    if (relationship.relationshipType === 'DESCRIBES' && relationship.spdxElementId === documentId) described.add(text(relationship.relatedSpdxElement));
    if (relationship.relationshipType === 'DESCRIBED_BY' && relationship.relatedSpdxElement === documentId) described.add(text(relationship.spdxElementId));
  }
  const packages = list(document.packages);
  const indexes = packages.flatMap((pkg, index) => (isObject(pkg) && described.has(text(pkg.SPDXID)) ? [index] : []));
  return indexes.length === 1 ? { subject: packages[indexes[0]!] as Record<string, unknown>, index: indexes[0]! } : { subject: undefined, index: -1 };
}

/** A license text longer than this (characters) is not compared: no license text is near it. */
const MAX_EXTRACTED_TEXT = 200_000;

/**
 * The document's extracted licensing infos by licenseId (`LicenseRef-1`): their `name` and
 * `extractedText`, what recognises a LicenseRef the service does not know by its id.
 */
function extractedLicenses(document: Record<string, unknown>): Map<string, LicenseHint> {
  const hints = new Map<string, LicenseHint>();
  for (const info of list(document.hasExtractedLicensingInfos).filter(isObject)) {
    const id = text(info.licenseId).trim();
    if (!id || hints.has(id)) continue;
    const name = text(info.name).trim();
    const extractedText = text(info.extractedText);
    const hint: LicenseHint = {
      ...(name && name !== 'NOASSERTION' && name.length <= 1_024 ? { name } : {}),
      ...(extractedText.trim() && extractedText.length <= MAX_EXTRACTED_TEXT ? { text: extractedText } : {}),
    };
    if (hint.name || hint.text) hints.set(id, hint);
  }
  return hints;
}

/** The extracted licenses a package's expressions name (LicenseRef ids are whole symbols of them). */
function hintsFor(expressions: readonly string[], extracted: ReadonlyMap<string, LicenseHint>): Map<string, LicenseHint> | undefined {
  if (extracted.size === 0) return undefined;
  const hints = new Map<string, LicenseHint>();
  for (const symbol of expressions.flatMap((expression) => expression.split(/[\s()]+/))) {
    const hint = extracted.get(symbol);
    if (hint) hints.set(symbol, hint);
  }
  return hints;
}

export function spdxInventory(document: Record<string, unknown>, specVersion: string): Inventory {
  const builder = new InventoryBuilder();
  const relationships = list(document.relationships).filter(isObject);
  const { subject } = describedProduct(document);
  const extracted = extractedLicenses(document);

  list(document.packages).forEach((pkg, index) => {
    if (!isObject(pkg) || pkg === subject) return;
    const check = new TextCheck();
    const hashes: Partial<Record<keyof SbomHashes, string>> = {};
    list(pkg.checksums).forEach((checksum, i) => {
      if (!isObject(checksum)) return;
      const algorithm = check.text(checksum.algorithm, `checksums/${i}/algorithm`);
      // Own keys only: an algorithm named "constructor" is none of them.
      const key = Object.hasOwn(CHECKSUMS, algorithm) ? CHECKSUMS[algorithm] : undefined;
      const value = check.text(checksum.checksumValue, `checksums/${i}/checksumValue`).trim().toLowerCase();
      if (key && value && hashes[key] === undefined) hashes[key] = value;
    });
    builder.add({
      ref: check.text(pkg.SPDXID, 'SPDXID'),
      pointer: `/packages/${index}`,
      purl: purlOf(pkg, check),
      group: '',
      name: check.text(pkg.name, 'name'),
      version: check.text(pkg.versionInfo, 'versionInfo'),
      declaredLicense: check.asserted(pkg.licenseDeclared, 'licenseDeclared'),
      concludedLicense: check.asserted(pkg.licenseConcluded, 'licenseConcluded'),
      licenseHints: hintsFor([text(pkg.licenseDeclared), text(pkg.licenseConcluded)], extracted),
      hashes,
      description: check.prose(pkg.description, 'description') || check.prose(pkg.summary, 'summary'),
      homepageUrl: httpUrl(check.asserted(pkg.homepage, 'homepage')),
      downloadUrl: httpUrl(check.asserted(pkg.downloadLocation, 'downloadLocation')),
      supplier: agent(check.asserted(pkg.supplier, 'supplier')),
      copyright: asserted(check.prose(pkg.copyrightText, 'copyrightText')),
      filename: check.text(pkg.packageFileName, 'packageFileName'),
      problem: check.problem,
    });
  });

  for (const relationship of relationships) {
    const type = text(relationship.relationshipType);
    const element = text(relationship.spdxElementId);
    const related = text(relationship.relatedSpdxElement);
    if (DEPENDS_ON.has(type)) builder.depend(element, related);
    else if (DEPENDENCY_OF.has(type)) builder.depend(related, element);
  }

  return builder.build({
    format: 'spdx',
    specVersion,
    subject: subject ? { name: text(subject.name), version: text(subject.versionInfo) } : null,
    vulnerabilities: [],
    vexOnly: false,
  });
}

/**
 * The first purl of the package's PACKAGE-MANAGER references (2.3 writes a hyphen, 2.2 tools often an
 * underscore). Every reference's strings are checked: the reader reads them all to find it.
 */
function purlOf(pkg: Record<string, unknown>, check: TextCheck): string {
  let purl = '';
  list(pkg.externalRefs).forEach((reference, index) => {
    if (!isObject(reference)) return;
    const at = `externalRefs/${index}`;
    const category = check.text(reference.referenceCategory, `${at}/referenceCategory`);
    const type = check.text(reference.referenceType, `${at}/referenceType`);
    const locator = check.text(reference.referenceLocator, `${at}/referenceLocator`).trim();
    if (!purl && (category === 'PACKAGE-MANAGER' || category === 'PACKAGE_MANAGER') && type === 'purl') purl = locator;
  });
  return purl;
}

/** "Organization: ACME (sales@acme.example)" → "ACME"; "Person: Jane Doe" → "Jane Doe"; NOASSERTION → ''. */
function agent(written: string): string {
  const match = /^(?:Organization|Person|Tool)\s*:\s*(.*?)\s*(?:\([^()]*\))?$/.exec(written);
  return match ? match[1]! : written;
}
