/**
 * SPDX → Inventory: on npm sbom's SPDX documents of this repository every package is accounted for,
 * the root package is the subject, licenses are as written, relationships give the same graph as
 * npm's own CycloneDX output; on a hand-written SPDX 2.2 document the choices of docs/sbom-formats.md.
 */
import { describe, expect, it } from 'vitest';
import type { Inventory, SbomComponent } from '../../shared/sbom/inventory.ts';
import { readSbomSync } from '../../shared/sbom/read-sbom.ts';
import { spdxInventory } from '../../shared/sbom/spdx.ts';
import { canonicalPurl } from '../../shared/services/catalog.ts';
import { fixture, fixtureText } from '../support/sbom-documents.ts';

type Json = Record<string, unknown>;

function read(name: string): Inventory {
  const result = readSbomSync(fixtureText(name));
  if (!result.ok) throw new Error(`${name} not read: ${JSON.stringify(result.errors)}`);
  return result.inventory;
}

function byRef(inventory: Inventory, ref: string): SbomComponent {
  const found = inventory.components.find((component) => component.ref === ref);
  if (!found) throw new Error(`no component ${ref}`);
  return found;
}

const purlOf = (pkg: Json) => ((pkg.externalRefs as Json[] | undefined) ?? []).find((ref) => ref.referenceType === 'purl')?.referenceLocator as string | undefined;

