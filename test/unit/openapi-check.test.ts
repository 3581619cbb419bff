/** The test layer's check of HTTP answers against the served OpenAPI document (test/support/openapi-check.ts). */
import { describe, expect, it } from 'vitest';
import { OpenApiChecker, openApiChecker } from '../support/openapi-check.ts';
import { buildOpenApiDocument } from '../../shared/openapi.ts';
import { ROUTES } from '../../shared/routes/index.ts';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json', ...headers }),
  text: JSON.stringify(body),
});
const UUID = '00000000-0000-4000-8000-000000000000';

describe('the check of answers against the OpenAPI document', () => {
  const checker = openApiChecker();

  it('accepts documented answers, with or without the trailing slash and with a query', () => {
    expect(checker.problems('POST', '/api/v2/products/', json(400, { detail: 'JSON parse error - Unexpected end of JSON input' }))).toEqual([]);
    expect(checker.problems('POST', '/api/v2/products', json(400, { name: ['This field is required.'] }))).toEqual([]);
    expect(checker.problems('GET', '/api/v2/products/?page=9', json(404, { detail: 'Invalid page.' }))).toEqual([]);
    expect(checker.problems('GET', '/api/v2/', json(401, { detail: 'Invalid token.' }, { 'www-authenticate': 'Token' }))).toEqual([]);
    expect(checker.problems('GET', '/api/v2/', json(429, { detail: 'Request was throttled.' }, { 'retry-after': '2' }))).toEqual([]);
    expect(checker.problems('DELETE', `/api/v2/products/${UUID}/`, { status: 204, headers: new Headers(), text: '' })).toEqual([]);
    expect(checker.problems('HEAD', '/api/v2/products/', { status: 200, headers: new Headers({ 'content-type': 'application/json' }), text: '' })).toEqual([]);
  });

  it('fails a parse error where the document promises only a field map (the drift it was written for)', () => {
    const document = buildOpenApiDocument(ROUTES, 'http://127.0.0.1') as any;
    document.paths['/api/v2/products/'].post.responses['400'] = {
      description: 'Invalid body: errors by field',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/FieldErrors' } } },
    };
    const problems = new OpenApiChecker(document).problems('POST', '/api/v2/products/', json(400, { detail: 'JSON parse error - x' }));
    expect(problems).toEqual([expect.stringContaining('a body that does not match the documented schema {"$ref":"#/components/schemas/FieldErrors"}: body/detail must be array')]);
  });

  it('names each kind of drift', () => {
    expect(checker.problems('POST', '/api/v2/products/', json(500, { detail: 'A server error occurred.' }))).toEqual([
      expect.stringMatching(/^status 500 is not documented for create_product \(documented: 201, 400, 401, 403, 413, 415, 429, 503\)$/),
    ]);
    expect(checker.problems('GET', '/api/v2/', json(401, { detail: 'Invalid token.' }))).toEqual(['the documented header WWW-Authenticate is missing']);
    expect(checker.problems('GET', '/api/v2/', json(503, { detail: 'busy' }))).toEqual(['the documented header Retry-After is missing']);
    expect(checker.problems('GET', `/api/v2/products/${UUID}/`, json(200, { name: 42 }))[0]).toMatch(/^a body that does not match the documented schema/);
    expect(checker.problems('POST', '/api/v2/products/', json(413, { message: 'Request Entity Too Large' }))[0]).toMatch(/must have required property 'detail'/);
    expect(checker.problems('POST', '/api/v2/products/', { status: 400, headers: new Headers({ 'content-type': 'text/html' }), text: '<h1>' })).toEqual([
      'Content-Type "text/html", where the document gives application/json',
    ]);
    expect(checker.problems('DELETE', `/api/v2/products/${UUID}/`, json(204, { gone: true }))).toEqual(['a body where the document describes none: {"gone":true}']);
    expect(checker.problems('HEAD', '/api/v2/', json(200, {}))).toEqual(['a body where the document describes none: {}']);
  });

  it('holds paths and methods the document does not list to 404 and 405 with Allow, as its description says', () => {
    expect(checker.problems('GET', '/api/v2/nothing-here/', json(404, { detail: 'Not found.' }))).toEqual([]);
    expect(checker.problems('GET', '/api/v2/nothing-here/', json(200, {}))[0]).toMatch(/^status 200 for a path the document does not list, where the document says 404/);
    expect(checker.problems('DELETE', '/api/v2/', json(405, { detail: 'Method "DELETE" not allowed.' }, { allow: 'GET, HEAD, OPTIONS' }))).toEqual([]);
    expect(checker.problems('DELETE', '/api/v2/', json(405, { detail: 'Method "DELETE" not allowed.' }, { allow: 'GET, OPTIONS' }))).toEqual([]);
    expect(checker.problems('GET', `/api/v2/products/${UUID}/permissions/`, json(405, { detail: 'x' }, { allow: 'GET, OPTIONS' }))).toEqual([
      'status 405 is not documented for list_product_permissions (documented: 200, 400, 401, 403, 404, 413, 429, 503)',
    ]);
    expect(checker.problems('PUT', `/api/v2/products/${UUID}/permissions/`, json(405, { detail: 'x' }, { allow: 'GET, OPTIONS' }))).toEqual([
      'an Allow header "GET, OPTIONS" that lacks POST, DELETE',
    ]);
    expect(checker.problems('OPTIONS', '/api/v2/', { status: 200, headers: new Headers({ allow: 'GET, HEAD, OPTIONS' }), text: '' })).toEqual([]);
  });
});
