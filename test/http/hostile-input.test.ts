/**
 * Regression tests for input that once reached DynamoDB or JavaScript badly: non-Latin text in sort
 * keys, prototype-named fields, overlong references and filters, JSON null, unpaired surrogates,
 * and orderings that mix characters on both sides of U+FFFF.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { aTeam, load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';
import { rawRequest } from '../support/raw-request.ts';
import { ROUTES, type Route } from '../../shared/routes/index.ts';
import { loadHandler } from '../../bin/local/functions.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } } });
const { call } = http;

beforeAll(async () => {
  await load(http.env, {
    request_templates: [
      { name: 'Review', dataspace: 'acme', content_type: 'product' },
      { name: '🚀'.repeat(150), dataspace: 'acme', content_type: 'product' },
      { name: 'Questions', dataspace: 'acme', content_type: 'product', questions: [{ label: 'Reason', input_type: 'TextField', is_required: false }] },
      {
        name: 'Odd labels',
        dataspace: 'acme',
        content_type: 'product',
        questions: ['toString', 'hasOwnProperty', 'valueOf'].map((label) => ({ label, input_type: label === 'valueOf' ? 'BooleanField' : 'TextField', is_required: false })),
      },
    ],
    priorities: [{ label: '緊急'.repeat(70), dataspace: 'acme' }],
  });
});

describe('text in any script', () => {
  it.each([
    ['255 Cyrillic letters', 'Ж'.repeat(255)],
    ['255 CJK characters', '中'.repeat(255)],
    ['emoji', '😀'.repeat(120)],
  ])('a request titled with %s is created, listed and ordered', async (_, title) => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title, request_template: 'Review', priority: '緊急'.repeat(70) });
    expect(created.status, created.text).toBe(201);
    const listed = await call('alice', 'GET', `/api/v2/requests/?ordering=-title&priority=${encodeURIComponent('緊急'.repeat(70))}`);
    expect(listed.status).toBe(200);
    expect(listed.json.results.map((r: { uuid: string }) => r.uuid)).toContain(created.json.uuid);
  });

  it('uses a template whose name is 150 emoji', async () => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'rocket', request_template: '🚀'.repeat(150) });
    expect(created.status, created.text).toBe(201);
    const byTemplate = await call('alice', 'GET', `/api/v2/requests/?request_template=${encodeURIComponent('🚀'.repeat(150))}&ordering=request_template`);
    expect(byTemplate.json.results.map((r: { uuid: string }) => r.uuid)).toEqual([created.json.uuid]);
  });

  it('pages through titles on both sides of U+FFFF in one order, whichever way each page is served', async () => {
    const titles = [...Array.from({ length: 8 }, (_, i) => `ａ${i}`), ...Array.from({ length: 8 }, (_, i) => `😀${i}`)];
    for (const title of titles) {
      expect((await call('root', 'POST', '/api/v2/requests/', { title: `mix ${title}`, request_template: 'Review', status: 'draft' })).status).toBe(201);
    }
    for (let i = 0; i < 4; i++) await call('root', 'POST', '/api/v2/requests/', { title: `closed ${i}`, request_template: 'Review', status: 'closed' });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const response = await call('root', 'GET', `/api/v2/requests/?ordering=title&status=draft&page_size=5&page=${page}`);
      expect(response.status).toBe(200);
      seen.push(...response.json.results.map((r: { title: string }) => r.title));
    }
    expect(seen).toHaveLength(16);
    expect(new Set(seen).size).toBe(16);
    expect(seen).toEqual([...titles.map((t) => `mix ${t}`)]);
  });
});

describe('fields named like Object.prototype members', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('%s is an unknown field, not a 500', async (field) => {
    const body = `{"name": "x", "${field}": 1}`;
    const response = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ [field]: ['Unknown field.'] });
  });
});

describe('overlong references and filters', () => {
  const long = 'x'.repeat(3000);

  it.each([
    ['GET', `/api/v2/products/?name=${long}`, 200],
    ['GET', `/api/v2/requests/?requester=${long}`, 400],
    ['GET', `/api/v2/requests/?priority=${long}`, 400],
    ['GET', `/api/v2/requests/?request_template=${long}`, 400],
    ['GET', `/api/v2/packages/?purl=pkg:npm/${long}`, 200],
  ])('%s %s… answers %i', async (method, path, status) => {
    const response = await call('alice', method, path);
    expect(response.status).toBe(status);
    if (status === 200) expect(response.json.count).toBe(0);
  });

  it('refuses an overlong user in a permission change and an overlong template reference', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Guarded' })).json;
    const grant = await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user: long, permissions: ['view_product'] });
    expect(grant.status).toBe(400);
    const request = await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: long });
    expect(request.status).toBe(400);
  });
});

describe('JSON edge cases', () => {
  it('refuses a JSON null body as DRF does, and changes nothing', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Null target' })).json;
    const response = await http.api.call('PATCH', `/api/v2/products/${product.uuid}/`, { token: http.team.keys.alice, body: 'null' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got NoneType.'] });
    expect((await call('alice', 'GET', `/api/v2/products/${product.uuid}/`)).json.last_modified_date).toBe(product.last_modified_date);
  });

  it('refuses an unpaired surrogate', async () => {
    const response = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body: '{"name": "bad \\ud800 name"}' });
    expect(response.status).toBe(400);
    expect(response.json.detail).toMatch(/unpaired surrogate/);
  });

  it('treats an empty product filter as no filter', async () => {
    const all = await call('alice', 'GET', '/api/v2/products/');
    const empty = await call('alice', 'GET', '/api/v2/products/?name=&version=');
    expect(empty.json.count).toBe(all.json.count);
    expect(all.json.count).toBeGreaterThan(0);
  });

  it('refuses control characters in notes and comments, and oversized answers', async () => {
    expect((await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review', notes: 'a\u0001b' })).status).toBe(400);
    expect((await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review', notes: 'line\nbreak\ttab' })).status).toBe(201);
    const request = (await call('alice', 'POST', '/api/v2/requests/', { title: 't', request_template: 'Review' })).json;
    expect((await call('alice', 'POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: 'x'.repeat(10_001) })).status).toBe(400);
  });
});

describe('a product many users can see', () => {
  it('is renamed in batches and found under its new name by every viewer', async () => {
    const usernames = Array.from({ length: 100 }, (_, i) => `viewer${i}`);
    const many = await aTeam(http.env, { acme: { users: Object.fromEntries(usernames.map((u) => [u, {}])) } });
    Object.assign(http.team.keys, many.keys);
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Popular' })).json;
    for (const user of usernames) {
      expect((await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, { user, permissions: ['view_product'] })).status).toBe(200);
    }
    const renamed = await call('alice', 'PATCH', `/api/v2/products/${product.uuid}/`, { name: 'Popular renamed' });
    expect(renamed.status, renamed.text).toBe(200);
    for (const user of [usernames[0]!, usernames[57]!, usernames[99]!]) {
      const found = await call(user, 'GET', '/api/v2/products/?name=Popular%20renamed');
      expect(found.json.results.map((p: { uuid: string }) => p.uuid), user).toEqual([product.uuid]);
      expect((await call(user, 'GET', '/api/v2/products/?name=Popular')).json.count).toBe(0);
    }
    const taken = (await call('alice', 'POST', '/api/v2/products/', { name: 'Taken' })).json;
    const clash = await call('alice', 'PATCH', `/api/v2/products/${product.uuid}/`, { name: taken.name });
    expect(clash.status).toBe(400);
    expect((await call(usernames[3]!, 'GET', '/api/v2/products/?name=Popular%20renamed')).json.count).toBe(1);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// Any input: never a 5xx, and nothing stored from a body that is not UTF-8.
// ---------------------------------------------------------------------------------------------

const raw = (method: string, path: string, init: Parameters<typeof rawRequest>[3] = {}) => rawRequest(http.api.url, method, path, init);

/** A path of the route with every parameter filled: a fresh uuid, or a known rule type. */
const pathOf = (route: Route) => route.path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'rule_type' ? 'license_policy' : randomUUID()));

