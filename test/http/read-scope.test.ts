/**
 * The read scope over the whole route table: a superuser's read key is refused every route whose
 * method is not GET with 403 and changes nothing, before anything else answers (its path parameters are
 * placeholders naming nothing, its body is not even JSON: the scope answers first); on every GET route
 * (and HEAD), the same key is never refused for its scope. Each route of the table is checked, so a new
 * route joins by itself.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../shared/routes/index.ts';
import { READ_SCOPE_REFUSAL } from '../../shared/domain/api-keys.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });

/** A concrete path for a route: each {parameter} filled with a placeholder that names nothing. */
const placeholder = (path: string) => path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

let readKey: string;
let writeKey: string;

beforeAll(async () => {
  const created = await http.call('root', 'POST', '/api/v2/api_keys/', { name: 'read only', scope: 'read' });
  expect(created.status, created.text).toBe(201);
  readKey = created.json.secret;
  writeKey = http.team.keys.root!;
});

const writes = ROUTES.filter((route) => route.method !== 'GET').map((route) => [`${route.method} ${route.path}`, route] as const);
const reads = ROUTES.filter((route) => route.method === 'GET').map((route) => [`${route.method} ${route.path}`, route] as const);

describe("a superuser's read key on every route of the table", () => {
  it('covers writes and reads of every area', () => {
    expect(writes.length).toBeGreaterThanOrEqual(40);
    expect(reads.length).toBeGreaterThanOrEqual(30);
  });

  it.each(writes)('%s: 403 for its scope, and nothing changes', async (_, route) => {
    const path = placeholder(route.path);
    const before = await http.snapshot();
    for (const body of [{}, 'not JSON at all']) {
      const refused = await http.api.call(route.method, path, { token: readKey, body });
      expect(refused.status, `${route.method} ${path}: ${refused.text}`).toBe(403);
      expect(refused.json).toEqual({ detail: READ_SCOPE_REFUSAL });
    }
    expect(await http.snapshot()).toBe(before);
    // The same request with the user's write key is not refused for a scope: what answers it is the route.
    const written = await http.api.call(route.method, path, { token: writeKey, body: 'not JSON at all' });
    expect(written.json?.detail, written.text).not.toBe(READ_SCOPE_REFUSAL);
  });

  it.each(reads)('%s (and HEAD): never refused for its scope', async (_, route) => {
    const path = placeholder(route.path);
    for (const method of ['GET', 'HEAD']) {
      const answer = await http.api.call(method, path, { token: readKey });
      expect(answer.status, `${method} ${path}: ${answer.text}`).not.toBe(401);
      expect(answer.status, `${method} ${path}: ${answer.text}`).not.toBe(403);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(500);
    }
  });
});
