import { describe, expect, it } from 'vitest';
import { Enums, Models, Serialize, Spec } from '@cyclonedx/cyclonedx-library';
import { writeCycloneDx, CYCLONEDX_CONTENTS, CYCLONEDX_SPEC_VERSIONS, type CycloneDxSpecVersion } from '../../shared/sbom/write-cyclonedx.ts';
import { writeSpdx } from '../../shared/sbom/write-spdx.ts';
import type { ExportModel, ExportPackage } from '../../shared/sbom/export-model.ts';
import { aLargeExportModel, anExportModel, anExportPackage, anExportVulnerability } from '../support/export-model.ts';
import { cycloneDxRuleProblems, cycloneDxSchemaErrors, expressionSymbols, spdxRuleProblems, spdxSchemaErrors } from '../support/sbom-validation.ts';

type Json = Record<string, any>;

/** A product with one of everything the writers handle: every license form, a dependency graph with a cycle, triaged vulnerabilities, odd names. */
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
    copyright: 'Copyright (c) 2024 Acme "Labs" <legal@acme.example>',
    filename: 'core-1.0.0.tgz',
  });
  const dual = anExportPackage({ name: 'dual', declaredLicenseSpdx: 'MIT OR GPL-3.0-only', concludedLicenseSpdx: 'MIT' });
  const compound = anExportPackage({ name: 'compound', declaredLicenseSpdx: '(MIT AND Zlib) OR Apache-2.0', concludedLicenseSpdx: 'Apache-2.0 AND (MIT OR Zlib)' });
  const proprietary = anExportPackage({ name: 'vendor-blob', declaredLicenseSpdx: 'LicenseRef-scancode-proprietary-license AND LicenseRef-acme-eula' });
  const classpath = anExportPackage({ name: 'jdk-thing', type: 'maven', namespace: 'org.example', purl: 'pkg:maven/org.example/jdk-thing@17', version: '17', declaredLicenseSpdx: 'GPL-2.0-only WITH Classpath-exception-2.0' });
  const odd = anExportPackage({
    name: 'naïve-café-日本語-😀',
    purl: 'pkg:npm/na%C3%AFve-caf%C3%A9-%E6%97%A5%E6%9C%AC%E8%AA%9E-%F0%9F%98%80@0.0.1',
    version: '0.0.1',
    declaredLicenseSpdx: '',
    description: '‮right-to-left‬ and "quotes" and \u0000 a NUL',
    supplier: 'Zoë "Z" Müller',
  });
  const cycleA = anExportPackage({ name: 'cycle-a', declaredLicenseSpdx: 'ISC' });
  const cycleB = anExportPackage({ name: 'cycle-b', declaredLicenseSpdx: 'GPL-2.0+' });
  const packages = [core, dual, compound, proprietary, classpath, odd, cycleA, cycleB];
  const dependencies = new Map<string, string[]>([
    [core.uuid, [dual.uuid, compound.uuid]],
    [dual.uuid, [compound.uuid]],
    [compound.uuid, []],
    [cycleA.uuid, [cycleB.uuid]],
    [cycleB.uuid, [cycleA.uuid]],
  ]);
  const vulnerabilities = [
    anExportVulnerability({
      id: 'CVE-2024-1234',
      aliases: ['GHSA-35m5-8cvj-8783', 'PYSEC-2024-7'],
      summary: 'Prototype pollution in "core"',
      riskScore: 8.1,
      affects: [
        { packageUuid: core.uuid, analysis: { state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix'], detail: 'The merge function is never called.' } },
        { packageUuid: dual.uuid, analysis: { state: 'exploitable', justification: null, responses: ['update', 'workaround_available'], detail: '' } },
        // Matched by a published advisory: the versions that fix it.
        { packageUuid: compound.uuid, analysis: null, fixedVersions: ['2.0.1', '3.0.0'] },
      ],
    }),
    anExportVulnerability({ id: 'GHSA-jfh8-c2jp-5v3q', aliases: [], riskScore: null, summary: '', affects: [{ packageUuid: odd.uuid, analysis: { state: 'in_triage', justification: null, responses: [], detail: '' } }] }),
  ];
  return anExportModel({
    product: { uuid: '0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Shop “Front” — 店', version: '3.0', apiUrl: 'https://compliance.example.com/api/v2/products/0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b/' },
    packages,
    dependencies,
    vulnerabilities,
    licenseRefs: new Map([['LicenseRef-acme-eula', { name: 'Acme End User License', text: 'You may use this software only on Tuesdays.' }]]),
  });
}

const componentNamed = (document: Json, name: string) => (document.components as Json[]).find((component) => component.name === name)!;
const packageNamed = (document: Json, name: string) => (document.packages as Json[]).find((pkg) => pkg.name === name)!;
const byRef = (document: Json) => new Map((document.components as Json[]).map((component) => [component['bom-ref'], component]));

describe('CycloneDX export validates against the official schemas', () => {
  const matrix = CYCLONEDX_SPEC_VERSIONS.flatMap((specVersion) => CYCLONEDX_CONTENTS.map((content) => [specVersion, content] as const));

  it.each(matrix)('CycloneDX %s %s: a product with every kind of data', async (specVersion, content) => {
    const document = writeCycloneDx(aRichModel(), { specVersion, content });
    expect(await cycloneDxSchemaErrors(document, specVersion)).toBeNull();
    expect(cycloneDxRuleProblems(document, { vexOnly: content === 'vex' })).toEqual([]);
    expect(document).toMatchObject({ bomFormat: 'CycloneDX', specVersion, version: 1, $schema: `http://cyclonedx.org/schema/bom-${specVersion}.schema.json` });
  });

  it.each(matrix)('CycloneDX %s %s: an empty product', async (specVersion, content) => {
    const model = anExportModel({ product: { uuid: '6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f', name: 'Empty', version: '', apiUrl: 'https://x.example/api/v2/products/6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f/' } });
    const document = writeCycloneDx(model, { specVersion, content });
    expect(await cycloneDxSchemaErrors(document, specVersion)).toBeNull();
    expect(document.metadata).toMatchObject({ component: { type: 'application', name: 'Empty', 'bom-ref': '6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f' } });
    expect((document.metadata as Json).component).not.toHaveProperty('version');
    if (content === 'vex') expect(document).not.toHaveProperty('components');
    else expect(document).toMatchObject({ components: [], dependencies: [{ ref: '6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f' }] });
    if (content === 'sbom') expect(document).not.toHaveProperty('vulnerabilities');
    else expect(document.vulnerabilities).toEqual([]);
  });

  it('the validator does catch a broken document (the checks above can fail)', async () => {
    const document = writeCycloneDx(aRichModel(), { specVersion: '1.6', content: 'combined' }) as Json;
    document.components[0].licenses = [{ license: { id: 'Not-A-Real-Id' } }];
    expect(await cycloneDxSchemaErrors(document, '1.6')).not.toBeNull();
    document.components[0].licenses = [{ expression: 'MIT' }, { expression: 'ISC' }];
    expect(await cycloneDxSchemaErrors(document, '1.6')).not.toBeNull();
  });
});

describe('CycloneDX document shape', () => {
  it('names the product and the service in metadata, with the tools shape of each spec version', () => {
    const model = aRichModel();
    const v14 = writeCycloneDx(model, { specVersion: '1.4', content: 'sbom' }) as Json;
    const v15 = writeCycloneDx(model, { specVersion: '1.5', content: 'sbom' }) as Json;
    const v16 = writeCycloneDx(model, { specVersion: '1.6', content: 'sbom' }) as Json;
    expect(v14.metadata.tools).toEqual([{ name: 'compliance-service', version: '0.1.0' }]);
    for (const document of [v15, v16]) expect(document.metadata.tools).toEqual({ components: [{ type: 'application', name: 'compliance-service', version: '0.1.0' }] });
    expect(v16.metadata).toMatchObject({
      timestamp: '2026-11-25T10:20:30.456Z',
      component: { type: 'application', name: 'Shop “Front” — 店', version: '3.0', 'bom-ref': '0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b' },
    });
    expect(v16.serialNumber).toBe(`urn:uuid:${model.documentUuid}`);
  });

  it('writes a component with every field the catalog has', () => {
    const document = writeCycloneDx(aRichModel(), { specVersion: '1.6', content: 'sbom' }) as Json;
    expect(componentNamed(document, 'core')).toEqual({
      type: 'library',
      'bom-ref': 'pkg:npm/%40acme/core@1.0.0',
      supplier: { name: 'Acme, Inc.' },
      group: '@acme',
      name: 'core',
      version: '1.0.0',
      description: 'The "core" — with quotes, a backslash \\ and a newline\nin it.',
      hashes: [
        { alg: 'MD5', content: 'd41d8cd98f00b204e9800998ecf8427e' },
        { alg: 'SHA-1', content: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' },
        { alg: 'SHA-256', content: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
      ],
      licenses: [{ license: { id: 'MIT', acknowledgement: 'declared' } }, { license: { id: 'MIT', acknowledgement: 'concluded' } }],
      copyright: 'Copyright (c) 2024 Acme "Labs" <legal@acme.example>',
      purl: 'pkg:npm/%40acme/core@1.0.0',
      externalReferences: [
        { url: 'https://acme.example/core', type: 'website' },
        { url: 'https://registry.npmjs.org/@acme/core/-/core-1.0.0.tgz', type: 'distribution' },
      ],
      properties: [{ name: 'aboutcode:filename', value: 'core-1.0.0.tgz' }],
    });
  });

  it('leaves out empty fields and hashes that are not a digest of their algorithm', () => {
    const pkg = anExportPackage({ version: '', declaredLicenseSpdx: '', hashes: { md5: 'abc', sha1: 'zz39a3ee5e6b4b0d3255bfef95601890afd80709', sha256: 'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855' } });
    const document = writeCycloneDx(anExportModel({ packages: [pkg] }), { specVersion: '1.5', content: 'sbom' }) as Json;
    expect(document.components[0]).toEqual({
      type: 'library',
      'bom-ref': pkg.purl,
      name: pkg.name,
      hashes: [{ alg: 'SHA-256', content: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }],
      purl: pkg.purl,
    });
  });

  it('uses the purl as bom-ref, and the uuid when the purl is missing or shared', () => {
    const a = anExportPackage({ purl: 'pkg:generic/same@1' });
    const b = anExportPackage({ purl: 'pkg:generic/same@1' });
    const c = anExportPackage({ purl: '' });
    const d = anExportPackage();
    const document = writeCycloneDx(anExportModel({ packages: [a, b, c, d] }), { specVersion: '1.6', content: 'sbom' }) as Json;
    expect(document.components.map((component: Json) => component['bom-ref'])).toEqual([a.uuid, b.uuid, c.uuid, d.purl]);
    expect(document.components[2]).not.toHaveProperty('purl');
  });
});

describe('licenses', () => {
  const cdxLicenses = (pkg: ExportPackage, specVersion: CycloneDxSpecVersion) => {
    const component = (writeCycloneDx(anExportModel({ packages: [pkg] }), { specVersion, content: 'sbom' }) as Json).components[0];
    return { licenses: component.licenses, evidence: component.evidence };
  };
  const spdxLicenses = (pkg: ExportPackage, licenseRefs?: ExportModel['licenseRefs']) => {
    const document = writeSpdx(anExportModel({ packages: [pkg], ...(licenseRefs ? { licenseRefs } : {}) })) as Json;
    const written = document.packages[1];
    return { declared: written.licenseDeclared, concluded: written.licenseConcluded, extracted: document.hasExtractedLicensingInfos, document };
  };

  it.each([
    // declared, concluded, CycloneDX 1.4/1.5 (effective), SPDX declared, SPDX concluded
    ['MIT', '', [{ license: { id: 'MIT' } }], 'MIT', 'NOASSERTION'],
    ['mit', '', [{ license: { id: 'MIT' } }], 'MIT', 'NOASSERTION'],
    ['MIT OR Apache-2.0', '', [{ expression: 'MIT OR Apache-2.0' }], 'MIT OR Apache-2.0', 'NOASSERTION'],
    ['MIT OR GPL-3.0-only', 'MIT', [{ license: { id: 'MIT' } }], 'MIT OR GPL-3.0-only', 'MIT'],
    ['(MIT AND Zlib) OR Apache-2.0', '', [{ expression: '(MIT AND Zlib) OR Apache-2.0' }], '(MIT AND Zlib) OR Apache-2.0', 'NOASSERTION'],
    ['mit and (bsd-3-clause or isc)', '', [{ expression: 'MIT AND (BSD-3-Clause OR ISC)' }], 'MIT AND (BSD-3-Clause OR ISC)', 'NOASSERTION'],
    ['GPL-2.0-only WITH Classpath-exception-2.0', '', [{ expression: 'GPL-2.0-only WITH Classpath-exception-2.0' }], 'GPL-2.0-only WITH Classpath-exception-2.0', 'NOASSERTION'],
    ['GPL-2.0+', '', [{ license: { id: 'GPL-2.0+' } }], 'GPL-2.0+', 'NOASSERTION'],
    ['LicenseRef-scancode-proprietary-license', '', [{ expression: 'LicenseRef-scancode-proprietary-license' }], 'LicenseRef-scancode-proprietary-license', 'NOASSERTION'],
    ['', '', undefined, 'NOASSERTION', 'NOASSERTION'],
    ['', 'Apache-2.0', [{ license: { id: 'Apache-2.0' } }], 'NOASSERTION', 'Apache-2.0'],
  ])('declared %j, concluded %j', (declared, concluded, effective, spdxDeclared, spdxConcluded) => {
    const pkg = anExportPackage({ declaredLicenseSpdx: declared, concludedLicenseSpdx: concluded });
    expect(cdxLicenses(pkg, '1.4').licenses).toEqual(effective);
    expect(cdxLicenses(pkg, '1.5').licenses).toEqual(effective);
    const spdx = spdxLicenses(pkg);
    expect([spdx.declared, spdx.concluded]).toEqual([spdxDeclared, spdxConcluded]);
    expect(spdxRuleProblems(spdx.document)).toEqual([]);
  });

  it('1.6 marks each expression with its acknowledgement, and keeps both when its schema allows only one expression', () => {
    expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: 'MIT', concludedLicenseSpdx: '' }), '1.6')).toEqual({
      licenses: [{ license: { id: 'MIT', acknowledgement: 'declared' } }],
      evidence: undefined,
    });
    expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: '', concludedLicenseSpdx: 'MIT OR ISC' }), '1.6')).toEqual({
      licenses: [{ expression: 'MIT OR ISC', acknowledgement: 'concluded' }],
      evidence: undefined,
    });
    expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: 'MIT', concludedLicenseSpdx: 'Apache-2.0' }), '1.6')).toEqual({
      licenses: [{ license: { id: 'MIT', acknowledgement: 'declared' } }, { license: { id: 'Apache-2.0', acknowledgement: 'concluded' } }],
      evidence: undefined,
    });
    expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: 'MIT OR GPL-3.0-only', concludedLicenseSpdx: 'MIT' }), '1.6')).toEqual({
      licenses: [{ license: { id: 'MIT', acknowledgement: 'concluded' } }],
      evidence: { licenses: [{ expression: 'MIT OR GPL-3.0-only', acknowledgement: 'declared' }] },
    });
    expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: '', concludedLicenseSpdx: '' }), '1.6')).toEqual({ licenses: undefined, evidence: undefined });
  });

  it('declares every LicenseRef in hasExtractedLicensingInfos, with what the service knows of it', () => {
    const pkg = anExportPackage({ declaredLicenseSpdx: 'LicenseRef-scancode-proprietary-license AND LicenseRef-acme-eula OR LicenseRef-undescribed', concludedLicenseSpdx: 'LicenseRef-acme-eula' });
    const spdx = spdxLicenses(pkg, new Map([['LicenseRef-acme-eula', { name: 'Acme EULA', text: 'Only on Tuesdays.' }]]));
    expect(spdx.declared).toBe('(LicenseRef-scancode-proprietary-license AND LicenseRef-acme-eula) OR LicenseRef-undescribed');
    expect(spdx.concluded).toBe('LicenseRef-acme-eula');
    expect(spdx.extracted).toEqual([
      {
        licenseId: 'LicenseRef-scancode-proprietary-license',
        name: 'proprietary-license',
        extractedText: 'See the ScanCode LicenseDB entry proprietary-license: https://scancode-licensedb.aboutcode.org/proprietary-license.html',
      },
      { licenseId: 'LicenseRef-acme-eula', name: 'Acme EULA', extractedText: 'Only on Tuesdays.' },
      { licenseId: 'LicenseRef-undescribed', name: 'undescribed', extractedText: 'NOASSERTION' },
    ]);
    expect(spdxRuleProblems(spdx.document)).toEqual([]);
  });

  it('turns what SPDX cannot name into LicenseRefs, so the document stays valid', () => {
    // Not what the resolver writes, but a writer must not emit an invalid document when it meets one.
    const cases: [string, string, string[]][] = [
      ['GPL-2.0-only WITH LicenseRef-scancode-foo-exception', 'GPL-2.0-only AND LicenseRef-scancode-foo-exception', ['LicenseRef-scancode-foo-exception']],
      ['MIT OR my_license', 'MIT OR LicenseRef-my-license', ['LicenseRef-my-license']],
      ['SEE LICENSE IN LICENSE.md', 'LicenseRef-SEE-LICENSE-IN-LICENSE.md', ['LicenseRef-SEE-LICENSE-IN-LICENSE.md']],
      ['licenseref-lower', 'LicenseRef-lower', ['LicenseRef-lower']],
    ];
    for (const [given, written, refs] of cases) {
      const spdx = spdxLicenses(anExportPackage({ declaredLicenseSpdx: given }));
      expect(spdx.declared).toBe(written);
      expect(spdx.extracted.map((info: Json) => info.licenseId)).toEqual(refs);
      expect(spdxRuleProblems(spdx.document)).toEqual([]);
      expect(cdxLicenses(anExportPackage({ declaredLicenseSpdx: given }), '1.6').licenses).toEqual([{ expression: written, acknowledgement: 'declared' }]);
    }
    const free = spdxLicenses(anExportPackage({ declaredLicenseSpdx: 'SEE LICENSE IN LICENSE.md' }));
    expect(free.extracted[0]).toEqual({ licenseId: 'LicenseRef-SEE-LICENSE-IN-LICENSE.md', name: 'SEE LICENSE IN LICENSE.md', extractedText: 'SEE LICENSE IN LICENSE.md' });
  });

  it('gives two different texts two refs even when they clean up to the same id', () => {
    const spdx = spdxLicenses(anExportPackage({ declaredLicenseSpdx: 'my_license OR my-license' }));
    expect(spdx.declared).toBe('LicenseRef-my-license OR LicenseRef-my-license-2');
    expect(spdxRuleProblems(spdx.document)).toEqual([]);
  });

  it('every expression in a large mixed product parses as SPDX', () => {
    const model = aLargeExportModel(60);
    const spdx = writeSpdx(model) as Json;
    expect(spdxRuleProblems(spdx)).toEqual([]);
    const cdx = writeCycloneDx(model, { specVersion: '1.6', content: 'combined' }) as Json;
    expect(cycloneDxRuleProblems(cdx)).toEqual([]);
    expect(expressionSymbols(packageNamed(spdx, 'package-3').licenseDeclared)).toEqual({ licenses: ['GPL-2.0-only'], exceptions: ['Classpath-exception-2.0'] });
  });
});

