/**
 * The SBOM and VEX formats beyond CycloneDX and SPDX JSON, through the real handlers: CycloneDX XML,
 * SPDX tag-value, SPDX 3.0 JSON-LD, OpenVEX and BOM-Link VEX, as the raw body under each media type
 * and as DejaCode's multipart `input_file` (sniffed): each gives the product what its JSON twin gives,
 * with the same summary fields; bad input of each is a 400 or 415 that says why, and changes nothing.
 * The whole pipeline (sbom_uploads, the import function) is test/pipeline/sbom-upload.test.ts's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { fixtureText } from '../support/sbom-documents.ts';
import { checkCycloneDxXml } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { checkSpdx3 } from '../../shared/sbom/spdx3.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } },
});
const { call } = http;

async function send(as: string, method: string, path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${http.api.url}${path}`, { method, headers: { authorization: `Token ${http.team.keys[as]}`, ...headers }, body });
  const text = await response.text();
  openApiChecker().check(method, path, { status: response.status, headers: response.headers, text });
  return { status: response.status, json: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined, text, headers: response.headers };
}

const load = (product: string, document: string, type: string, query = '') => send('alice', 'POST', `/api/v2/products/${product}/load_sboms/${query}`, document, { 'content-type': type });

function form(document: string, filename: string, type = 'application/octet-stream') {
  const data = new FormData();
  data.append('input_file', new Blob([document], { type }), filename);
  return data;
}

async function aProduct(name: string) {
  return (await call('alice', 'POST', '/api/v2/products/', { name })).json as { uuid: string };
}

/** What a product holds, comparable between two products: each package's purl, licenses, hashes and the purls it depends on. */
async function contents(product: string) {
  const held = await http.env.productPackages.ofProduct(product);
  const packages = await http.env.catalog.packages.getMany(held.map((pp) => pp.packageUuid));
  const purlOf = new Map(packages.map((pkg) => [pkg.uuid, pkg.purl]));
  return held
    .map((pp) => {
      const pkg = packages.find((p) => p.uuid === pp.packageUuid)!;
      return {
        purl: pkg.purl,
        license: pkg.licenseExpression,
        unknown: pkg.unknownLicenses,
        concluded: pp.licenseExpression,
        hashes: [pkg.md5, pkg.sha1, pkg.sha256, pkg.sha512],
        homepage: pkg.homepageUrl,
        dependsOn: pp.dependsOn.map((uuid) => purlOf.get(uuid)).sort(),
      };
    })
    .sort((a, b) => a.purl.localeCompare(b.purl));
}

/** The summary fields about the product (the catalog's own, packages_created and _matched, depend on what an earlier import created). */
const SUMMARY_FIELDS = ['components', 'added', 'removed', 'unchanged', 'skipped', 'unknown_licenses', 'added_purls', 'removed_purls', 'updated_purls'];