const isDetail = (json: unknown) => typeof json === 'object' && json !== null && Object.keys(json).length === 1 && typeof (json as { detail?: unknown }).detail === 'string';

describe('deep nesting', () => {
  const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const writes = ROUTES.filter((route) => route.method !== 'GET');

  it.each(writes.map((route) => [`${route.method} ${route.path}`, route] as const))('100,000 nested arrays to %s answer 4xx, never 5xx', async (_, route) => {
    const before = await http.snapshot();
    const response = await http.api.call(route.method, pathOf(route), { token: http.team.keys.root, body: arrays(100_000) });
    expect(response.status, response.text).toBeLessThan(500);
    expect(response.status, response.text).toBeGreaterThanOrEqual(400);
    expect(isDetail(response.json) || typeof response.json === 'object', response.text).toBe(true);
    if (route.body && !route.path.includes('{')) {
      expect(response.status).toBe(400);
      expect(response.json.detail).toMatch(/nested deeper than 64 levels/);
    }
    expect(await http.snapshot()).toBe(before);
  });

  it('refuses 100,000 nested objects and one level past the limit, and takes the limit itself to the schema', async () => {
    for (const body of [objects(100_000), objects(65), arrays(65)]) {
      const response = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body });
      expect(response.status).toBe(400);
      expect(response.json).toEqual({ detail: 'JSON parse error - nested deeper than 64 levels.' });
    }
    const atLimit = await http.api.call('POST', '/api/v2/products/', { token: http.team.keys.alice, body: `{"name": "deep", "x": ${objects(63)}}` });
    expect(atLimit.status).toBe(400);
    expect(atLimit.json).toEqual({ x: ['Unknown field.'] });
  });
});

