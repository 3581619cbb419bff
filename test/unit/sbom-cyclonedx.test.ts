/**
 * CycloneDX → Inventory: on the real cyclonedx-npm and npm sbom documents of this repository every
 * component is accounted for (nested ones too), licenses are as written, dependencies resolve through
 * folded duplicates; on hand-written documents the choices of docs/sbom-formats.md; VEX.
 */
import { describe, expect, it } from 'vitest';
import { cyclonedxInventory } from '../../shared/sbom/cyclonedx.ts';
import type { Inventory, SbomComponent } from '../../shared/sbom/inventory.ts';
import { readSbomSync } from '../../shared/sbom/read-sbom.ts';
import { canonicalPurl } from '../../shared/services/catalog.ts';
import { cyclonedxComponents, fixture, fixtureText } from '../support/sbom-documents.ts';

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

/** The licenses of a CycloneDX component as a person would write them down from the document. */
function writtenLicenses(component: Json): string[] {
  return ((component.licenses as Json[] | undefined) ?? []).map((entry) =>
    entry.expression !== undefined ? (entry.expression as string) : (((entry.license as Json).id ?? (entry.license as Json).name) as string),
  );
}

const REAL = ['cyclonedx-npm-1.6-full.cdx.json', 'cyclonedx-npm-1.6-prod.cdx.json', 'cyclonedx-npm-1.4-prod.cdx.json', 'cyclonedx-npm-1.2-prod.cdx.json', 'npm-sbom-full.cdx.json', 'npm-sbom-prod.cdx.json'];

describe('real producers: every component accounted for', () => {
  it.each(REAL)('%s', (name) => {
    const document = fixture(name);
    const inventory = read(name);
    const components = cyclonedxComponents(document);
    // Each component of the document, nested ones included, once: imported or skipped.
    expect(inventory.components.length + inventory.skipped.length).toBe(components.length);
    const documentPurls = new Set(components.map((component) => canonicalPurl(component.purl as string)));
    expect(new Set(inventory.components.map((component) => component.purl))).toEqual(documentPurls);
    // What is skipped is exactly the purls listed twice (cyclonedx-npm lists a package once per place in node_modules).
    expect(inventory.skipped.length).toBe(components.length - documentPurls.size);
    for (const skipped of inventory.skipped) expect(skipped.reason).toMatch(/^duplicate of /);

    const metadata = (document.metadata as Json).component as Json;
    expect(inventory.subject).toEqual({ name: metadata.name, version: metadata.version });
    expect(inventory.components.some((component) => component.ref === metadata['bom-ref'])).toBe(false);
    expect(inventory.vulnerabilities).toEqual([]);
  });

  it('nested components (aws-cdk-lib bundles its dependencies) are components', () => {
    const document = fixture('cyclonedx-npm-1.6-prod.cdx.json');
    const nested = (document.components as Json[]).flatMap((component) => (component.components as Json[] | undefined) ?? []);
    expect(nested.length).toBeGreaterThan(10);
    const inventory = read('cyclonedx-npm-1.6-prod.cdx.json');
    const refs = new Set([...inventory.components.map((c) => c.ref), ...inventory.skipped.map((s) => s.component)]);
    for (const component of nested) expect(refs.has(component['bom-ref'] as string)).toBe(true);
  });

  it.each(REAL)('%s: licenses as written, and the other fields', (name) => {
    const document = fixture(name);
    const inventory = read(name);
    let withLicense = 0;
    for (const component of cyclonedxComponents(document)) {
      const read = inventory.components.find((c) => c.ref === component['bom-ref']);
      if (!read) continue; // a folded duplicate
      const licenses = writtenLicenses(component);
      if (licenses.length > 0) withLicense++;
      expect(read.declaredLicense).toBe(licenses.length === 1 ? licenses[0] : [...new Set(licenses)].join(' AND '));
      expect(read.concludedLicense).toBe('');
      expect(read).toMatchObject({ version: component.version, hadPurl: true, description: component.description ?? '' });
      // cyclonedx-npm writes group "@scope" and name "pkg", npm sbom name "@scope/pkg": the purl's parts are the same.
      expect([read.namespace, read.name].filter(Boolean).join('/')).toBe([component.group, component.name].filter(Boolean).join('/'));
      const sha512 = ((component.hashes as Json[] | undefined) ?? []).find((hash) => hash.alg === 'SHA-512');
      expect(read.hashes.sha512).toBe(sha512 ? (sha512.content as string) : undefined);
      const website = ((component.externalReferences as Json[] | undefined) ?? []).find((ref) => ref.type === 'website' && /^https?:/.test(ref.url as string));
      expect(read.homepageUrl).toBe(website ? website.url : '');
    }
    expect(withLicense).toBeGreaterThan(inventory.components.length / 2);
  });

  it('an expression from package.json stays one expression', () => {
    const inventory = read('cyclonedx-npm-1.6-full.cdx.json');
    const expressions = inventory.components.filter((component) => / OR /.test(component.declaredLicense));
    expect(expressions.length).toBeGreaterThan(0);
    for (const component of expressions) expect(component.declaredLicense).toMatch(/^\(.* OR .*\)$/);
  });

  it.each(REAL)('%s: dependencies resolve, through folded duplicates, and leave out the product', (name) => {
    const document = fixture(name);
    const inventory = read(name);
    const componentRefs = new Set(inventory.components.map((component) => component.ref));
    // The document's edges, with a duplicate's bom-ref standing for the component it was folded into.
    const folded = new Map(inventory.skipped.map((skipped) => [skipped.component, skipped.reason.replace(/^duplicate of /, '')]));
    const resolve = (ref: string) => folded.get(ref) ?? (componentRefs.has(ref) ? ref : undefined);
    const expected = new Set<string>();
    for (const entry of document.dependencies as { ref: string; dependsOn?: string[] }[]) {
      for (const target of entry.dependsOn ?? []) {
        const from = resolve(entry.ref);
        const to = resolve(target);
        if (from && to && from !== to) expected.add(`${from} → ${to}`);
      }
    }
    const actual = new Set([...inventory.dependencies].flatMap(([from, targets]) => targets.map((to) => `${from} → ${to}`)));
    expect(actual).toEqual(expected);
    expect(actual.size).toBeGreaterThan(20);
    for (const [from, targets] of inventory.dependencies) {
      expect(componentRefs.has(from)).toBe(true);
      for (const target of targets) expect(componentRefs.has(target)).toBe(true);
      expect(new Set(targets).size).toBe(targets.length);
    }
  });

  it('cyclonedx-npm and npm sbom describe the same tree: same packages and the same edges between them', () => {
    // Both producers read this repository's node_modules; with the edges named by purl, their graphs agree.
    const graph = (inventory: Inventory) => {
      const purl = new Map(inventory.components.map((component) => [component.ref, component.purl]));
      return new Set([...inventory.dependencies].flatMap(([from, targets]) => targets.map((to) => `${purl.get(from)} → ${purl.get(to)}`)));
    };
    const cyclonedxNpm = read('cyclonedx-npm-1.6-full.cdx.json');
    const npmSbom = read('npm-sbom-full.cdx.json');
    expect(new Set(npmSbom.components.map((c) => c.purl))).toEqual(new Set(cyclonedxNpm.components.map((c) => c.purl)));
    expect(graph(npmSbom)).toEqual(graph(cyclonedxNpm));
  });
});

