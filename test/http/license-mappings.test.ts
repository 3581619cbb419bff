/**
 * A dataspace's license mappings through the HTTP API: superusers write, every user of the dataspace
 * reads, another dataspace's behave as if they did not exist; the text is unique as it is matched; a
 * bad text or expression is a 400 that changes nothing; and a mapping applies, before ScanCode's rules,
 * to every later package write and SBOM import, which say so in `resolved_from`. (Applying it to the
 * packages already there runs through the stream: test/pipeline/license-expressions.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

const created = async (body: unknown, as = 'root') => {
  const response = await call(as, 'POST', '/api/v2/license_mappings/', body);
  expect(response.status, response.text).toBe(201);
  return response.json as { uuid: string; api_url: string; text: string; license_expression: string; license_expression_spdx: string };
};

let counter = 0;
const aPackage = async (declared: string) => {
  const response = await call('root', 'POST', '/api/v2/packages/', { purl: `pkg:maven/org.example/mapped-${++counter}@1.0`, declared_license_expression: declared });
  expect(response.status, response.text).toBe(201);
  return response.json;
};

describe('license mappings', () => {
  it('a superuser makes one; every user of the dataspace reads it; the expression is stored over keys with its SPDX form', async () => {
    const mapping = await created({ text: '  Bouncy Castle Licence  ', license_expression: 'MIT' });
    expect(mapping).toMatchObject({ text: 'Bouncy Castle Licence', license_expression: 'mit', license_expression_spdx: 'MIT' });
    expect(mapping.api_url).toMatch(new RegExp(`/api/v2/license_mappings/${mapping.uuid}/$`));
    const read = await call('alice', 'GET', `/api/v2/license_mappings/${mapping.uuid}/`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(mapping);
    const list = await call('alice', 'GET', '/api/v2/license_mappings/');
    expect(list.json.results.map((m: { uuid: string }) => m.uuid)).toContain(mapping.uuid);
    expect(list.json.count).toBe(list.json.results.length);
  });

  it('a user who is no superuser may not write: 403, nothing changed', async () => {
    const mapping = await created({ text: 'Alice may not', license_expression: 'MIT' });
    const before = await snapshot();
    expect((await call('alice', 'POST', '/api/v2/license_mappings/', { text: 'Nope License', license_expression: 'MIT' })).status).toBe(403);
    expect((await call('alice', 'PATCH', `/api/v2/license_mappings/${mapping.uuid}/`, { license_expression: 'Apache-2.0' })).status).toBe(403);
    expect((await call('alice', 'DELETE', `/api/v2/license_mappings/${mapping.uuid}/`)).status).toBe(403);
    expect(await snapshot()).toBe(before);
  });

  it("another dataspace's mapping does not exist for its callers, nor is it in their list", async () => {
    const mapping = await created({ text: 'Only in acme', license_expression: 'MIT' });
    for (const [method, body] of [['GET'], ['PUT', { text: 'x y', license_expression: 'MIT' }], ['PATCH', { license_expression: 'MIT' }], ['DELETE']] as const) {
      const response = await call('mallory', method, `/api/v2/license_mappings/${mapping.uuid}/`, body);
      expect(response.status, `${method}: ${response.text}`).toBe(404);
    }
    expect((await call('mallory', 'GET', '/api/v2/license_mappings/')).json.count).toBe(0);
  });

  it.each([
    ['no text', { license_expression: 'MIT' }, 'text', 'This field is required.'],
    ['a blank text', { text: '   ', license_expression: 'MIT' }, 'text', 'This field may not be blank.'],
    ['a text of 501 characters', { text: 'a'.repeat(501), license_expression: 'MIT' }, 'text', 'Ensure this field has no more than 500 characters.'],
    ['a control character', { text: 'Foo\u0007 License', license_expression: 'MIT' }, 'text', 'Control characters are not allowed.'],
    ['a text with nothing to match', { text: '*** --- ***', license_expression: 'MIT' }, 'text', /^Nothing to match/],
    ['a text that is a license key already', { text: 'apache-2.0', license_expression: 'MIT' }, 'text', /is read already as the license key apache-2\.0/],
    ['a text that is not a string', { text: ['Foo'], license_expression: 'MIT' }, 'text', /string/i],
    ['an unparsable expression', { text: 'Foo Corp License', license_expression: 'MIT AND (' }, 'license_expression', /^Not a license expression: /],
    ['an expression of unknown keys', { text: 'Foo Corp License', license_expression: 'foo-corp-eula' }, 'license_expression', /^Unknown license keys: foo-corp-eula\./],
    ['a blank expression', { text: 'Foo Corp License', license_expression: '' }, 'license_expression', 'This field may not be blank.'],
  ])('%s is a 400 naming the field, and nothing is written', async (_what, body, field, message) => {
    const before = await snapshot();
    const response = await call('root', 'POST', '/api/v2/license_mappings/', body);
    expect(response.status, response.text).toBe(400);
    expect(response.json[field]).toEqual([typeof message === 'string' ? message : expect.stringMatching(message)]);
    expect(await snapshot()).toBe(before);
  });

  it('a second mapping of the same text, however it is spelled, is a 400; PUT and PATCH check it too', async () => {
    const first = await created({ text: 'Eclipse Distribution License - v 1.0', license_expression: 'BSD-3-Clause' });
    const again = await call('root', 'POST', '/api/v2/license_mappings/', { text: 'eclipse distribution licence version 1', license_expression: 'MIT' });
    expect(again.status, again.text).toBe(400);
    expect(again.json.text).toEqual([expect.stringMatching(/already exists/)]);
    const other = await created({ text: 'Some Other License', license_expression: 'MIT' });
    const taken = await call('root', 'PATCH', `/api/v2/license_mappings/${other.uuid}/`, { text: 'ECLIPSE DISTRIBUTION LICENSE 1.0' });
    expect(taken.status, taken.text).toBe(400);
    // Its own text respelled is no conflict.
    const respelled = await call('root', 'PUT', `/api/v2/license_mappings/${first.uuid}/`, { text: 'Eclipse Distribution Licence 1.0', license_expression: 'BSD-3-Clause OR MIT' });
    expect(respelled.status, respelled.text).toBe(200);
    expect(respelled.json).toMatchObject({ text: 'Eclipse Distribution Licence 1.0', license_expression: 'bsd-new OR mit', license_expression_spdx: 'BSD-3-Clause OR MIT' });
  });

  it('applies, before ScanCode, to a later package write: resolved_from names the mapping', async () => {
    // ScanCode reads `ASF 2.0` as apache-2.0; this dataspace maps the name to MIT instead.
    expect((await aPackage('ASF 2.0')).license_expression).toBe('apache-2.0');
    const mapping = await created({ text: 'asf 2', license_expression: 'MIT' });
    const pkg = await aPackage('ASF 2.0 AND Foo Unmapped License');
    expect(pkg).toMatchObject({ license_expression: expect.stringMatching(/^mit AND /), unknown_licenses: ['Foo Unmapped License'] });
    expect(pkg.resolved_from).toEqual([{ written: 'ASF 2.0', license_expression: 'mit', by: 'mapping', rule: mapping.uuid }]);
    // Not in another dataspace.
    const beta = await call('mallory', 'POST', '/api/v2/packages/', { purl: 'pkg:maven/org.example/beta@1.0', declared_license_expression: 'ASF 2.0' });
    expect(beta.json.license_expression).toBe('apache-2.0');
  });

  it("README's example: CDDL+GPL, which ScanCode has no rule for, mapped to GlassFish's dual license", async () => {
    expect((await aPackage('CDDL+GPL')).unknown_licenses).toEqual(['CDDL+GPL']);
    const mapping = await created({ text: 'CDDL+GPL', license_expression: 'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0' });
    expect(mapping).toMatchObject({
      text: 'CDDL+GPL',
      license_expression: 'cddl-1.1 OR gpl-2.0 WITH classpath-exception-2.0',
      license_expression_spdx: 'CDDL-1.1 OR GPL-2.0-only WITH Classpath-exception-2.0',
    });
    const pkg = await aPackage('CDDL+GPL');
    expect(pkg).toMatchObject({ license_expression: 'cddl-1.1 OR gpl-2.0 WITH classpath-exception-2.0', unknown_licenses: [] });
    expect(pkg.resolved_from).toEqual([{ written: 'CDDL+GPL', license_expression: 'cddl-1.1 OR gpl-2.0 WITH classpath-exception-2.0', by: 'mapping', rule: mapping.uuid }]);
    const again = await call('root', 'POST', '/api/v2/license_mappings/', { text: 'cddl+gpl', license_expression: 'MIT' });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ text: ['A license mapping of this text (compared as names are: case, punctuation, version spellings aside) already exists.'] });
  });

  it('applies to an SBOM import, whose summary lists it among the recognised licenses', async () => {
    const mapping = await created({ text: 'ACME Internal Licence', license_expression: 'Apache-2.0' });
    const product = await call('root', 'POST', '/api/v2/products/', { name: 'Mapped import' });
    const bom = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [{ type: 'library', 'bom-ref': 'a', name: 'internal', version: '1.0', purl: 'pkg:maven/com.acme/internal@1.0', licenses: [{ license: { name: 'Acme internal license' } }] }],
    };
    const response = await fetch(`${http.api.url}/api/v2/products/${product.json.uuid}/load_sboms/`, {
      method: 'POST',
      headers: { authorization: `Token ${http.team.keys.root}`, 'content-type': 'application/vnd.cyclonedx+json' },
      body: JSON.stringify(bom),
    });
    const imported = await response.json();
    expect(response.status, JSON.stringify(imported)).toBe(200);
    expect(imported.summary.unknown_licenses).toEqual([]);
    expect(imported.summary.resolved_licenses).toEqual([{ written: 'Acme internal license', license_expression: 'apache-2.0', by: 'mapping', rule: mapping.uuid }]);
  });

  it('deleting a mapping leaves the packages it resolved as they are, and later writes no longer use it', async () => {
    const mapping = await created({ text: 'Short Lived License', license_expression: 'MIT' });
    const pkg = await aPackage('Short Lived License');
    expect(pkg.license_expression).toBe('mit');
    expect((await call('root', 'DELETE', `/api/v2/license_mappings/${mapping.uuid}/`)).status).toBe(204);
    expect((await call('root', 'GET', `/api/v2/license_mappings/${mapping.uuid}/`)).status).toBe(404);
    expect((await call('root', 'GET', `/api/v2/packages/${pkg.uuid}/`)).json.license_expression).toBe('mit');
    expect((await aPackage('Short Lived License')).unknown_licenses).toEqual(['Short Lived License']);
  });
});
