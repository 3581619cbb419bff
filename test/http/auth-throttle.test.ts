/**
 * Failed authentication is throttled per source address (the request context's sourceIp, never a
 * client header): a source may fail a burst of times, then one failure every 60/perMinute seconds; past
 * that its failures answer 429 with Retry-After in DRF's words. A valid key is never slowed, whatever
 * its source has failed. The limits are set before any function module loads (read once, at cold start).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { keys } from '../../shared/keys.ts';

const LIMIT = { perMinute: 6, burst: 3 };
Object.assign(process.env, { AUTH_FAILURES_PER_MINUTE: String(LIMIT.perMinute), AUTH_FAILURES_BURST: String(LIMIT.burst) });

const http = useHttpTeam({ acme: { users: { alice: {} } } });

/** A GET from a chosen loopback address (Linux accepts any of 127.0.0.0/8), with any headers. */
function get(path: string, headers: Record<string, string>, from = '127.0.0.1'): Promise<{ status: number; retryAfter: string | undefined; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, http.api.url), { method: 'GET', headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, json: text ? JSON.parse(text) : undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const badKey = () => ({ authorization: `Token ${generateApiKey()}` });
const aliceKey = () => ({ authorization: `Token ${http.team.keys.alice}` });
const THROTTLED = { detail: 'Request was throttled. Expected available in 10 seconds.' };

beforeAll(async () => {
  // Load the functions now, so cold starts do not spread the burst below.
  for (const path of ['/api/v2/', '/api/v2/products/']) expect((await get(path, aliceKey())).status).toBe(200);
});

describe('failed authentication, per source', () => {
  // The handlers run in this process: a frozen Date makes "at once" and "after the wait" exact.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const wait = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

  it('answers 401 for a burst of failures, then 429 with Retry-After, and lets a valid key from that source through', async () => {
    const source = '127.0.0.11';
    for (let i = 0; i < LIMIT.burst; i++) {
      const refused = await get('/api/v2/products/', badKey(), source);
      expect(refused.status, `failure ${i + 1}`).toBe(401);
      expect(refused.json).toEqual({ detail: 'Invalid token.' });
    }
    const throttled = await get('/api/v2/products/', badKey(), source);
    expect(throttled.status).toBe(429);
    expect(throttled.retryAfter).toBe('10');
    expect(throttled.json).toEqual(THROTTLED);

    // Every kind of refused credential counts, on every function.
    for (const headers of [{ authorization: 'Token short' }, { authorization: 'Token' }, { authorization: 'Token a b' }]) {
      expect((await get('/api/v2/', headers, source)).status, headers.authorization).toBe(429);
    }

    // A valid key is never slowed, however often its source failed.
    for (let i = 0; i < 5; i++) expect((await get('/api/v2/products/', aliceKey(), source)).status, `valid ${i + 1}`).toBe(200);
  });

  it('keeps each source apart, and no client header moves a request to another source', async () => {
    const [noisy, quiet] = ['127.0.0.12', '127.0.0.13'];
    for (let i = 0; i < LIMIT.burst; i++) expect((await get('/api/v2/', badKey(), noisy)).status).toBe(401);
    expect((await get('/api/v2/', badKey(), noisy)).status).toBe(429);
    const spoofs: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }];
    for (const spoof of spoofs) {
      expect((await get('/api/v2/', { ...badKey(), ...spoof }, noisy)).status, JSON.stringify(spoof)).toBe(429);
    }
    expect((await get('/api/v2/', badKey(), quiet)).status).toBe(401);
  });

  it('admits one failure per interval after the wait, and does not count throttled ones', async () => {
    const source = '127.0.0.14';
    for (let i = 0; i < LIMIT.burst; i++) expect((await get('/api/v2/', badKey(), source)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await get('/api/v2/', badKey(), source)).status).toBe(429);
    wait(4);
    const early = await get('/api/v2/', badKey(), source);
    expect(early.status).toBe(429);
    expect(early.json).toEqual({ detail: 'Request was throttled. Expected available in 6 seconds.' });
    // Had the throttled failures counted, the source would owe another 30 seconds.
    wait(6);
    expect((await get('/api/v2/', badKey(), source)).status).toBe(401);
    expect((await get('/api/v2/', badKey(), source)).status).toBe(429);
  });

  it('does not count a request that presents no credentials (401, never 429)', async () => {
    const source = '127.0.0.15';
    for (let i = 0; i < LIMIT.burst + 3; i++) {
      const anonymous = await get('/api/v2/products/', {}, source);
      expect(anonymous.status).toBe(401);
      expect(anonymous.json).toEqual({ detail: 'Authentication credentials were not provided.' });
    }
    expect((await get('/api/v2/products/', badKey(), source)).status).toBe(401);
  });

  it('keeps its state in a key space of its own, one item per source', async () => {
    const source = '127.0.0.16';
    expect((await get('/api/v2/', badKey(), source)).status).toBe(401);
    const { Item } = await http.env.doc.send(new GetCommand({ TableName: http.env.tableName, Key: keys.authFailures(source) }));
    expect(Item).toMatchObject({ PK: `AUTHFAIL#${source}`, SK: 'AUTHFAIL', entity: 'AuthFailures', tat: expect.any(Number) });
  });
});
