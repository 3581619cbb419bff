import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { startTestGateway } from '../support/gateway.ts';
import { openApiChecker } from '../support/openapi-check.ts';
import { aUserWithKey } from '../support/factories.ts';
import { ROUTES } from '../../shared/routes/index.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';

// Every case here is one address failing on purpose: the failure throttle, which would answer 429
// past its burst, is tested on its own (auth-throttle.test.ts).
process.env.AUTH_FAILURES_PER_MINUTE = '0';

let env: Awaited<ReturnType<typeof useTestTable>>;
let api: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  env = await useTestTable();
  api = await startTestGateway();
});
afterAll(async () => {
  await api?.stop();
});

/** A concrete path for a route: each {parameter} filled with a well-formed UUID. */
const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

describe('authentication with Authorization: Token <key>', () => {
  it.each(ROUTES.map((route) => [route.method, route.path] as const))(
    '%s %s without a key is 401 with WWW-Authenticate: Token',
    async (method, path) => {
      const response = await api.call(method, concretePath(path));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Token');
      expect(response.json).toEqual({ detail: 'Authentication credentials were not provided.' });
    },
  );

  it.each([
    ['another scheme', 'Bearer abc', 'Authentication credentials were not provided.'],
    ['the keyword alone', 'Token', 'Invalid token header. No credentials provided.'],
    ['two words after the keyword', 'Token abc def', 'Invalid token header. Token string should not contain spaces.'],
    ['a malformed key', 'Token short', 'Invalid token.'],
    ['an unknown key', `Token ${generateApiKey()}`, 'Invalid token.'],
  ])('%s is 401: %s', async (_, header, detail) => {
    const response = await api.call('GET', '/api/v2/', { headers: { authorization: header } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Token');
    expect(response.json).toEqual({ detail });
  });

  it('accepts a valid key, with the keyword in any case', async () => {
    const { apiKey } = await aUserWithKey(env);
    expect((await api.call('GET', '/api/v2/', { token: apiKey })).status).toBe(200);
    const lower = await api.call('GET', '/api/v2/', { headers: { authorization: `token ${apiKey}` } });
    expect(lower.status).toBe(200);
  });

  it('refuses a key whose id matches but whose secret part differs', async () => {
    const { apiKey } = await aUserWithKey(env);
    const forged = apiKey.slice(0, 12) + generateApiKey().slice(12);
    const response = await api.call('GET', '/api/v2/', { token: forged });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ detail: 'Invalid token.' });
  });

  it('stops a replaced key on the very next request, and the new key works', async () => {
    const { user, apiKey } = await aUserWithKey(env);
    expect((await api.call('GET', '/api/v2/', { token: apiKey })).status).toBe(200);
    const replacement = generateApiKey();
    await env.identity.replaceApiKey(user.username, replacement, new Date());
    expect((await api.call('GET', '/api/v2/', { token: apiKey })).status).toBe(401);
    expect((await api.call('GET', '/api/v2/', { token: replacement })).status).toBe(200);
  });

  it('stops a deactivated user on the very next request', async () => {
    const { user, apiKey } = await aUserWithKey(env);
    expect((await api.call('GET', '/api/v2/', { token: apiKey })).status).toBe(200);
    const stored = (await env.identity.getUser(user.username))!;
    await env.identity.saveUser({ ...stored, isActive: false }, stored, new Date());
    const response = await api.call('GET', '/api/v2/', { token: apiKey });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ detail: 'User inactive or deleted.' });
  });
});

describe('the API root and schema', () => {
  it('GET /api/v2/ maps each list endpoint to its absolute URL', async () => {
    const { apiKey } = await aUserWithKey(env);
    const response = await api.call('GET', '/api/v2/', { token: apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const lists = ['products', 'request_templates', 'requests', 'usage_policies', 'licenses', 'license_mappings', 'reference_licenses', 'advisory_sources', 'packages', 'vulnerabilities', 'product_packages', 'vulnerability_analyses', 'policy_rules', 'policy_waivers', 'webhooks', 'api_keys', 'audit_events', 'users', 'request_priorities', 'policy_portfolio'];
    expect(response.json).toEqual(Object.fromEntries(lists.map((name) => [name, `${api.url}/api/v2/${name}/`])));
  });

  it('GET /api/v2/schema/ answers the OpenAPI 3.1 document with this server', async () => {
    const { apiKey } = await aUserWithKey(env);
    const response = await api.call('GET', '/api/v2/schema/', { token: apiKey });
    expect(response.status).toBe(200);
    expect(response.json.openapi).toBe('3.1.0');
    expect(response.json.servers).toEqual([{ url: api.url }]);
    expect(Object.keys(response.json.paths)).toContain('/api/v2/');
    // It is the document every answer of the HTTP tests is checked against (test/support/openapi-check.ts).
    expect({ ...response.json, servers: [] }).toEqual({ ...openApiChecker().document, servers: [] });
  });
});

describe('paths and methods no route serves', () => {
  it('an unknown path is 404 in the API error format, even without a key', async () => {
    const response = await api.call('GET', '/api/v2/nothing-here/');
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ detail: 'Not found.' });
  });

  it('a known path with another method is 405 with Allow', async () => {
    const response = await api.call('DELETE', '/api/v2/');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.json).toEqual({ detail: 'Method "DELETE" not allowed.' });
  });
});