describe('CycloneDX XML', () => {
  let fromJson: Awaited<ReturnType<typeof contents>>;
  let jsonSummary: Record<string, unknown>;
  beforeAll(async () => {
    const product = await aProduct('Laravel from JSON');
    const answer = await load(product.uuid, fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.json'), 'application/vnd.cyclonedx+json');
    expect(answer.status, answer.text).toBe(200);
    jsonSummary = answer.json.summary;
    fromJson = await contents(product.uuid);
  });

  it.each(['application/vnd.cyclonedx+xml', 'application/xml', 'text/xml; charset=utf-8', 'multipart'])('as %s: the product its JSON twin makes, with the same summary', async (type) => {
    const product = await aProduct(`Laravel as ${type}`);
    const xml = fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.xml');
    const answer = type === 'multipart' ? await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(xml, 'bom.xml')) : await load(product.uuid, xml, type);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ status: 'completed', format: 'cyclonedx', spec_version: '1.4', errors: [] });
    for (const field of SUMMARY_FIELDS) expect(answer.json.summary[field], field).toEqual(jsonSummary[field]);
    expect(answer.json.summary.components).toBe(62);
    expect(answer.json.summary.packages_created + answer.json.summary.packages_matched).toBe(jsonSummary.packages_created);
    const held = await contents(product.uuid);
    expect(held).toEqual(fromJson);
    expect(held.filter((pkg) => pkg.dependsOn.length > 0).length).toBeGreaterThan(10);
  });

  it.each([
    ['a billion laughs', `<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&b;</name><version>1</version></component></components></bom>`, 400, /document type declaration/],
    ['an external entity', '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY x SYSTEM "file:///etc/passwd">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&x;</name><version>1</version></component></components></bom>', 400, /document type declaration/],
    ['truncated', fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.xml').slice(0, 3000), 400, /line \d+, column \d+/],
    ['a wrong root', '<sbom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', 400, /root element is <sbom>/],
    ['a wrong namespace', '<bom xmlns="http://example.com/bom"/>', 400, /namespace "http:\/\/example.com\/bom"/],
    ['an unsupported version', '<bom xmlns="http://cyclonedx.org/schema/bom/1.7"/>', 400, /CycloneDX XML 1.7 is not read here: 1.0 to 1.6 are/],
    ['invalid against its schema', '<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><version>1</version><name>a</name></component></components></bom>', 400, /^line 1: Element 'version': This element is not expected/],
    ['SPDX RDF/XML', '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>', 415, /SPDX RDF\/XML document is not read here/],
  ])('%s is a %s that says why, changing nothing', async (_name, body, status, message) => {
    const product = await aProduct(`Refused ${_name}`);
    const before = await http.snapshot();
    const answer = await load(product.uuid, body, 'application/xml');
    expect(answer.status, answer.text).toBe(status);
    expect(status === 415 ? answer.json.detail : answer.json.input_file[0]).toMatch(message);
    expect(await http.snapshot()).toBe(before);
  });
});

describe('CycloneDX XML export', () => {
  it.each(['1.4', '1.5', '1.6'] as const)('?format=xml&spec_version=%s: valid against its XML schema, and imported again it is the same product', async (version) => {
    const product = await aProduct(`Exported as XML ${version}`);
    expect((await load(product.uuid, fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.json'), 'application/vnd.cyclonedx+json')).status).toBe(200);
    const exported = await send('alice', 'GET', `/api/v2/products/${product.uuid}/cyclonedx/?format=xml&spec_version=${version}`, undefined);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/vnd.cyclonedx+xml');
    expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="Exported_as_XML_${version}.cdx.xml"`);
    expect(exported.text.startsWith(`<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/${version}"`)).toBe(true);
    expect(await checkCycloneDxXml(exported.text, version)).toEqual([]);
    const again = await aProduct(`Imported from XML ${version}`);
    const imported = await load(again.uuid, exported.text, 'application/vnd.cyclonedx+xml');
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json).toMatchObject({ format: 'cyclonedx', spec_version: version, summary: { components: 62, added: 62 } });
    expect(await contents(again.uuid)).toEqual(await contents(product.uuid));
  });

  it('an unknown format is a 400 naming the choices', async () => {
    const product = await aProduct('Export format');
    const answer = await send('alice', 'GET', `/api/v2/products/${product.uuid}/cyclonedx/?format=yaml`, undefined);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ format: ['Select a valid choice. yaml is not one of the available choices (json, xml).'] });
  });
});

