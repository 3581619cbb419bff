import { describe, expect, it } from 'vitest';
import { ROUTES, gatewayRouteKeys, matchPath, matchRoute, routeByKey, routeKey } from '../../shared/routes/index.ts';
import { FUNCTIONS } from '../../shared/functions.ts';
import { buildOpenApiDocument } from '../../shared/openapi.ts';

describe('route table', () => {
  it('has unique route keys and operation ids, each served by a catalogued function', () => {
    expect(new Set(ROUTES.map(routeKey)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((route) => route.operationId)).size).toBe(ROUTES.length);
    for (const route of ROUTES) expect(Object.keys(FUNCTIONS)).toContain(route.function);
  });

  it('uses DRF paths: under /api/v2/ with a trailing slash', () => {
    for (const route of ROUTES) expect(route.path).toMatch(/^\/api\/v2\/(.*\/)?$/);
  });

  it('matches paths exactly, with and without parameters', () => {
    expect(matchRoute('GET', '/api/v2/')?.route.operationId).toBe('api_root');
    expect(matchRoute('GET', '/api/v2/schema/')?.route.operationId).toBe('schema');
    expect(matchRoute('POST', '/api/v2/')).toBeUndefined();
    // API Gateway serves a route with or without the trailing slash.
    expect(matchRoute('GET', '/api/v2')?.route.operationId).toBe('api_root');
    expect(matchRoute('GET', '/api/v2/schema/extra/')).toBeUndefined();
    expect(matchPath('/api/v2/').map((m) => m.route.method)).toEqual(['GET']);
  });

  it('gives API Gateway route keys without the trailing slash, which it cannot hold', () => {
    for (const route of ROUTES) {
      expect(routeKey(route)).toBe(`${route.method} ${route.path.length > 1 ? route.path.slice(0, -1) : route.path}`);
      expect(routeByKey(routeKey(route))).toBe(route);
    }
    expect(routeKey({ method: 'GET', path: '/api/v2/products/{uuid}/' })).toBe('GET /api/v2/products/{uuid}');
  });
});

