/**
 * SPDX 2.2/2.3 JSON → Inventory: packages (files and snippets are not packages and are not read),
 * their licenses, checksums and references, and the dependency relationships. Reads a document that
 * has passed its schema (read-sbom.ts), but never trusts a shape it did not check itself. Pure.
 * What is read from where: docs/sbom-formats.md.
 */
import type { Inventory, SbomHashes } from './inventory.ts';
import { asserted, httpUrl, InventoryBuilder, isObject, list, text } from './inventory-builder.ts';

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

export function spdxInventory(document: Record<string, unknown>, specVersion: string): Inventory {
  const builder = new InventoryBuilder();
  const documentId = text(document.SPDXID) || 'SPDXRef-DOCUMENT';
  const packages = list(document.packages).filter(isObject);
  const relationships = list(document.relationships).filter(isObject);

  // What the document describes: documentDescribes, and DESCRIBES / DESCRIBED_BY relationships.
  const described = new Set(list(document.documentDescribes).filter((id): id is string => typeof id === 'string'));
  for (const relationship of relationships) {
    if (relationship.relationshipType === 'DESCRIBES' && relationship.spdxElementId === documentId) described.add(text(relationship.relatedSpdxElement));
    if (relationship.relationshipType === 'DESCRIBED_BY' && relationship.relatedSpdxElement === documentId) described.add(text(relationship.spdxElementId));
  }
  // One described package is the product the SBOM is of (npm sbom's root package, syft's source):
  // the subject, not a component. Several are all components: no one of them is the product.
  const describedPackages = packages.filter((pkg) => described.has(text(pkg.SPDXID)));
  const subject = describedPackages.length === 1 ? describedPackages[0]! : undefined;

  packages.forEach((pkg, index) => {
    if (pkg === subject) return;
    const hashes: Partial<Record<keyof SbomHashes, string>> = {};
    for (const checksum of list(pkg.checksums)) {
      if (!isObject(checksum)) continue;
      const key = CHECKSUMS[text(checksum.algorithm)];
      const value = text(checksum.checksumValue).trim().toLowerCase();
      if (key && value && hashes[key] === undefined) hashes[key] = value;
    }
    builder.add({
      ref: text(pkg.SPDXID),
      pointer: `/packages/${index}`,
      purl: purlOf(pkg),
      group: '',
      name: text(pkg.name),
      version: text(pkg.versionInfo),
      declaredLicense: asserted(pkg.licenseDeclared),
      concludedLicense: asserted(pkg.licenseConcluded),
      hashes,
      description: text(pkg.description) || text(pkg.summary),
      homepageUrl: httpUrl(asserted(pkg.homepage)),
      downloadUrl: httpUrl(asserted(pkg.downloadLocation)),
      supplier: agent(pkg.supplier),
      copyright: asserted(pkg.copyrightText),
      filename: text(pkg.packageFileName),
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

/** The first purl of the package's PACKAGE-MANAGER references (2.3 writes a hyphen, 2.2 tools often an underscore). */
function purlOf(pkg: Record<string, unknown>): string {
  for (const reference of list(pkg.externalRefs)) {
    if (!isObject(reference)) continue;
    const category = text(reference.referenceCategory);
    if ((category === 'PACKAGE-MANAGER' || category === 'PACKAGE_MANAGER') && reference.referenceType === 'purl') {
      const locator = text(reference.referenceLocator).trim();
      if (locator) return locator;
    }
  }
  return '';
}

/** "Organization: ACME (sales@acme.example)" → "ACME"; "Person: Jane Doe" → "Jane Doe"; NOASSERTION → ''. */
function agent(value: unknown): string {
  const written = asserted(value);
  const match = /^(?:Organization|Person|Tool)\s*:\s*(.*?)\s*(?:\([^()]*\))?$/.exec(written);
  return match ? match[1]! : written;
}