describe('serialized_data as a string holding deep JSON', () => {
  it.each([
    ['100,000 nested arrays', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['100,000 nested objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['an object 65 levels deep', `{"Reason": ${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`],
  ])('%s is a field error', async (_, text) => {
    const before = await http.snapshot();
    const response = await call('alice', 'POST', '/api/v2/requests/', { title: 'deep', request_template: 'Questions', serialized_data: text });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ serialized_data: [expect.stringMatching(/nested deeper than 64 levels/)] });
    expect(await http.snapshot()).toBe(before);
  });

  it('refuses an unpaired surrogate inside the string', async () => {
    const response = await call('alice', 'POST', '/api/v2/requests/', { title: 'lone', request_template: 'Questions', serialized_data: '{"Reason": "\\ud800"}' });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ serialized_data: [expect.stringMatching(/unpaired surrogate/)] });
  });
});

describe('purl qualifiers named like Object.prototype members', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
    'a qualifier %s is stored and returned as ordinary data, and kept when the version changes',
    async (name) => {
      const purl = `pkg:npm/proto-${name.toLowerCase().replace(/_/g, '')}@1.0.0?${name}=x&arch=amd64`;
      const created = await call('root', 'POST', '/api/v2/packages/', { purl });
      expect(created.status, created.text).toBe(201);
      const qualifiers = ['arch=amd64', `${name.toLowerCase()}=x`].sort().join('&');
      const expected = `pkg:npm/proto-${name.toLowerCase().replace(/_/g, '')}@1.0.0?${qualifiers}`;
      expect(created.json.purl).toBe(expected);
      const read = await call('root', 'GET', `/api/v2/packages/${created.json.uuid}/`);
      expect(read.status, read.text).toBe(200);
      expect(read.json.purl).toBe(expected);
      const patched = await call('root', 'PATCH', `/api/v2/packages/${created.json.uuid}/`, { version: '2.0.0' });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.json.purl).toBe(expected.replace('@1.0.0', '@2.0.0'));
      const listed = await call('root', 'GET', `/api/v2/packages/?purl=${encodeURIComponent(expected.replace('@1.0.0', '@2.0.0'))}`);
      expect(listed.json.results.map((p: { uuid: string }) => p.uuid)).toEqual([created.json.uuid]);
    },
  );
});

describe('other client-named keys that become map keys', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty'])('a vulnerability named %s affects a package like any other', async (id) => {
    const purl = `pkg:npm/vuln-${id.toLowerCase()}@1.0.0`;
    expect((await call('root', 'POST', '/api/v2/packages/', { purl })).status).toBe(201);
    const created = await call('root', 'POST', '/api/v2/vulnerabilities/', { vulnerability_id: id, risk_score: 5, affected_packages: [{ package: purl }] });
    expect(created.status, created.text).toBe(201);
    const read = await call('root', 'GET', `/api/v2/vulnerabilities/${created.json.uuid}/`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.affected_packages.map((p: { purl: string }) => p.purl)).toEqual([purl]);
  });
});

