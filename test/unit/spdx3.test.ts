/**
 * SPDX 3.0 JSON-LD: the reader (shared/sbom/spdx3.ts) on real documents — the SPDX project's examples
 * (spdx/spdx-examples, spdx/spdx-3-model) and OpenEmbedded's output for a Yocto image (VEX included) —
 * against what each document says, counted here from its JSON independently of the reader; the schema
 * check against the schema as written; the writer (shared/sbom/write-spdx3.ts): valid, deterministic,
 * and read back to the same packages, licenses, dependencies, vulnerabilities and analyses; and bad
 * input, which gives an error or a warning and never a throw. Fixture sources: test/fixtures/sbom/spdx3/.
 */
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ANALYSIS_STATES } from '../../shared/domain/catalog.ts';
import { storedTextProblem } from '../../shared/domain/stored-text.ts';
import type { ExportModel } from '../../shared/sbom/export-model.ts';
import { DocumentLicenses } from '../../shared/sbom/export-licenses.ts';
import type { Inventory, SbomAnalysis } from '../../shared/sbom/inventory.ts';
import { checkSpdx3, spdx3Context, spdx3Inventory, spdx3TextErrors, spdx3Version, SPDX3_VERSIONS } from '../../shared/sbom/spdx3.ts';
import schema from '../../shared/sbom/spdx-3.0.1-schema.json' with { type: 'json' };
import { writeSpdx3 } from '../../shared/sbom/write-spdx3.ts';
import { canonicalPurl } from '../../shared/services/catalog.ts';
import { anExportModel, anExportPackage, anExportVulnerability } from '../support/export-model.ts';
import { fixture } from '../support/sbom-documents.ts';

type Json = Record<string, any>;

const PACKAGE_TYPES = ['software_Package', 'ai_AIPackage', 'dataset_DatasetPackage'];
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const graphOf = (document: Json): Json[] => document['@graph'];

function read(document: Json): Inventory {
  const version = spdx3Version(document);
  if (!('version' in version)) throw new Error(version.error);
  return spdx3Inventory(document, version.version);
}

/** What the document says, counted from its JSON: its packages, their purls and licenses, and the dependsOn edges. */
function expected(document: Json, subjectId: string | null) {
  const graph = graphOf(document);
  const byId = new Map(graph.map((element) => [element.spdxId, element]));
  const packages = graph.filter((element) => PACKAGE_TYPES.includes(element.type) && element.spdxId !== subjectId);
  const license = (pkg: Json, type: string) =>
    graph
      .filter((element) => element.relationshipType === type && element.from === pkg.spdxId)
      .flatMap((relationship) => relationship.to.map((to: string) => byId.get(to)?.simplelicensing_licenseExpression ?? ''))
      .filter((expression: string) => expression !== 'NOASSERTION' && expression !== 'NONE')
      .join(' AND ');
  const purl = (pkg: Json): string => pkg.software_packageUrl ?? (pkg.externalIdentifier ?? []).find((identifier: Json) => identifier.externalIdentifierType === 'packageUrl')?.identifier ?? '';
  const ids = new Set(packages.map((pkg) => pkg.spdxId));
  const edges = graph
    .filter((element) => element.relationshipType === 'dependsOn' && ids.has(element.from))
    .flatMap((relationship) => relationship.to.filter((to: string) => ids.has(to) && to !== relationship.from).map((to: string) => `${relationship.from} → ${to}`));
  return { packages, license, purl, edges: new Set(edges) };
}

const edgesOf = (inventory: Inventory) => new Set([...inventory.dependencies].flatMap(([from, targets]) => targets.map((to) => `${from} → ${to}`)));