describe('a VEX published apart from its BOM, naming components by BOM-Link', () => {
  it('applies what the BOM-Links name by the bom-refs recorded at import, and lists the rest with the reason', async () => {
    const product = await aProduct('BOM-Linked');
    // npm's own `npm sbom` (CycloneDX 1.5): bom-refs such as "zod@4.6.7", not purls, and a serial number.
    const sbom = JSON.parse(fixtureText('npm-sbom-prod.cdx.json')) as { serialNumber: string; components: { 'bom-ref': string; purl: string }[] };
    expect((await load(product.uuid, JSON.stringify(sbom), 'application/vnd.cyclonedx+json')).status).toBe(200);
    const serial = sbom.serialNumber.replace('urn:uuid:', '');
    const [first, second] = sbom.components.filter((component) => !component['bom-ref'].startsWith('pkg:'));
    const link = (ref: string, bom = serial) => ({ ref: `urn:cdx:${bom}/1#${encodeURIComponent(ref)}` });
    const vex = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      serialNumber: 'urn:uuid:0b2a1d4e-77f1-4c1e-9a57-0f6cbbf1d3a1',
      version: 1,
      vulnerabilities: [
        {
          id: 'CVE-2099-30001',
          analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: 'Fixture data, not a real advisory.' },
          affects: [link(first!['bom-ref']), link(second!['bom-ref']), link('not-in-this-bom@1.0.0'), link(first!['bom-ref'], '11111111-2222-4333-8444-555555555555')],
        },
      ],
    };
    const answer = await load(product.uuid, JSON.stringify(vex), 'application/vnd.cyclonedx+json');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.summary).toMatchObject({ components: 0, vulnerabilities: 1, analyses: 2 });
    expect(answer.json.errors).toEqual([
      expect.stringMatching(/affects "urn:cdx:.*#not-in-this-bom%401.0.0": no package of this product has bom-ref "not-in-this-bom@1.0.0" in BOM urn:uuid:/),
      expect.stringMatching(/names BOM urn:uuid:11111111-2222-4333-8444-555555555555, which was not imported into this product/),
    ]);
    const analyses = (await call('alice', 'GET', `/api/v2/vulnerability_analyses/?product=${product.uuid}`)).json.results;
    const held = await http.env.productPackages.ofProduct(product.uuid);
    const packages = await http.env.catalog.packages.getMany(held.map((pp) => pp.packageUuid));
    const purlAt = new Map(held.map((pp) => [pp.uuid, packages.find((pkg) => pkg.uuid === pp.packageUuid)!.purl]));
    expect(analyses.map((analysis: { product_package: string; state: string }) => [purlAt.get(analysis.product_package.split('/').at(-2)!), analysis.state]).sort()).toEqual(
      [first!.purl, second!.purl].map((purl) => [purl, 'not_affected']).sort(),
    );
  });
});

describe('SPDX tag-value', () => {
  it('as text/spdx and in the form: the SPDX project\'s example makes the product its JSON twin makes', async () => {
    const fromJson = await aProduct('SPDX example from JSON');
    const json = await load(fromJson.uuid, fixtureText('tag-value/SPDXJSONExample-v2.3.spdx.json'), 'application/spdx+json');
    expect(json.status, json.text).toBe(200);
    for (const how of ['text/spdx', 'multipart']) {
      const product = await aProduct(`SPDX example as ${how}`);
      const text = fixtureText('tag-value/SPDXTagExample-v2.3.spdx');
      const answer = how === 'multipart' ? await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(text, 'example.spdx')) : await load(product.uuid, text, how);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ format: 'spdx', spec_version: '2.3' });
      for (const field of SUMMARY_FIELDS) expect(answer.json.summary[field], field).toEqual(json.json.summary[field]);
      expect(await contents(product.uuid)).toEqual(await contents(fromJson.uuid));
    }
  });

  it("sbom4python's document of cve-bin-tool: every PyPI package it lists, by its purl", async () => {
    const product = await aProduct('cve-bin-tool');
    const text = fixtureText('tag-value/sbom4python-cve-bin-tool.spdx');
    const answer = await load(product.uuid, text, 'text/spdx');
    expect(answer.status, answer.text).toBe(200);
    // Counted in the text: each package's purl line, less the described product's own (cve-bin-tool).
    const purls = [...text.matchAll(/^ExternalRef: PACKAGE[-_]MANAGER purl (\S+)$/gm)].map((match) => match[1]!);
    expect(purls).toHaveLength(66);
    const held = (await contents(product.uuid)).map((pkg) => pkg.purl);
    expect(held).toHaveLength(65);
    expect(held).toEqual(expect.arrayContaining(purls.filter((purl) => purl !== 'pkg:pypi/cve-bin-tool@3.3')));
    expect((await contents(product.uuid)).filter((pkg) => pkg.dependsOn.length > 0).length).toBeGreaterThan(5);
  });

  it.each([
    ['a malformed line', 'SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\nthis line has no tag\n', /^line 3: /],
    ['an unterminated text', 'SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\nDocumentComment: <text>never closed\n', /^line 3: /],
    ['an unsupported version', fixtureText('tag-value.spdx').replace('SPDX-2.3', 'SPDX-2.1'), /spdxVersion "SPDX-2.1" is not read here/],
    ['truncated', fixtureText('tag-value/SPDXTagExample-v2.3.spdx').slice(0, 700), /./],
  ])('%s is a 400 that says why, changing nothing', async (_name, body, message) => {
    const product = await aProduct(`Tag-value ${_name}`);
    const before = await http.snapshot();
    const answer = await load(product.uuid, body, 'text/spdx');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.input_file[0]).toMatch(message);
    expect(await http.snapshot()).toBe(before);
  });
});

