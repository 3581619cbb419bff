import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ThrottledError } from '../../shared/domain/errors.ts';
import { authFailureLimit, failureSource } from '../../shared/http/auth-failures.ts';
import { apiFunction } from '../../shared/http/api-handler.ts';
import type { RateLimiter } from '../../shared/http/rate-limit.ts';

const eventFrom = (sourceIp: string, authorization?: string) =>
  ({
    version: '2.0',
    routeKey: 'GET /api/v2/',
    rawPath: '/api/v2/',
    rawQueryString: '',
    headers: { ...(authorization ? { authorization } : {}), 'x-forwarded-for': '198.51.100.1' },
    requestContext: { domainName: 'api.example.com', http: { method: 'GET', path: '/api/v2/', protocol: 'HTTP/1.1', sourceIp, userAgent: 'vitest' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('the source a failed authentication counts against', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
  ])('%s counts as %s (never a header)', (sourceIp, source) => {
    expect(failureSource(eventFrom(sourceIp))).toBe(source);
  });

  it('turns failures a minute into the limiter rate', () => {
    expect(authFailureLimit(30, 10)).toEqual({ perSecond: 0.5, burst: 10 });
  });
});

describe('the authenticate step with a failure limiter', () => {
  const refusing = { authenticate: async () => Promise.reject(new AuthenticationError('Invalid token.')) };
  const run = async (limiter: RateLimiter, authorization?: string) => {
    const handler = apiFunction({ authenticator: refusing, authFailureLimiter: limiter }, { api_root: async () => ({ statusCode: 200, body: {} }) });
    return (await handler(eventFrom('203.0.113.7', authorization), {} as Context)) as APIGatewayProxyStructuredResultV2;
  };

  it('counts a refused key against the source, and answers 429 when the source is past its allowance', async () => {
    const counted: string[] = [];
    const ok = await run({ admit: async (source) => void counted.push(source) }, 'Token not-a-key-at-all-but-long-enough-000000000000');
    expect(ok.statusCode).toBe(401);
    expect(counted).toEqual(['203.0.113.7']);
    const throttled = await run({ admit: async () => Promise.reject(new ThrottledError(7)) }, 'Token x');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers?.['Retry-After']).toBe('7');
  });

  it('keeps the 401 when the limiter itself fails, and counts nothing without credentials', async () => {
    expect((await run({ admit: async () => Promise.reject(new Error('DynamoDB down')) }, 'Token x')).statusCode).toBe(401);
    const counted: string[] = [];
    expect((await run({ admit: async (source) => void counted.push(source) })).statusCode).toBe(401);
    expect(counted).toEqual([]);
  });
});