describe('real SPDX 3.0.1 documents', () => {
  const FIXTURES = [
    // [file, the described product's name and version as the document gives them (null: none)]
    ['spdx-examples-example9-appbomination.spdx3.json', { name: 'App-BOM-ination', version: '1.0' }],
    ['spdx-examples-example11-sbom.spdx3.json', { name: 'hello-server-src', version: '0.1.0' }],
    ['spdx-examples-example13.spdx3.json', { name: 'Acme Application', version: '1.3' }],
    ['spdx-examples-example6-bin.spdx3.json', { name: 'hello-go-bin', version: '' }],
  ] as const;

  it.each(FIXTURES)('%s validates against the SPDX 3.0.1 schema, its text is storable', (name) => {
    const document = fixture(`spdx3/${name}`);
    expect(spdx3Version(document)).toEqual({ version: '3.0.1' });
    expect(checkSpdx3(document)).toEqual({ errors: [], warnings: [] });
    expect(spdx3TextErrors(document)).toEqual([]);
  });

  it.each(FIXTURES)('%s: every package but the described one is read, with its purl, version, licenses and hashes', (name, subject) => {
    const document = fixture(`spdx3/${name}`);
    const subjectElement = graphOf(document).find((element) => PACKAGE_TYPES.includes(element.type) && element.name === subject.name)!;
    const { packages, license, purl } = expected(document, subjectElement.spdxId);
    const inventory = read(document);
    expect(inventory).toMatchObject({ format: 'spdx', specVersion: '3.0.1', subject, vexOnly: false, vulnerabilities: [] });
    expect(inventory.components.length + inventory.skipped.length).toBe(packages.length);
    expect(inventory.skipped).toEqual([]);
    for (const pkg of packages) {
      const component = inventory.components.find((candidate) => candidate.ref === pkg.spdxId)!;
      const written = purl(pkg);
      expect(component.purl).toBe(written ? canonicalPurl(written) : canonicalPurl(`pkg:generic/${encodeURIComponent(pkg.name)}${pkg.software_packageVersion ? `@${encodeURIComponent(pkg.software_packageVersion)}` : ''}`));
      expect(component).toMatchObject({
        hadPurl: written !== '',
        name: written ? component.name : pkg.name,
        version: pkg.software_packageVersion ?? '',
        declaredLicense: license(pkg, 'hasDeclaredLicense'),
        concludedLicense: license(pkg, 'hasConcludedLicense'),
        homepageUrl: pkg.software_homePage ?? '',
        downloadUrl: /^https?:/.test(pkg.software_downloadLocation ?? '') ? pkg.software_downloadLocation : '',
      });
      expect(Object.keys(component.hashes).length).toBe((pkg.verifiedUsing ?? []).filter((hash: Json) => ['md5', 'sha1', 'sha256', 'sha512'].includes(hash.algorithm)).length);
    }
  });

  it.each(FIXTURES)('%s: dependsOn between packages is the dependency graph (edges of the described product are not)', (name, subject) => {
    const document = fixture(`spdx3/${name}`);
    const subjectElement = graphOf(document).find((element) => PACKAGE_TYPES.includes(element.type) && element.name === subject.name)!;
    expect(edgesOf(read(document))).toEqual(expected(document, subjectElement.spdxId).edges);
  });

  it('example9 (the SPDX Java tools\' 2.3 → 3.0 conversion): purls, a LicenseRef, an OR expression and the one edge between packages', () => {
    const inventory = read(fixture('spdx3/spdx-examples-example9-appbomination.spdx3.json'));
    expect(inventory.components.map((component) => component.purl).filter((purl) => !purl.startsWith('pkg:generic/'))).toEqual([
      'pkg:maven/org.hamcrest/hamcrest-core@1.3',
      'pkg:maven/junit/junit@4.12',
      'pkg:maven/org.apache.commons/commons-lang3@3.4',
      'pkg:maven/org.slf4j/slf4j-api@1.7.21',
    ]);
    const faust = inventory.components.find((component) => component.name === 'Faust Proprietary File')!;
    expect(faust).toMatchObject({ declaredLicense: 'LicenseRef-1', concludedLicense: 'LicenseRef-1', purl: 'pkg:generic/Faust%20Proprietary%20File' });
    expect(edgesOf(inventory).size).toBe(1);
    const junit = inventory.components.find((component) => component.name === 'junit')!;
    expect(inventory.dependencies.get(junit.ref)).toEqual([inventory.components.find((component) => component.name === 'hamcrest-core')!.ref]);
  });

  it('example11 (the Kubernetes release tooling\'s bom): NOASSERTION and NONE read as no license, an OR expression as written', () => {
    const inventory = read(fixture('spdx3/spdx-examples-example11-sbom.spdx3.json'));
    expect(inventory.components.map((component) => [component.purl, component.declaredLicense, component.concludedLicense])).toEqual([
      ['pkg:cargo/hyper@0.14', '', 'MIT'],
      ['pkg:cargo/tokio@1.19.2', '', 'MIT'],
      ['pkg:cargo/pretty_env_logger@0.4.0', '', '(MIT OR Apache-2.0)'],
    ]);
  });

  it('example6-bin names a package of another document: a warning, and the edge left out', () => {
    const inventory = read(fixture('spdx3/spdx-examples-example6-bin.spdx3.json'));
    expect(inventory.warnings).toEqual([expect.stringMatching(/^Relationships name elements the document does not hold \("https:\/\/swinslow\.net\/spdx-examples\/example6\/go-lib-v2#SPDXRef-Package-go\.fmt"\)/)]);
  });
});

describe('a real SPDX 3.0.0 document of one element (spdx/spdx-3-model\'s package example)', () => {
  it('is 3.0.0, checked against the 3.0.1 schema with a warning, and its one package is read (its purl is not one: skipped)', () => {
    const document = fixture('spdx3/spdx-3-model-package1-3.0.0.json');
    expect(spdx3Version(document)).toEqual({ version: '3.0.0' });
    const check = checkSpdx3(document);
    expect(check.errors).toEqual([]);
    expect(check.warnings).toEqual([expect.stringContaining('SPDX 3.0.0 is checked against the SPDX 3.0.1 schema')]);
    expect(spdx3TextErrors(document)).toEqual([]);
    const inventory = spdx3Inventory(document, '3.0.0');
    expect(inventory).toMatchObject({ specVersion: '3.0.0', subject: null, components: [] });
    expect(inventory.skipped).toEqual([{ component: document.spdxId, name: 'https://some.purl', reason: expect.stringContaining('invalid purl') }]);
    // Without its purl it is a package like any other: everything the element says is read.
    const { software_packageUrl: _, ...withoutPurl } = document;
    const [component] = spdx3Inventory(withoutPurl, '3.0.0').components;
    expect(component).toMatchObject({
      purl: 'pkg:generic/packageName@12.2',
      description: 'packageDescription',
      homepageUrl: 'https://homepage.com',
      downloadUrl: 'https://download.com',
      hashes: { sha1: (document.verifiedUsing as Json[])[0]!.hashValue, sha256: (document.verifiedUsing as Json[])[1]!.hashValue },
    });
  });
});

