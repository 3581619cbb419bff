import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../shared/domain/caller.ts';
import { apiFunction, baseUrlOf, type ApiRequest } from '../../shared/http/api-handler.ts';
import { ROUTES, routeKey } from '../../shared/routes/index.ts';

/** An HTTP API payload 2.0 event as API Gateway sends it, with the given headers. */
function apiEvent(headers: Record<string, string>, route = 'GET /api/v2/products', rawPath = '/api/v2/products/', rawQueryString = ''): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: route,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: route.split(' ')[0]!, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'request-1',
      routeKey: route,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

const API_HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';

describe('baseUrlOf', () => {
  it('is the Host the client called, with the forwarded scheme', () => {
    expect(baseUrlOf(apiEvent({ host: API_HOST, 'x-forwarded-proto': 'https' }))).toBe(`https://${API_HOST}`);
    expect(baseUrlOf(apiEvent({ host: '127.0.0.1:8000', 'x-forwarded-proto': 'http' }))).toBe('http://127.0.0.1:8000');
  });

  it('falls back to https and the API domain of the request context', () => {
    expect(baseUrlOf(apiEvent({}))).toBe(`https://${API_HOST}`);
  });

  it('prefers X-Forwarded-Host (the viewer host CloudFront passes on) over Host (the API origin)', () => {
    const event = apiEvent({ host: API_HOST, 'x-forwarded-host': 'd111111abcdef8.cloudfront.net', 'x-forwarded-proto': 'https' });
    expect(baseUrlOf(event)).toBe('https://d111111abcdef8.cloudfront.net');
  });

  it.each([
    ['console.example.com:8443', 'https://console.example.com:8443'],
    ['[::1]:8000', 'https://[::1]:8000'],
    ['d111111abcdef8.cloudfront.net, proxy.internal', 'https://d111111abcdef8.cloudfront.net'],
  ])('takes X-Forwarded-Host %j as %j', (forwarded, expected) => {
    expect(baseUrlOf(apiEvent({ host: API_HOST, 'x-forwarded-host': forwarded }))).toBe(expected);
  });

  it.each(['', 'evil.example/path', 'a b', 'user@evil.example', 'evil.example:port', '-bad-.example'])(
    'ignores an X-Forwarded-Host that is not a host (%j): the Host header counts',
    (forwarded) => {
      expect(baseUrlOf(apiEvent({ host: API_HOST, 'x-forwarded-host': forwarded }))).toBe(`https://${API_HOST}`);
    },
  );
});

describe('the request a route handler receives', () => {
  const caller: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
  const listProducts = ROUTES.find((route) => route.operationId === 'list_products')!;

  it('builds baseUrl and url (what next and previous links build on) on the forwarded host', async () => {
    let seen: ApiRequest | undefined;
    const handler = apiFunction(
      { authenticator: { authenticate: async () => caller } },
      {
        list_products: async (request) => {
          seen = request;
          return { statusCode: 200, body: {} };
        },
      },
    );
    const event = apiEvent(
      { authorization: 'Token stub', host: API_HOST, 'x-forwarded-host': 'd111111abcdef8.cloudfront.net', 'x-forwarded-proto': 'https' },
      routeKey(listProducts),
      '/api/v2/products/',
      'page=2',
    );
    const answer = (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode, String(answer.body)).toBe(200);
    expect(seen?.baseUrl).toBe('https://d111111abcdef8.cloudfront.net');
    expect(seen?.url.href).toBe('https://d111111abcdef8.cloudfront.net/api/v2/products/?page=2');
  });
});
