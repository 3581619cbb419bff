/**
 * ETag and If-Match on the single-object routes: a GET answers the object's ETag; a write with that
 * ETag in If-Match succeeds and answers the new one; a write with a stale ETag is 412
 * {"detail": ...} and changes nothing; `If-Match: *` and no If-Match write as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } } });
const { snapshot } = http;

/** A call with extra headers. */
const call = (username: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  http.api.call(method, path, { token: http.team.keys[username]!, headers, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  await load(http.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
});

const STRONG_TAG = /^"[^"]+"$/;

/**
 * The If-Match story for one object: `path` is its URL, `change(i)` a PATCH body that changes it.
 * Every write route of the object is checked: PATCH, PUT (with `replace`, a full body) and DELETE.
 */
async function ifMatchStory(
  as: string,
  path: string,
  change: (i: number) => Record<string, unknown>,
  replace: () => Record<string, unknown>,
  { deletable = true } = {},
) {
  const read = await call(as, 'GET', path);
  expect(read.status, read.text).toBe(200);
  const first = read.headers.get('etag')!;
  expect(first).toMatch(STRONG_TAG);
  // Reading again changes nothing: the same tag.
  expect((await call(as, 'GET', path)).headers.get('etag')).toBe(first);

  // PATCH with the tag just read: 200, and a new tag that a GET confirms.
  const patched = await call(as, 'PATCH', path, change(1), { 'If-Match': first });
  expect(patched.status, patched.text).toBe(200);
  const second = patched.headers.get('etag')!;
  expect(second).toMatch(STRONG_TAG);
  expect(second).not.toBe(first);
  const reread = await call(as, 'GET', path);
  expect(reread.headers.get('etag')).toBe(second);
  expect(reread.json).toEqual(patched.json);

  // The stale tag: 412 with a detail, for PATCH, PUT and DELETE, and nothing changes.
  const before = await snapshot();
  for (const [method, body] of [
    ['PATCH', change(2)],
    ['PUT', replace()],
    ...(deletable ? [['DELETE', undefined] as const] : []),
  ] as const) {
    const refused = await call(as, method, path, body, { 'If-Match': first });
    expect(refused.status, `${method} ${refused.text}`).toBe(412);
    expect(refused.json).toEqual({ detail: expect.any(String) });
  }
  // A list holding the current tag among others matches; a weak form of it does not.
  expect((await call(as, 'PATCH', path, change(3), { 'If-Match': `W/${second}` })).status).toBe(412);
  expect(await snapshot()).toBe(before);
  const listed = await call(as, 'PATCH', path, change(3), { 'If-Match': `"nope", ${second}` });
  expect(listed.status, listed.text).toBe(200);

  // PUT with the current tag: 200. `If-Match: *` and no If-Match: as before.
  const put = await call(as, 'PUT', path, replace(), { 'If-Match': listed.headers.get('etag')! });
  expect(put.status, put.text).toBe(200);
  expect((await call(as, 'PATCH', path, change(4), { 'If-Match': '*' })).status).toBe(200);
  const plain = await call(as, 'PATCH', path, change(5));
  expect(plain.status).toBe(200);

  // DELETE with the current tag: 204, and the object is gone.
  if (deletable) {
    const deleted = await call(as, 'DELETE', path, undefined, { 'If-Match': plain.headers.get('etag')! });
    expect(deleted.status, deleted.text).toBe(204);
    expect((await call(as, 'GET', path)).status).toBe(404);
  }
}

describe('ETag and If-Match', () => {
  it('products: GET → ETag; PATCH with it → 200 and a new ETag; stale → 412 for PATCH, PUT and DELETE; current → 204', async () => {
    const created = await call('alice', 'POST', '/api/v2/products/', { name: 'Tagged' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(STRONG_TAG);
    const path = `/api/v2/products/${created.json.uuid}/`;
    await ifMatchStory('alice', path, (i) => ({ version: `v${i}` }), () => ({ name: 'Tagged', version: 'put' }));
  });

  it('requests: the same, PATCH and PUT (requests have no DELETE); a new comment moves the ETag', async () => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'Tagged', request_template: 'Review' });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toMatch(STRONG_TAG);
    const path = `/api/v2/requests/${created.json.uuid}/`;
    await ifMatchStory('alice', path, (i) => ({ notes: `note ${i}` }), () => ({
        title: 'Tagged',
        request_template: 'Review',
        status: 'open',
        assignee: null,
        priority: null,
        product_context: null,
        content_object: null,
        serialized_data: {},
        is_private: false,
        cc_emails: [],
        notes: 'put',
      }), {
      deletable: false,
    });

    const tag = (await call('alice', 'GET', path)).headers.get('etag')!;
    expect((await call('alice', 'POST', `${path}add_comment/`, { text: 'looks fine' })).status).toBe(201);
    const after = await call('alice', 'GET', path);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect((await call('alice', 'PATCH', path, { notes: 'stale' }, { 'If-Match': tag })).status).toBe(412);
    expect((await call('alice', 'PATCH', path, { notes: 'fresh' }, { 'If-Match': after.headers.get('etag')! })).status).toBe(200);
  });

  // Each: a create body, a PATCH that changes it, and a full PUT body.
  it.each([
    [
      'usage_policies',
      { label: 'Tagged policy', content_type: 'package', compliance_alert: 'warning' },
      (i: number) => ({ description: `d${i}` }),
      { label: 'Tagged policy', content_type: 'package', compliance_alert: 'error', description: 'put' },
    ],
    [
      'licenses',
      { key: 'tagged', name: 'Tagged License', short_name: 'Tagged' },
      (i: number) => ({ name: `Tagged ${i}` }),
      { key: 'tagged', name: 'Tagged License', short_name: 'Tagged', spdx_license_key: '', usage_policy: null },
    ],
    [
      'packages',
      { purl: 'pkg:npm/tagged@1.0.0' },
      (i: number) => ({ filename: `tagged-${i}.tgz` }),
      {
        purl: 'pkg:npm/tagged@1.0.0',
        type: 'npm',
        namespace: '',
        name: 'tagged',
        version: '1.0.0',
        filename: 'put.tgz',
        download_url: 'https://example.com/tagged-1.0.0.tgz',
        md5: '',
        sha1: '',
        sha256: '',
        sha512: '',
        description: '',
        homepage_url: '',
        copyright: '',
        supplier: '',
        license_expression: '',
        usage_policy: null,
      },
    ],
    [
      'vulnerabilities',
      { vulnerability_id: 'VCID-tagged', summary: 's' },
      (i: number) => ({ summary: `s${i}` }),
      { vulnerability_id: 'VCID-tagged', summary: 'put', aliases: [], risk_score: null, affected_packages: [] },
    ],
    [
      'webhooks',
      { target_url: 'https://93.184.215.14/hook', events: ['request.added'], description: 'd' },
      (i: number) => ({ description: `d${i}` }),
      { target_url: 'https://93.184.215.14/hook', events: ['request.updated'], is_active: true, description: 'put' },
    ],
  ])('%s: GET → ETag; PATCH with it → 200 and a new ETag; stale → 412 for PATCH, PUT and DELETE; current → 204', async (collection, body, change, full) => {
    const created = await call('root', 'POST', `/api/v2/${collection}/`, body);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('etag')).toMatch(STRONG_TAG);
    const path = `/api/v2/${collection}/${created.json.uuid}/`;
    await ifMatchStory('root', path, change, () => full);
  });

  it('vulnerability analyses and product packages', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Holder' })).json;
    const pkg = (await call('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/held@1.0.0' })).json;
    expect((await call('root', 'POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-held', affected_packages: [{ package: pkg.uuid }] })).status).toBe(201);
    const held = await call('alice', 'POST', '/api/v2/product_packages/', { product: product.uuid, package: pkg.uuid });
    expect(held.status, held.text).toBe(201);
    const heldPath = `/api/v2/product_packages/${held.json.uuid}/`;
    const heldTag = held.headers.get('etag')!;
    expect(heldTag).toMatch(STRONG_TAG);
    expect((await call('alice', 'GET', heldPath)).headers.get('etag')).toBe(heldTag);

    const analysis = await call('alice', 'POST', '/api/v2/vulnerability_analyses/', { product_package: held.json.uuid, vulnerability_id: 'VCID-held', state: 'in_triage' });
    expect(analysis.status, analysis.text).toBe(201);
    const path = `/api/v2/vulnerability_analyses/${analysis.json.uuid}/`;
    await ifMatchStory('alice', path, (i) => ({ detail: `d${i}` }), () => ({
      product_package: held.json.uuid,
      vulnerability_id: 'VCID-held',
      state: 'exploitable',
      justification: null,
      responses: [],
      detail: 'put',
    }));

    // A product package can be changed too (its concluded license, is_deployed, is_modified): the same story.
    expect((await call('alice', 'DELETE', heldPath, undefined, { 'If-Match': '"0"' })).status).toBe(412);
    await ifMatchStory('alice', heldPath, (i) => ({ is_modified: i % 2 === 1, license_expression: i % 2 === 1 ? 'MIT' : '' }), () => ({
      product: product.uuid,
      package: pkg.uuid,
      license_expression: 'Apache-2.0',
      is_deployed: false,
      is_modified: false,
    }));
  });

  it('a stale If-Match on an object the caller cannot see is still 404, not 412', async () => {
    const created = await call('root', 'POST', '/api/v2/products/', { name: 'Hidden' });
    const refused = await call('alice', 'PATCH', `/api/v2/products/${created.json.uuid}/`, { version: 'x' }, { 'If-Match': '"0"' });
    expect(refused.status).toBe(404);
  });

  it('lists carry no ETag', async () => {
    expect((await call('alice', 'GET', '/api/v2/products/')).headers.get('etag')).toBeNull();
  });
});