describe('OpenEmbedded\'s SPDX 3.0.1 output for a Yocto image (with VEX)', () => {
  const NAME = 'spdx3/yocto-core-image-minimal-qemux86-64.rootfs.spdx3.json';
  const document = fixture(NAME);
  const graph = graphOf(document);
  const byId = new Map(graph.map((element) => [element.spdxId, element]));
  const cve = (vulnerabilityId: string) => byId.get(vulnerabilityId)!.externalIdentifier.find((identifier: Json) => identifier.externalIdentifierType === 'cve').identifier as string;

  it('validates, and its root package is the subject', () => {
    expect(checkSpdx3(document)).toEqual({ errors: [], warnings: [] });
    expect(spdx3TextErrors(document)).toEqual([]);
    expect(read(document).subject).toEqual({ name: 'core-image-minimal', version: '' });
  });

  it('every other package is read or skipped as a duplicate of the same name and version (OpenEmbedded lists a source tarball once per recipe)', () => {
    const inventory = read(document);
    const packages = graph.filter((element) => element.type === 'software_Package' && element.name !== 'core-image-minimal');
    expect(inventory.components.length + inventory.skipped.length).toBe(packages.length);
    expect(inventory.components.length).toBe(new Set(packages.map((pkg) => `${pkg.name}@${pkg.software_packageVersion ?? ''}`)).size);
    for (const skipped of inventory.skipped) expect(skipped.reason).toMatch(/^duplicate of /);
    const withHash = packages.filter((pkg) => pkg.verifiedUsing?.some((hash: Json) => hash.algorithm === 'sha256'));
    for (const pkg of withHash) {
      const component = inventory.components.find((candidate) => candidate.ref === pkg.spdxId);
      if (component) expect(component.hashes.sha256).toBe(pkg.verifiedUsing.find((hash: Json) => hash.algorithm === 'sha256').hashValue);
    }
    const libacl = inventory.components.find((component) => component.name === 'libacl1')!;
    expect(libacl).toMatchObject({ purl: 'pkg:generic/libacl1@2.3.2', concludedLicense: 'LGPL-2.1-or-later', homepageUrl: 'http://savannah.nongnu.org/projects/acl/' });
  });

  it('its VEX statements and associations become the analyses, statement by statement', () => {
    const inventory = read(document);
    const components = new Set(inventory.components.map((component) => component.ref));
    const states: Record<string, string> = {
      security_VexNotAffectedVulnAssessmentRelationship: 'not_affected',
      security_VexFixedVulnAssessmentRelationship: 'resolved',
      security_VexAffectedVulnAssessmentRelationship: 'exploitable',
      security_VexUnderInvestigationVulnAssessmentRelationship: 'in_triage',
    };
    // CVE and package → state, from the document; the later statement of a pair wins (these have no times).
    const want = new Map<string, string>();
    for (const element of graph) {
      if (states[element.type]) for (const to of element.to) want.set(`${cve(element.from)} ${to}`, states[element.type]!);
    }
    for (const element of graph.filter((candidate) => candidate.relationshipType === 'hasAssociatedVulnerability')) {
      for (const to of element.to) if (!want.has(`${cve(to)} ${element.from}`)) want.set(`${cve(to)} ${element.from}`, 'none');
    }
    const got = new Map(inventory.vulnerabilities.flatMap((vulnerability) => vulnerability.affects.map((ref) => [`${vulnerability.id} ${ref}`, vulnerability.analysis?.state ?? 'none'] as const)));
    expect(got).toEqual(new Map([...want].filter(([key]) => components.has(key.split(' ')[1]!))));
    expect([...got.values()].filter((state) => state === 'not_affected').length).toBeGreaterThan(20);
    expect([...got.values()]).toContain('resolved');
    // Its associations (hasAssociatedVulnerability) are all of pairs a statement also speaks of: the statement wins.
    expect(graph.some((element) => element.relationshipType === 'hasAssociatedVulnerability')).toBe(true);
    // Every vulnerability id of the document, each once per analysis (some only named, with no statement).
    expect(new Set(inventory.vulnerabilities.map((vulnerability) => vulnerability.id))).toEqual(new Set(graph.filter((element) => element.type === 'security_Vulnerability').map((element) => cve(element.spdxId))));
  });

  it('an impact statement is the detail', () => {
    const inventory = read(document);
    const statement = graph.find((element) => element.type === 'security_VexNotAffectedVulnAssessmentRelationship' && element.security_impactStatement)!;
    const vulnerability = inventory.vulnerabilities.find((candidate) => candidate.id === cve(statement.from) && candidate.affects.includes(statement.to[0]))!;
    expect(vulnerability.analysis).toEqual({ state: 'not_affected', justification: null, responses: [], detail: `Impact statement: ${statement.security_impactStatement}` });
  });
});

describe('checkSpdx3 gives the schema\'s verdict', () => {
  // The schema as written, compiled as the SPDX project publishes it (slow, here only on small documents).
  const asWritten = new Ajv2020({ allErrors: false, strict: false }).compile(schema);
  const valid = (document: unknown) => checkSpdx3(document as Json).errors.length === 0;

  /** Deterministic mutations of a document: one property of one element removed, retyped, renamed, or the element's type changed. */
  function mutations(document: Json, count: number): Json[] {
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), seed % n);
    const out: Json[] = [];
    for (let i = 0; i < count; i++) {
      const copy = clone(document);
      const elements = copy['@graph'] as Json[];
      const element = elements[next(elements.length)]!;
      const keys = Object.keys(element);
      const key = keys[next(keys.length)]!;
      switch (next(7)) {
        case 0:
          delete element[key];
          break;
        case 1:
          element[key] = 42;
          break;
        case 2:
          element[key] = [element[key]];
          break;
        case 3:
          element.type = ['software_File', 'Relationship', 'software_Pkg', 'Hash', 'CreationInfo'][next(5)];
          break;
        case 4:
          element[`${key}X`] = element[key];
          break;
        case 5:
          element[key] = { type: 'CreationInfo', specVersion: '3.0.1', created: '2024-01-01T00:00:00Z', createdBy: ['urn:x:a'] };
          break;
        default:
          element[key] = typeof element[key] === 'string' ? `_:${element[key]}` : 'urn:x:y';
      }
      out.push(copy);
    }
    return out;
  }

  const small = [fixture('spdx3/spdx-examples-example13.spdx3.json'), fixture('spdx3/spdx-examples-example11-sbom.spdx3.json'), writeSpdx3(aRichModel())];

  it.each(small.map((document, index) => [index, document] as const))('on document %i and 60 mutations of it', (_, document) => {
    const documents = [document, ...mutations(document as Json, 60)];
    const verdicts = documents.map((candidate) => [valid(candidate), asWritten(clone(candidate))]);
    for (const [fast, written] of verdicts) expect(fast).toBe(written);
    // Both verdicts occur: the comparison can fail.
    expect(new Set(verdicts.map(([fast]) => fast))).toEqual(new Set([true, false]));
  });

  it('on a document of one element, inline CreationInfo, and a @graph beside other keys', () => {
    const single = { ...fixture('spdx3/spdx-3-model-package1-3.0.0.json'), '@context': spdx3Context('3.0.1'), software_packageUrl: 'pkg:npm/x@1' };
    const beside = { ...fixture('spdx3/spdx-examples-example13.spdx3.json'), type: 'Tool' };
    const untyped = { ...single, type: undefined };
    for (const document of [single, beside, JSON.parse(JSON.stringify(untyped)), { '@context': spdx3Context('3.0.1'), '@graph': [] }, { '@context': spdx3Context('3.0.1') }]) {
      expect(valid(document)).toBe(asWritten(clone(document)));
    }
    expect(valid(single)).toBe(true);
    expect(valid(beside)).toBe(false);
  });

  it('errors are "<JSON pointer>: <message>", at most 20, and name an unknown property, a type that is no class, a wrong context', () => {
    const document = clone(fixture('spdx3/spdx-examples-example13.spdx3.json')) as Json;
    document['@graph'][3].software_packageVersoin = '1';
    document['@graph'][4].type = 'software_Pkg';
    delete document['@graph'][5].type;
    expect(checkSpdx3(document).errors).toEqual(
      expect.arrayContaining(['/@graph/3: must NOT have unevaluated properties: "software_packageVersoin"', '/@graph/4/type: "software_Pkg" is not an SPDX 3.0.1 class', "/@graph/5: must have required property 'type'"]),
    );
    const many = { ...document, '@graph': [...document['@graph'], ...Array.from({ length: 40 }, (_, i) => ({ type: 'software_Package', spdxId: `urn:x:${i}`, creationInfo: 7 }))] };
    const errors = checkSpdx3(many).errors;
    expect(errors.length).toBe(20);
    for (const error of errors) expect(error).toMatch(/^\/[^ ]*: ./);
    expect(checkSpdx3({ ...document, '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.json' }).errors).toContain('/@context: must be "https://spdx.org/rdf/3.0.1/spdx-context.jsonld" (a string: the schema allows no other context)');
  });
});

