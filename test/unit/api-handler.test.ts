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
  const hostile = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };

  it('is the configured public base URL, whatever the client sends', () => {
    expect(baseUrlOf(apiEvent({}), 'https://console.example.com')).toBe('https://console.example.com');
    expect(baseUrlOf(apiEvent(hostile), 'https://console.example.com')).toBe('https://console.example.com');
  });

  it('is https and the API domain of the request context when none is configured, never a header', () => {
    expect(baseUrlOf(apiEvent({}))).toBe(`https://${API_HOST}`);
    expect(baseUrlOf(apiEvent(hostile))).toBe(`https://${API_HOST}`);
    expect(baseUrlOf(apiEvent({ host: API_HOST, 'x-forwarded-host': 'd111111abcdef8.cloudfront.net' }))).toBe(`https://${API_HOST}`);
  });
});

describe('the request a route handler receives', () => {
  const caller: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
  const listProducts = ROUTES.find((route) => route.operationId === 'list_products')!;

  async function seenRequest(publicBaseUrl: string | undefined, headers: Record<string, string>): Promise<ApiRequest | undefined> {
    let seen: ApiRequest | undefined;
    const handler = apiFunction(
      { authenticator: { authenticate: async () => ({ ...caller, apiKey: { scope: 'write' as const } }) }, ...(publicBaseUrl ? { publicBaseUrl } : {}) },
      {
        list_products: async (request) => {
          seen = request;
          return { statusCode: 200, body: { count: 0, next: null, previous: null, results: [] } };
        },
      },
    );
    const event = apiEvent({ authorization: 'Token stub', ...headers }, routeKey(listProducts), '/api/v2/products/', 'page=2');
    const answer = (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
    expect(answer.statusCode, String(answer.body)).toBe(200);
    return seen;
  }

  it('builds baseUrl and url (what next and previous links build on) on the public base URL, not on forwarded headers', async () => {
    const seen = await seenRequest('https://d111111abcdef8.cloudfront.net', { host: API_HOST, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' });
    expect(seen?.baseUrl).toBe('https://d111111abcdef8.cloudfront.net');
    expect(seen?.url.href).toBe('https://d111111abcdef8.cloudfront.net/api/v2/products/?page=2');
  });

  it('builds them on the request context domain when no public base URL is configured', async () => {
    const seen = await seenRequest(undefined, { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(seen?.url.href).toBe(`https://${API_HOST}/api/v2/products/?page=2`);
  });
});