describe('malformed Host headers', () => {
  it.each(['bad host', 'example.com:99999', '[::1', 'a@b', 'a/b', 'a?b', 'exa_mple.com', ''])('Host %j answers 400', async (host) => {
    for (const [method, path] of [
      ['GET', '/api/v2/products/'],
      ['GET', '/api/v2/'],
      ['POST', '/api/v2/products/'],
    ] as const) {
      const before = await http.snapshot();
      const response = await raw(method, path, { token: http.team.keys.alice, headers: { host }, ...(method === 'POST' ? { body: '{"name": "host"}' } : {}) });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(400);
      expect(response.json).toEqual({ detail: 'Invalid Host header.' });
      expect(await http.snapshot()).toBe(before);
    }
  });

  it('a request target that is no URL answers 400 in the error format, and the gateway stays up', async () => {
    const response = await raw('GET', 'http://[/api/v2/', { token: http.team.keys.alice });
    expect(response.status, response.text).toBe(400);
    expect(isDetail(response.json), response.text).toBe(true);
    expect((await raw('GET', '/api/v2/products/', { token: http.team.keys.alice })).status).toBe(200);
  });

  it('serves a well-formed Host with a port as before', async () => {
    const response = await raw('GET', '/api/v2/products/', { token: http.team.keys.alice, headers: { host: 'api.example.com:8443' } });
    expect(response.status, response.text).toBe(200);
  });

  it('answers 400 in the handler itself, as on AWS where the event carries headers.host', async () => {
    const handler = await loadHandler('products');
    const event = {
      version: '2.0',
      routeKey: 'GET /api/v2/products',
      rawPath: '/api/v2/products/',
      rawQueryString: '',
      headers: { host: 'bad host', authorization: `Token ${http.team.keys.alice}` },
      requestContext: { domainName: 'abc.execute-api.us-east-1.amazonaws.com', http: { method: 'GET', path: '/api/v2/products/' }, requestId: randomUUID() },
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const result = (await handler(event, lambdaContext('products', 10_000))) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toEqual({ detail: 'Invalid Host header.' });
  });
});

describe('keys named __proto__ are keys like any other', () => {
  it.each(['PUT', 'PATCH'])('%s policy_rules with a __proto__ rule type is a 400 field error and changes nothing', async (method) => {
    const before = await http.snapshot();
    const response = await http.api.call(method, '/api/v2/policy_rules/', { token: http.team.keys.root, body: '{"__proto__": {"is_active": true}}' });
    expect(response.status, response.text).toBe(400);
    expect(Object.keys(response.json)).toEqual(['__proto__']);
    expect(response.json.__proto__[0]).toMatch(/Unknown rule type/);
    expect(await http.snapshot()).toBe(before);
  });

  it('a rule parameter named constructor or __proto__ is an unknown parameter', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const response = await http.api.call('PATCH', '/api/v2/policy_rules/', {
        token: http.team.keys.root,
        body: `{"vulnerability_stale": {"is_active": true, "parameters": {"${name}": 1}}}`,
      });
      expect(response.status, `${name}: ${response.text}`).toBe(400);
      expect(Object.keys(response.json)).toEqual([`vulnerability_stale.parameters.${name}`]);
    }
  });

  it.each([
    ['an object', '{"title": "proto", "request_template": "Questions", "serialized_data": {"__proto__": "x"}}'],
    ['a string', '{"title": "proto", "request_template": "Questions", "serialized_data": "{\\"__proto__\\": \\"x\\"}"}'],
  ])('a serialized_data answer to a question __proto__ the template lacks is a 400 (%s)', async (_, body) => {
    const before = await http.snapshot();
    const response = await http.api.call('POST', '/api/v2/requests/', { token: http.team.keys.alice, body });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ serialized_data: ['"__proto__" is not a question of this template.'] });
    expect(await http.snapshot()).toBe(before);
  });

  it('answers to questions labelled like Object.prototype members are stored and returned', async () => {
    const body = '{"title": "odd labels", "request_template": "Odd labels", "serialized_data": {"toString": "t", "hasOwnProperty": "h", "valueOf": true}}';
    const created = await http.api.call('POST', '/api/v2/requests/', { token: http.team.keys.alice, body });
    expect(created.status, created.text).toBe(201);
    const read = await call('alice', 'GET', `/api/v2/requests/${created.json.uuid}/`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.serialized_data).toEqual({ toString: 't', hasOwnProperty: 'h', valueOf: true });
  });

  it('a template question may not be labelled __proto__ or constructor (answers are a map keyed by label)', async () => {
    for (const label of ['__proto__', 'constructor']) {
      await expect(
        load(http.env, { request_templates: [{ name: `Bad ${label}`, dataspace: 'acme', content_type: 'product', questions: [{ label, input_type: 'TextField' }] }] }),
      ).rejects.toThrow(/may not be "__proto__" or "constructor"/);
    }
  });
});

describe('the error format of the gateway itself', () => {
  it('a body over API Gateway\'s 10 MB answers 413 {"detail": …}', async () => {
    const response = await raw('POST', '/api/v2/products/', { token: http.team.keys.alice, body: Buffer.alloc(11 * 1024 * 1024, 0x20) });
    expect(response.status).toBe(413);
    expect(isDetail(response.json), response.text).toBe(true);
  });
});

