import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES } from '../../shared/domain/catalog.ts';
import type { ExportModel } from '../../shared/sbom/export-model.ts';
import { CYCLONEDX_CONTENTS, CYCLONEDX_SPEC_VERSIONS, writeCycloneDx, type CycloneDxDocument, type CycloneDxSpecVersion } from '../../shared/sbom/write-cyclonedx.ts';
import { CYCLONEDX_XML_MEDIA_TYPE, cyclonedxXml } from '../../shared/sbom/write-cyclonedx-xml.ts';
import { aLargeExportModel, anExportModel, anExportPackage, anExportVulnerability } from '../support/export-model.ts';

type Json = Record<string, any>;

// The official XSDs, as the CycloneDX JavaScript library ships them.
const SCHEMAS = fileURLToPath(new URL('../../node_modules/@cyclonedx/cyclonedx-library/res/schema/', import.meta.url));
const SPDX_XSD = { fileName: 'spdx.SNAPSHOT.xsd', contents: readFileSync(`${SCHEMAS}spdx.SNAPSHOT.xsd`, 'utf8') };
const BOM_XSD = Object.fromEntries(
  CYCLONEDX_SPEC_VERSIONS.map((version) => [version, { fileName: `bom-${version}.SNAPSHOT.xsd`, contents: readFileSync(`${SCHEMAS}bom-${version}.SNAPSHOT.xsd`, 'utf8') }]),
) as Record<CycloneDxSpecVersion, { fileName: string; contents: string }>;

/** The XSD's complaints about the XML (empty when it validates). */
async function xsdErrors(xml: string, specVersion: CycloneDxSpecVersion): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: 'bom.xml', contents: xml }], schema: [BOM_XSD[specVersion]], preload: [SPDX_XSD], maxMemoryPages: 16_384 });
  expect(result.valid).toBe(result.errors.length === 0);
  return result.errors.map((error) => error.rawMessage);
}

/** A product with every field the JSON writer can emit, and every analysis state, justification and response. */
function aFullModel(): ExportModel {
  const core = anExportPackage({
    name: 'core',
    namespace: '@acme',
    purl: 'pkg:npm/%40acme/core@1.0.0',
    version: '1.0.0',
    declaredLicenseSpdx: 'MIT',
    concludedLicenseSpdx: 'MIT',
    hashes: {
      md5: 'D41D8CD98F00B204E9800998ECF8427E',
      sha1: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      sha512: 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
    },
    description: 'The "core" of it.\nA second line.',
    homepageUrl: 'https://acme.example/core',
    downloadUrl: 'https://registry.npmjs.org/@acme/core/-/core-1.0.0.tgz',
    supplier: 'Acme, Inc.',
    copyright: 'Copyright (c) 2024 Acme <legal@acme.example>',
    filename: 'core-1.0.0.tgz',
    isModified: true,
    isDeployed: true,
  });
  // Declared an expression, concluded one id: 1.6 keeps the declared one in `evidence`.
  const dual = anExportPackage({ name: 'dual', declaredLicenseSpdx: 'MIT OR GPL-3.0-only', concludedLicenseSpdx: 'MIT', filename: 'dual.tgz', isDeployed: false });
  // Two listed ids: 1.6 lists both, each with its acknowledgement.
  const relicensed = anExportPackage({ name: 'relicensed', declaredLicenseSpdx: 'Apache-2.0', concludedLicenseSpdx: 'MIT' });
  const classpath = anExportPackage({ name: 'jdk-thing', type: 'maven', namespace: 'org.example', purl: 'pkg:maven/org.example/jdk-thing@17', version: '17', declaredLicenseSpdx: 'GPL-2.0-only WITH Classpath-exception-2.0' });
  const vendor = anExportPackage({ name: 'vendor-blob', declaredLicenseSpdx: 'LicenseRef-acme-eula OR Apache-2.0', concludedLicenseSpdx: 'LicenseRef-acme-eula', isModified: true });
  // No purl (its bom-ref is its uuid), no license, no hash.
  const bare = anExportPackage({ name: 'bare', purl: '', version: '', declaredLicenseSpdx: '', hashes: {} });
  const cycleA = anExportPackage({ name: 'cycle-a', declaredLicenseSpdx: 'ISC' });
  const cycleB = anExportPackage({ name: 'cycle-b', declaredLicenseSpdx: 'BSD-3-Clause' });
  const packages = [core, dual, relicensed, classpath, vendor, bare, cycleA, cycleB];
  const dependencies = new Map([
    [core.uuid, [dual.uuid, relicensed.uuid, bare.uuid]],
    [dual.uuid, [relicensed.uuid]],
    [cycleA.uuid, [cycleB.uuid]],
    [cycleB.uuid, [cycleA.uuid]],
  ]);
  // Nine analyses: every justification once, every state at least once, responses from none to all five.
  const analyses = JUSTIFICATIONS.map((justification, i) => ({
    state: ANALYSIS_STATES[i % ANALYSIS_STATES.length]!,
    justification,
    responses: RESPONSES.slice(0, i % (RESPONSES.length + 1)),
    detail: i % 2 === 0 ? `Analysis ${i}: see the ticket.` : '',
  }));
  const vulnerabilities = [
    anExportVulnerability({
      id: 'CVE-2024-1234',
      aliases: ['GHSA-35m5-8cvj-8783', 'PYSEC-2024-7'],
      summary: 'Prototype pollution in core',
      riskScore: 8.1,
      affects: [
        ...packages.slice(0, 5).map((pkg, i) => ({ packageUuid: pkg.uuid, analysis: analyses[i]! })),
        // No analysis, and versions that fix it: a recommendation and the affected versions.
        { packageUuid: cycleA.uuid, analysis: null, fixedVersions: ['2.0.1', '3.0.0'] },
      ],
    }),
    anExportVulnerability({
      id: 'GHSA-jfh8-c2jp-5v3q',
      riskScore: 0,
      affects: [
        ...packages.slice(5, 8).map((pkg, i) => ({ packageUuid: pkg.uuid, analysis: analyses[5 + i]!, fixedVersions: ['9.9.9'] })),
        { packageUuid: core.uuid, analysis: analyses[8]! },
        // Only a detail, no state.
        { packageUuid: dual.uuid, analysis: { state: null, justification: null, responses: [], detail: 'Looked at, undecided.' } },
      ],
    }),
    // No risk score, nothing in the product: an entry without ratings, analysis or affects.
    anExportVulnerability({ id: 'OSV-2024-99', riskScore: null, summary: '', affects: [{ packageUuid: 'not-in-the-product', analysis: null }] }),
  ];
  return anExportModel({
    product: { uuid: '0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Shop', version: '3.0', apiUrl: 'https://compliance.example.com/api/v2/products/0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b/' },
    packages,
    dependencies,
    vulnerabilities,
    licenseRefs: new Map([['LicenseRef-acme-eula', { name: 'Acme End User License', text: 'Only on Tuesdays.' }]]),
  });
}

