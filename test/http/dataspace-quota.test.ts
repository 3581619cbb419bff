/**
 * The per-dataspace quota through the real handlers: the keys of one dataspace share 1 request a
 * second with bursts of 4, on top of each key's own 10 a second with bursts of 3. A dataspace that
 * spends its quota is refused (429 with Retry-After) whatever key it uses, another dataspace is not,
 * and a key over its own limit takes nothing from its dataspace. The limits are set before any function
 * module loads (the functions read them once, at cold start); vitest gives each test file its own
 * modules, so no other file sees them.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { keys } from '../../shared/keys.ts';

const KEY_LIMIT = { perSecond: 10, burst: 3 };
const DATASPACE_LIMIT = { perSecond: 1, burst: 4 };
Object.assign(process.env, {
  RATE_LIMIT_PER_SECOND: String(KEY_LIMIT.perSecond),
  RATE_LIMIT_BURST: String(KEY_LIMIT.burst),
  DATASPACE_RATE_LIMIT_PER_SECOND: String(DATASPACE_LIMIT.perSecond),
  DATASPACE_RATE_LIMIT_BURST: String(DATASPACE_LIMIT.burst),
});

const http = useHttpTeam({
  acme: { users: { alice: {}, bob: {}, carol: {} } },
  globex: { users: { zed: {} } },
  warmup: { users: { warm: {} } },
});

beforeAll(async () => {
  // Load the functions now (in a dataspace of their own), so the tests' bursts are not spread over cold starts.
  expect((await http.call('warm', 'GET', '/api/v2/products/')).status).toBe(200);
});
afterAll(() => {
  for (const name of ['RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST', 'DATASPACE_RATE_LIMIT_PER_SECOND', 'DATASPACE_RATE_LIMIT_BURST']) delete process.env[name];
});

// The handlers run in this process: a frozen Date makes "quick calls" and "after the wait" exact.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
});
afterEach(() => {
  vi.useRealTimers();
});
const wait = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);
const get = (username: string) => http.call(username, 'GET', '/api/v2/products/');

describe('the per-dataspace quota', () => {
  it("is shared by the dataspace's keys, spares other dataspaces, and is not spent by a key over its own limit", async () => {
    // alice spends her key's burst (3 of the dataspace's 4); her 4th and 5th are refused by her key...
    for (let i = 0; i < KEY_LIMIT.burst; i++) expect((await get('alice')).status, `alice ${i + 1}`).toBe(200);
    for (let i = 0; i < 2; i++) expect((await get('alice')).status, 'alice over her key').toBe(429);
    // ...and took nothing from the dataspace: bob still has its 4th.
    expect((await get('bob')).status, 'bob: the last of the burst').toBe(200);

    // Now the dataspace is spent for every key of it, with a fresh key allowance or not.
    const refused = await get('carol');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
    expect((await get('bob')).status).toBe(429);
    // Another dataspace has its own quota.
    expect((await get('zed')).status).toBe(200);

    // A second gives the dataspace back one request.
    wait(1);
    expect((await get('carol')).status, 'after Retry-After').toBe(200);
    expect((await get('bob')).status, 'the dataspace is spent again').toBe(429);
  });

  it("keeps the dataspace's state in one limiter item that the table's stream consumers never see", async () => {
    const { Item } = await http.env.doc.send(new GetCommand({ TableName: http.env.tableName, Key: keys.dataspaceRateLimit('acme') }));
    expect(Item).toMatchObject({ PK: 'RATE#DS#acme', SK: 'RATE', entity: 'DataspaceRateLimit' });
    expect(typeof Item?.tat).toBe('number');
  });
});