describe('npm sbom --sbom-format spdx', () => {
  it.each(['npm-sbom-full.spdx.json', 'npm-sbom-prod.spdx.json'])('%s: every package accounted for, the root package is the subject', (name) => {
    const document = fixture(name);
    const packages = document.packages as Json[];
    const inventory = read(name);
    const root = packages.find((pkg) => pkg.SPDXID === (document.documentDescribes as string[])[0])!;
    expect(inventory.subject).toEqual({ name: 'compliance-service', version: root.versionInfo });
    // Every package but the described one, once: imported or skipped.
    expect(inventory.components.length + inventory.skipped.length).toBe(packages.length - 1);
    expect(inventory.skipped).toEqual([]);
    expect(inventory.components.some((component) => component.ref === root.SPDXID)).toBe(false);

    for (const pkg of packages) {
      if (pkg === root) continue;
      const component = byRef(inventory, pkg.SPDXID as string);
      expect(component.purl).toBe(canonicalPurl(purlOf(pkg)!));
      expect(component).toMatchObject({
        version: pkg.versionInfo,
        hadPurl: true,
        declaredLicense: pkg.licenseDeclared === 'NOASSERTION' ? '' : pkg.licenseDeclared,
        concludedLicense: '',
        description: pkg.description ?? '',
        homepageUrl: pkg.homepage === 'NOASSERTION' || pkg.homepage === undefined ? '' : pkg.homepage,
        // npm writes NOASSERTION for every download location.
        downloadUrl: '',
        filename: pkg.packageFileName,
      });
      const sha512 = ((pkg.checksums as Json[] | undefined) ?? []).find((checksum) => checksum.algorithm === 'SHA512');
      expect(component.hashes.sha512).toBe(sha512?.checksumValue);
    }
  });

  it('relationships give the same graph as npm\'s CycloneDX output of the same tree (dev, optional and peer edges included)', () => {
    const graph = (inventory: Inventory) => {
      const purl = new Map(inventory.components.map((component) => [component.ref, component.purl]));
      return new Set([...inventory.dependencies].flatMap(([from, targets]) => targets.map((to) => `${purl.get(from)} → ${purl.get(to)}`)));
    };
    for (const [spdx, cyclonedx] of [
      ['npm-sbom-full.spdx.json', 'npm-sbom-full.cdx.json'],
      ['npm-sbom-prod.spdx.json', 'npm-sbom-prod.cdx.json'],
    ]) {
      const fromSpdx = read(spdx!);
      const fromCycloneDx = read(cyclonedx!);
      expect(new Set(fromSpdx.components.map((c) => c.purl))).toEqual(new Set(fromCycloneDx.components.map((c) => c.purl)));
      expect(graph(fromSpdx)).toEqual(graph(fromCycloneDx));
      expect(graph(fromSpdx).size).toBeGreaterThan(20);
    }
  });

  it('DEPENDENCY_OF points from the dependent to the dependency', () => {
    const document = fixture('npm-sbom-prod.spdx.json');
    const inventory = read('npm-sbom-prod.spdx.json');
    const packageIds = new Set((document.packages as Json[]).map((pkg) => pkg.SPDXID));
    const root = (document.documentDescribes as string[])[0];
    let checked = 0;
    for (const relationship of document.relationships as Json[]) {
      if (relationship.relationshipType !== 'DEPENDENCY_OF' || relationship.relatedSpdxElement === root) continue;
      const dependency = relationship.spdxElementId as string;
      const dependent = relationship.relatedSpdxElement as string;
      expect(packageIds.has(dependency) && packageIds.has(dependent)).toBe(true);
      expect(inventory.dependencies.get(dependent)).toContain(dependency);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });
});

describe('hand-written SPDX 2.2', () => {
  const inventory = read('small-2.2.spdx.json');

  it('two described packages: no subject, both are components', () => {
    expect(inventory).toMatchObject({ format: 'spdx', specVersion: '2.2', subject: null, vexOnly: false, vulnerabilities: [] });
    expect(inventory.components.map((c) => c.ref)).toEqual(['SPDXRef-app-one', 'SPDXRef-app-two', 'SPDXRef-openssl', 'SPDXRef-zlib']);
  });

  it('NOASSERTION and NONE read as empty; PACKAGE_MANAGER with an underscore gives the purl', () => {
    for (const ref of ['SPDXRef-app-one', 'SPDXRef-app-two']) {
      expect(byRef(inventory, ref)).toMatchObject({ hadPurl: true, declaredLicense: '', concludedLicense: '', copyright: '', downloadUrl: '', supplier: '' });
    }
    expect(byRef(inventory, 'SPDXRef-app-one').purl).toBe('pkg:npm/app-one@1.0.0');
  });

  it('licenses, checksums, supplier, homepage, download location, copyright, file name', () => {
    expect(byRef(inventory, 'SPDXRef-openssl')).toMatchObject({
      type: 'generic',
      name: 'openssl',
      version: '3.0.13',
      qualifiers: { download_url: 'https://www.openssl.org/source/openssl-3.0.13.tar.gz' },
      declaredLicense: 'Apache-2.0 AND LicenseRef-OpenSSL-Legacy',
      concludedLicense: 'Apache-2.0',
      hashes: {
        sha256: '88525753f79d3bec27d2fa7c66aee0b5e5d1e1e5c8f9d6d6b3e7f2c1a9e8d7c6',
        sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
        md5: 'd41d8cd98f00b204e9800998ecf8427e',
      },
      supplier: 'OpenSSL Software Foundation',
      homepageUrl: 'https://www.openssl.org',
      downloadUrl: 'https://www.openssl.org/source/openssl-3.0.13.tar.gz',
      copyright: 'Copyright (c) 1998-2024 The OpenSSL Project Authors',
      description: 'TLS/SSL and crypto library',
      filename: 'openssl-3.0.13.tar.gz',
    });
  });

  it('a package without purl is generic; its summary stands in for a description; a VCS download location is not a URL', () => {
    expect(byRef(inventory, 'SPDXRef-zlib')).toMatchObject({
      type: 'generic',
      purl: 'pkg:generic/zlib@1.3.1',
      hadPurl: false,
      supplier: 'Jean-loup Gailly',
      description: 'Compression library (summary only)',
      downloadUrl: '',
      homepageUrl: '',
    });
  });

  it('a duplicate and an invalid purl are skipped', () => {
    expect(inventory.skipped).toEqual([
      { component: 'SPDXRef-zlib-copy', name: 'zlib 1.3.1', reason: 'duplicate of SPDXRef-zlib' },
      { component: 'SPDXRef-libfoo', name: 'libfoo@0.9', reason: 'invalid purl "libfoo@0.9": missing required "pkg" scheme component' },
    ]);
  });

  it('DEPENDS_ON and DEPENDENCY_OF; edges to a duplicate land on the first; CONTAINS, skipped and external elements are not dependencies', () => {
    expect(Object.fromEntries(inventory.dependencies)).toEqual({
      'SPDXRef-app-one': ['SPDXRef-openssl'],
      'SPDXRef-openssl': ['SPDXRef-zlib'],
    });
  });

  it('a DESCRIBES relationship alone names the subject (no documentDescribes)', () => {
    const document = fixture('small-2.2.spdx.json');
    delete document.documentDescribes;
    const read = spdxInventory(document, '2.2');
    expect(read.subject).toEqual({ name: 'app-one', version: '1.0.0' });
    expect(read.components.map((c) => c.ref)).not.toContain('SPDXRef-app-one');
    // The subject's edges are dropped with it.
    expect(Object.fromEntries(read.dependencies)).toEqual({ 'SPDXRef-openssl': ['SPDXRef-zlib'] });
  });

  it('DESCRIBED_BY, HAS_PREREQUISITE and PREREQUISITE_FOR', () => {
    const read = spdxInventory(
      {
        SPDXID: 'SPDXRef-DOCUMENT',
        packages: [
          { SPDXID: 'SPDXRef-a', name: 'a', versionInfo: '1' },
          { SPDXID: 'SPDXRef-b', name: 'b', versionInfo: '1' },
          { SPDXID: 'SPDXRef-c', name: 'c', versionInfo: '1' },
          { SPDXID: 'SPDXRef-root', name: 'root', versionInfo: '9' },
        ],
        relationships: [
          { spdxElementId: 'SPDXRef-root', relationshipType: 'DESCRIBED_BY', relatedSpdxElement: 'SPDXRef-DOCUMENT' },
          { spdxElementId: 'SPDXRef-a', relationshipType: 'HAS_PREREQUISITE', relatedSpdxElement: 'SPDXRef-b' },
          { spdxElementId: 'SPDXRef-c', relationshipType: 'PREREQUISITE_FOR', relatedSpdxElement: 'SPDXRef-a' },
          { spdxElementId: 'SPDXRef-c', relationshipType: 'DEV_DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-b' },
          { spdxElementId: 'SPDXRef-b', relationshipType: 'GENERATES', relatedSpdxElement: 'SPDXRef-c' },
        ],
      },
      '2.3',
    );
    expect(read.subject).toEqual({ name: 'root', version: '9' });
    expect(Object.fromEntries(read.dependencies)).toEqual({ 'SPDXRef-a': ['SPDXRef-b', 'SPDXRef-c'], 'SPDXRef-b': ['SPDXRef-c'] });
  });
});