describe('SPDX 3.0', () => {
  it('imports the SPDX project\'s example, and exports ?spec_version=3.0 valid against the 3.0.1 schema, which imports again as the same product', async () => {
    const example = await aProduct('SPDX 3 example');
    const imported = await load(example.uuid, fixtureText('spdx3/spdx-examples-example9-appbomination.spdx3.json'), 'application/spdx+json');
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json).toMatchObject({ format: 'spdx', spec_version: '3.0.1' });
    expect(imported.json.summary.components).toBeGreaterThan(0);

    const product = await aProduct('Laravel for SPDX 3');
    expect((await load(product.uuid, fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.json'), 'application/vnd.cyclonedx+json')).status).toBe(200);
    const exported = await send('alice', 'GET', `/api/v2/products/${product.uuid}/spdx/?spec_version=3.0`, undefined);
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers.get('content-disposition')).toBe('attachment; filename="Laravel_for_SPDX_3.spdx3.json"');
    expect(exported.json['@context']).toBe('https://spdx.org/rdf/3.0.1/spdx-context.jsonld');
    expect(checkSpdx3(exported.json).errors).toEqual([]);
    const again = await aProduct('Laravel from SPDX 3');
    const reimported = await load(again.uuid, exported.text, 'application/spdx+json');
    expect(reimported.status, reimported.text).toBe(200);
    expect(reimported.json.summary).toMatchObject({ components: 62, added: 62 });
    const strip = (held: Awaited<ReturnType<typeof contents>>) => held.map(({ purl, license, concluded, dependsOn, homepage, hashes }) => ({ purl, license, concluded, dependsOn, homepage, hashes }));
    expect(strip(await contents(again.uuid))).toEqual(strip(await contents(product.uuid)));
    // SPDX 2.3 stays the default.
    expect((await send('alice', 'GET', `/api/v2/products/${product.uuid}/spdx/`, undefined)).json.spdxVersion).toBe('SPDX-2.3');
    expect((await send('alice', 'GET', `/api/v2/products/${product.uuid}/spdx/?spec_version=2.2`, undefined)).status).toBe(400);
  });

  it.each([
    ['an unsupported version', JSON.stringify({ '@context': 'https://spdx.org/rdf/3.1/spdx-context.jsonld', '@graph': [] }), /SPDX 3.1 .* is not read here: SPDX 3.0.0 and 3.0.1 are/],
    ['an element without a type', JSON.stringify({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [{ spdxId: 'urn:x' }] }), /./],
    ['truncated', fixtureText('spdx3/spdx-examples-example13.spdx3.json').slice(0, 2000), /Not valid JSON/],
  ])('%s is a 400 that says why, changing nothing', async (_name, body, message) => {
    const product = await aProduct(`SPDX 3 ${_name}`);
    const before = await http.snapshot();
    const answer = await load(product.uuid, body, 'application/spdx+json');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.input_file[0]).toMatch(message);
    expect(await http.snapshot()).toBe(before);
  });
});