/** A product with one of everything: every license form, dependencies with a cycle, every analysis state, no analysis. */
function aRichModel(): ExportModel {
  const core = anExportPackage({
    name: 'core',
    namespace: '@acme',
    purl: 'pkg:npm/%40acme/core@1.0.0',
    version: '1.0.0',
    declaredLicenseSpdx: 'MIT',
    concludedLicenseSpdx: 'MIT',
    hashes: { md5: 'D41D8CD98F00B204E9800998ECF8427E', sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
    description: 'The "core" — with quotes, a backslash \\ and a newline\nin it.',
    homepageUrl: 'https://acme.example/core',
    downloadUrl: 'https://registry.npmjs.org/@acme/core/-/core-1.0.0.tgz',
    supplier: 'Acme, Inc.',
    copyright: 'Copyright (c) 2024 Acme "Labs"',
  });
  const dual = anExportPackage({ name: 'dual', declaredLicenseSpdx: 'MIT OR GPL-3.0-only', concludedLicenseSpdx: 'MIT' });
  const compound = anExportPackage({ name: 'compound', declaredLicenseSpdx: '(MIT AND Zlib) OR Apache-2.0', concludedLicenseSpdx: 'Apache-2.0 AND (MIT OR Zlib)' });
  const proprietary = anExportPackage({ name: 'vendor-blob', declaredLicenseSpdx: 'LicenseRef-scancode-proprietary-license AND LicenseRef-acme-eula', concludedLicenseSpdx: 'LicenseRef-acme-eula', supplier: 'Person: Jane Roe' });
  const classpath = anExportPackage({ name: 'jdk-thing', type: 'maven', namespace: 'org.example', purl: 'pkg:maven/org.example/jdk-thing@17', version: '17', declaredLicenseSpdx: 'GPL-2.0-only WITH Classpath-exception-2.0' });
  const cycleA = anExportPackage({ name: 'cycle-a', declaredLicenseSpdx: 'ISC', concludedLicenseSpdx: '' });
  const cycleB = anExportPackage({ name: 'cycle-b', declaredLicenseSpdx: '' });
  const packages = [core, dual, compound, proprietary, classpath, cycleA, cycleB];
  const analysis = (state: SbomAnalysis['state'], more: Partial<SbomAnalysis> = {}): SbomAnalysis => ({ state, justification: null, responses: [], detail: '', ...more });
  return anExportModel({
    product: { uuid: '0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Shop “Front” — 店', version: '3.0', apiUrl: 'https://compliance.example.com/api/v2/products/0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b/' },
    packages,
    dependencies: new Map([
      [core.uuid, [dual.uuid, compound.uuid, core.uuid]],
      [dual.uuid, [compound.uuid]],
      [cycleA.uuid, [cycleB.uuid]],
      [cycleB.uuid, [cycleA.uuid]],
    ]),
    vulnerabilities: [
      anExportVulnerability({
        id: 'CVE-2024-1234',
        aliases: ['GHSA-35m5-8cvj-8783', 'PYSEC-2024-7'],
        summary: 'Prototype pollution in "core"',
        riskScore: 8.1,
        affects: [
          { packageUuid: core.uuid, analysis: analysis('not_affected', { justification: 'code_not_reachable', responses: ['will_not_fix'], detail: 'The merge function is never called.' }) },
          { packageUuid: dual.uuid, analysis: analysis('exploitable', { responses: ['update', 'workaround_available'] }) },
          { packageUuid: compound.uuid, analysis: null, fixedVersions: ['2.0.1'] },
          { packageUuid: proprietary.uuid, analysis: analysis('false_positive') },
          { packageUuid: classpath.uuid, analysis: analysis('resolved', { detail: 'Patched in our build.' }) },
          { packageUuid: cycleA.uuid, analysis: analysis('resolved_with_pedigree', { justification: 'protected_by_compiler' }) },
          { packageUuid: cycleB.uuid, analysis: analysis('in_triage') },
        ],
      }),
      anExportVulnerability({ id: 'GHSA-jfh8-c2jp-5v3q', aliases: [], riskScore: null, summary: '', affects: [{ packageUuid: core.uuid, analysis: analysis(null, { justification: 'requires_environment', detail: 'Waiting on the vendor.' }) }] }),
      anExportVulnerability({ id: 'CVE-2024-9999', aliases: ['GHSA-aaaa-bbbb-cccc'], riskScore: 3.3, affects: [{ packageUuid: dual.uuid, analysis: analysis('not_affected') }, { packageUuid: compound.uuid, analysis: null }] }),
    ],
    licenseRefs: new Map([['LicenseRef-acme-eula', { name: 'Acme End User License', text: 'You may use this software only on Tuesdays.' }]]),
  });
}

describe('writeSpdx3', () => {
  it('writes an SPDX 3.0.1 document the schema accepts, the same for the same model', () => {
    const model = aRichModel();
    const document = writeSpdx3(model);
    expect(checkSpdx3(clone(document))).toEqual({ errors: [], warnings: [] });
    expect(spdx3TextErrors(clone(document))).toEqual([]);
    expect(JSON.stringify(writeSpdx3(model))).toBe(JSON.stringify(document));
    expect(document['@context']).toBe('https://spdx.org/rdf/3.0.1/spdx-context.jsonld');
    const creationInfo = document['@graph'][0]!;
    expect(creationInfo).toMatchObject({ type: 'CreationInfo', '@id': '_:creationinfo', specVersion: '3.0.1', created: '2026-11-25T10:20:30Z' });
    const spdxIds = document['@graph'].flatMap((element) => (element.spdxId ? [element.spdxId as string] : []));
    expect(new Set(spdxIds).size).toBe(spdxIds.length);
    for (const spdxId of spdxIds) expect(spdxId.startsWith(`https://compliance.example.com/api/v2/products/0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b/spdx/${model.documentUuid}#`)).toBe(true);
  });

  it('the schema check catches a broken export (the check above can fail)', () => {
    const document = clone(writeSpdx3(aRichModel())) as Json;
    const pkg = document['@graph'].find((element: Json) => element.name === 'core');
    pkg.verifiedUsing[0].algorithm = 'sha999';
    // First what is wrong, then what the schema's other kinds of integrity method would have wanted instead.
    expect(checkSpdx3(document).errors[0]).toMatch(/^\/@graph\/\d+\/verifiedUsing\/0\/algorithm: must be equal to one of the allowed values: "adler32", /);
  });

  it('reads back to the same packages, licenses, dependencies, vulnerabilities and analyses', () => {
    const model = aRichModel();
    const inventory = spdx3Inventory(writeSpdx3(model), '3.0.1');
    const licenses = new DocumentLicenses(model.licenseRefs);
    expect(inventory.subject).toEqual({ name: model.product.name, version: model.product.version });
    expect(inventory.skipped).toEqual([]);
    expect(inventory.warnings).toBeUndefined();
    const purlOf = new Map(inventory.components.map((component) => [component.ref, component.purl]));
    expect(inventory.components.map((component) => [component.purl, component.version, component.declaredLicense, component.concludedLicense])).toEqual(
      model.packages.map((pkg) => [canonicalPurl(pkg.purl), pkg.version, licenses.license(pkg.declaredLicenseSpdx).expression, licenses.license(pkg.concludedLicenseSpdx).expression]),
    );
    const core = inventory.components.find((component) => component.name === 'core')!;
    const source = model.packages[0]!;
    expect(core).toMatchObject({
      hashes: { md5: source.hashes.md5!.toLowerCase(), sha1: source.hashes.sha1, sha256: source.hashes.sha256 },
      homepageUrl: source.homepageUrl,
      downloadUrl: source.downloadUrl,
      supplier: 'Acme, Inc.',
      copyright: source.copyright,
      description: source.description.replace('\n', ' '),
    });
    expect(inventory.components.find((component) => component.name === 'vendor-blob')!.licenseHints?.get('LicenseRef-acme-eula')).toEqual({ name: 'Acme End User License', text: 'You may use this software only on Tuesdays.' });
    expect(inventory.components.find((component) => component.name === 'vendor-blob')!.supplier).toBe('Jane Roe');

    const byUuid = new Map(model.packages.map((pkg) => [pkg.uuid, canonicalPurl(pkg.purl)]));
    const modelEdges = new Set([...model.dependencies].flatMap(([from, targets]) => targets.filter((to) => to !== from).map((to) => `${byUuid.get(from)} → ${byUuid.get(to)}`)));
    expect(new Set([...edgesOf(inventory)].map((edge) => edge.split(' → ').map((ref) => purlOf.get(ref)).join(' → ')))).toEqual(modelEdges);

    const flat = (entries: readonly { id: string; aliases: readonly string[]; summary: string; riskScore: number | null; affects: readonly string[]; analysis: SbomAnalysis | null }[], refOf: (ref: string) => string) =>
      new Set(entries.flatMap((entry) => entry.affects.map((ref) => JSON.stringify([entry.id, [...entry.aliases].sort(), entry.summary, entry.riskScore, refOf(ref), entry.analysis]))));
    const want = flat(
      model.vulnerabilities.flatMap((vulnerability) => vulnerability.affects.map((affected) => ({ ...vulnerability, affects: [affected.packageUuid], analysis: affected.analysis }))),
      (uuid) => byUuid.get(uuid)!,
    );
    expect(flat(inventory.vulnerabilities, (ref) => purlOf.get(ref)!)).toEqual(want);
    // Every state, and no state, came back as it was.
    const states = new Set(inventory.vulnerabilities.map((vulnerability) => vulnerability.analysis?.state));
    for (const state of [...ANALYSIS_STATES, null, undefined]) expect(states.has(state as never)).toBe(true);
  });

  it('writes each analysis as the VEX class of its state, to the product with the package assessed, and no analysis as hasAssociatedVulnerability', () => {
    const model = aRichModel();
    const document = writeSpdx3(model);
    const graph = document['@graph'];
    const product = graph.find((element) => element.name === model.product.name && element.type === 'software_Package')!;
    const name = (spdxId: unknown) => graph.find((element) => element.spdxId === spdxId)!.name;
    const vex = graph.filter((element) => String(element.type).startsWith('security_Vex'));
    expect(vex.map((element) => [element.type, element.relationshipType, name(element.security_assessedElement)])).toEqual([
      ['security_VexNotAffectedVulnAssessmentRelationship', 'doesNotAffect', 'core'],
      ['security_VexAffectedVulnAssessmentRelationship', 'affects', 'dual'],
      ['security_VexNotAffectedVulnAssessmentRelationship', 'doesNotAffect', 'vendor-blob'],
      ['security_VexFixedVulnAssessmentRelationship', 'fixedIn', 'jdk-thing'],
      ['security_VexFixedVulnAssessmentRelationship', 'fixedIn', 'cycle-a'],
      ['security_VexUnderInvestigationVulnAssessmentRelationship', 'underInvestigationFor', 'cycle-b'],
      ['security_VexUnderInvestigationVulnAssessmentRelationship', 'underInvestigationFor', 'core'],
      ['security_VexNotAffectedVulnAssessmentRelationship', 'doesNotAffect', 'dual'],
    ]);
    for (const element of vex) expect(element.to).toEqual([product.spdxId]);
    expect(vex[0]).toMatchObject({ security_justificationType: 'vulnerableCodeNotInExecutePath', security_impactStatement: 'The merge function is never called.' });
    expect(vex[1]).toMatchObject({ security_actionStatement: 'Update. A workaround is available.' });
    // What the spec requires and the analysis lacks, in CycloneDX's words.
    expect(vex[2]).toMatchObject({ security_impactStatement: 'The vulnerability is not specific to the component or service and was falsely identified or associated.' });
    const associations = graph.filter((element) => element.relationshipType === 'hasAssociatedVulnerability');
    expect(associations.map((element) => [name(element.from), (element.to as string[]).map(name)])).toEqual([['compound', ['CVE-2024-1234', 'CVE-2024-9999']]]);
    const vulnerability = graph.find((element) => element.type === 'security_Vulnerability')!;
    expect(vulnerability.externalIdentifier).toEqual([
      { type: 'ExternalIdentifier', externalIdentifierType: 'cve', identifier: 'CVE-2024-1234' },
      { type: 'ExternalIdentifier', externalIdentifierType: 'securityOther', identifier: 'GHSA-35m5-8cvj-8783' },
      { type: 'ExternalIdentifier', externalIdentifierType: 'securityOther', identifier: 'PYSEC-2024-7' },
    ]);
  });

  it('licenses: one expression element per distinct expression, LicenseRefs mapped to their text, none for an empty one', () => {
    const document = writeSpdx3(aRichModel());
    const graph = document['@graph'];
    const expressions = graph.filter((element) => element.type === 'simplelicensing_LicenseExpression').map((element) => element.simplelicensing_licenseExpression);
    expect(new Set(expressions).size).toBe(expressions.length);
    expect(expressions).toContain('GPL-2.0-only WITH Classpath-exception-2.0');
    const eula = graph.find((element) => element.simplelicensing_licenseExpression === 'LicenseRef-acme-eula')!;
    const text = graph.find((element) => element.spdxId === (eula.simplelicensing_customIdToUri as Json[])[0]!.value)!;
    expect(text).toMatchObject({ type: 'simplelicensing_SimpleLicensingText', name: 'Acme End User License', simplelicensing_licenseText: 'You may use this software only on Tuesdays.' });
    const cycleB = graph.find((element) => element.name === 'cycle-b')!;
    expect(graph.filter((element) => element.from === cycleB.spdxId && String(element.relationshipType).endsWith('License'))).toEqual([]);
  });

  it('an empty product: still valid, no contains, no security profile', () => {
    const document = writeSpdx3(anExportModel({ product: { uuid: '6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f', name: 'Empty', version: '', apiUrl: 'https://x.example/api/v2/products/6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f/' } }));
    expect(checkSpdx3(clone(document)).errors).toEqual([]);
    expect(document['@graph'].find((element) => element.type === 'SpdxDocument')).toMatchObject({ name: 'Empty', profileConformance: ['core', 'software', 'simpleLicensing'] });
    expect(spdx3Inventory(document, '3.0.1')).toMatchObject({ subject: { name: 'Empty', version: '' }, components: [], vulnerabilities: [], vexOnly: false });
  });
});

describe('bad input: an error or a warning, never a throw', () => {
  const base = () => clone(fixture('spdx3/spdx-examples-example13.spdx3.json')) as Json;
  const everything = (document: Json) => {
    const version = spdx3Version(document);
    return { version, check: checkSpdx3(document), text: spdx3TextErrors(document), inventory: spdx3Inventory(document, 'version' in version ? version.version : '3.0.1') };
  };

  it('a wrong or missing @context, an unsupported version, a specVersion not read', () => {
    expect(spdx3Version({ ...base(), '@context': 'https://example.com/context.jsonld' })).toEqual({ error: expect.stringContaining('is not an SPDX 3 context') });
    expect(spdx3Version({ '@graph': [] })).toEqual({ error: expect.stringContaining('names its version in "@context"') });
    expect(spdx3Version({ ...base(), '@context': 'https://spdx.org/rdf/3.1/spdx-context.jsonld' })).toEqual({ error: 'SPDX 3.1 ("@context") is not read here: SPDX 3.0.0 and 3.0.1 are.' });
    expect(spdx3Version({ ...base(), '@context': ['https://spdx.org/rdf/3.0.0/spdx-context.jsonld', 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld'] })).toEqual({ error: expect.stringContaining('a document is one version') });
    const later = base();
    later['@graph'].find((element: Json) => element.type === 'CreationInfo').specVersion = '3.1.0';
    expect(spdx3Version(later)).toEqual({ error: 'CreationInfo specVersion "3.1.0" is not read here: SPDX 3.0.0 and 3.0.1 are.' });
    expect(SPDX3_VERSIONS).toEqual(['3.0.0', '3.0.1']);
    expect(checkSpdx3({ ...base(), '@context': 'https://example.com/context.jsonld' }).errors).toEqual([expect.stringMatching(/^\/@context: must be "https:\/\/spdx\.org\/rdf\/3\.0\.1\/spdx-context\.jsonld"/)]);
  });

  it('an empty graph, a graph that is not a list, entries that are not elements, an element without a type', () => {
    expect(everything({ '@context': spdx3Context('3.0.1'), '@graph': [] }).inventory.warnings).toEqual(['/@graph: the document holds no elements.']);
    expect(everything({ '@context': spdx3Context('3.0.1'), '@graph': 'x' }).check.errors).toEqual(['/@graph: must be array']);
    const odd = base();
    const n = odd['@graph'].length;
    odd['@graph'].push(null, 7, 'text', { spdxId: 'urn:x:untyped', name: 'no type' });
    const result = everything(odd);
    expect(result.check.errors).toEqual(expect.arrayContaining([`/@graph/${n}: must be object`, `/@graph/${n + 3}: must have required property 'type'`]));
    expect(result.inventory.warnings).toEqual([`/@graph/${n}, /@graph/${n + 1}, /@graph/${n + 2}: not an element (an object); left out.`, `/@graph/${n + 3}: an element without a "type"; left out.`]);
    expect(result.inventory.components.length).toBe(3);
  });

  it('a truncated graph (the second half of the elements gone): what remains is read, the dangling ends said', () => {
    const document = clone(fixture('spdx3/spdx-examples-example9-appbomination.spdx3.json')) as Json;
    document['@graph'] = document['@graph'].slice(0, Math.floor(document['@graph'].length / 2));
    const { check, inventory } = everything(document);
    expect(check.errors).toEqual([]);
    expect(inventory.warnings).toEqual([expect.stringMatching(/^Relationships name elements the document does not hold/)]);
  });

  it('circular references: a license set that contains itself, collections that are each other\'s root, a dependency cycle', () => {
    const document = base();
    const graph = document['@graph'] as Json[];
    const pkg = graph.find((element) => element.name === 'openssl')!;
    const npm = graph.find((element) => element.name === 'npm-elliptic')!;
    graph.push(
      { type: 'expandedlicensing_ConjunctiveLicenseSet', spdxId: 'urn:x:set', creationInfo: '_:creationinfo', expandedlicensing_member: ['urn:x:set', 'https://spdx.org/licenses/MIT'] },
      { type: 'Relationship', spdxId: 'urn:x:lic', creationInfo: '_:creationinfo', from: pkg.spdxId, relationshipType: 'hasDeclaredLicense', to: ['urn:x:set'] },
      { type: 'software_Sbom', spdxId: 'urn:x:sbom-a', creationInfo: '_:creationinfo', rootElement: ['urn:x:sbom-b'] },
      { type: 'software_Sbom', spdxId: 'urn:x:sbom-b', creationInfo: '_:creationinfo', rootElement: ['urn:x:sbom-a'] },
      { type: 'Relationship', spdxId: 'urn:x:d1', creationInfo: '_:creationinfo', from: pkg.spdxId, relationshipType: 'dependsOn', to: [npm.spdxId] },
      { type: 'Relationship', spdxId: 'urn:x:d2', creationInfo: '_:creationinfo', from: npm.spdxId, relationshipType: 'hasOptionalDependency', to: [pkg.spdxId] },
    );
    const { inventory } = everything(document);
    expect(inventory.subject).toEqual({ name: 'Acme Application', version: '1.3' });
    expect(inventory.components.find((component) => component.name === 'openssl')!.declaredLicense).toBe('');
    expect(inventory.warnings).toEqual([expect.stringContaining('refers to itself (a license set that contains itself)')]);
    expect(inventory.dependencies.get(pkg.spdxId)).toEqual([npm.spdxId]);
    expect(inventory.dependencies.get(npm.spdxId)).toEqual([pkg.spdxId]);
  });

  it('VEX statements on a vulnerability the document does not hold, on the product itself, on a file: warnings', () => {
    const document = base();
    const graph = document['@graph'] as Json[];
    const pkg = graph.find((element) => element.name === 'openssl')!;
    graph.push(
      { type: 'security_Vulnerability', spdxId: 'urn:x:v1', creationInfo: '_:creationinfo', externalIdentifier: [{ type: 'ExternalIdentifier', externalIdentifierType: 'cve', identifier: 'CVE-2099-0001' }] },
      { type: 'software_File', spdxId: 'urn:x:file', creationInfo: '_:creationinfo', name: 'a.c' },
      { type: 'security_VexFixedVulnAssessmentRelationship', spdxId: 'urn:x:s1', creationInfo: '_:creationinfo', from: 'urn:x:missing', relationshipType: 'fixedIn', to: [pkg.spdxId] },
      { type: 'security_VexFixedVulnAssessmentRelationship', spdxId: 'urn:x:s2', creationInfo: '_:creationinfo', from: 'urn:x:v1', relationshipType: 'fixedIn', to: ['urn:product-acme-application-1.3-4fe40e24-20e3-11ee-be56-0242ac120002'] },
      { type: 'security_VexFixedVulnAssessmentRelationship', spdxId: 'urn:x:s3', creationInfo: '_:creationinfo', from: 'urn:x:v1', relationshipType: 'fixedIn', to: ['urn:x:file', pkg.spdxId] },
    );
    const { check, inventory } = everything(document);
    expect(check.errors).toEqual([]);
    expect(inventory.vulnerabilities).toEqual([{ id: 'CVE-2099-0001', aliases: [], summary: '', riskScore: null, affects: [pkg.spdxId], analysis: { state: 'resolved', justification: null, responses: [], detail: '' } }]);
    expect(inventory.warnings).toEqual([
      'Statements on "CVE-2099-0001" speak of the described product itself, which is not a package; left out.',
      'Statements on vulnerabilities speak of elements that are not packages ("urn:x:file"); left out.',
      'Relationships name elements the document does not hold ("urn:x:missing"); those ends are left out.',
    ]);
  });

  it('a VEX-only document: vulnerabilities and statements on purls, no packages', () => {
    const document = {
      '@context': spdx3Context('3.0.1'),
      '@graph': [
        { type: 'CreationInfo', '@id': '_:c', specVersion: '3.0.1', created: '2024-01-01T00:00:00Z', createdBy: ['urn:x:a'] },
        { type: 'Organization', spdxId: 'urn:x:a', creationInfo: '_:c', name: 'Acme' },
        { type: 'security_Vulnerability', spdxId: 'urn:x:v', creationInfo: '_:c', summary: 'Bad', externalIdentifier: [{ type: 'ExternalIdentifier', externalIdentifierType: 'securityOther', identifier: 'GHSA-aaaa-bbbb-cccc' }, { type: 'ExternalIdentifier', externalIdentifierType: 'cve', identifier: 'CVE-2099-2' }] },
        { type: 'security_VexNotAffectedVulnAssessmentRelationship', spdxId: 'urn:x:s', creationInfo: '_:c', from: 'urn:x:v', relationshipType: 'doesNotAffect', to: ['pkg:npm/left-pad@1.0.0'], security_justificationType: 'inlineMitigationsAlreadyExist', security_statusNotes: 'Checked.' },
        { type: 'security_CvssV3VulnAssessmentRelationship', spdxId: 'urn:x:cvss', creationInfo: '_:c', from: 'urn:x:v', relationshipType: 'hasAssessmentFor', to: ['pkg:npm/left-pad@1.0.0'], security_score: '7.45', security_severity: 'high', security_vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' },
      ],
    };
    const { check, inventory } = everything(document);
    expect(check.errors).toEqual([]);
    expect(inventory).toMatchObject({ vexOnly: true, components: [], subject: null });
    expect(inventory.vulnerabilities).toEqual([
      {
        id: 'GHSA-aaaa-bbbb-cccc',
        aliases: ['CVE-2099-2'],
        summary: 'Bad',
        riskScore: 7.5,
        affects: ['pkg:npm/left-pad@1.0.0'],
        analysis: { state: 'not_affected', justification: 'protected_by_mitigating_control', responses: [], detail: 'SPDX justification: inlineMitigationsAlreadyExist | Status notes: Checked.' },
      },
    ]);
  });

  it('__proto__ and constructor as keys, ids, types and values: no throw, no pollution', () => {
    const text = JSON.stringify(base())
      .replace('"name":"openssl"', '"name":"openssl","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}')
      .replace('"type":"Person"', '"type":"__proto__"');
    const document = JSON.parse(text) as Json;
    document['@graph'].push(
      JSON.parse('{"type":"software_Package","spdxId":"__proto__","creationInfo":"_:creationinfo","name":"x","verifiedUsing":[{"type":"Hash","algorithm":"constructor","hashValue":"00"}]}'),
      { type: 'Relationship', spdxId: 'constructor', creationInfo: '_:creationinfo', from: '__proto__', relationshipType: 'dependsOn', to: ['constructor', 'toString'] },
    );
    const { check, inventory, text: textErrors } = everything(document);
    expect(check.errors.length).toBeGreaterThan(0);
    expect(textErrors).toEqual([]);
    expect(inventory.components.find((component) => component.ref === '__proto__')).toMatchObject({ name: 'x', hashes: {} });
    expect(({} as Json).polluted).toBeUndefined();
  });

  it('a string the service cannot store: in the document\'s own metadata refuses it; in a package skips the package', () => {
    const document = base();
    document['@graph'].find((element: Json) => element.type === 'SpdxDocument').name = 'doc\u0007';
    document['@graph'].find((element: Json) => element.name === 'openssl').summary = 'lone \ud800';
    expect(spdx3TextErrors(document)).toEqual([expect.stringMatching(/^\/@graph\/\d+\/name: must not hold the control character U\+0007$/)]);
    const inventory = spdx3Inventory(document, '3.0.1');
    expect(inventory.skipped).toEqual([expect.objectContaining({ reason: 'its summary holds an unpaired surrogate (U+D800)' })]);
  });

  it('mutations of the real documents: never a throw, and everything returned is storable text', () => {
    const documents = [fixture('spdx3/spdx-examples-example9-appbomination.spdx3.json'), fixture('spdx3/spdx-examples-example11-sbom.spdx3.json'), writeSpdx3(aRichModel())] as Json[];
    const values = [null, 0, -1, 1e308, '', '\ud800', '\u0000', '__proto__', 'constructor', [], {}, [null], { type: 'CreationInfo' }, 'urn:x:nowhere', 'NOASSERTION'];
    let seed = 11;
    const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), seed % n);
    for (let run = 0; run < 300; run++) {
      const document = clone(documents[run % documents.length]!);
      for (let edits = 0; edits < 3; edits++) {
        const graph = document['@graph'] as Json[];
        const element = graph[next(graph.length)]!;
        const keys = Object.keys(element);
        element[keys[next(keys.length)]!] = clone(values[next(values.length)]);
      }
      const { version, check, text, inventory } = everything(document);
      const strings = [
        ...('error' in version ? [version.error] : []),
        ...check.errors,
        ...text,
        ...(inventory.warnings ?? []),
        ...inventory.skipped.flatMap((skipped) => [skipped.component, skipped.name ?? '', skipped.reason]),
        ...inventory.components.flatMap((component) => [component.ref, component.purl, component.name, component.version, component.declaredLicense, component.concludedLicense, component.description, component.supplier]),
        ...inventory.vulnerabilities.flatMap((vulnerability) => [vulnerability.id, vulnerability.summary, vulnerability.analysis?.detail ?? '', ...vulnerability.aliases, ...vulnerability.affects]),
      ];
      for (const value of strings) expect(storedTextProblem(value)).toBeUndefined();
    }
  });
});