describe('the purl is the catalog\'s', () => {
  it('every purl read is canonicalPurl of what the document wrote (the catalog service\'s canonical form)', () => {
    for (const name of [...REAL, 'edge-cases.cdx.json', 'combined.cdx.json']) {
      for (const component of read(name).components.filter((c) => c.hadPurl)) {
        expect(canonicalPurl(component.purl)).toBe(component.purl);
      }
    }
    const inventory = read('edge-cases.cdx.json');
    expect(byRef(inventory, 'expression-and-license').purl).toBe(canonicalPurl('pkg:pypi/Expression_And_License@2.0.0'));
  });
});

describe('hand-written: the choices', () => {
  const inventory = read('edge-cases.cdx.json');

  it('license entries: ids and names joined with AND once each, concluded ones apart', () => {
    expect(byRef(inventory, 'many-licenses')).toMatchObject({ declaredLicense: 'MIT AND SEE LICENSE IN LICENSE.md', concludedLicense: 'Apache-2.0' });
    expect(byRef(inventory, 'expression-and-license')).toMatchObject({ declaredLicense: 'GPL-2.0-only WITH Classpath-exception-2.0 OR MIT', concludedLicense: '' });
    expect(byRef(inventory, 'concluded-expression')).toMatchObject({ declaredLicense: '', concludedLicense: '(MIT OR Apache-2.0)' });
  });

  it('a 1.6 declared expression in evidence.licenses (where the export puts it beside a concluded one) is the declared one, unless licenses declares one', () => {
    const component = (licenses: Json[]) => ({
      type: 'library',
      name: 'x',
      version: '1',
      licenses,
      evidence: { licenses: [{ expression: 'MIT OR Apache-2.0', acknowledgement: 'declared' }, { license: { id: 'ISC', acknowledgement: 'concluded' } }] },
    });
    const document = (licenses: Json[]) => ({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [component(licenses)] });
    expect(cyclonedxInventory(document([{ license: { id: 'MIT', acknowledgement: 'concluded' } }]), '1.6').components[0]).toMatchObject({ declaredLicense: 'MIT OR Apache-2.0', concludedLicense: 'MIT' });
    expect(cyclonedxInventory(document([{ license: { id: 'BSD-3-Clause' } }]), '1.6').components[0]).toMatchObject({ declaredLicense: 'BSD-3-Clause', concludedLicense: '' });
  });

  it('compound parts are parenthesized when several are joined', () => {
    const document = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      components: [
        {
          type: 'library',
          name: 'x',
          version: '1',
          licenses: [{ expression: 'MIT OR Apache-2.0' }, { license: { id: 'BSD-3-Clause' } }, { expression: 'GPL-2.0-only WITH Classpath-exception-2.0' }, { expression: '(ISC) OR (0BSD)' }, { license: { name: 'NOASSERTION' } }],
        },
      ],
    };
    expect(cyclonedxInventory(document, '1.6').components[0]!.declaredLicense).toBe(
      '(MIT OR Apache-2.0) AND BSD-3-Clause AND GPL-2.0-only WITH Classpath-exception-2.0 AND ((ISC) OR (0BSD))',
    );
  });

  it('hashes, supplier, copyright, description, homepage and an http(s) download URL', () => {
    expect(byRef(inventory, 'many-licenses')).toMatchObject({
      hashes: { md5: 'd41d8cd98f00b204e9800998ecf8427e', sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
      supplier: 'Example Org',
      copyright: 'Copyright 2026 Example Org',
      description: 'A component with several licenses.',
      homepageUrl: 'https://many.example.org',
      // The ftp:// distribution is passed over for the https one.
      downloadUrl: 'https://registry.example.org/many-1.0.0.tgz',
    });
    expect(byRef(inventory, 'many-licenses').hashes).not.toHaveProperty('sha512');
  });

  it("takes the hashes of a component's distribution reference (where cyclonedx-npm writes the tarball's integrity), its own first", () => {
    const sha512 = 'ab'.repeat(64);
    const document = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      components: [
        {
          type: 'library',
          name: 'express',
          version: '4.19.2',
          purl: 'pkg:npm/express@4.19.2',
          hashes: [{ alg: 'SHA-1', content: 'A'.repeat(40) }],
          externalReferences: [
            { type: 'vcs', url: 'https://github.com/expressjs/express', hashes: [{ alg: 'SHA-256', content: 'c'.repeat(64) }] },
            { type: 'distribution', url: 'https://registry.npmjs.org/express/-/express-4.19.2.tgz', hashes: [{ alg: 'SHA-512', content: sha512 }, { alg: 'SHA-1', content: 'b'.repeat(40) }] },
          ],
        },
      ],
    };
    expect(cyclonedxInventory(document, '1.6').components[0]!.hashes).toEqual({ sha1: 'a'.repeat(40), sha512 });
  });

  it('components without purl are generic, named by group, name and version', () => {
    expect(byRef(inventory, 'no-purl')).toMatchObject({
      type: 'generic',
      namespace: 'com.example',
      name: 'no purl here',
      version: '3.1 beta',
      purl: 'pkg:generic/com.example/no%20purl%20here@3.1%20beta',
      hadPurl: false,
    });
    expect(byRef(inventory, 'nested-file')).toMatchObject({ type: 'generic', namespace: '', name: 'lib/inner.jar', version: '', purl: 'pkg:generic/lib%2Finner.jar' });
  });

  it('a component without purl or bom-ref is named by its purl', () => {
    expect(byRef(inventory, 'pkg:npm/no-ref@1.2.3')).toMatchObject({ name: 'no-ref', version: '1.2.3' });
  });

  it('what cannot be a package is skipped with its reason, never fatal', () => {
    expect(inventory.skipped).toEqual([
      // Named for a person by purl (or name and version) beside the bom-ref that identifies it in the document.
      { component: 'nested-bad-purl', name: 'npm/not-a-purl@1.0', reason: 'invalid purl "npm/not-a-purl@1.0": missing required "pkg" scheme component' },
      { component: 'empty-name', reason: 'no name and no purl' },
      { component: 'invisible', name: 'pkg:npm/ca%E2%80%8Bfe@1.0.0', reason: 'its purl holds the invisible character U+200B' },
      { component: 'again-many-licenses', name: 'pkg:npm/many-licenses@1.0.0', reason: 'duplicate of many-licenses' },
      { component: 'no-purl', name: 'pkg:npm/other@9', reason: 'its reference "no-purl" already names another component' },
    ]);
    const document = fixture('edge-cases.cdx.json');
    expect(inventory.components.length + inventory.skipped.length).toBe(cyclonedxComponents(document).length);
  });

  it('the described product\'s own components are components; the product is the subject', () => {
    expect(inventory.subject).toEqual({ name: 'edge-product', version: '1.0' });
    expect(byRef(inventory, 'inside-product').purl).toBe('pkg:npm/inside@0.1');
  });

  it('dependencies: the duplicate\'s edges land on the first, edges to skipped or unknown refs and from the product are dropped', () => {
    expect(Object.fromEntries(inventory.dependencies)).toEqual({
      'inside-product': ['many-licenses'],
      'many-licenses': ['expression-and-license', 'concluded-expression'],
      'expression-and-license': ['no-purl', 'pkg:npm/no-ref@1.2.3'],
    });
  });
});

