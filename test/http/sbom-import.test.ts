/**
 * POST /api/v2/products/{uuid}/load_sboms/ and GET /api/v2/sbom_imports/{uuid}/ through the real
 * handlers: what an SBOM makes of a product's packages, that importing it again writes nothing, that
 * bad input changes nothing, and who may do what. Documents are shaped like cyclonedx-npm's output.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { tableItems } from '../support/snapshot.ts';
import { cyclonedxNpm, cyclonedxVex, type NpmPackage } from '../support/cyclonedx-npm.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {}, stranger: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call } = http;

const SHOP = { name: 'shop', version: '1.0.0' };
const PACKAGES: NpmPackage[] = [
  { name: 'express', version: '4.19.2', license: 'MIT', description: 'Fast, unopinionated, minimalist web framework', homepage: 'http://expressjs.com/', dependsOn: ['body-parser', 'cookie'] },
  { name: 'body-parser', version: '1.20.2', license: 'MIT', dependsOn: ['bytes'] },
  { name: 'bytes', version: '3.1.2', license: 'MIT' },
  { name: 'cookie', version: '0.6.0', license: 'MIT' },
  { name: '@types/node', version: '20.11.30', license: { name: 'SEE LICENSE IN LICENSE.md' } },
  { name: 'dual', version: '1.0.0', license: { expression: 'MIT OR GPL-3.0-only' } },
];

/** A request with any body and headers, checked against the OpenAPI document like every other answer. */
async function send(as: string, method: string, path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${http.api.url}${path}`, { method, headers: { authorization: `Token ${http.team.keys[as]}`, ...headers }, body });
  const text = await response.text();
  openApiChecker().check(method, path, { status: response.status, headers: response.headers, text });
  return { status: response.status, json: text ? JSON.parse(text) : undefined, text };
}

const load = (as: string, product: string, document: unknown, query = '', type = 'application/vnd.cyclonedx+json') =>
  send(as, 'POST', `/api/v2/products/${product}/load_sboms/${query}`, typeof document === 'string' ? document : JSON.stringify(document), { 'content-type': type });

function form(document: unknown, fields: Record<string, string> = {}, filename = 'bom.json') {
  const data = new FormData();
  data.append('input_file', new Blob([typeof document === 'string' ? document : JSON.stringify(document)], { type: 'application/json' }), filename);
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
}

async function aProduct(name: string) {
  const product = (await call('alice', 'POST', '/api/v2/products/', { name })).json as { uuid: string; api_url: string };
  await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
  return product;
}

const purlsOf = async (product: string) =>
  (await call('alice', 'GET', `/api/v2/products/${product}/packages/?page_size=100`)).json.results.map((p: { purl: string }) => p.purl);

/** The table without import records: what an import's inventory writes change. */
const inventory = async () => JSON.stringify((await tableItems(http.env)).filter((item) => item.entity !== 'SbomImport'));

let store: SbomImportStore;
beforeAll(async () => {
  store = new SbomImportStore(http.env.doc, http.env.tableName, http.env.catalog);
  // A dataspace license, so an expression naming it is counted on it.
  expect((await call('root', 'POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT License', spdx_license_key: 'MIT' })).status).toBe(201);
});

describe('loading an SBOM within the call', () => {
  it('creates the packages, puts them in the product with their dependencies, and answers the completed import', async () => {
    const product = await aProduct('Shop');
    const response = await load('alice', product.uuid, cyclonedxNpm(SHOP, PACKAGES));
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/sbom_imports/${response.json.uuid}/`,
      product: product.uuid,
      product_url: product.api_url,
      status: 'completed',
      format: 'cyclonedx',
      spec_version: '1.6',
      mode: 'replace',
      update_existing_packages: false,
      errors: [],
      created_by: 'alice',
      created_date: expect.stringMatching(/\+00:00$/),
      completed_date: expect.stringMatching(/\+00:00$/),
      summary: {
        components: 6,
        packages_created: 6,
        packages_matched: 0,
        packages_updated: 0,
        added: 6,
        removed: 0,
        unchanged: 0,
        skipped: [],
        unknown_licenses: ['SEE LICENSE IN LICENSE.md'],
        resolved_licenses: [],
        vulnerabilities: 0,
        analyses: 0,
        added_purls: [
          'pkg:npm/%40types/node@20.11.30',
          'pkg:npm/body-parser@1.20.2',
          'pkg:npm/bytes@3.1.2',
          'pkg:npm/cookie@0.6.0',
          'pkg:npm/dual@1.0.0',
          'pkg:npm/express@4.19.2',
        ],
        removed_purls: [],
        updated_purls: [],
      },
    });
    expect(await purlsOf(product.uuid)).toEqual([
      'pkg:npm/%40types/node@20.11.30',
      'pkg:npm/body-parser@1.20.2',
      'pkg:npm/bytes@3.1.2',
      'pkg:npm/cookie@0.6.0',
      'pkg:npm/dual@1.0.0',
      'pkg:npm/express@4.19.2',
    ]);
    const express = (await call('alice', 'GET', `/api/v2/packages/?purl=${encodeURIComponent('pkg:npm/express@4.19.2')}`)).json.results[0];
    expect(express).toMatchObject({
      license_expression: 'mit',
      description: 'Fast, unopinionated, minimalist web framework',
      homepage_url: 'http://expressjs.com/',
      download_url: 'https://registry.npmjs.org/express/-/express-4.19.2.tgz',
      sha512: expect.stringMatching(/^[0-9a-f]{128}$/),
    });
    const dual = (await call('alice', 'GET', `/api/v2/packages/?purl=${encodeURIComponent('pkg:npm/dual@1.0.0')}`)).json.results[0];
    expect(dual.license_expression).toBe('mit OR gpl-3.0');
    // The SBOM's edges, kept on the product's packages as package uuids.
    const held = await http.env.productPackages.ofProduct(product.uuid);
    const uuidOf = async (purl: string) => (await http.env.catalog.packages.getByUnique('acme', [purl])).get(purl)!.uuid;
    expect(held.find((pp) => pp.packageUuid === express.uuid)!.dependsOn).toEqual([await uuidOf('pkg:npm/body-parser@1.20.2'), await uuidOf('pkg:npm/cookie@0.6.0')].sort());
    expect(held.find((pp) => pp.packageUuid === (dual.uuid as string))!.dependsOn).toEqual([]);
    // The package naming the dataspace's "mit" counts on it: the license cannot be deleted now.
    const mit = (await call('root', 'GET', '/api/v2/licenses/')).json.results.find((l: { key: string }) => l.key === 'mit');
    expect((await call('root', 'DELETE', `/api/v2/licenses/${mit.uuid}/`)).status).toBe(409);
    // The import reads back, for whoever may view the product.
    const read = await send('viewer', 'GET', `/api/v2/sbom_imports/${response.json.uuid}/`, undefined);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(response.json);
    expect((await send('stranger', 'GET', `/api/v2/sbom_imports/${response.json.uuid}/`, undefined)).status).toBe(404);
    expect((await send('mallory', 'GET', `/api/v2/sbom_imports/${response.json.uuid}/`, undefined)).status).toBe(404);
    expect((await send('alice', 'GET', '/api/v2/sbom_imports/not-a-uuid/', undefined)).status).toBe(404);
  });

  it('changes nothing when the same document is imported again: every component matched, no write', async () => {
    const product = await aProduct('Again');
    const document = cyclonedxNpm(SHOP, PACKAGES);
    expect((await load('alice', product.uuid, document)).status).toBe(200);
    const before = await inventory();
    const again = await load('alice', product.uuid, document);
    expect(again.status, again.text).toBe(200);
    expect(again.json.summary).toMatchObject({ components: 6, packages_created: 0, packages_matched: 6, added: 0, removed: 0, unchanged: 6 });
    expect(await inventory()).toBe(before);
    expect(await store.consumedWriteCapacity(again.json.uuid)).toBe(0);
  });

  it('takes the multipart form DejaCode posts, with update_existing_packages and the mode as fields', async () => {
    const product = await aProduct('Form');
    const first = await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(cyclonedxNpm(SHOP, PACKAGES.slice(0, 3))));
    expect(first.status, first.text).toBe(200);
    // A package the catalog already has, without a description: filled only when asked.
    const next = [{ ...PACKAGES[2]!, description: 'Utility to parse a string bytes to bytes and vice-versa' }, PACKAGES[3]!];
    const merged = await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(cyclonedxNpm(SHOP, next), { mode: 'merge', update_existing_packages: 'true', infer_download_urls: 'true' }));
    expect(merged.status, merged.text).toBe(200);
    expect(merged.json).toMatchObject({ mode: 'merge', update_existing_packages: true });
    expect(merged.json.summary).toMatchObject({ components: 2, packages_created: 0, packages_matched: 2, packages_updated: 1, added: 1, removed: 0, unchanged: 3 });
    expect(merged.json.summary).toMatchObject({ added_purls: ['pkg:npm/cookie@0.6.0'], removed_purls: [], updated_purls: ['pkg:npm/bytes@3.1.2'] });
    const bytes = (await call('alice', 'GET', `/api/v2/packages/?purl=${encodeURIComponent('pkg:npm/bytes@3.1.2')}`)).json.results[0];
    expect(bytes.description).toBe('Utility to parse a string bytes to bytes and vice-versa');
    expect(await purlsOf(product.uuid)).toHaveLength(4);
    // Replace (the default): exactly the document's packages.
    const replaced = await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/?mode=replace`, form(cyclonedxNpm(SHOP, next)));
    expect(replaced.json.summary).toMatchObject({ added: 0, removed: 2, unchanged: 2, added_purls: [] });
    const [before] = [await purlsOf(product.uuid)];
    expect(before).toEqual(['pkg:npm/bytes@3.1.2', 'pkg:npm/cookie@0.6.0']);
    expect(replaced.json.summary.removed_purls).toHaveLength(2);
    expect(replaced.json.summary.removed_purls.every((purl: string) => purl.startsWith('pkg:npm/') && !before.includes(purl))).toBe(true);
  });

  it('imports vulnerabilities with their analyses, and a VEX updates the analyses without touching the packages', async () => {
    const product = await aProduct('Vulnerable');
    const document = cyclonedxNpm(SHOP, PACKAGES.slice(0, 4), {
      vulnerabilities: [
        {
          id: 'CVE-2024-47764',
          aliases: ['GHSA-pxg6-pf52-xh8x'],
          description: 'cookie accepts cookie name, path, and domain with out of bounds characters',
          score: 5.3,
          affects: ['cookie'],
          analysis: { state: 'in_triage', detail: 'Looking at how we set cookies.' },
        },
      ],
    });
    const response = await load('alice', product.uuid, document);
    expect(response.status, response.text).toBe(200);
    expect(response.json.summary).toMatchObject({ vulnerabilities: 1, analyses: 1 });
    const vulnerability = (await call('alice', 'GET', '/api/v2/vulnerabilities/')).json.results.find((v: { vulnerability_id: string }) => v.vulnerability_id === 'CVE-2024-47764');
    expect(vulnerability).toMatchObject({ aliases: ['GHSA-pxg6-pf52-xh8x'], risk_score: 5.3, affected_packages: [{ purl: 'pkg:npm/cookie@0.6.0' }] });
    const analyses = async () => (await call('alice', 'GET', `/api/v2/vulnerability_analyses/?product=${product.uuid}`)).json.results;
    expect(await analyses()).toMatchObject([{ vulnerability_id: 'CVE-2024-47764', state: 'in_triage', detail: 'Looking at how we set cookies.' }]);
    const before = await purlsOf(product.uuid);
    const vex = cyclonedxVex([
      { id: 'CVE-2024-47764', affects: [{ name: 'cookie', version: '0.6.0' }], analysis: { state: 'not_affected', justification: 'code_not_reachable', response: ['will_not_fix'], detail: 'We set no cookie from user input.' } },
    ]);
    const triaged = await load('alice', product.uuid, vex);
    expect(triaged.status, triaged.text).toBe(200);
    expect(triaged.json.summary).toMatchObject({ components: 0, added: 0, removed: 0, analyses: 1 });
    expect(await analyses()).toMatchObject([{ state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix'], detail: 'We set no cookie from user input.' }]);
    expect(await purlsOf(product.uuid)).toEqual(before);
  });

  it('takes SPDX 2.3 as npm sbom writes it: declared and concluded licenses, DEPENDS_ON edges', async () => {
    const product = await aProduct('Spdx');
    const purl = (name: string, version: string) => [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: `pkg:npm/${name}@${version}` }];
    const document = {
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'shop@1.0.0',
      documentNamespace: 'http://spdx.org/spdxdocs/shop-1.0.0-5a0f8e2c-5a53-4a8c-9a3e-6f8f4e4e0b8d',
      creationInfo: { created: '2026-11-01T09:00:00.000Z', creators: ['Tool: npm/cli-10.9.2'] },
      documentDescribes: ['SPDXRef-Package-shop-1.0.0'],
      packages: [
        { name: 'shop', SPDXID: 'SPDXRef-Package-shop-1.0.0', versionInfo: '1.0.0', downloadLocation: 'NOASSERTION', filesAnalyzed: false, licenseDeclared: 'NOASSERTION', externalRefs: purl('shop', '1.0.0') },
        {
          name: 'qs',
          SPDXID: 'SPDXRef-Package-qs-6.11.0',
          versionInfo: '6.11.0',
          downloadLocation: 'https://registry.npmjs.org/qs/-/qs-6.11.0.tgz',
          filesAnalyzed: false,
          homepage: 'https://github.com/ljharb/qs',
          licenseDeclared: 'BSD-3-Clause',
          licenseConcluded: 'BSD-3-Clause',
          externalRefs: purl('qs', '6.11.0'),
        },
        {
          name: 'side-channel',
          SPDXID: 'SPDXRef-Package-side-channel-1.0.4',
          versionInfo: '1.0.4',
          downloadLocation: 'https://registry.npmjs.org/side-channel/-/side-channel-1.0.4.tgz',
          filesAnalyzed: false,
          licenseDeclared: 'MIT',
          licenseConcluded: 'NOASSERTION',
          externalRefs: purl('side-channel', '1.0.4'),
        },
      ],
      relationships: [
        { spdxElementId: 'SPDXRef-DOCUMENT', relatedSpdxElement: 'SPDXRef-Package-shop-1.0.0', relationshipType: 'DESCRIBES' },
        { spdxElementId: 'SPDXRef-Package-shop-1.0.0', relatedSpdxElement: 'SPDXRef-Package-qs-6.11.0', relationshipType: 'DEPENDS_ON' },
        { spdxElementId: 'SPDXRef-Package-side-channel-1.0.4', relatedSpdxElement: 'SPDXRef-Package-qs-6.11.0', relationshipType: 'DEPENDENCY_OF' },
      ],
    };
    const response = await load('alice', product.uuid, document, '', 'application/spdx+json');
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ format: 'spdx', spec_version: '2.3', summary: { components: 2, packages_created: 2, added: 2 } });
    const held = await http.env.productPackages.ofProduct(product.uuid);
    const packages = await http.env.catalog.packages.getMany(held.map((pp) => pp.packageUuid));
    const qs = packages.find((pkg) => pkg.name === 'qs')!;
    const sideChannel = packages.find((pkg) => pkg.name === 'side-channel')!;
    expect(qs).toMatchObject({ licenseExpression: 'bsd-new', homepageUrl: 'https://github.com/ljharb/qs', downloadUrl: 'https://registry.npmjs.org/qs/-/qs-6.11.0.tgz' });
    expect(held.find((pp) => pp.packageUuid === qs.uuid)).toMatchObject({ licenseExpression: 'bsd-new', dependsOn: [sideChannel.uuid] });
    expect(held.find((pp) => pp.packageUuid === sideChannel.uuid)).toMatchObject({ licenseExpression: '', dependsOn: [] });
  });

  it('skips the components it cannot use, lists them, and counts every component once', async () => {
    const product = await aProduct('Skips');
    const document = cyclonedxNpm(SHOP, PACKAGES.slice(0, 2)) as { components: Record<string, unknown>[] };
    // The schema requires a name: an empty one is valid, and unusable.
    document.components.push({ type: 'library', name: '', 'bom-ref': 'nameless', version: '1.0.0' });
    document.components.push({ type: 'library', name: 'broken', version: '1.0.0', 'bom-ref': 'broken@1.0.0', purl: 'pkg:npm' });
    const response = await load('alice', product.uuid, document);
    expect(response.status, response.text).toBe(200);
    const { summary } = response.json;
    expect(summary.components).toBe(4);
    expect(summary.packages_created + summary.packages_matched + summary.skipped.length).toBe(4);
    expect(summary.skipped.map((s: { component: string }) => s.component).sort()).toEqual(['broken@1.0.0', 'nameless']);
  });
});

describe('strings an SBOM holds that the service cannot store', () => {
  // Issue 30: an unpaired surrogate in a component's name or version answered 500 (URIError from the
  // purl encoder), in CycloneDX and SPDX alike. JSON.stringify writes a lone surrogate as its \\ud800 escape.
  it('skips a CycloneDX component whose name or version holds an unpaired surrogate or a control character, and imports the rest', async () => {
    const product = await aProduct('Surrogates');
    const document = cyclonedxNpm(SHOP, PACKAGES.slice(0, 2)) as { components: Record<string, unknown>[] };
    document.components.push({ type: 'library', name: '\ud800x', version: '1.0.0', 'bom-ref': 'lone-high' });
    document.components.push({ type: 'library', name: 'lone-low', version: 'x\udc00', 'bom-ref': 'lone-low' });
    document.components.push({ type: 'library', name: 'bell\u0007', version: '1.0.0', 'bom-ref': 'bell' });
    const response = await load('alice', product.uuid, document);
    expect(response.status, response.text).toBe(200);
    expect(response.json.summary.skipped).toEqual(
      expect.arrayContaining([
        // Named for a person by name and version beside the bom-ref, escaped as it is stored.
        { component: 'lone-high', name: '\\ud800x 1.0.0', reason: expect.stringContaining('unpaired surrogate (U+D800)') },
        { component: 'lone-low', name: 'lone-low x\\udc00', reason: expect.stringContaining('unpaired surrogate (U+DC00)') },
        { component: 'bell', name: 'bell\\u0007 1.0.0', reason: expect.stringContaining('control character U+0007') },
      ]),
    );
    expect(await purlsOf(product.uuid)).toEqual(['pkg:npm/body-parser@1.20.2', 'pkg:npm/express@4.19.2']);
  });

  it('skips an SPDX package named with an unpaired surrogate, and refuses a document whose own name holds one, changing nothing', async () => {
    const product = await aProduct('Surrogates SPDX');
    const spdx = (documentName: string, packageName: string) => ({
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: documentName,
      documentNamespace: 'http://spdx.org/spdxdocs/surrogates-5a0f8e2c-5a53-4a8c-9a3e-6f8f4e4e0b8d',
      creationInfo: { created: '2026-11-29T00:00:00Z', creators: ['Tool: test'] },
      packages: [
        { SPDXID: 'SPDXRef-good', name: 'good', versionInfo: '1.0.0', downloadLocation: 'NOASSERTION' },
        { SPDXID: 'SPDXRef-bad', name: packageName, versionInfo: '1.0.0', downloadLocation: 'NOASSERTION' },
      ],
    });
    const skipped = await load('alice', product.uuid, spdx('surrogates', '\ud800x'), '', 'application/spdx+json');
    expect(skipped.status, skipped.text).toBe(200);
    expect(skipped.json.summary.skipped).toEqual([{ component: expect.any(String), name: expect.any(String), reason: expect.stringContaining('unpaired surrogate (U+D800)') }]);
    const before = await http.snapshot();
    const refused = await load('alice', product.uuid, spdx('\ud800x', 'fine'), '', 'application/spdx+json');
    expect(refused.status, refused.text).toBe(400);
    expect(JSON.stringify(refused.json)).toContain('unpaired surrogate (U+D800)');
    expect(await http.snapshot()).toBe(before);
  });
});

describe('what loading an SBOM refuses', () => {
  let product: { uuid: string };
  beforeAll(async () => {
    product = await aProduct('Refusals');
  });

  it.each([
    ['not JSON', '{"bomFormat": "CycloneDX", ', 'application/json', 400],
    ['neither CycloneDX nor SPDX', '{"hello": "world"}', 'application/json', 400],
    ['an unknown CycloneDX version', '{"bomFormat": "CycloneDX", "specVersion": "0.9", "components": []}', 'application/vnd.cyclonedx+json', 400],
    ['CycloneDX XML with a DTD', '<?xml version="1.0"?><!DOCTYPE bom><bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', 'application/vnd.cyclonedx+xml', 400],
    ['YAML', 'bomFormat: CycloneDX\nspecVersion: "1.6"\n', 'application/json', 415],
    ['SPDX tag-value without its document fields', 'SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\n', 'text/spdx', 400],
    ['no Content-Type', '{}', '', 415],
    ['an empty body', '', 'application/json', 400],
  ])('%s: %s, changing nothing', async (_, body, type, status) => {
    const before = await http.snapshot();
    const response = await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, body, type ? { 'content-type': type } : {});
    expect(response.status, response.text).toBe(status);
    if (status === 415) expect(response.json.detail).toContain('application/vnd.cyclonedx+json');
    expect(await http.snapshot()).toBe(before);
  });

  it('refuses a form without input_file, a plain field for the file, unknown fields and bad options', async () => {
    const before = await http.snapshot();
    const empty = new FormData();
    empty.append('mode', 'merge');
    expect((await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, empty)).json).toEqual({ input_file: ['No file was submitted.'] });
    const plain = new FormData();
    plain.append('input_file', '{"bomFormat": "CycloneDX"}');
    expect((await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, plain)).json.input_file).toEqual(['The submitted data was not a file. Check the encoding type on the form.']);
    const odd = await send('alice', 'POST', `/api/v2/products/${product.uuid}/load_sboms/`, form(cyclonedxNpm(SHOP, []), { mode: 'sometimes', color: 'blue', update_existing_packages: 'maybe' }));
    expect(odd.status).toBe(400);
    expect(odd.json).toEqual({ color: ['Unknown field.'], mode: ['"sometimes" is not a valid choice.'], update_existing_packages: ['Must be a valid boolean.'] });
    const query = await load('alice', product.uuid, cyclonedxNpm(SHOP, []), '?mode=sideways');
    expect(query.status).toBe(400);
    expect(Object.keys(query.json)).toEqual(['mode']);
    expect(await http.snapshot()).toBe(before);
  });

  it('answers 413 above the synchronous limit, pointing to sbom_uploads', async () => {
    const before = await http.snapshot();
    const many = cyclonedxNpm(SHOP, Array.from({ length: 1_001 }, (_, i) => ({ name: `pkg-${i}`, version: '1.0.0', license: 'MIT' })));
    const response = await load('alice', product.uuid, many);
    expect(response.status).toBe(413);
    expect(response.json.detail).toContain(`/api/v2/products/${product.uuid}/sbom_uploads/`);
    const big = await load('alice', product.uuid, `{"bomFormat": "CycloneDX", "specVersion": "1.6", "padding": "${'x'.repeat(4 * 1024 * 1024)}"}`);
    expect(big.status).toBe(413);
    expect(big.json.detail).toContain('sbom_uploads');
    expect(await http.snapshot()).toBe(before);
  });

  it('is for who may change the product: 403 for a viewer, 404 for who cannot see it', async () => {
    const before = await http.snapshot();
    const document = cyclonedxNpm(SHOP, PACKAGES.slice(0, 1));
    expect((await load('viewer', product.uuid, document)).status).toBe(403);
    expect((await load('stranger', product.uuid, document)).status).toBe(404);
    expect((await load('mallory', product.uuid, document)).status).toBe(404);
    expect((await load('alice', '00000000-0000-4000-8000-000000000000', document)).status).toBe(404);
    expect(await http.snapshot()).toBe(before);
  });

  it('leaves another product and its packages alone', async () => {
    const other = await aProduct('Bystander');
    expect((await load('alice', other.uuid, cyclonedxNpm(SHOP, PACKAGES.slice(0, 2)))).status).toBe(200);
    const mine = await aProduct('Mine');
    expect((await load('alice', mine.uuid, cyclonedxNpm(SHOP, PACKAGES.slice(1, 3)))).status).toBe(200);
    expect(await purlsOf(other.uuid)).toEqual(['pkg:npm/body-parser@1.20.2', 'pkg:npm/express@4.19.2']);
  });
});

describe('starting an upload', () => {
  it('answers the queued import and a presigned PUT URL for its document, for who may change the product', async () => {
    const product = await aProduct('Uploaded');
    const before = Date.now();
    const response = await call('alice', 'POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { mode: 'merge', content_type: 'application/spdx+json', size: 12_345 });
    expect(response.status, response.text).toBe(201);
    expect(response.json).toMatchObject({ product: product.uuid, status: 'queued', format: null, spec_version: null, mode: 'merge', update_existing_packages: false, summary: null, completed_date: null });
    const url = new URL(response.json.upload.url);
    expect(url.pathname).toBe(`/sbom-uploads/uploads/${response.json.uuid}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    // The size is signed: S3 takes a body of exactly that many bytes.
    expect(response.json.upload).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'application/spdx+json', 'Content-Length': '12345' }, max_bytes: 50 * 1024 * 1024 });
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    const expires = Date.parse(response.json.upload.expires_date);
    expect(expires - before).toBeGreaterThanOrEqual(899_000);
    expect(expires - before).toBeLessThan(905_000);
    const read = await call('viewer', 'GET', `/api/v2/sbom_imports/${response.json.uuid}/`);
    expect(read.json).toMatchObject({ uuid: response.json.uuid, status: 'queued' });
    expect(read.json.upload).toBeUndefined();
  });

  it('refuses viewers, strangers, and options it does not know, changing nothing', async () => {
    const product = await aProduct('Upload refusals');
    const before = await http.snapshot();
    expect((await call('viewer', 'POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { size: 10 })).status).toBe(403);
    expect((await call('stranger', 'POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { size: 10 })).status).toBe(404);
    const bad = await call('alice', 'POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { content_type: 'text/plain', mode: 'all', color: 1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json).sort()).toEqual(['color', 'content_type', 'mode', 'size']);
    expect(bad.json.size).toEqual(['This field is required.']);
    // One byte more than an upload may have is refused before any URL is signed; so are sizes that are no byte count.
    for (const [size, message] of [
      [50 * 1024 * 1024 + 1, 'An upload may have at most 52,428,800 bytes.'],
      [0, 'The document must have at least 1 byte.'],
      [1.5, 'A valid number is required.'],
      ['12', 'A valid number is required.'],
    ] as const) {
      const refused = await call('alice', 'POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { size });
      expect(refused.status, JSON.stringify(size)).toBe(400);
      expect(refused.json, JSON.stringify(size)).toEqual({ size: [message] });
    }
    expect(await http.snapshot()).toBe(before);
  });
});