describe('dependencies', () => {
  it('CycloneDX: every component with exactly its dependencies, and the product depending on what nothing else does', () => {
    const model = aRichModel();
    const document = writeCycloneDx(model, { specVersion: '1.6', content: 'sbom' }) as Json;
    const refOf = new Map(model.packages.map((pkg) => [pkg.uuid, (document.components as Json[]).find((c) => c.name === pkg.name)!['bom-ref']]));
    const graph = new Map((document.dependencies as Json[]).map((entry) => [entry.ref, entry.dependsOn]));
    for (const pkg of model.packages) {
      const expected = (model.dependencies.get(pkg.uuid) ?? []).map((uuid) => refOf.get(uuid));
      expect(graph.get(refOf.get(pkg.uuid))).toEqual(expected.length > 0 ? expected : undefined);
    }
    const [core, , , proprietary, classpath, odd, cycleA] = model.packages;
    // core, the packages nothing depends on, and one way into the cycle nothing else reaches.
    expect(graph.get(model.product.uuid)).toEqual([core, proprietary, classpath, odd, cycleA].map((pkg) => refOf.get(pkg!.uuid)));
    expect(document.dependencies).toHaveLength(model.packages.length + 1);
  });

  it('drops dependencies on packages outside the product, repeated ones and a package on itself', () => {
    const a = anExportPackage();
    const b = anExportPackage();
    const model = anExportModel({ packages: [a, b], dependencies: new Map([[a.uuid, [b.uuid, b.uuid, 'not-in-the-product', a.uuid]], [b.uuid, [b.uuid]]]) });
    const cdx = writeCycloneDx(model, { specVersion: '1.4', content: 'sbom' }) as Json;
    expect(cdx.dependencies).toEqual([
      { ref: model.product.uuid, dependsOn: [a.purl] },
      { ref: a.purl, dependsOn: [b.purl] },
      { ref: b.purl },
    ]);
    const spdx = writeSpdx(model) as Json;
    expect(spdx.relationships.filter((r: Json) => r.relationshipType === 'DEPENDS_ON')).toEqual([
      { spdxElementId: `SPDXRef-Package-${a.uuid}`, relationshipType: 'DEPENDS_ON', relatedSpdxElement: `SPDXRef-Package-${b.uuid}` },
    ]);
  });

  it('SPDX: DESCRIBES the product, the product CONTAINS every package, DEPENDS_ON exactly the model', () => {
    const model = aRichModel();
    const document = writeSpdx(model) as Json;
    const idOf = (uuid: string) => `SPDXRef-Package-${uuid}`;
    const productId = `SPDXRef-Product-${model.product.uuid}`;
    const relationships = document.relationships as Json[];
    expect(relationships.filter((r) => r.relationshipType === 'DESCRIBES')).toEqual([{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: productId }]);
    expect(document.documentDescribes).toEqual([productId]);
    expect(relationships.filter((r) => r.relationshipType === 'CONTAINS').map((r) => [r.spdxElementId, r.relatedSpdxElement])).toEqual(model.packages.map((pkg) => [productId, idOf(pkg.uuid)]));
    const dependsOn = relationships.filter((r) => r.relationshipType === 'DEPENDS_ON').map((r) => `${r.spdxElementId} → ${r.relatedSpdxElement}`);
    const expected = [...model.dependencies].flatMap(([from, targets]) => targets.map((to) => `${idOf(from)} → ${idOf(to)}`));
    expect(dependsOn.sort()).toEqual(expected.sort());
    expect(relationships).toHaveLength(1 + model.packages.length + expected.length);
  });
});

