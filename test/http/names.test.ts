/**
 * Names and keys that must be unique are compared as people read them: in Unicode NFC, and never
 * holding characters that cannot be seen (zero-width, bidirectional controls).
 */
import { describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } } });
const { call, snapshot } = http;

const NFC = 'Caf\u00e9';
const NFD = 'Cafe\u0301';

/** Invisible characters a name may not hold: zero-width, bidirectional controls, word joiner, BOM. */
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u2060', '\ufeff'];

const code = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
const invisibleMessage = (char: string) => [`Invisible character ${code(char)} is not allowed (zero-width characters, bidirectional controls).`];

describe('products', () => {
  it('store a name in NFC: the decomposed spelling of a taken name and version is taken', async () => {
    const created = await call('alice', 'POST', '/api/v2/products/', { name: `${NFD} product`, version: `v${NFD}` });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: `${NFC} product`, version: `v${NFC}` });
    const before = await snapshot();
    const again = await call('alice', 'POST', '/api/v2/products/', { name: `${NFC} product`, version: `v${NFC}` });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ name: ['Product with this name and version already exists.'] });
    expect(await snapshot()).toBe(before);
    // A filter in either form finds it.
    const listed = await call('alice', 'GET', `/api/v2/products/?name=${encodeURIComponent(`${NFD} product`)}`);
    expect(listed.json.results.map((p: { uuid: string }) => p.uuid)).toEqual([created.json.uuid]);
  });

  it.each(INVISIBLE.map((char) => [code(char), char]))('refuse %s in a name or version with 400, on create, PUT and PATCH', async (_, char) => {
    const product = await call('alice', 'POST', '/api/v2/products/', { name: `Visible ${code(char)}` });
    expect(product.status).toBe(201);
    const path = `/api/v2/products/${product.json.uuid}/`;
    const before = await snapshot();
    for (const [method, url, body, field] of [
      ['POST', '/api/v2/products/', { name: `Ca${char}fé` }, 'name'],
      ['POST', '/api/v2/products/', { name: 'Plain', version: `1${char}` }, 'version'],
      ['PUT', path, { name: `Ca${char}fé`, version: '' }, 'name'],
      ['PATCH', path, { version: `${char}2` }, 'version'],
    ] as const) {
      const response = await call('alice', method, url, body);
      expect(response.status, `${method} ${field}`).toBe(400);
      expect(response.json).toEqual({ [field]: invisibleMessage(char) });
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('the catalog', () => {
  it('keeps usage policy labels unique in NFC', async () => {
    const created = await call('root', 'POST', '/api/v2/usage_policies/', { label: `${NFD} policy`, content_type: 'license' });
    expect(created.status, created.text).toBe(201);
    expect(created.json.label).toBe(`${NFC} policy`);
    const again = await call('root', 'POST', '/api/v2/usage_policies/', { label: `${NFC} policy`, content_type: 'package' });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ label: ['Usage policy with this label already exists.'] });
    // A license names its policy by label, in either form.
    const license = await call('root', 'POST', '/api/v2/licenses/', { key: 'nfc-1', name: 'NFC 1', usage_policy: `${NFD} policy` });
    expect(license.status, license.text).toBe(201);
    expect(license.json.usage_policy).toBe(`${NFC} policy`);
  });

  it('keeps purls unique in NFC, whether the purl or its parts are decomposed', async () => {
    const created = await call('root', 'POST', '/api/v2/packages/', { purl: `pkg:npm/${encodeURIComponent(NFD.toLowerCase())}@1.0.0` });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: NFC.toLowerCase(), purl: `pkg:npm/${encodeURIComponent(NFC.toLowerCase())}@1.0.0` });
    const before = await snapshot();
    for (const body of [{ purl: `pkg:npm/${NFC.toLowerCase()}@1.0.0` }, { type: 'npm', name: NFD.toLowerCase(), version: '1.0.0' }]) {
      const again = await call('root', 'POST', '/api/v2/packages/', body);
      expect(again.status, JSON.stringify(body)).toBe(400);
      expect(again.json).toEqual({ purl: ['Package with this purl already exists.'] });
    }
    expect(await snapshot()).toBe(before);
    const found = await call('root', 'GET', `/api/v2/packages/?purl=${encodeURIComponent(`pkg:npm/${encodeURIComponent(NFD.toLowerCase())}@1.0.0`)}`);
    expect(found.json.results.map((p: { uuid: string }) => p.uuid)).toEqual([created.json.uuid]);
  });

  it.each(INVISIBLE.map((char) => [code(char), char]))('refuses %s in labels, license keys and purls with 400', async (_, char) => {
    const before = await snapshot();
    const refusals = [
      ['usage_policies', { label: `Pro${char}hibited`, content_type: 'license' }, 'label', invisibleMessage(char)],
      ['packages', { type: 'npm', name: `left${char}pad` }, 'name', invisibleMessage(char)],
      ['packages', { purl: `pkg:npm/left${encodeURIComponent(char)}pad@1` }, 'purl', invisibleMessage(char)],
      ['packages', { purl: `pkg:npm/left${char}pad@1` }, 'purl', invisibleMessage(char)],
    ] as const;
    for (const [collection, body, field, message] of refusals) {
      const response = await call('root', 'POST', `/api/v2/${collection}/`, body);
      expect(response.status, `${collection} ${JSON.stringify(body)}`).toBe(400);
      expect(response.json, `${collection} ${JSON.stringify(body)}`).toEqual({ [field]: message });
    }
    const license = await call('root', 'POST', '/api/v2/licenses/', { key: `mi${char}t`, name: 'MIT' });
    expect(license.status).toBe(400);
    expect(Object.keys(license.json)).toEqual(['key']);
    expect(await snapshot()).toBe(before);
  });
});

describe('references by name', () => {
  it('find a request template and a priority named in another normal form', async () => {
    await load(http.env, {
      request_templates: [{ name: `${NFD} review`, dataspace: 'acme', content_type: 'product' }],
      priorities: [{ label: `${NFD} urgent`, dataspace: 'acme' }],
    });
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'Review', request_template: `${NFD} review`, priority: `${NFD} urgent` });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ request_template_name: `${NFC} review`, priority: `${NFC} urgent` });
    const listed = await call('alice', 'GET', `/api/v2/requests/?request_template=${encodeURIComponent(`${NFD} review`)}`);
    expect(listed.json.count).toBe(1);
  });
});