// Reading the XML back: a strict SAX parser (saxes) builds a small tree, and the reader below turns
// it back into the JSON writer's shape, marking each element it reads: an element it did not expect
// is reported, so the XML can hold neither less nor more than the JSON.

interface XmlNode {
  readonly name: string;
  readonly ns: string;
  readonly attributes: Record<string, string>;
  readonly children: XmlNode[];
  text: string;
  read: boolean;
}

function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlNode[] = [];
  let root: XmlNode | undefined;
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) if (attribute.uri === '' && attribute.prefix === '') attributes[attribute.local] = attribute.value;
    const node: XmlNode = { name: tag.local, ns: tag.uri, attributes, children: [], text: '', read: false };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(node);
    else root = node;
    stack.push(node);
  });
  parser.on('text', (text) => {
    if (stack.length > 0) stack[stack.length - 1]!.text += text;
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
  return root!;
}

function child(node: XmlNode, name: string): XmlNode | undefined {
  const found = node.children.filter((candidate) => candidate.name === name);
  expect(found.length, `<${node.name}> has ${found.length} <${name}>`).toBeLessThanOrEqual(1);
  if (found[0]) found[0].read = true;
  return found[0];
}

/** The children of a wrapper element (`<hashes><hash/>…</hashes>`), undefined when there is no wrapper. */
function items(node: XmlNode, wrapper: string, name: string): XmlNode[] | undefined {
  const list = child(node, wrapper);
  if (!list) return undefined;
  expect(list.children.map((item) => item.name)).toEqual(list.children.map(() => name));
  for (const item of list.children) item.read = true;
  return list.children;
}

/** `{ [key]: text }` when the element is there. */
function textField(node: XmlNode, name: string, key = name): Json {
  const found = child(node, name);
  return found ? { [key]: found.text } : {};
}

function attributeField(node: XmlNode, name: string): Json {
  return node.attributes[name] === undefined ? {} : { [name]: node.attributes[name] };
}

const field = (key: string, value: unknown): Json => (value === undefined ? {} : { [key]: value });

function unread(node: XmlNode, path = node.name): string[] {
  return node.children.flatMap((item) => (item.read ? unread(item, `${path}/${item.name}`) : [`${path}/${item.name}`]));
}

/** The XML as the JSON writer's document (without `$schema`, `bomFormat` and `specVersion`, which XML says with its namespace). */
function jsonFromXml(root: XmlNode, specVersion: CycloneDxSpecVersion): Json {
  const hashes = (node: XmlNode) => field('hashes', items(node, 'hashes', 'hash')?.map((hash) => ({ alg: hash.attributes.alg, content: hash.text })));
  const licenses = (node: XmlNode) => {
    const list = child(node, 'licenses');
    if (!list) return {};
    for (const item of list.children) item.read = true;
    return {
      licenses: list.children.map((item) => {
        if (item.name === 'expression') return { expression: item.text, ...attributeField(item, 'acknowledgement') };
        expect(item.name).toBe('license');
        return { license: { ...textField(item, 'id'), ...textField(item, 'name'), ...attributeField(item, 'acknowledgement') } };
      }),
    };
  };
  const component = (node: XmlNode): Json => ({
    ...attributeField(node, 'type'),
    ...attributeField(node, 'bom-ref'),
    ...field('supplier', child(node, 'supplier') && textField(child(node, 'supplier')!, 'name')),
    ...textField(node, 'group'),
    ...textField(node, 'name'),
    ...textField(node, 'version'),
    ...textField(node, 'description'),
    ...hashes(node),
    ...licenses(node),
    ...textField(node, 'copyright'),
    ...textField(node, 'purl'),
    ...field('externalReferences', items(node, 'externalReferences', 'reference')?.map((reference) => ({ ...textField(reference, 'url'), type: reference.attributes.type }))),
    ...field('evidence', child(node, 'evidence') && licenses(child(node, 'evidence')!)),
    ...field('properties', items(node, 'properties', 'property')?.map((property) => ({ name: property.attributes.name, value: property.text }))),
  });
  const source = (node: XmlNode | undefined) => node && { ...textField(node, 'name'), ...textField(node, 'url') };
  const vulnerability = (node: XmlNode): Json => {
    const analysis = child(node, 'analysis');
    return {
      ...textField(node, 'id'),
      ...field('source', source(child(node, 'source'))),
      ...field('references', items(node, 'references', 'reference')?.map((reference) => ({ ...textField(reference, 'id'), source: source(child(reference, 'source')) }))),
      ...field('ratings', items(node, 'ratings', 'rating')?.map((rating) => ({ score: Number(child(rating, 'score')!.text), ...textField(rating, 'method') }))),
      ...textField(node, 'description'),
      ...textField(node, 'recommendation'),
      ...field('analysis', analysis && {
        ...textField(analysis, 'state'),
        ...textField(analysis, 'justification'),
        ...field('response', items(analysis, 'responses', 'response')?.map((response) => response.text)),
        ...textField(analysis, 'detail'),
      }),
      ...field('affects', items(node, 'affects', 'target')?.map((target) => ({
        ...textField(target, 'ref'),
        ...field('versions', items(target, 'versions', 'version')?.map((version) => ({ ...textField(version, 'version'), ...textField(version, 'status') }))),
      }))),
    };
  };
  const metadata = child(root, 'metadata')!;
  const tools = child(metadata, 'tools')!;
  const tool = (node: XmlNode) => ({ ...textField(node, 'name'), ...textField(node, 'version') });
  const json = {
    serialNumber: root.attributes.serialNumber,
    version: Number(root.attributes.version),
    metadata: {
      ...textField(metadata, 'timestamp'),
      tools: specVersion === '1.4' ? items(metadata, 'tools', 'tool')!.map(tool) : { components: items(tools, 'components', 'component')!.map(component) },
      component: component(child(metadata, 'component')!),
    },
    ...field('components', items(root, 'components', 'component')?.map(component)),
    ...field('dependencies', items(root, 'dependencies', 'dependency')?.map((dependency) => {
      for (const target of dependency.children) target.read = true;
      return { ref: dependency.attributes.ref, ...field('dependsOn', dependency.children.length > 0 ? dependency.children.map((target) => target.attributes.ref) : undefined) };
    })),
    ...field('vulnerabilities', items(root, 'vulnerabilities', 'vulnerability')?.map(vulnerability)),
  };
  expect(unread(root)).toEqual([]);
  return json;
}

/** The JSON document as the XML must say it: JSON's `$schema`, `bomFormat` and `specVersion` are XML's namespace. */
function withoutHeader(document: CycloneDxDocument): Json {
  const { $schema, bomFormat, specVersion, ...rest } = JSON.parse(JSON.stringify(document)) as Json;
  expect([bomFormat, $schema]).toEqual(['CycloneDX', `http://cyclonedx.org/schema/bom-${specVersion}.schema.json`]);
  return rest;
}

/** Every field path of a JSON document (array positions as `[]`). */
function fieldPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => fieldPaths(item, `${path}[]`));
  if (typeof value !== 'object' || value === null) return [path];
  return Object.entries(value).flatMap(([key, item]) => fieldPaths(item, path ? `${path}.${key}` : key));
}