describe('vulnerabilities (VEX)', () => {
  it('one entry per distinct analysis, with the affected bom-refs, ratings and alias references', () => {
    const model = aRichModel();
    const document = writeCycloneDx(model, { specVersion: '1.6', content: 'combined' }) as Json;
    const [core, dual, compound, , , odd] = model.packages;
    const base = {
      id: 'CVE-2024-1234',
      source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2024-1234' },
      references: [
        { id: 'GHSA-35m5-8cvj-8783', source: { name: 'GitHub Advisories', url: 'https://github.com/advisories/GHSA-35m5-8cvj-8783' } },
        { id: 'PYSEC-2024-7', source: {} },
      ],
      ratings: [{ score: 8.1, method: 'other' }],
      description: 'Prototype pollution in "core"',
    };
    expect(document.vulnerabilities).toEqual([
      { ...base, analysis: { state: 'not_affected', justification: 'code_not_reachable', response: ['will_not_fix'], detail: 'The merge function is never called.' }, affects: [{ ref: core!.purl }] },
      { ...base, analysis: { state: 'exploitable', response: ['update', 'workaround_available'] }, affects: [{ ref: dual!.purl }] },
      {
        ...base,
        recommendation: `Upgrade ${compound!.namespace ? `${compound!.namespace}/` : ''}${compound!.name} ${compound!.version} to 2.0.1 (fixed also in 3.0.0).`,
        affects: [{ ref: compound!.purl, versions: [{ version: compound!.version, status: 'affected' }, { version: '2.0.1', status: 'unaffected' }, { version: '3.0.0', status: 'unaffected' }] }],
      },
      { id: 'GHSA-jfh8-c2jp-5v3q', source: { name: 'GitHub Advisories', url: 'https://github.com/advisories/GHSA-jfh8-c2jp-5v3q' }, analysis: { state: 'in_triage' }, affects: [{ ref: odd!.purl }] },
    ]);
  });

  it('packages with the same analysis share one entry; a vulnerability outside the product still says what it is', () => {
    const a = anExportPackage();
    const b = anExportPackage();
    const analysis = { state: 'resolved' as const, justification: null, responses: ['update' as const], detail: 'Updated.' };
    const model = anExportModel({
      packages: [a, b],
      vulnerabilities: [
        anExportVulnerability({ id: 'CVE-2023-1', riskScore: 0, affects: [{ packageUuid: a.uuid, analysis }, { packageUuid: b.uuid, analysis: { ...analysis } }] }),
        anExportVulnerability({ id: 'OSV-2023-9', affects: [{ packageUuid: 'gone', analysis: null }] }),
      ],
    });
    const document = writeCycloneDx(model, { specVersion: '1.5', content: 'vex' }) as Json;
    expect(document.vulnerabilities[0]).toMatchObject({ ratings: [{ score: 0, method: 'other' }], analysis: { state: 'resolved', response: ['update'], detail: 'Updated.' }, affects: [{ ref: a.purl }, { ref: b.purl }] });
    expect(document.vulnerabilities[1]).toEqual({ id: 'OSV-2023-9', ratings: [{ score: 5.5, method: 'other' }], description: expect.any(String) });
  });

  it('sbom has no vulnerabilities; vex has no components, its affects name the purls a reader can match', () => {
    const model = aRichModel();
    const sbom = writeCycloneDx(model, { specVersion: '1.6', content: 'sbom' }) as Json;
    const vex = writeCycloneDx(model, { specVersion: '1.6', content: 'vex' }) as Json;
    const combined = writeCycloneDx(model, { specVersion: '1.6', content: 'combined' }) as Json;
    expect(sbom).not.toHaveProperty('vulnerabilities');
    expect(vex).not.toHaveProperty('components');
    expect(vex).not.toHaveProperty('dependencies');
    expect(vex.metadata.component.name).toBe(model.product.name);
    expect(vex.vulnerabilities).toEqual(combined.vulnerabilities);
    const purls = new Set(model.packages.map((pkg) => pkg.purl));
    for (const vulnerability of vex.vulnerabilities) for (const affect of vulnerability.affects) expect(purls).toContain(affect.ref);
    expect(combined.components).toEqual(sbom.components);
    expect(byRef(combined).size).toBe(model.packages.length);
  });
});

