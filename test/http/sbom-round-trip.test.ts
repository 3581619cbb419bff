/**
 * SBOM import and export end to end, and their round trip, through the real handlers:
 * - the SBOMs real producers wrote of this repository (cyclonedx-npm 1.2, 1.4, 1.6; `npm sbom` in
 *   CycloneDX 1.5 and SPDX 2.3; cdxgen 11) import in one call each, every component accounted for once, with the
 *   document's packages and dependency edges (counted from the document, not by the reader);
 * - the products they make export again as valid CycloneDX 1.6 and SPDX 2.3;
 * - import(export(P)) into a new product gives the same packages, license expressions, dependency
 *   edges and (CycloneDX) VEX analyses, for CycloneDX 1.4, 1.5, 1.6 and SPDX, with the hard cases in P:
 *   a concluded expression, WITH, an unknown license, a dataspace license without an SPDX key;
 * - importing the same document again changes nothing.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { cyclonedxComponents, fixture, fixtureText } from '../support/sbom-documents.ts';
import { cycloneDxRuleProblems, cycloneDxSchemaErrors, spdxRuleProblems, spdxSchemaErrors } from '../support/sbom-validation.ts';
import { cyclonedxNpm } from '../support/cyclonedx-npm.ts';

/** The dataspaces the round trips land in: a fresh catalog each, so the packages are made from the exported document. */
const TARGETS = { '1.4': 'rt14', '1.5': 'rt15', '1.6': 'rt16', spdx: 'rtspdx' } as const;
type Target = keyof typeof TARGETS;

// Each test imports a real SBOM's worth of components (150-350) on DynamoDB Local: a few seconds alone,
// past 30 s while the rest of the suite runs beside it. The bound is for a hang, not a speed target.
vi.setConfig({ testTimeout: 120_000 });

const http = useHttpTeam({
  acme: { users: { root: { superuser: true } } },
  rt14: { users: { root14: { superuser: true } } },
  rt15: { users: { root15: { superuser: true } } },
  rt16: { users: { root16: { superuser: true } } },
  rtspdx: { users: { rootspdx: { superuser: true } } },
});
const { call } = http;
const userOf: Record<string, string> = { acme: 'root', rt14: 'root14', rt15: 'root15', rt16: 'root16', rtspdx: 'rootspdx' };

type Json = Record<string, any>;

