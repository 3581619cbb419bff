/**
 * Per-key throttling through the real handlers: 2 requests a second with bursts of 3. The limits are
 * set before any function module loads (the functions read them once, at cold start); vitest gives
 * each test file its own modules, so no other file sees them.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { gcraStep } from '../../shared/http/rate-limit.ts';
import { keys } from '../../shared/keys.ts';
import { RateLimitStore } from '../../shared/store/rate-limit-store.ts';
import { TABLE } from '../../shared/table.ts';

const LIMIT = { perSecond: 2, burst: 3 };
Object.assign(process.env, { RATE_LIMIT_PER_SECOND: String(LIMIT.perSecond), RATE_LIMIT_BURST: String(LIMIT.burst) });

const http = useHttpTeam({ acme: { users: { warm: {}, alice: {}, bob: {}, carol: {}, dave: {}, erin: {} } } });
const { call } = http;

beforeAll(async () => {
  // Load the functions now, so the real-clock burst below is not spread over cold starts.
  for (const path of ['/api/v2/products/', '/api/v2/requests/', '/api/v2/']) {
    expect((await call('warm', 'GET', path)).status).toBe(200);
  }
});
afterAll(async () => {
  delete process.env.RATE_LIMIT_PER_SECOND;
  delete process.env.RATE_LIMIT_BURST;
});

const as = (username: string) => ({
  get: (path: string) => call(username, 'GET', path),
  post: (path: string, body: unknown) => call(username, 'POST', path, body),
});

const THROTTLED = { detail: 'Request was throttled. Expected available in 1 second.' };

describe('per-key throttling', () => {
  // The handlers run in this process: a frozen Date makes "quick calls" and "after the wait" exact,
  // whatever the machine's load. Timers stay real, so HTTP and the SDK work as usual.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  /** Waits as a client would, on the frozen clock. */
  const wait = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

  it('admits a burst, answers the next request 429 with Retry-After, and admits again after the wait', async () => {
    for (let i = 0; i < LIMIT.burst; i++) expect((await as('alice').get('/api/v2/products/')).status, `call ${i + 1}`).toBe(200);

    const refused = await as('alice').get('/api/v2/products/');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual(THROTTLED);

    // Another key has its own allowance.
    expect((await as('bob').get('/api/v2/products/')).status).toBe(200);

    wait(0.4);
    expect((await as('alice').get('/api/v2/products/')).status, 'before Retry-After').toBe(429);
    // A second at 2 a second gives back two requests, and no more.
    wait(0.6);
    expect((await as('alice').get('/api/v2/products/')).status, 'after Retry-After').toBe(200);
    expect((await as('alice').get('/api/v2/products/')).status, 'the second of that second').toBe(200);
    expect((await as('alice').get('/api/v2/products/')).status, 'a third').toBe(429);
  });

  it('counts a key across functions: it has one allowance, wherever it is spent', async () => {
    expect((await as('dave').get('/api/v2/products/')).status).toBe(200);
    expect((await as('dave').get('/api/v2/requests/')).status).toBe(200);
    expect((await as('dave').get('/api/v2/products/')).status).toBe(200);
    const refused = await as('dave').get('/api/v2/requests/');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual(THROTTLED);
  });

  it('refuses a POST over the limit without writing, and does not count refused requests', async () => {
    for (let i = 0; i < LIMIT.burst; i++) expect((await as('carol').get('/api/v2/products/')).status).toBe(200);
    const before = await http.snapshot();

    for (let i = 0; i < 3; i++) {
      const refused = await as('carol').post('/api/v2/products/', { name: 'Throttled', version: '1.0' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json).toEqual(THROTTLED);
    }
    // Nothing changed: no product, no name claim, and not even the key's rate-limit item.
    expect(await http.snapshot()).toBe(before);

    // Had the refusals been counted, the key would still owe a second and a half.
    wait(1);
    const created = await as('carol').post('/api/v2/products/', { name: 'Throttled', version: '1.0' });
    expect(created.status, created.text).toBe(201);
    wait(1);
    const listed = await as('carol').get('/api/v2/products/?name=Throttled');
    expect(listed.json.count).toBe(1);
  });

  it('leaves requests without a valid key to authentication (401), before any throttling', async () => {
    for (let i = 0; i < LIMIT.burst + 2; i++) {
      const response = await http.api.call('GET', '/api/v2/products/', { token: 'not-a-key' });
      expect(response.status).toBe(401);
    }
  });

  it('holds on the real clock too: a burst at once, then a refusal', async () => {
    vi.useRealTimers();
    const results = await Promise.all(Array.from({ length: LIMIT.burst + 3 }, () => as('erin').get('/api/v2/products/')));
    const statuses = results.map((response) => response.status);
    // The six requests race; unless they took more than an interval (500 ms), exactly the burst passes.
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(LIMIT.burst);
    expect(statuses).toContain(429);
  });
});

describe("the limiter's state in the table", () => {
  const store = () => new RateLimitStore(http.env.doc, http.env.tableName);

  it('admits exactly the burst when requests of one key race from many instances at once', async () => {
    const step = gcraStep(LIMIT, Date.now());
    // Separate stores stand for separate Lambda instances; all they share is the table.
    const results = await Promise.all(Array.from({ length: 10 }, () => store().take('racekey0000a', step)));
    expect(results.filter((result) => result.admitted)).toHaveLength(LIMIT.burst);
    expect(results.filter((result) => !result.admitted)).toEqual(
      Array.from({ length: 10 - LIMIT.burst }, () => ({ admitted: false, tat: step.now + LIMIT.burst * step.interval })),
    );
  });

  it('keeps one item per key, with its tat and a TTL a minute past the latest tat', async () => {
    const step = gcraStep(LIMIT, Date.now());
    expect(await store().take('itemkey0000a', step)).toEqual({ admitted: true });
    const { Item } = await http.env.doc.send(new GetCommand({ TableName: http.env.tableName, Key: keys.rateLimit('itemkey0000a') }));
    expect(Item).toEqual({
      PK: 'RATE#itemkey0000a',
      SK: 'RATE',
      entity: 'RateLimit',
      tat: step.now + step.interval,
      [TABLE.ttlAttribute]: Math.ceil((step.allowAt + step.interval) / 1000) + 60,
    });
  });

  it('starts an idle key afresh from now', async () => {
    const earlier = gcraStep(LIMIT, Date.now() - 60_000);
    for (let i = 0; i < LIMIT.burst; i++) expect((await store().take('idlekey0000a', earlier)).admitted).toBe(true);
    expect((await store().take('idlekey0000a', earlier)).admitted).toBe(false);
    const now = gcraStep(LIMIT, Date.now());
    expect(await store().take('idlekey0000a', now)).toEqual({ admitted: true });
    const { Item } = await http.env.doc.send(new GetCommand({ TableName: http.env.tableName, Key: keys.rateLimit('idlekey0000a') }));
    expect(Item?.tat).toBe(now.now + now.interval);
  });
});