describe('vulnerabilities (VEX)', () => {
  it('a VEX-only document: analyses, aliases, the highest score, affects by purl', () => {
    const inventory = read('vex.cdx.json');
    expect(inventory).toMatchObject({ vexOnly: true, components: [], skipped: [] });
    expect(inventory.vulnerabilities).toEqual([
      {
        id: 'CVE-2099-10001',
        aliases: ['GHSA-9x9x-test-0001'],
        summary: 'Test advisory: a crafted URI makes the parser loop (fixture data, not a real vulnerability).',
        riskScore: 7.5,
        affects: ['pkg:npm/uri-js@4.4.1'],
        analysis: { state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix', 'update'], detail: 'The service never parses URIs from users with this library.' },
      },
      {
        id: 'GHSA-9x9x-test-0002',
        aliases: [],
        summary: 'Only a detail: it becomes the summary.',
        riskScore: null,
        // Two spellings of one purl are one package; a BOM-Link naming no component of this document is
        // kept for the import to resolve against the product (test/unit/sbom-import-plan.test.ts).
        affects: ['pkg:npm/%40middy/core@7.9.2', 'urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#middy-core'],
        analysis: { state: 'in_triage', justification: null, responses: [], detail: '' },
      },
      { id: 'CVE-2099-10003', aliases: [], summary: '', riskScore: null, affects: ['pkg:npm/zod@4.6.7'], analysis: null },
    ]);
    expect(inventory.warnings ?? []).toEqual([]);
    expect(inventory.serial).toBe('3e671687-395b-41f5-a30f-a58921a69b79');
  });

  it('a combined document: affects by bom-ref and purl name its components; the product itself is not a package', () => {
    const inventory = read('combined.cdx.json');
    expect(inventory.vexOnly).toBe(false);
    expect(inventory.components.map((c) => c.ref)).toEqual(['lib-a', 'lib-b']);
    expect(inventory.vulnerabilities.map((v) => [v.id, v.affects, v.riskScore, v.analysis?.state])).toEqual([
      ['CVE-2099-20001', ['lib-b'], 9.8, 'exploitable'],
      ['CVE-2099-20002', ['lib-a'], null, 'resolved_with_pedigree'],
    ]);
    expect(inventory.warnings).toEqual(['/vulnerabilities/1: CVE-2099-20002 affects the described product itself ("acme-app"), which is not a package; left out.']);
    expect(Object.fromEntries(inventory.dependencies)).toEqual({ 'lib-a': ['lib-b'] });
  });

  it('values outside the domain enums read as null (or are dropped from responses); no id, no vulnerability', () => {
    const inventory = cyclonedxInventory(
      {
        bomFormat: 'CycloneDX',
        specVersion: '1.4',
        components: [],
        vulnerabilities: [
          { id: 'CVE-2099-1', analysis: { state: 'fixed', justification: 'because', response: ['update', 'pray'], detail: 'd' }, ratings: [{ score: 11 }, { score: 3.25 }], affects: [{ ref: 'pkg:npm/a@1' }] },
          { description: 'no id' },
          { id: 'CVE-2099-2', analysis: { state: 'bogus' } },
        ],
      },
      '1.4',
    );
    expect(inventory.vexOnly).toBe(true);
    expect(inventory.vulnerabilities).toEqual([
      { id: 'CVE-2099-1', aliases: [], summary: '', riskScore: 3.3, affects: ['pkg:npm/a@1'], analysis: { state: null, justification: null, responses: ['update'], detail: 'd' } },
      { id: 'CVE-2099-2', aliases: [], summary: '', riskScore: null, affects: [], analysis: null },
    ]);
    expect(inventory.warnings).toEqual(['/vulnerabilities/1: a vulnerability without an id was left out.']);
  });

  it('every CycloneDX analysis state maps to the domain state of the same name', () => {
    for (const state of ['resolved', 'resolved_with_pedigree', 'exploitable', 'in_triage', 'false_positive', 'not_affected']) {
      const inventory = cyclonedxInventory({ vulnerabilities: [{ id: 'X-1', analysis: { state } }] }, '1.6');
      expect(inventory.vulnerabilities[0]!.analysis!.state).toBe(state);
    }
  });

  it('a document with neither components nor vulnerabilities is not VEX-only', () => {
    const inventory = cyclonedxInventory({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [] }, '1.6');
    expect(inventory).toMatchObject({ vexOnly: false, components: [], vulnerabilities: [] });
  });
});