/** A request with any body and headers, checked against the OpenAPI document like every other answer. */
async function send(as: string, method: string, path: string, body: BodyInit | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${http.api.url}${path}`, { method, headers: { authorization: `Token ${http.team.keys[as]}`, ...headers }, body });
  const text = await response.text();
  openApiChecker().check(method, path, { status: response.status, headers: response.headers, text });
  return { status: response.status, json: text ? JSON.parse(text) : undefined, text };
}

const load = (as: string, product: string, text: string, type: string) => send(as, 'POST', `/api/v2/products/${product}/load_sboms/`, text, { 'content-type': type });

function loadForm(as: string, product: string, text: string, filename: string) {
  const data = new FormData();
  data.append('input_file', new Blob([text], { type: 'application/json' }), filename);
  return send(as, 'POST', `/api/v2/products/${product}/load_sboms/`, data);
}

async function aProduct(as: string, name: string): Promise<string> {
  const response = await call(as, 'POST', '/api/v2/products/', { name });
  expect(response.status, response.text).toBe(201);
  return response.json.uuid as string;
}

/** Every page of a list. */
async function all(as: string, path: string): Promise<Json[]> {
  const results: Json[] = [];
  let next: string | null = `${path}${path.includes('?') ? '&' : '?'}page_size=100`;
  while (next) {
    const response = await call(as, 'GET', next);
    expect(response.status, response.text).toBe(200);
    results.push(...response.json.results);
    next = response.json.next ? response.json.next.slice(http.api.url.length) : null;
  }
  return results;
}

/** What a product holds, as the API shows it: per purl, the package's and the product's expressions. */
async function holding(as: string, product: string) {
  const packages = await all(as, `/api/v2/products/${product}/packages/`);
  const held = await all(as, `/api/v2/product_packages/?product=${product}`);
  const byUrl = new Map(packages.map((pkg) => [pkg.api_url as string, pkg]));
  const licenses = new Map<string, { package: string; concluded: string }>();
  for (const pp of held) {
    const pkg = byUrl.get(pp.package)!;
    licenses.set(pkg.purl, { package: pkg.license_expression, concluded: pp.license_expression });
  }
  return { purls: packages.map((pkg) => pkg.purl as string).sort(), licenses, packages };
}

/** The product's dependency edges as "purl -> purl", read from the stored product packages. */
async function storedEdges(product: string): Promise<string[]> {
  const held = await http.env.productPackages.ofProduct(product);
  const packages = await http.env.catalog.packages.getMany(held.map((pp) => pp.packageUuid));
  const purlOf = new Map(packages.map((pkg) => [pkg.uuid, pkg.purl]));
  return held.flatMap((pp) => pp.dependsOn.map((target) => `${purlOf.get(pp.packageUuid)} -> ${purlOf.get(target)}`)).sort();
}

// --- what a document holds, counted without the reader ---------------------------------------------

/** CycloneDX: each component's purl by bom-ref, and the edges between two components as purls. */
function cyclonedxExpectations(document: Json) {
  const components = cyclonedxComponents(document) as Json[];
  const purlOfRef = new Map<string, string>();
  for (const component of components) if (component['bom-ref'] && !purlOfRef.has(component['bom-ref'])) purlOfRef.set(component['bom-ref'] as string, component.purl as string);
  const edges = new Set<string>();
  for (const dependency of document.dependencies ?? []) {
    const from = purlOfRef.get(dependency.ref);
    for (const target of dependency.dependsOn ?? []) {
      const to = purlOfRef.get(target);
      if (from && to && from !== to) edges.add(`${from} -> ${to}`);
    }
  }
  return { components: components.length, purls: [...new Set(components.map((c) => c.purl as string))].sort(), edges: [...edges].sort() };
}

/** SPDX: the packages but the one the document describes, and the dependency relationships between two of them. */
function spdxExpectations(document: Json) {
  const described = new Set<string>(document.documentDescribes ?? []);
  for (const r of document.relationships ?? []) if (r.relationshipType === 'DESCRIBES') described.add(r.relatedSpdxElement);
  const packages = (document.packages as Json[]).filter((pkg) => !described.has(pkg.SPDXID));
  const purlOfId = new Map<string, string>(
    packages.map((pkg) => [pkg.SPDXID, pkg.externalRefs.find((ref: Json) => ref.referenceType === 'purl').referenceLocator]),
  );
  const edges = new Set<string>();
  for (const r of document.relationships ?? []) {
    // `a DEPENDS_ON b`; `a *DEPENDENCY_OF b` and `a PREREQUISITE_FOR b` (npm's peer dependencies): b depends on a.
    const forward = r.relationshipType === 'DEPENDS_ON';
    const backward = /DEPENDENCY_OF$/.test(r.relationshipType) || r.relationshipType === 'PREREQUISITE_FOR';
    if (!forward && !backward) continue;
    const [from, to] = forward ? [r.spdxElementId, r.relatedSpdxElement] : [r.relatedSpdxElement, r.spdxElementId];
    if (purlOfId.has(from) && purlOfId.has(to) && from !== to) edges.add(`${purlOfId.get(from)} -> ${purlOfId.get(to)}`);
  }
  return { components: packages.length, purls: [...new Set(purlOfId.values())].sort(), edges: [...edges].sort() };
}

// --- 1 and 2: real producers' documents --------------------------------------------------------------

const REAL = [
  ['cyclonedx-npm-1.6-full.cdx.json', 'application/vnd.cyclonedx+json', 'cyclonedx', '1.6'],
  ['cyclonedx-npm-1.4-prod.cdx.json', 'application/vnd.cyclonedx+json', 'cyclonedx', '1.4'],
  ['cyclonedx-npm-1.2-prod.cdx.json', 'application/vnd.cyclonedx+json', 'cyclonedx', '1.2'],
  ['npm-sbom-full.cdx.json', 'application/vnd.cyclonedx+json', 'cyclonedx', '1.5'],
  ['npm-sbom-prod.cdx.json', 'application/vnd.cyclonedx+json', 'cyclonedx', '1.5'],
  ['npm-sbom-full.spdx.json', 'application/spdx+json', 'spdx', '2.3'],
  ['cdxgen-11-full.cdx.json', 'application/json', 'cyclonedx', '1.6'],
] as const;

/** Product of each real document, for the export and round-trip tests. */
const realProducts = new Map<string, string>();

describe('the SBOMs real producers wrote of this repository', () => {
  it.each([...REAL.map(([name, type, format, version]) => [name, 'the body', type, format, version] as const), ['npm-sbom-prod.spdx.json', 'a multipart form', '', 'spdx', '2.3'] as const])(
    '%s, sent as %s, imports in one call with every component accounted for once',
    async (name, how, type, format, version) => {
      const text = fixtureText(name);
      const document = fixture(name);
      const expected = format === 'spdx' ? spdxExpectations(document) : cyclonedxExpectations(document);
      const product = await aProduct('root', `${name} as ${how}`);
      const response = how === 'the body' ? await load('root', product, text, type) : await loadForm('root', product, text, name);
      expect(response.status, response.text).toBe(200);
      expect(response.json).toMatchObject({ status: 'completed', format, spec_version: version, errors: [] });
      const { summary } = response.json;
      expect(summary.components).toBe(expected.components);
      expect(summary.packages_created + summary.packages_matched + summary.skipped.length).toBe(expected.components);
      // What is skipped is a purl the document lists again, nothing else.
      expect(summary.skipped.map((s: Json) => s.reason as string).every((reason: string) => reason.startsWith('duplicate of '))).toBe(true);
      expect(summary.skipped).toHaveLength(expected.components - expected.purls.length);
      expect(summary.added).toBe(expected.purls.length);
      expect((await holding('root', product)).purls).toEqual(expected.purls);
      const edges = await storedEdges(product);
      expect(edges.length).toBeGreaterThan(expected.purls.length / 2);
      expect(edges).toEqual(expected.edges);
      if (how === 'the body') realProducts.set(name, product);
    },
  );

  it('npm sbom writes the same dependency graph in CycloneDX and SPDX, and both import as that graph', async () => {
    const cyclonedx = realProducts.get('npm-sbom-full.cdx.json')!;
    const spdx = realProducts.get('npm-sbom-full.spdx.json')!;
    expect(await storedEdges(spdx)).toEqual(await storedEdges(cyclonedx));
  });

  it.each(REAL.map(([name]) => name))('the product made of %s exports again as valid CycloneDX 1.6 and SPDX 2.3', async (name) => {
    const product = realProducts.get(name)!;
    const { purls } = await holding('root', product);
    const cdx = await call('root', 'GET', `/api/v2/products/${product}/cyclonedx/?spec_version=1.6&content=combined`);
    expect(cdx.status, cdx.text).toBe(200);
    expect(await cycloneDxSchemaErrors(cdx.json, '1.6')).toBeNull();
    expect(cycloneDxRuleProblems(cdx.json)).toEqual([]);
    expect(cdx.json.components.map((c: Json) => c.purl).sort()).toEqual(purls);
    const spdx = await call('root', 'GET', `/api/v2/products/${product}/spdx/`);
    expect(spdx.status, spdx.text).toBe(200);
    expect(spdxSchemaErrors(spdx.json)).toBeNull();
    expect(spdxRuleProblems(spdx.json)).toEqual([]);
    expect(spdx.json.packages).toHaveLength(purls.length + 1);
  });
});

// --- 3: import(export(P)) -------------------------------------------------------------------------

/** A dataspace license without an SPDX key: exported as LicenseRef-dejacode-acme-internal. */
const INTERNAL = { key: 'acme-internal', name: 'ACME Internal Use License' };
const HARD = {
  express: { purl: 'pkg:npm/express@4.19.2', license: 'MIT' },
  // A choice the product concluded on.
  accepts: { purl: 'pkg:npm/accepts@1.3.8', license: 'mit OR Apache-2.0', concluded: 'MIT' },
  jdk: { purl: 'pkg:maven/org.openjdk/jdk@17.0.1', license: 'GPL-2.0-only WITH Classpath-exception-2.0' },
  // Free text: kept as an unknown license.
  types: { purl: 'pkg:npm/%40types/node@20.11.30', license: 'SEE LICENSE IN LICENSE.md' },
  internal: { purl: 'pkg:npm/%40acme/internal@1.0.0', license: 'acme-internal' },
  // An unknown symbol inside an expression.
  custom: { purl: 'pkg:pypi/custom@0.1', license: 'MIT AND Frobnicator-Terms' },
  // Two licenses that are not on the SPDX list, concluded on the dataspace's.
  mixed: { purl: 'pkg:npm/mixed@2.0.0', license: 'acme-internal OR LicenseRef-scancode-public-domain', concluded: 'acme-internal' },
} as const;
const ANALYSIS = { state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix'], detail: 'redirect() is never called with user input' };

let hardProduct: string;

beforeAll(async () => {
  for (const dataspace of ['acme', ...Object.values(TARGETS)]) {
    const response = await call(userOf[dataspace], 'POST', '/api/v2/licenses/', INTERNAL);
    expect(response.status, response.text).toBe(201);
  }
  hardProduct = await aProduct('root', 'Hard cases');
  const held: Record<string, string> = {};
  for (const [name, { purl, license, ...rest }] of Object.entries(HARD)) {
    const pkg = await call('root', 'POST', '/api/v2/packages/', { purl, license_expression: license });
    expect(pkg.status, pkg.text).toBe(201);
    const concluded = 'concluded' in rest ? { license_expression: rest.concluded } : {};
    const pp = await call('root', 'POST', '/api/v2/product_packages/', { product: hardProduct, package: pkg.json.uuid, ...concluded });
    expect(pp.status, pp.text).toBe(201);
    held[name] = pp.json.uuid;
  }
  const vulnerability = await call('root', 'POST', '/api/v2/vulnerabilities/', {
    vulnerability_id: 'CVE-2024-43796',
    aliases: ['GHSA-qw6h-vgh9-j6wx'],
    summary: 'express: XSS via response.redirect()',
    risk_score: 5.0,
    affected_packages: [{ package: HARD.express.purl }],
  });
  expect(vulnerability.status, vulnerability.text).toBe(201);
  const analysis = await call('root', 'POST', '/api/v2/vulnerability_analyses/', { product_package: held.express, vulnerability_id: 'CVE-2024-43796', ...ANALYSIS });
  expect(analysis.status, analysis.text).toBe(201);
  // Dependencies come only from an SBOM: a merge import of the same packages with their edges (it matches them and keeps the rest).
  const edges = cyclonedxNpm({ name: 'hard', version: '1.0.0' }, [
    { name: 'express', version: '4.19.2', dependsOn: ['accepts', '@acme/internal'] },
    { name: 'accepts', version: '1.3.8' },
    { name: '@acme/internal', version: '1.0.0', dependsOn: ['@types/node'] },
    { name: '@types/node', version: '20.11.30' },
    { name: 'mixed', version: '2.0.0', dependsOn: ['express'] },
  ]);
  const merged = await send('root', 'POST', `/api/v2/products/${hardProduct}/load_sboms/?mode=merge`, JSON.stringify(edges), { 'content-type': 'application/vnd.cyclonedx+json' });
  expect(merged.status, merged.text).toBe(200);
  expect(merged.json.summary).toMatchObject({ packages_created: 0, packages_matched: 5, added: 0, unchanged: 7 });
});

async function exported(as: string, product: string, target: Target): Promise<{ document: Json; type: string }> {
  const response =
    target === 'spdx'
      ? await call(as, 'GET', `/api/v2/products/${product}/spdx/`)
      : await call(as, 'GET', `/api/v2/products/${product}/cyclonedx/?spec_version=${target}&content=combined`);
  expect(response.status, response.text).toBe(200);
  const document = response.json as Json;
  if (target === 'spdx') {
    expect(spdxSchemaErrors(document)).toBeNull();
    expect(spdxRuleProblems(document)).toEqual([]);
  } else {
    expect(await cycloneDxSchemaErrors(document, target)).toBeNull();
    expect(cycloneDxRuleProblems(document)).toEqual([]);
  }
  return { document, type: target === 'spdx' ? 'application/spdx+json' : 'application/vnd.cyclonedx+json' };
}

const analysesOf = async (as: string, product: string) =>
  (await all(as, `/api/v2/vulnerability_analyses/?product=${product}`)).map((a) => ({ vulnerability_id: a.vulnerability_id, state: a.state, justification: a.justification, responses: a.responses, detail: a.detail }));

/**
 * What the round trip keeps of the licenses, per format (docs/sbom-export.md): CycloneDX 1.6 and SPDX
 * carry the package's expression and the product's concluded one apart, so both come back; 1.4 and 1.5
 * carry one expression per component, the effective one, which comes back as the package's, with no
 * concluded expression.
 */
function expectedLicenses(before: Map<string, { package: string; concluded: string }>, target: Target) {
  if (target === '1.6' || target === 'spdx') return before;
  return new Map([...before].map(([purl, { package: pkg, concluded }]) => [purl, { package: concluded || pkg, concluded: '' }]));
}

describe('import(export(P)) into a new product', () => {
  it.each(Object.keys(TARGETS) as Target[])('as %s gives the same packages, expressions, dependencies and analyses, with the hard cases', async (target) => {
    const as = userOf[TARGETS[target]]!;
    const before = await holding('root', hardProduct);
    expect(before.purls).toHaveLength(7);
    // The hard cases are what the test thinks they are.
    expect(before.licenses.get(HARD.jdk.purl)!.package).toBe('gpl-2.0 WITH classpath-exception-2.0');
    expect(before.licenses.get(HARD.types.purl)!.package).toBe('unknown-license-reference');
    expect(before.licenses.get(HARD.custom.purl)!.package).toBe('mit AND unknown-license-reference');
    expect(before.licenses.get(HARD.mixed.purl)).toEqual({ package: 'acme-internal OR public-domain', concluded: 'acme-internal' });
    const edgesBefore = await storedEdges(hardProduct);
    expect(edgesBefore).toHaveLength(4);

    const { document, type } = await exported('root', hardProduct, target);
    expect(JSON.stringify(document)).toContain('LicenseRef-dejacode-acme-internal');
    if (target === 'spdx') {
      // One ref stands for the unknown licenses: its text names every package's, as written.
      const unknown = document.hasExtractedLicensingInfos.find((info: Json) => info.licenseId === 'LicenseRef-scancode-unknown-license-reference');
      expect(unknown.extractedText.split('\n').sort()).toEqual(['Frobnicator-Terms', 'SEE LICENSE IN LICENSE.md']);
    }
    const product = await aProduct(as, `Round trip ${target}`);
    const response = await load(as, product, JSON.stringify(document), type);
    expect(response.status, response.text).toBe(200);
    // A fresh dataspace: every package is made from the exported document.
    expect(response.json.summary).toMatchObject({ components: 7, packages_created: 7, packages_matched: 0, skipped: [], added: 7 });

    const after = await holding(as, product);
    expect(after.purls).toEqual(before.purls);
    expect(after.licenses).toEqual(expectedLicenses(before.licenses, target));
    // The dataspace license came back as itself, not as an unknown license.
    expect(after.packages.find((pkg) => pkg.purl === HARD.internal.purl)).toMatchObject({ license_expression: 'acme-internal', license_expression_spdx: 'LicenseRef-dejacode-acme-internal' });
    expect(await storedEdges(product)).toEqual(edgesBefore);
    // The unknown licenses are still found as unknown (the verbatim text is not carried back: docs/sbom-export.md).
    const unknown = await all(as, '/api/v2/packages/?has_unknown_license=true');
    expect(unknown.map((pkg) => pkg.purl).sort()).toEqual([HARD.custom.purl, HARD.types.purl].sort());
    if (target === 'spdx') {
      // SPDX 2.3 has no place for vulnerabilities: none come back.
      expect(response.json.summary).toMatchObject({ vulnerabilities: 0, analyses: 0 });
    } else {
      expect(response.json.summary).toMatchObject({ vulnerabilities: 1, analyses: 1 });
      expect(await analysesOf(as, product)).toEqual(await analysesOf('root', hardProduct));
      expect(await analysesOf(as, product)).toEqual([{ vulnerability_id: 'CVE-2024-43796', ...ANALYSIS }]);
      const [vulnerability] = await all(as, '/api/v2/vulnerabilities/');
      expect(vulnerability).toMatchObject({ vulnerability_id: 'CVE-2024-43796', aliases: ['GHSA-qw6h-vgh9-j6wx'], risk_score: 5, affected_packages: [{ purl: HARD.express.purl }] });
    }
  });

  it.each(Object.keys(TARGETS) as Target[])('as %s gives the same packages, expressions and dependencies for the product npm sbom described', async (target) => {
    // Its production dependencies: a real product, small enough for four more imports.
    const source = realProducts.get('npm-sbom-prod.cdx.json')!;
    const before = await holding('root', source);
    const { document, type } = await exported('root', source, target);
    const product = await aProduct('root', `npm sbom round trip ${target}`);
    const response = await load('root', product, JSON.stringify(document), type);
    expect(response.status, response.text).toBe(200);
    expect(response.json.summary).toMatchObject({ components: before.purls.length, packages_matched: before.purls.length, skipped: [] });
    const after = await holding('root', product);
    expect(after.purls).toEqual(before.purls);
    expect(after.licenses).toEqual(expectedLicenses(before.licenses, target));
    expect(await storedEdges(product)).toEqual(await storedEdges(source));
  });
});

// --- 4: the same document again -------------------------------------------------------------------

describe('importing the same document into the same product again', () => {
  /** What the import wrote (the table's stream): only the import's own record, the resource GET sbom_imports/{uuid} reads. */
  async function expectOnlyTheImportRecord(importUuid: string) {
    const changes = await http.changes();
    expect(changes.map((change) => change.event)).toEqual(['INSERT']);
    expect(JSON.stringify(changes[0]!.after)).toContain('"SbomImport"');
    expect(JSON.stringify(changes[0]!.after)).toContain(importUuid);
  }

  it.each([
    ['cyclonedx-npm-1.6-full.cdx.json', 'application/vnd.cyclonedx+json'],
    ['npm-sbom-full.spdx.json', 'application/spdx+json'],
  ])('%s changes nothing', async (name, type) => {
    const product = realProducts.get(name)!;
    await http.changes();
    const again = await load('root', product, fixtureText(name), type);
    expect(again.status, again.text).toBe(200);
    expect(again.json.summary).toMatchObject({ packages_created: 0, packages_updated: 0, added: 0, removed: 0 });
    expect(again.json.summary.packages_matched + again.json.summary.skipped.length).toBe(again.json.summary.components);
    await expectOnlyTheImportRecord(again.json.uuid);
  });

  it('an exported CycloneDX 1.6 document with its VEX changes nothing the second time', async () => {
    const { document, type } = await exported('root', hardProduct, '1.6');
    const product = await aProduct('root', 'Twice');
    const first = await load('root', product, JSON.stringify(document), type);
    expect(first.status, first.text).toBe(200);
    expect(first.json.summary).toMatchObject({ added: 7, analyses: 1 });
    await http.changes();
    const again = await load('root', product, JSON.stringify(document), type);
    expect(again.status, again.text).toBe(200);
    expect(again.json.summary).toMatchObject({ packages_created: 0, packages_updated: 0, added: 0, removed: 0, unchanged: 7, analyses: 1 });
    await expectOnlyTheImportRecord(again.json.uuid);
  });
});