describe('CycloneDX as the reference library writes it', () => {
  /**
   * The same product built with @cyclonedx/cyclonedx-library's models and serialized by its JSON
   * serializer (what cyclonedx-npm and the other official JavaScript tools use): the writer must put
   * the same data in the same places.
   */
  function referenceBom(model: ExportModel, specVersion: '1.4' | '1.6'): Json {
    const [core, dual] = model.packages as [ExportPackage, ExportPackage];
    const bom = new Models.Bom({ serialNumber: `urn:uuid:${model.documentUuid}` });
    bom.metadata.timestamp = new Date(model.timestamp);
    bom.metadata.tools.components.add(new Models.Component(Enums.ComponentType.Application, model.tool.name, { version: model.tool.version }));
    const product = new Models.Component(Enums.ComponentType.Application, model.product.name, { bomRef: model.product.uuid, version: model.product.version });
    bom.metadata.component = product;
    const ack = (acknowledgement: Enums.LicenseAcknowledgement) => (specVersion === '1.6' ? { acknowledgement } : {});
    const coreComponent = new Models.Component(Enums.ComponentType.Library, core.name, {
      bomRef: core.purl,
      supplier: new Models.OrganizationalEntity({ name: core.supplier }),
      group: core.namespace,
      version: core.version,
      description: core.description,
      hashes: new Models.HashDictionary([
        [Enums.HashAlgorithm.MD5, core.hashes.md5!.toLowerCase()],
        [Enums.HashAlgorithm['SHA-1'], core.hashes.sha1!],
      ]),
      licenses: new Models.LicenseRepository(
        specVersion === '1.6'
          ? [new Models.SpdxLicense('MIT', ack(Enums.LicenseAcknowledgement.Declared)), new Models.SpdxLicense('MIT', ack(Enums.LicenseAcknowledgement.Concluded))]
          : [new Models.SpdxLicense('MIT')],
      ),
      copyright: core.copyright,
      purl: core.purl,
      externalReferences: new Models.ExternalReferenceRepository([
        new Models.ExternalReference(core.homepageUrl, Enums.ExternalReferenceType.Website),
        new Models.ExternalReference(core.downloadUrl, Enums.ExternalReferenceType.Distribution),
      ]),
      properties: new Models.PropertyRepository([new Models.Property('aboutcode:filename', core.filename)]),
    });
    const dualComponent = new Models.Component(Enums.ComponentType.Library, dual.name, {
      bomRef: dual.purl,
      version: dual.version,
      hashes: new Models.HashDictionary([[Enums.HashAlgorithm['SHA-1'], dual.hashes.sha1!]]),
      licenses: new Models.LicenseRepository([new Models.LicenseExpression('MIT OR GPL-3.0-only')]),
      purl: dual.purl,
    });
    if (specVersion === '1.6') (dualComponent.licenses.values().next().value as Models.LicenseExpression).acknowledgement = Enums.LicenseAcknowledgement.Declared;
    coreComponent.dependencies.add(dualComponent.bomRef);
    product.dependencies.add(coreComponent.bomRef);
    bom.components.add(coreComponent);
    bom.components.add(dualComponent);
    const vulnerability = model.vulnerabilities[0]!;
    const affected = vulnerability.affects[0]!;
    const analysis = new Models.Vulnerability.Analysis({
      state: Enums.Vulnerability.AnalysisState.NotAffected,
      justification: Enums.Vulnerability.AnalysisJustification.CodeNotReachable,
      detail: affected.analysis!.detail,
    });
    analysis.response.add(Enums.Vulnerability.AnalysisResponse.WillNotFix);
    bom.vulnerabilities.add(
      new Models.Vulnerability.Vulnerability({
        id: vulnerability.id,
        source: new Models.Vulnerability.Source({ name: 'NVD', url: new URL(`https://nvd.nist.gov/vuln/detail/${vulnerability.id}`) }),
        references: new Models.Vulnerability.ReferenceRepository([
          new Models.Vulnerability.Reference(vulnerability.aliases[0]!, new Models.Vulnerability.Source({ name: 'GitHub Advisories', url: new URL(`https://github.com/advisories/${vulnerability.aliases[0]}`) })),
        ]),
        ratings: new Models.Vulnerability.RatingRepository([new Models.Vulnerability.Rating({ score: vulnerability.riskScore!, method: Enums.Vulnerability.RatingMethod.Other })]),
        description: vulnerability.summary,
        analysis,
        affects: new Models.Vulnerability.AffectRepository([new Models.Vulnerability.Affect(coreComponent.bomRef)]),
      }),
    );
    const factory = new Serialize.JSON.Normalize.Factory(specVersion === '1.6' ? Spec.Spec1dot6 : Spec.Spec1dot4);
    return JSON.parse(new Serialize.JsonSerializer(factory).serialize(bom, { sortLists: false })) as Json;
  }

  it.each(['1.4', '1.6'] as const)('CycloneDX %s: metadata, components, dependencies and vulnerabilities match', (specVersion) => {
    const rich = aRichModel();
    const [core, dual] = rich.packages as [ExportPackage, ExportPackage];
    const vulnerability = rich.vulnerabilities[0]!;
    const model: ExportModel = {
      ...rich,
      packages: [{ ...core, hashes: { md5: core.hashes.md5!, sha1: core.hashes.sha1! } }, { ...dual, concludedLicenseSpdx: '' }],
      dependencies: new Map([[core.uuid, [dual.uuid]]]),
      vulnerabilities: [{ ...vulnerability, aliases: vulnerability.aliases.slice(0, 1), affects: vulnerability.affects.slice(0, 1) }],
      licenseRefs: new Map(),
    };
    const ours = JSON.parse(JSON.stringify(writeCycloneDx(model, { specVersion, content: 'combined' }))) as Json;
    const reference = referenceBom(model, specVersion);
    // The library's serializer gives every vulnerability a generated bom-ref (optional, and nothing refers to it).
    for (const entry of reference.vulnerabilities as Json[]) delete entry['bom-ref'];
    expect(ours).toEqual(reference);
  });
});