const MATRIX = CYCLONEDX_SPEC_VERSIONS.flatMap((specVersion) => CYCLONEDX_CONTENTS.map((content) => [specVersion, content] as const));

describe('CycloneDX XML: the JSON document, valid against the version\'s XSD', () => {
  it.each(MATRIX)('CycloneDX %s %s: valid, and reads back as the JSON document', async (specVersion, content) => {
    const document = writeCycloneDx(aFullModel(), { specVersion, content });
    const xml = cyclonedxXml(document, specVersion);
    expect(await xsdErrors(xml, specVersion)).toEqual([]);
    expect(xml.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/${specVersion}" serialNumber="${document.serialNumber as string}" version="1">\n`)).toBe(true);
    const root = parseXml(xml);
    expect(jsonFromXml(root, specVersion)).toEqual(withoutHeader(document));
    // Every element is in the version's namespace (XML's way of saying the spec version).
    const namespaces = new Set<string>();
    const collect = (node: XmlNode): void => void (namespaces.add(node.ns), node.children.forEach(collect));
    collect(root);
    expect([...namespaces]).toEqual([`http://cyclonedx.org/schema/bom/${specVersion}`]);
  });

  it('the full model makes the JSON writer emit every field it has', () => {
    const paths = new Set(MATRIX.flatMap(([specVersion, content]) => fieldPaths(writeCycloneDx(aFullModel(), { specVersion, content }))));
    expect([...paths].sort()).toEqual([
      '$schema',
      'bomFormat',
      'components[].bom-ref',
      'components[].copyright',
      'components[].description',
      'components[].evidence.licenses[].expression',
      'components[].evidence.licenses[].acknowledgement',
      'components[].externalReferences[].type',
      'components[].externalReferences[].url',
      'components[].group',
      'components[].hashes[].alg',
      'components[].hashes[].content',
      'components[].licenses[].acknowledgement',
      'components[].licenses[].expression',
      'components[].licenses[].license.acknowledgement',
      'components[].licenses[].license.id',
      'components[].name',
      'components[].properties[].name',
      'components[].properties[].value',
      'components[].purl',
      'components[].supplier.name',
      'components[].type',
      'components[].version',
      'dependencies[].dependsOn[]',
      'dependencies[].ref',
      'metadata.component.bom-ref',
      'metadata.component.name',
      'metadata.component.type',
      'metadata.component.version',
      'metadata.timestamp',
      'metadata.tools.components[].name',
      'metadata.tools.components[].type',
      'metadata.tools.components[].version',
      'metadata.tools[].name',
      'metadata.tools[].version',
      'serialNumber',
      'specVersion',
      'version',
      'vulnerabilities[].affects[].ref',
      'vulnerabilities[].affects[].versions[].status',
      'vulnerabilities[].affects[].versions[].version',
      'vulnerabilities[].analysis.detail',
      'vulnerabilities[].analysis.justification',
      'vulnerabilities[].analysis.response[]',
      'vulnerabilities[].analysis.state',
      'vulnerabilities[].description',
      'vulnerabilities[].id',
      'vulnerabilities[].ratings[].method',
      'vulnerabilities[].ratings[].score',
      'vulnerabilities[].recommendation',
      'vulnerabilities[].references[].id',
      'vulnerabilities[].references[].source.name',
      'vulnerabilities[].references[].source.url',
      'vulnerabilities[].source.name',
      'vulnerabilities[].source.url',
    ].sort());
    const document = writeCycloneDx(aFullModel(), { specVersion: '1.6', content: 'combined' }) as Json;
    const states = new Set((document.vulnerabilities as Json[]).map((entry) => entry.analysis?.state));
    expect([...ANALYSIS_STATES].filter((state) => !states.has(state))).toEqual([]);
  });

  it.each(MATRIX)('CycloneDX %s %s: an empty product', async (specVersion, content) => {
    const document = writeCycloneDx(anExportModel({ product: { uuid: '6f1c8a2e-0d3b-4c5a-9e7f-1a2b3c4d5e6f', name: 'Empty', version: '', apiUrl: 'https://x.example/' } }), { specVersion, content });
    const xml = cyclonedxXml(document, specVersion);
    expect(await xsdErrors(xml, specVersion)).toEqual([]);
    expect(jsonFromXml(parseXml(xml), specVersion)).toEqual(withoutHeader(document));
    if (content !== 'vex') expect(xml).toContain('\n  <components/>\n');
    if (content !== 'sbom') expect(xml).toContain('\n  <vulnerabilities/>\n');
  });

  it('a 1,000-package product of the kind the 10,000-package benchmark uses validates and reads back', async () => {
    const document = writeCycloneDx(aLargeExportModel(1_000), { specVersion: '1.6', content: 'combined' });
    const xml = cyclonedxXml(document, '1.6');
    expect(await xsdErrors(xml, '1.6')).toEqual([]);
    expect(jsonFromXml(parseXml(xml), '1.6')).toEqual(withoutHeader(document));
  });
});

describe('CycloneDX XML: the forms each version asks for', () => {
  const model = aFullModel();
  const xmlOf = (specVersion: CycloneDxSpecVersion) => cyclonedxXml(writeCycloneDx(model, { specVersion, content: 'combined' }), specVersion);

  it('writes a component, its licenses, hashes, references and properties as the XSD orders them', () => {
    const core = model.packages[0]!;
    expect(xmlOf('1.6')).toContain(
      [
        '    <component type="library" bom-ref="pkg:npm/%40acme/core@1.0.0">',
        '      <supplier>',
        '        <name>Acme, Inc.</name>',
        '      </supplier>',
        '      <group>@acme</group>',
        '      <name>core</name>',
        '      <version>1.0.0</version>',
        '      <description>The "core" of it.\nA second line.</description>',
        '      <hashes>',
        '        <hash alg="MD5">d41d8cd98f00b204e9800998ecf8427e</hash>',
        '        <hash alg="SHA-1">da39a3ee5e6b4b0d3255bfef95601890afd80709</hash>',
        '        <hash alg="SHA-256">e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855</hash>',
        `        <hash alg="SHA-512">${core.hashes.sha512}</hash>`,
        '      </hashes>',
        '      <licenses>',
        '        <license acknowledgement="declared">',
        '          <id>MIT</id>',
        '        </license>',
        '        <license acknowledgement="concluded">',
        '          <id>MIT</id>',
        '        </license>',
        '      </licenses>',
        '      <copyright>Copyright (c) 2024 Acme &lt;legal@acme.example&gt;</copyright>',
        '      <purl>pkg:npm/%40acme/core@1.0.0</purl>',
        '      <externalReferences>',
        '        <reference type="website">',
        '          <url>https://acme.example/core</url>',
        '        </reference>',
        '        <reference type="distribution">',
        '          <url>https://registry.npmjs.org/@acme/core/-/core-1.0.0.tgz</url>',
        '        </reference>',
        '      </externalReferences>',
        '      <properties>',
        '        <property name="aboutcode:filename">core-1.0.0.tgz</property>',
        '      </properties>',
        '    </component>',
      ].join('\n'),
    );
  });

  it('1.6 puts the acknowledgement in an attribute and `properties` before `evidence`; 1.4 and 1.5 carry one effective expression', () => {
    const dual = model.packages[1]!;
    const v16 = xmlOf('1.6');
    const dualXml = v16.slice(v16.indexOf(`bom-ref="${dual.purl}"`), v16.indexOf('</component>', v16.indexOf(`bom-ref="${dual.purl}"`)));
    expect(dualXml).toContain('<license acknowledgement="concluded">\n          <id>MIT</id>\n        </license>');
    expect(dualXml).toContain(
      '</properties>\n      <evidence>\n        <licenses>\n          <expression acknowledgement="declared">MIT OR GPL-3.0-only</expression>\n        </licenses>\n      </evidence>\n    ',
    );
    const classpathXml = (version: CycloneDxSpecVersion) => xmlOf(version).split('bom-ref="pkg:maven/org.example/jdk-thing@17"')[1]!.split('</component>')[0]!;
    expect(classpathXml('1.6')).toContain('<expression acknowledgement="declared">GPL-2.0-only WITH Classpath-exception-2.0</expression>');
    for (const version of ['1.4', '1.5'] as const) {
      expect(classpathXml(version)).toContain('<licenses>\n        <expression>GPL-2.0-only WITH Classpath-exception-2.0</expression>\n      </licenses>');
      expect(xmlOf(version)).not.toContain('acknowledgement');
      expect(xmlOf(version)).toContain('<expression>LicenseRef-acme-eula</expression>');
    }
  });

  it('1.4 lists tools as `tools/tool`, 1.5 and 1.6 as `tools/components/component`', () => {
    expect(xmlOf('1.4')).toContain('<tools>\n      <tool>\n        <name>compliance-service</name>\n        <version>0.1.0</version>\n      </tool>\n    </tools>');
    for (const version of ['1.5', '1.6'] as const) {
      expect(xmlOf(version)).toContain('<tools>\n      <components>\n        <component type="application">\n          <name>compliance-service</name>');
    }
  });

  it('nests dependencies, and writes a vulnerability\'s ratings, analysis and affected versions as elements', () => {
    const xml = xmlOf('1.5');
    const [core, dual, relicensed, , , bare, cycleA] = model.packages;
    expect(xml).toContain(`<dependency ref="${core!.purl}">\n      <dependency ref="${dual!.purl}"/>\n      <dependency ref="${relicensed!.purl}"/>\n      <dependency ref="${bare!.uuid}"/>\n    </dependency>`);
    expect(xml).toContain(`<dependency ref="${relicensed!.purl}"/>\n`);
    expect(xml).toContain('<ratings>\n        <rating>\n          <score>8.1</score>\n          <method>other</method>\n        </rating>\n      </ratings>');
    expect(xml).toContain('<ratings>\n        <rating>\n          <score>0</score>');
    expect(xml).toContain(
      '<analysis>\n        <state>resolved</state>\n        <justification>code_not_present</justification>\n        <detail>Analysis 0: see the ticket.</detail>\n      </analysis>',
    );
    expect(xml).toContain('<responses>\n          <response>can_not_fix</response>\n          <response>rollback</response>\n        </responses>');
    expect(xml).toContain(
      `<target>\n          <ref>${cycleA!.purl}</ref>\n          <versions>\n            <version>\n              <version>${cycleA!.version}</version>\n              <status>affected</status>\n            </version>\n            <version>\n              <version>2.0.1</version>\n              <status>unaffected</status>`,
    );
  });

  it('is deterministic, and says which media type it is', () => {
    const document = writeCycloneDx(model, { specVersion: '1.6', content: 'combined' });
    expect(cyclonedxXml(document, '1.6')).toBe(cyclonedxXml(structuredClone(document), '1.6'));
    expect(CYCLONEDX_XML_MEDIA_TYPE).toBe('application/vnd.cyclonedx+xml');
  });
});

describe('CycloneDX XML: escaping', () => {
  const ODD = 'Tom & Jerry <script>"quoted" \'single\' ]]> end 😀 e\u0301 n\u0303 日本語 \u202Eright-to-left\u202C';

  it.each(CYCLONEDX_SPEC_VERSIONS)('CycloneDX %s: untrusted text in every text field stays valid and reads back exactly', async (specVersion) => {
    const odd = anExportPackage({
      name: ODD,
      namespace: `${ODD} group`,
      purl: 'pkg:generic/odd@1.0?a=1&b=2',
      version: '1.0 <beta> & "rc"',
      description: `${ODD}\n\ttabbed\r\nwindows line`,
      supplier: ODD,
      copyright: `© ${ODD}`,
      filename: `${ODD}.tgz`,
      homepageUrl: 'https://example.com/?a=1&b=2',
    });
    const model = anExportModel({
      product: { uuid: '0b5e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b', name: ODD, version: ']]>', apiUrl: 'https://x.example/' },
      packages: [odd],
      vulnerabilities: [anExportVulnerability({ summary: ODD, affects: [{ packageUuid: odd.uuid, analysis: { state: 'not_affected', justification: 'code_not_present', responses: [], detail: `${ODD}\r\n<![CDATA[x]]>` } }] })],
    });
    const document = writeCycloneDx(model, { specVersion, content: 'combined' });
    const xml = cyclonedxXml(document, specVersion);
    expect(await xsdErrors(xml, specVersion)).toEqual([]);
    expect(jsonFromXml(parseXml(xml), specVersion)).toEqual(withoutHeader(document));
    expect(xml).not.toContain(']]>');
    expect(xml).toContain('bom-ref="pkg:generic/odd@1.0?a=1&amp;b=2"');
    expect(xml).toContain('&#13;\n');
    // Decomposed characters stay decomposed: nothing is normalized.
    expect(xml).toContain('e\u0301 n\u0303');
  });

  it('attribute values: quotes, markup, tab, newline and carriage return survive attribute-value normalization', async () => {
    const document = writeCycloneDx(anExportModel({ packages: [anExportPackage({ name: 'a' }), anExportPackage({ name: 'b' })] }), { specVersion: '1.6', content: 'combined' }) as Json;
    const refs = ['a "quoted" <ref> & \'more\'', 'tab\there\nnewline\r\ncarriage 😀'];
    document.components.forEach((component: Json, i: number) => (component['bom-ref'] = refs[i]));
    document.dependencies[0].dependsOn = refs;
    document.dependencies[1].ref = refs[0];
    document.dependencies[2].ref = refs[1];
    const xml = cyclonedxXml(document as CycloneDxDocument, '1.6');
    expect(await xsdErrors(xml, '1.6')).toEqual([]);
    expect(jsonFromXml(parseXml(xml), '1.6')).toEqual(withoutHeader(document as CycloneDxDocument));
    expect(xml).toContain('bom-ref="tab&#9;here&#10;newline&#13;&#10;carriage 😀"');
    expect(xml).toContain('bom-ref="a &quot;quoted&quot; &lt;ref&gt; &amp; \'more\'"');
  });

  it('drops what XML 1.0 cannot hold (C0 controls, U+FFFE, U+FFFF, lone surrogates) and keeps everything else', async () => {
    const document = writeCycloneDx(anExportModel({ packages: [anExportPackage({ name: 'nul' })] }), { specVersion: '1.4', content: 'sbom' }) as Json;
    document.components[0].name = 'a\u0000b\u0008c\u000Bd\u001Fe\uFFFEf\uFFFFg\uD800h\uDC00i\uD83D\uDE00j\u007F\u0085k';
    document.components[0]['bom-ref'] = 'ref\u0001\uDFFF';
    document.dependencies[0].dependsOn = ['ref\u0001\uDFFF'];
    document.dependencies[1].ref = 'ref\u0001\uDFFF';
    const xml = cyclonedxXml(document as CycloneDxDocument, '1.4');
    expect(await xsdErrors(xml, '1.4')).toEqual([]);
    const read = jsonFromXml(parseXml(xml), '1.4');
    expect(read.components[0].name).toBe('abcdefghi😀j\u007F\u0085k');
    expect(read.components[0]['bom-ref']).toBe('ref');
    expect(read.dependencies[1].ref).toBe('ref');
  });
});

describe('CycloneDX XML: what the converter refuses, and what the checks above catch', () => {
  it('the XSD check does fail: a component whose `version` comes before its `name`, and a hash of no algorithm\'s length', async () => {
    const xml = cyclonedxXml(writeCycloneDx(aFullModel(), { specVersion: '1.6', content: 'combined' }), '1.6');
    expect(await xsdErrors(xml, '1.6')).toEqual([]);
    const swapped = xml.replace('      <name>core</name>\n      <version>1.0.0</version>', '      <version>1.0.0</version>\n      <name>core</name>');
    expect(swapped).not.toBe(xml);
    const errors = await xsdErrors(swapped, '1.6');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("Element '{http://cyclonedx.org/schema/bom/1.6}version': This element is not expected.");
    expect(await xsdErrors(xml.replace('>d41d8cd98f00b204e9800998ecf8427e<', '>d41d8<'), '1.6')).not.toEqual([]);
    // A 1.6-only attribute is refused by the 1.5 XSD.
    expect(await xsdErrors(xml.replaceAll('/bom/1.6', '/bom/1.5'), '1.5')).toEqual(expect.arrayContaining([expect.stringContaining("attribute 'acknowledgement' is not allowed")]));
  });

  it('the read-back check does fail: an element the JSON does not have is reported', () => {
    const xml = cyclonedxXml(writeCycloneDx(aFullModel(), { specVersion: '1.4', content: 'sbom' }), '1.4');
    const extra = xml.replace('<purl>pkg:npm/%40acme/core@1.0.0</purl>', '<purl>pkg:npm/%40acme/core@1.0.0</purl><modified>false</modified>');
    expect(() => jsonFromXml(parseXml(extra), '1.4')).toThrow(/modified/);
  });

  it('refuses a field it has no XML form for, a document of another version, and forms the version lacks', () => {
    const document = () => writeCycloneDx(aFullModel(), { specVersion: '1.5', content: 'combined' }) as Json;
    const signed = document();
    signed.components[0].signature = { algorithm: 'RS256', value: 'x' };
    expect(() => cyclonedxXml(signed as CycloneDxDocument, '1.5')).toThrow('CycloneDX XML: components[0].signature has no XML form here');
    expect(() => cyclonedxXml(document() as CycloneDxDocument, '1.6')).toThrow('the document is CycloneDX 1.5, not 1.6');
    const acknowledged = document();
    acknowledged.components[0].licenses[0].license.acknowledgement = 'declared';
    expect(() => cyclonedxXml(acknowledged as CycloneDxDocument, '1.5')).toThrow('components[0].licenses[0].license.acknowledgement is not in CycloneDX 1.5');
    const mixed = document();
    mixed.components[0].licenses.push({ expression: 'MIT OR ISC' });
    expect(() => cyclonedxXml(mixed as CycloneDxDocument, '1.5')).toThrow('components[0].licenses holds licenses or one expression');
    const v14 = writeCycloneDx(aFullModel(), { specVersion: '1.4', content: 'sbom' }) as Json;
    v14.metadata.tools = { components: [] };
    expect(() => cyclonedxXml(v14 as CycloneDxDocument, '1.4')).toThrow('metadata.tools is an object, which 1.4 does not have');
  });

  it.each(CYCLONEDX_SPEC_VERSIONS)('CycloneDX %s: the other forms it knows (cwes, a rating\'s parts, a reference\'s hashes, a named license with text) are valid', async (specVersion) => {
    const document = writeCycloneDx(aFullModel(), { specVersion, content: 'combined' }) as Json;
    const component = document.components[0];
    component.modified = false;
    component.externalReferences[0] = { ...component.externalReferences[0], comment: 'Home & docs', hashes: [{ alg: 'SHA-256', content: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }] };
    component.licenses = [{ license: { name: 'Acme <EULA>', text: { content: 'Only on Tuesdays.', contentType: 'text/plain' }, url: 'https://acme.example/eula' } }];
    const vulnerability = document.vulnerabilities[0];
    vulnerability.cwes = [79, 1321];
    vulnerability.detail = 'Details & more.';
    vulnerability.ratings = [{ source: { name: 'NVD' }, score: 1e-7, severity: 'low', method: 'CVSSv31', vector: 'AV:N/AC:L', justification: 'Because.' }, { score: 9.8 }];
    vulnerability.properties = [{ name: 'internal:ticket', value: 'SEC-1 & SEC-2' }];
    vulnerability.affects[0].versions = [{ range: 'vers:npm/<2.0.1', status: 'affected' }];
    const xml = cyclonedxXml(document as CycloneDxDocument, specVersion);
    expect(await xsdErrors(xml, specVersion)).toEqual([]);
    expect(xml).toContain('<cwes>\n        <cwe>79</cwe>\n        <cwe>1321</cwe>\n      </cwes>\n      <description>');
    expect(xml).toContain('<score>0.0000001</score>');
    expect(xml).toContain('<text content-type="text/plain">Only on Tuesdays.</text>');
    expect(xml).toContain('<range>vers:npm/&lt;2.0.1</range>');
    expect(xml).toContain('</externalReferences>\n      <properties>');
    expect(xml).toMatch(/<purl>[^<]*<\/purl>\n {6}<modified>false<\/modified>\n {6}<externalReferences>/);
  });
});

describe('fields other producers write (the benchmark converts cyclonedx-npm-shaped documents)', () => {
  it.each(CYCLONEDX_SPEC_VERSIONS)('CycloneDX %s: author, publisher and scope in the XSD\'s places, read back as written', async (specVersion) => {
    const document = writeCycloneDx(anExportModel({ packages: [anExportPackage({ name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' })] }), { specVersion, content: 'sbom' }) as Json;
    Object.assign(document.components[0], { author: 'Azer & co', publisher: 'npm <registry>', scope: 'required' });
    const xml = cyclonedxXml(document as CycloneDxDocument, specVersion);
    expect(await xsdErrors(xml, specVersion)).toEqual([]);
    expect(xml).toMatch(/<author>Azer &amp; co<\/author>\s*<publisher>npm &lt;registry&gt;<\/publisher>[\s\S]*<version>1.3.0<\/version>\s*<scope>required<\/scope>/);
  });
});
