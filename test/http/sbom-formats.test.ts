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