describe('route matcher: dot segments, encoded slashes and HEAD', () => {
  it.each([
    '/api/v2/products/%2e%2e/requests/',
    '/api/v2/products/%2E%2E/requests/',
    '/api/v2/products/%2e./requests/',
    '/api/v2/products/.%2e/requests/',
    '/api/v2/products/../requests/',
    '/api/v2/products/%2e/',
    '/api/v2/products/./',
    '/api/v2/products/x/%2e%2e/',
    '/api/v2/products/a%2Fb/',
    '/api/v2/products/a%2fb/',
    '/api/v2%2Fproducts/',
  ])('%s matches no route', (path) => {
    expect(matchPath(path)).toEqual([]);
    expect(matchRoute('GET', path)).toBeUndefined();
  });

  it('still matches segments that merely hold dots or percent escapes', () => {
    expect(matchRoute('GET', '/api/v2/products/a.b/')?.route.operationId).toBe('retrieve_product');
    expect(matchRoute('GET', '/api/v2/products/.../')?.route.operationId).toBe('retrieve_product');
    expect(matchRoute('GET', '/api/v2/products/%2e%2e%2e/')?.route.operationId).toBe('retrieve_product');
    expect(matchRoute('GET', '/api/v2/products/a%20b/')?.route.operationId).toBe('retrieve_product');
  });

  it('serves HEAD with the GET route, by path and by route key', () => {
    expect(matchRoute('HEAD', '/api/v2/products/')?.route.operationId).toBe('list_products');
    expect(routeByKey('HEAD /api/v2/products')?.operationId).toBe('list_products');
    expect(routeByKey('HEAD /api/v2/webhooks/{uuid}/ping')).toBeUndefined();
    for (const route of ROUTES) {
      expect(gatewayRouteKeys(route)).toEqual(route.method === 'GET' ? [routeKey(route), routeKey(route).replace(/^GET /, 'HEAD ')] : [routeKey(route)]);
    }
  });
});

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(ROUTES, 'https://api.example.com') as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string; security: unknown; responses: Record<string, unknown> }>>;
    servers: { url: string }[];
  };

  it('is OpenAPI 3.1 and lists every route of the table with its token security', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers[0]!.url).toBe('https://api.example.com');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
    );
    // Every route of the table, and HEAD (GET without a body) on every GET route.
    const expected = ROUTES.flatMap((r) => [`${r.method} ${r.path}`, ...(r.method === 'GET' ? [`HEAD ${r.path}`] : [])]);
    expect(operations.map((o) => o.key).sort()).toEqual(expected.sort());
    for (const { operation } of operations) {
      expect(operation.security).toEqual([{ TokenAuth: [] }]);
      expect(Object.keys(operation.responses)).toContain('401');
    }
  });

  it('carries the zod response schemas as JSON Schema components', () => {
    const root = document.paths['/api/v2/']!.get!.responses['200'] as {
      content: { 'application/json': { schema: { $ref: string } } };
    };
    expect(root.content['application/json'].schema.$ref).toBe('#/components/schemas/ApiRoot');
    const schemas = (document as unknown as { components: { schemas: Record<string, Record<string, unknown>> } })
      .components.schemas;
    expect(schemas.ApiRoot).toMatchObject({ type: 'object', additionalProperties: { type: 'string', format: 'uri' } });
    expect(schemas.DetailError).toMatchObject({ type: 'object', required: ['detail'] });
  });

  it('documents bodies and answers of the product routes with their schemas', () => {
    const products = document.paths['/api/v2/products/'] as unknown as Record<string, any>;
    expect(products.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ProductCreateInput' });
    expect(products.post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Product' });
    expect(products.get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ProductPage' });
    expect(products.get.parameters.map((p: { name: string }) => p.name)).toEqual(['page', 'page_size', 'name', 'version', 'search', 'gate', 'X-Correlation-Id']);
    const permissions = document.paths['/api/v2/products/{uuid}/permissions/'] as unknown as Record<string, any>;
    expect(Object.keys(permissions).sort()).toEqual(['delete', 'get', 'head', 'post']);
    expect(permissions.get.parameters[0]).toMatchObject({ name: 'uuid', in: 'path', required: true });
    const schemas = (document as unknown as { components: { schemas: Record<string, any> } }).components.schemas;
    expect(schemas.ProductCreateInput.required).toEqual(['name']);
    expect(schemas.Product.properties.created_date).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('resolves every $ref it contains', () => {
    const text = JSON.stringify(document);
    const components = (document as unknown as { components: Record<string, Record<string, unknown>> }).components;
    for (const [, kind, id] of text.matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)) {
      expect(components[kind!], `$ref ${kind}/${id}`).toHaveProperty(id!);
    }
  });

  const all = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation: operation as unknown as Record<string, any> })),
    );
  const schemas = (document as unknown as { components: { schemas: Record<string, any> } }).components;

  it("documents a read key's 403 on every operation whose method is not GET (or HEAD)", () => {
    for (const { method, operation } of all()) {
      const forbidden = operation.responses['403'];
      if (method === 'get' || method === 'head') continue;
      expect(forbidden, operation.operationId).toBeDefined();
      if (forbidden.$ref === undefined) expect(forbidden.description, operation.operationId).toContain('read scope');
      else expect(forbidden.$ref).toBe('#/components/responses/ReadScope');
    }
    expect((document as unknown as { components: { responses: Record<string, { description: string }> } }).components.responses.ReadScope!.description).toContain('GET and HEAD');
  });

  it('documents the shared error answers on every operation, with their headers', () => {
    for (const { operation } of all().filter(({ method }) => method !== 'head')) {
      expect(operation.responses['401'], operation.operationId).toEqual({ $ref: '#/components/responses/Unauthorized' });
      // The SBOM import takes larger bodies: its 413 is its own (and points to the upload endpoint).
      if (operation.operationId === 'load_sboms') expect(operation.responses['413'].description).toContain('sbom_uploads');
      else expect(operation.responses['413'], operation.operationId).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
      expect(operation.responses['429'], operation.operationId).toEqual({ $ref: '#/components/responses/Throttled' });
      expect(operation.responses['503'], operation.operationId).toEqual({ $ref: '#/components/responses/Unavailable' });
      expect(operation.responses['400'], operation.operationId).toBeDefined();
    }
    const shared = (document as unknown as { components: { responses: Record<string, any>; headers: Record<string, any> } }).components;
    expect(shared.responses.Unauthorized.headers).toEqual({ 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' }, 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } });
    expect(shared.responses.Throttled.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } });
    expect(shared.responses.Unavailable.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } });
    expect(shared.headers.RetryAfter.required).toBe(true);
    for (const response of Object.values(shared.responses)) {
      expect(response.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/DetailError' } } });
      expect(response.headers[`X-Correlation-Id`]).toEqual({ $ref: '#/components/headers/CorrelationId' });
    }
  });

  it('documents a 400 of a body route as its field errors or {"detail"} (a body that does not parse), and 415', () => {
    const products = document.paths['/api/v2/products/'] as unknown as Record<string, any>;
    expect(products.post.responses['400'].content['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/FieldErrors' }, { $ref: '#/components/schemas/DetailError' }],
    });
    expect(products.post.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    expect(products.get.responses['415']).toBeUndefined();
    const permissions = document.paths['/api/v2/products/{uuid}/permissions/'] as unknown as Record<string, any>;
    expect(permissions.post.responses['400'].content['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/WrappedFieldErrors' }, { $ref: '#/components/schemas/DetailError' }],
    });
    expect(schemas.schemas.WrappedFieldErrors.required).toEqual(['errors']);
  });

  it('documents If-Match, 412 and ETag on single-object routes, 409 where an object still in use is refused, HEAD without a body, and X-Correlation-Id everywhere', () => {
    for (const { path, method, operation } of all()) {
      const single = path.endsWith('/{uuid}/');
      const write = ['put', 'patch', 'delete'].includes(method);
      const ifMatch = (operation.parameters as { name: string; in: string }[]).some((p) => p.name === 'If-Match' && p.in === 'header');
      expect(ifMatch, operation.operationId).toBe(single && write);
      expect(operation.responses['412'] !== undefined, operation.operationId).toBe(single && write);
      const route = ROUTES.find((r) => r.operationId === operation.operationId);
      expect(operation.responses['409'] !== undefined, operation.operationId).toBe(route?.responses[409] !== undefined);
      if (single && ['get', 'head', 'put', 'patch'].includes(method)) {
        expect(operation.responses['200'].headers, operation.operationId).toEqual({ ETag: { $ref: '#/components/headers/ETag' }, 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } });
      }
      if (method === 'head') {
        for (const response of Object.values(operation.responses as Record<string, any>)) {
          expect(response.$ref, operation.operationId).toBeUndefined();
          expect(response.content, operation.operationId).toBeUndefined();
        }
        expect(operation.responses['401'].headers).toEqual({ 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' }, 'X-Correlation-Id': { $ref: '#/components/headers/CorrelationId' } });
      }
      // Every operation takes an X-Correlation-Id and every answer gives one back.
      expect((operation.parameters as { name: string; in: string }[]).filter((p) => p.name === 'X-Correlation-Id' && p.in === 'header'), operation.operationId).toHaveLength(1);
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (response.$ref === undefined) expect(response.headers?.['X-Correlation-Id'], `${operation.operationId} ${status}`).toEqual({ $ref: '#/components/headers/CorrelationId' });
      }
    }
    for (const operationId of ['destroy_license', 'update_license', 'destroy_usage_policy', 'partial_update_usage_policy']) {
      expect(all().find(({ operation }) => operation.operationId === operationId)?.operation.responses['409'], operationId).toEqual({ $ref: '#/components/responses/InUse' });
    }
  });

  it('names its license', () => {
    expect((document as unknown as { info: { license: unknown } }).info.license).toEqual({
      name: 'Proprietary (no license granted yet)',
      identifier: 'LicenseRef-Proprietary',
    });
  });
});