describe('SPDX export', () => {
  it('validates against the official SPDX 2.3 schema and its rules: a rich product and an empty one', () => {
    for (const model of [aRichModel(), anExportModel()]) {
      const document = writeSpdx(model);
      expect(spdxSchemaErrors(document)).toBeNull();
      expect(spdxRuleProblems(document)).toEqual([]);
    }
  });

  it('the SPDX checks do catch a broken document', () => {
    const document = writeSpdx(aRichModel()) as Json;
    document.packages[1].licenseDeclared = 'MIT AND';
    document.packages[2].SPDXID = 'SPDXRef-has space';
    delete document.packages[3].downloadLocation;
    expect(spdxSchemaErrors(document)).not.toBeNull();
    expect(spdxRuleProblems(document)).toEqual(expect.arrayContaining([expect.stringContaining('does not parse'), 'bad SPDXID SPDXRef-has space']));
  });

  it('writes the document header and the product root package', () => {
    const model = aRichModel();
    const document = writeSpdx(model) as Json;
    expect(document).toMatchObject({
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'Shop “Front” — 店 3.0',
      documentNamespace: `https://compliance.example.com/api/v2/products/0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b/spdx/${model.documentUuid}`,
      creationInfo: { created: '2026-11-25T10:20:30Z', creators: ['Tool: compliance-service-0.1.0'] },
    });
    expect(document.packages[0]).toEqual({
      name: 'Shop “Front” — 店',
      SPDXID: 'SPDXRef-Product-0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b',
      versionInfo: '3.0',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      primaryPackagePurpose: 'APPLICATION',
    });
  });

  it('writes a package with every field the catalog has', () => {
    const model = aRichModel();
    const document = writeSpdx(model) as Json;
    expect(packageNamed(document, 'core')).toEqual({
      name: 'core',
      SPDXID: `SPDXRef-Package-${model.packages[0]!.uuid}`,
      versionInfo: '1.0.0',
      packageFileName: 'core-1.0.0.tgz',
      supplier: 'Organization: Acme, Inc.',
      downloadLocation: 'https://registry.npmjs.org/@acme/core/-/core-1.0.0.tgz',
      filesAnalyzed: false,
      checksums: [
        { algorithm: 'MD5', checksumValue: 'd41d8cd98f00b204e9800998ecf8427e' },
        { algorithm: 'SHA1', checksumValue: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' },
        { algorithm: 'SHA256', checksumValue: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
      ],
      homepage: 'https://acme.example/core',
      licenseConcluded: 'MIT',
      licenseDeclared: 'MIT',
      copyrightText: 'Copyright (c) 2024 Acme "Labs" <legal@acme.example>',
      description: 'The "core" — with quotes, a backslash \\ and a newline\nin it.',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:npm/%40acme/core@1.0.0' }],
      primaryPackagePurpose: 'LIBRARY',
    });
    const bare = packageNamed(writeSpdx(anExportModel({ packages: [anExportPackage({ name: 'bare', version: '', purl: '', hashes: {}, declaredLicenseSpdx: '' })] })) as Json, 'bare');
    expect(bare).toEqual({
      name: 'bare',
      SPDXID: bare.SPDXID,
      supplier: 'NOASSERTION',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      licenseConcluded: 'NOASSERTION',
      licenseDeclared: 'NOASSERTION',
      primaryPackagePurpose: 'LIBRARY',
    });
  });

  it('keeps odd characters intact through JSON', () => {
    const model = aRichModel();
    for (const document of [writeSpdx(model), writeCycloneDx(model, { specVersion: '1.6', content: 'combined' })]) {
      const text = JSON.stringify(document);
      const parsed = JSON.parse(text) as Json;
      expect(parsed).toEqual(document);
      expect(text).toContain('naïve-café-日本語-😀');
      expect(text).toContain('Zoë \\"Z\\" Müller');
    }
    expect(packageNamed(writeSpdx(model) as Json, 'naïve-café-日本語-😀').supplier).toBe('Organization: Zoë "Z" Müller');
  });
});

describe('10,000 packages', () => {
  // How long rendering takes is the benchmark's to measure (`npm run bench -- sbom`), not a timed test's.
  it('render and serialize whole, and the documents hold together', () => {
    const model = aLargeExportModel(10_000);
    const cdx = JSON.stringify(writeCycloneDx(model, { specVersion: '1.6', content: 'combined' }));
    const spdx = JSON.stringify(writeSpdx(model));
    const cdxDocument = JSON.parse(cdx) as Json;
    expect(cdxDocument.components).toHaveLength(10_000);
    expect(cdxDocument.vulnerabilities).toHaveLength(200);
    expect(cycloneDxRuleProblems(cdxDocument)).toEqual([]);
    // Not the CycloneDX schema at this size: its `uniqueItems` on components and dependencies makes Ajv
    // compare every pair (about a minute for 10,000 here). The same factory is validated at 1,000 below.
    const spdxDocument = JSON.parse(spdx) as Json;
    expect(spdxDocument.packages).toHaveLength(10_001);
    expect(spdxSchemaErrors(spdxDocument)).toBeNull();
    expect(spdxRuleProblems(spdxDocument)).toEqual([]);
  });

  it('a 1,000-package product of the same kind validates against the CycloneDX 1.6 schema', async () => {
    const document = writeCycloneDx(aLargeExportModel(1_000), { specVersion: '1.6', content: 'combined' });
    expect(await cycloneDxSchemaErrors(document, '1.6')).toBeNull();
  });
});
