/**
 * SBOM export through the HTTP API: a product with packages (licenses as SPDX ids, WITH, a
 * concluded expression, an unknown license), a vulnerability with the product's analysis, exported
 * as CycloneDX 1.4 to 1.6 (sbom, vex, combined) and SPDX 2.3, each document validated against its
 * schema and the rules the schemas do not check; who may export; bad choices.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { cycloneDxRuleProblems, cycloneDxSchemaErrors, spdxRuleProblems, spdxSchemaErrors } from '../support/sbom-validation.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {}, stranger: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call } = http;

const create = async (as: string, path: string, body: unknown) => {
  const response = await call(as, 'POST', path, body);
  expect(response.status, response.text).toBe(201);
  return response.json;
};

let product: { uuid: string };
const purls = {
  express: 'pkg:npm/express@4.19.2',
  accepts: 'pkg:npm/accepts@1.3.8',
  jdk: 'pkg:maven/org.openjdk/jdk@17.0.1',
  odd: 'pkg:npm/%40acme/odd-%C3%A4rger@1.0.0',
};

beforeAll(async () => {
  const packages: Record<string, { uuid: string }> = {};
  packages.express = await create('root', '/api/v2/packages/', { purl: purls.express, license_expression: 'MIT' });
  packages.accepts = await create('root', '/api/v2/packages/', { purl: purls.accepts, license_expression: 'mit OR Apache-2.0' });
  packages.jdk = await create('root', '/api/v2/packages/', { purl: purls.jdk, license_expression: 'GPL-2.0-only WITH Classpath-exception-2.0' });
  packages.odd = await create('root', '/api/v2/packages/', { purl: purls.odd, license_expression: 'SEE LICENSE IN LICENSE.md' });
  await create('root', '/api/v2/vulnerabilities/', {
    vulnerability_id: 'CVE-2024-43796',
    aliases: ['GHSA-qw6h-vgh9-j6wx'],
    summary: 'express: XSS via response.redirect()',
    risk_score: 5.0,
    affected_packages: [{ package: purls.express }],
  });
  product = await create('alice', '/api/v2/products/', { name: 'Shop "web" ä', version: '2.0' });
  await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
  const held: Record<string, { uuid: string }> = {};
  for (const [name, pkg] of Object.entries(packages)) {
    held[name] = await create('alice', '/api/v2/product_packages/', {
      product: product.uuid,
      package: pkg.uuid,
      ...(name === 'accepts' ? { license_expression: 'MIT' } : {}),
    });
  }
  await create('alice', '/api/v2/vulnerability_analyses/', {
    product_package: held.express!.uuid,
    vulnerability_id: 'CVE-2024-43796',
    state: 'not_affected',
    justification: 'code_not_reachable',
    responses: ['will_not_fix'],
    detail: 'redirect() is never called with user input',
  });
});

const cyclonedx = (as: string, query = '') => call(as, 'GET', `/api/v2/products/${product.uuid}/cyclonedx/${query}`);

describe('GET /api/v2/products/{uuid}/cyclonedx/', () => {
  it.each(['1.4', '1.5', '1.6'] as const)('answers a valid CycloneDX %s document in each content', async (version) => {
    for (const content of ['sbom', 'vex', 'combined'] as const) {
      const response = await cyclonedx('viewer', `?spec_version=${version}&content=${content}`);
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/vnd.cyclonedx+json');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Shop_web_a-2.0.${content === 'vex' ? 'vex.cdx.json' : 'cdx.json'}"`);
      const document = response.json;
      expect(document).toMatchObject({ bomFormat: 'CycloneDX', specVersion: version });
      expect(await cycloneDxSchemaErrors(document, version)).toBeNull();
      expect(cycloneDxRuleProblems(document, { vexOnly: content === 'vex' })).toEqual([]);
      expect((document.vulnerabilities ?? []).length).toBe(content === 'sbom' ? 0 : 1);
      expect((document.components ?? []).length).toBe(content === 'vex' ? 0 : 4);
    }
  });

  it('defaults to 1.6 combined, names the product, and carries purls, licenses as SPDX ids and the analysis', async () => {
    const response = await cyclonedx('viewer');
    const document = response.json;
    expect(document.specVersion).toBe('1.6');
    expect(document.metadata.component).toMatchObject({ name: 'Shop "web" ä', version: '2.0' });
    const byPurl = new Map(document.components.map((c: { purl: string }) => [c.purl, c]));
    expect([...byPurl.keys()].sort()).toEqual(Object.values(purls).sort());
    expect(byPurl.get(purls.express)).toMatchObject({ licenses: [{ license: { id: 'MIT' } }] });
    expect(JSON.stringify(byPurl.get(purls.jdk))).toContain('GPL-2.0-only WITH Classpath-exception-2.0');
    // The product's concluded MIT on the OR choice is the license it concluded.
    expect(JSON.stringify(byPurl.get(purls.accepts))).toContain('"concluded"');
    const [vulnerability] = document.vulnerabilities;
    expect(vulnerability).toMatchObject({ id: 'CVE-2024-43796', analysis: { state: 'not_affected', justification: 'code_not_reachable', response: ['will_not_fix'] } });
  });

  it('refuses an unknown spec_version or content with a 400 naming the choices', async () => {
    const response = await cyclonedx('viewer', '?spec_version=1.3');
    expect(response.status).toBe(400);
    expect(response.json.spec_version[0]).toMatch(/1\.4, 1\.5, 1\.6/);
    expect((await cyclonedx('viewer', '?content=everything')).status).toBe(400);
  });

  it('is answered only to who can view the product: others get 404, as if it did not exist', async () => {
    expect((await cyclonedx('stranger')).status).toBe(404);
    expect((await cyclonedx('mallory')).status).toBe(404);
    expect((await cyclonedx('root')).status).toBe(200);
    expect((await call('viewer', 'GET', '/api/v2/products/00000000-0000-4000-8000-000000000000/cyclonedx/')).status).toBe(404);
  });
});

describe('GET /api/v2/products/{uuid}/spdx/', () => {
  it('answers a valid SPDX 2.3 document with the packages, their licenses and the unknown license declared', async () => {
    const response = await call('viewer', 'GET', `/api/v2/products/${product.uuid}/spdx/`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/spdx+json');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Shop_web_a-2.0.spdx.json"');
    const document = response.json;
    expect(spdxSchemaErrors(document)).toBeNull();
    expect(spdxRuleProblems(document)).toEqual([]);
    const purlsOf = document.packages.flatMap((p: { externalRefs?: { referenceLocator: string }[] }) => (p.externalRefs ?? []).map((r) => r.referenceLocator));
    expect(purlsOf.sort()).toEqual(Object.values(purls).sort());
    const odd = document.packages.find((p: { externalRefs?: { referenceLocator: string }[] }) => p.externalRefs?.[0]?.referenceLocator === purls.odd);
    expect(odd.licenseDeclared).toBe('LicenseRef-scancode-unknown-license-reference');
    const extracted = document.hasExtractedLicensingInfos.find((i: { licenseId: string }) => i.licenseId === 'LicenseRef-scancode-unknown-license-reference');
    expect(extracted.extractedText).toContain('SEE LICENSE IN LICENSE.md');
  });

  it('is answered only to who can view the product', async () => {
    expect((await call('stranger', 'GET', `/api/v2/products/${product.uuid}/spdx/`)).status).toBe(404);
    expect((await call('mallory', 'GET', `/api/v2/products/${product.uuid}/spdx/`)).status).toBe(404);
  });
});

describe('GET /api/v2/products/{uuid}/attribution/', () => {
  let notice: { uuid: string };
  beforeAll(async () => {
    // A product of its own: its packages' deployed flags are this test's.
    notice = await create('alice', '/api/v2/products/', { name: 'Notice <b>', version: '1' });
    await call('alice', 'POST', `/api/v2/products/${notice.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
    const pkgs = (await call('root', 'GET', '/api/v2/packages/?page_size=100')).json.results as { uuid: string; purl: string }[];
    const of = (purl: string) => pkgs.find((p) => p.purl === purl)!.uuid;
    await create('alice', '/api/v2/product_packages/', { product: notice.uuid, package: of(purls.express) });
    await create('alice', '/api/v2/product_packages/', { product: notice.uuid, package: of(purls.accepts), license_expression: 'Apache-2.0' });
    await create('alice', '/api/v2/product_packages/', { product: notice.uuid, package: of(purls.odd) });
    await create('alice', '/api/v2/product_packages/', { product: notice.uuid, package: of(purls.jdk), is_deployed: false });
  });
  const attribution = (as: string, query = '') => call(as, 'GET', `/api/v2/products/${notice.uuid}/attribution/${query}`);

  it('answers a self-contained HTML notice: the deployed packages with their licenses (the concluded one when set), each text once', async () => {
    const response = await attribution('viewer');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Notice_b_-1.attribution.html"');
    const html = response.text;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    // Escaped: the product's name is shown, not interpreted.
    expect(html).toContain('<h1>Attribution: Notice &lt;b&gt; 1</h1>');
    // No external asset, no script.
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
    expect(html).toContain('pkg:npm/express@4.19.2');
    expect(html).toContain('pkg:npm/accepts@1.3.8');
    // accepts is concluded Apache-2.0 in this product: its own "mit OR Apache-2.0" is not what is shown.
    expect(html).toMatch(/accepts[\s\S]*?License: <code>Apache-2.0<\/code>/);
    // The unknown license, as written.
    expect(html).toContain('(as written: “SEE LICENSE IN LICENSE.md”)');
    // jdk is not deployed: left out by default.
    expect(html).not.toContain('pkg:maven/org.openjdk/jdk@17.0.1');
    // Each license's text once: MIT (express) and Apache-2.0 (accepts), from the reference texts.
    expect(html.split('Permission is hereby granted, free of charge').length - 1).toBe(1);
    expect(html.split('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION').length - 1).toBe(1);
    expect(html).toContain('id="license-mit"');
  });

  it('lists every package with include=all, and answers plain text with format=text', async () => {
    const all = await attribution('viewer', '?include=all');
    expect(all.text).toContain('pkg:maven/org.openjdk/jdk@17.0.1');
    expect(all.text).toContain('GPL-2.0-only WITH Classpath-exception-2.0');
    const text = await attribution('viewer', '?format=text&include=all');
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('content-disposition')).toBe('attachment; filename="Notice_b_-1.attribution.txt"');
    expect(text.text).toMatch(/^Attribution: Notice <b> 1\n/);
    expect(text.text).toContain('express 4.19.2\n  pkg:npm/express@4.19.2\n  License: MIT\n');
    expect(text.text.split('Permission is hereby granted, free of charge').length - 1).toBe(1);
  });

  it("prints a dataspace license's own text in place of the reference text of its key", async () => {
    const own = await call('root', 'POST', '/api/v2/licenses/', { key: 'apache-2.0', text: 'Apache License 2.0, as our legal team ships it: see LEGAL.md.' });
    expect(own.status, own.text).toBe(201);
    try {
      const html = (await attribution('viewer')).text;
      expect(html).toContain('Apache License 2.0, as our legal team ships it: see LEGAL.md.');
      expect(html).not.toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
      // MIT has no dataspace license here: its reference text stays.
      expect(html.split('Permission is hereby granted, free of charge').length - 1).toBe(1);
    } finally {
      expect((await call('root', 'DELETE', `/api/v2/licenses/${own.json.uuid}/`)).status).toBe(204);
    }
  });

  it('refuses an unknown format or include naming the choices, and answers 404 to who cannot view the product', async () => {
    const pdf = await attribution('viewer', '?format=pdf');
    expect(pdf.status).toBe(400);
    expect(pdf.json).toEqual({ format: ['Select a valid choice. pdf is not one of the available choices (html, text).'] });
    expect((await attribution('viewer', '?include=some')).status).toBe(400);
    expect((await attribution('stranger')).status).toBe(404);
    expect((await attribution('mallory')).status).toBe(404);
    expect((await call('viewer', 'GET', '/api/v2/products/00000000-0000-4000-8000-000000000000/attribution/')).status).toBe(404);
  });
});