describe('OpenVEX 0.2', () => {
  const vex = fixtureText('openvex/rancher-hardened-coredns.openvex.json');
  // What the statements speak of, read from the file: each subcomponent's purl, without a version.
  const statements = (JSON.parse(vex) as { statements: { vulnerability: { name: string }; products: { subcomponents: { '@id': string }[] }[]; justification: string }[] }).statements;
  const sbom = (name: string) =>
    JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      version: 1,
      metadata: { component: { type: 'container', name } },
      components: statements.map((statement, index) => ({ type: 'library', name: `lib-${index}`, version: '1.0.0-150600.1.1', purl: `${statement.products[0]!.subcomponents[0]!['@id']}@1.0.0-150600.1.1?arch=x86_64` })),
    });

  it.each(['application/openvex+json', 'application/json', 'multipart'])("as %s: Rancher's VEX of an image triages the packages the product holds, whatever their version", async (how) => {
    const product = await aProduct(`Hardened CoreDNS (${how})`);
    expect((await load(product.uuid, sbom('hardened-coredns'), 'application/vnd.cyclonedx+json')).status).toBe(200);
    const before = await contents(product.uuid);
    const answer = how === 'multipart' ? await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(vex, 'scan.openvex.json')) : await load(product.uuid, vex, how);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ format: 'openvex', spec_version: '0.2.0', summary: { components: 0, added: 0, removed: 0, vulnerabilities: statements.length, analyses: statements.length } });
    expect(await contents(product.uuid)).toEqual(before);
    const analyses = (await call('alice', 'GET', `/api/v2/vulnerability_analyses/?product=${product.uuid}`)).json.results as { vulnerability_id: string; state: string; justification: string; detail: string }[];
    expect(analyses.map((analysis) => analysis.vulnerability_id).sort()).toEqual(statements.map((statement) => statement.vulnerability.name).sort());
    for (const analysis of analyses) {
      const statement = statements.find((s) => s.vulnerability.name === analysis.vulnerability_id)!;
      expect(analysis.state).toBe('not_affected');
      expect(analysis.justification).toBe(statement.justification === 'vulnerable_code_not_in_execute_path' ? 'code_not_reachable' : 'requires_environment');
      expect(analysis.detail).toContain(`OpenVEX justification: ${statement.justification}`);
    }
  });

  it.each([
    ['OpenVEX 0.0.1', fixtureText('openvex/go-vex-v0.0.1.openvex.json'), /OpenVEX v0.0.1 .* is not read here/],
    ['a statement without a status', JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://example.com/vex-1', author: 'a', timestamp: '2026-01-01T00:00:00Z', version: 1, statements: [{ vulnerability: { name: 'CVE-2099-1' }, products: [{ '@id': 'pkg:npm/a@1' }] }] }), /status/],
    ['truncated', fixtureText('openvex/vexctl-demo.openvex.json').slice(0, 200), /Not valid JSON/],
  ])('%s is a 400 that says why, changing nothing', async (_name, body, message) => {
    const product = await aProduct(`OpenVEX ${_name}`);
    const before = await http.snapshot();
    const answer = await load(product.uuid, body, 'application/openvex+json');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.input_file.join(' ')).toMatch(message);
    expect(await http.snapshot()).toBe(before);
  });
});

describe("what the import says it could not read or apply", () => {
  it("lists the reader's notes (an unknown tag-value tag) and the packages a VEX names that the product does not hold", async () => {
    const product = await aProduct('Said');
    const text = fixtureText('tag-value/tern-alpine.spdx').replace(/\nPackageName:/, '\nFooTag: bar\nPackageName:');
    const line = text.split('\n').indexOf('FooTag: bar') + 1;
    const read = await load(product.uuid, text, 'text/spdx');
    expect(read.status, read.text).toBe(200);
    expect(read.json.errors).toContain(`line ${line}: unknown tag "FooTag" ignored`);
    const held = (await contents(product.uuid))[0]!.purl;
    const vex = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.com/vex/said-1',
      author: 'HTTP test',
      timestamp: '2026-11-30T00:00:00Z',
      version: 1,
      statements: [{ vulnerability: { name: 'CVE-2099-50001' }, products: [{ '@id': held }, { '@id': 'pkg:npm/not-here@1.0.0' }], status: 'under_investigation' }],
    };
    const triaged = await load(product.uuid, JSON.stringify(vex), 'application/openvex+json');
    expect(triaged.status, triaged.text).toBe(200);
    expect(triaged.json.summary).toMatchObject({ analyses: 1 });
    expect(triaged.json.errors).toEqual(['Vulnerability "CVE-2099-50001" names a package this product does not hold (nothing applied to it): pkg:npm/not-here@1.0.0.']);
  });
});
