/**
 * Issue 15's "Done when" and section 4's round trip, through the real handlers:
 * - the SBOMs real producers wrote of this repository (cyclonedx-npm 1.2, 1.4, 1.6; `npm sbom` in
 *   CycloneDX 1.5 and SPDX 2.3) import in one call each, every component accounted for once, with the
 *   document's packages and dependency edges (counted from the document, not by the reader);
 * - the products they make export again as valid CycloneDX 1.6 and SPDX 2.3;
 * - import(export(P)) into a new product gives the same packages, license expressions, dependency
 *   edges and (CycloneDX) VEX analyses, for CycloneDX 1.4, 1.5, 1.6 and SPDX, with the hard cases in P:
 *   a concluded expression, WITH, an unknown license, a dataspace license without an SPDX key;
 * - importing the same document again changes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { tableItems } from '../support/snapshot.ts';
import { cyclonedxComponents, fixture, fixtureText } from '../support/sbom-documents.ts';
import { cycloneDxRuleProblems, cycloneDxSchemaErrors, spdxRuleProblems, spdxSchemaErrors } from '../support/sbom-validation.ts';
import { cyclonedxNpm } from '../support/cyclonedx-npm.ts';

/** The dataspaces the round trips land in: a fresh catalog each, so the packages are made from the exported document. */
const TARGETS = { '1.4': 'rt14', '1.5': 'rt15', '1.6': 'rt16', spdx: 'rtspdx' } as const;
type Target = keyof typeof TARGETS;

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
  ['npm-sbom-full.spdx.json', 'application/spdx+json', 'spdx', '2.3'],
] as const;

/** Product of each real document, for the export and round-trip tests. */
const realProducts = new Map<string, string>();

describe('the SBOMs real producers wrote of this repository', () => {
  it.each([...REAL.map(([name, type, format, version]) => [name, 'the body', type, format, version] as const), ['npm-sbom-full.spdx.json', 'a multipart form', '', 'spdx', '2.3'] as const])(
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