describe('bodies that are not UTF-8', () => {
  const latin1 = Buffer.from('{"name": "Caf\u00e9 latin"}', 'latin1');
  const broken = Buffer.concat([Buffer.from('{"name": "bad '), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]);
  const overlong = Buffer.concat([Buffer.from('{"name": "over'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
  const surrogate = Buffer.concat([Buffer.from('{"name": "sur'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);

  it.each([
    ['Latin-1', latin1, 'application/json'],
    ['Latin-1 announced as such', latin1, 'application/json; charset=iso-8859-1'],
    ['invalid bytes', broken, 'application/json'],
    ['an overlong encoding', overlong, 'application/json'],
    ['an encoded surrogate', surrogate, 'application/json'],
  ])('%s is a 400 that stores nothing', async (_, body, contentType) => {
    const before = await http.snapshot();
    const response = await raw('POST', '/api/v2/products/', { token: http.team.keys.alice, body, headers: { 'content-type': contentType } });
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ detail: 'JSON parse error - the body is not valid UTF-8.' });
    expect(await http.snapshot()).toBe(before);
  });

  it('UTF-8 is stored as sent', async () => {
    const response = await raw('POST', '/api/v2/products/', { token: http.team.keys.alice, body: Buffer.from('{"name": "Caf\u00e9 utf8"}', 'utf8') });
    expect(response.status, response.text).toBe(201);
    expect(response.json.name).toBe('Caf\u00e9 utf8');
  });

  it('the handler refuses invalid UTF-8 in a base64 body and an unpaired surrogate in a plain one', async () => {
    const handler = await loadHandler('products');
    const event = (body: string, isBase64Encoded: boolean) =>
      ({
        version: '2.0',
        routeKey: 'POST /api/v2/products',
        rawPath: '/api/v2/products/',
        rawQueryString: '',
        headers: { host: 'api.example.com', authorization: `Token ${http.team.keys.alice}`, 'content-type': 'application/json' },
        requestContext: { domainName: 'api.example.com', http: { method: 'POST', path: '/api/v2/products/' }, requestId: randomUUID() },
        body,
        isBase64Encoded,
      }) as unknown as APIGatewayProxyEventV2;
    const before = await http.snapshot();
    for (const e of [event(broken.toString('base64'), true), event(latin1.toString('base64'), true), event('{"name": "lone \ud800 raw"}', false)]) {
      const result = (await handler(e, lambdaContext('products', 10_000))) as { statusCode: number; body: string };
      expect(result.statusCode, result.body).toBe(400);
      expect(JSON.parse(result.body).detail).toMatch(/not valid UTF-8|unpaired surrogate/);
    }
    expect(await http.snapshot()).toBe(before);
  });
});

describe('HEAD and dot segments', () => {
  it.each(['/api/v2/', '/api/v2/products/', '/api/v2/products', '/api/v2/schema/', '/api/v2/policy_rules/'])('HEAD %s answers as GET without a body', async (path) => {
    const get = await raw('GET', path, { token: http.team.keys.root });
    const head = await raw('HEAD', path, { token: http.team.keys.root });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.bytes).toBe(0);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(String(get.bytes));
  });

  it('HEAD keeps the answers GET gives: 401 without a key, 404 for an unknown object', async () => {
    expect((await raw('HEAD', '/api/v2/products/')).status).toBe(401);
    expect((await raw('HEAD', `/api/v2/products/${randomUUID()}/`, { token: http.team.keys.root })).status).toBe(404);
  });

  it('lists HEAD among the allowed methods of a GET route', async () => {
    const response = await raw('DELETE', '/api/v2/', { token: http.team.keys.root });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toMatch(/\bHEAD\b/);
  });

  it.each([
    '/api/v2/products/%2e%2e/requests/',
    '/api/v2/products/%2E%2E/requests/',
    '/api/v2/products/%2e./requests/',
    '/api/v2/products/.%2E/requests/',
    '/api/v2/products/../requests/',
    '/api/v2/products/%2e/',
    '/api/v2/requests/x/%2e%2e/%2e%2e/products/',
    '/api/v2/products%2frequests/',
    '/api/v2/products/%2Frequests/',
    '/api/v2/products/a%2Fb/',
    // Absolute-form request targets keep their path as sent too.
    'http://127.0.0.1/api/v2/products/%2e%2e/requests/',
    'HTTP://example.com:8000/api/v2/products/../requests/',
  ])('%s reaches no route: 404', async (path) => {
    const response = await raw('GET', path, { token: http.team.keys.root });
    expect(response.status, response.text).toBe(404);
    expect(response.json).toEqual({ detail: 'Not found.' });
  });
});
