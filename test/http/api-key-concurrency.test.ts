/**
 * API keys created at once, through the real handlers: the name rule and the 20-key limit are
 * conditions of one transaction, with no read first, so concurrent creates cannot get past them. Two
 * creates of one name: one 201, one 400; 25 creates for one user who holds none: exactly 20 keys, every
 * other answer the limit's 400, never a 5xx, and the user's count is the keys that exist.
 */
import { describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {}, bob: {} } } });

const create = (username: string, body: Record<string, unknown>) => http.call(username, 'POST', '/api/v2/api_keys/', { scope: 'read', ...body });

async function keysOf(username: string): Promise<{ uuid: string; name: string }[]> {
  const page = await http.call('root', 'GET', `/api/v2/api_keys/?user=${username}&page_size=100`);
  expect(page.status, page.text).toBe(200);
  return page.json.results;
}

describe('concurrent creates of API keys', () => {
  it('two creates of the same name for one user: one 201, one 400 {"name": ...}', async () => {
    const answers = await Promise.all([create('alice', { name: 'twin' }), create('alice', { name: 'twin' })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400]);
    expect(answers.find((answer) => answer.status === 400)!.json).toEqual({ name: ['You already have an API key with this name.'] });
    expect((await keysOf('alice')).filter((key) => key.name === 'twin')).toHaveLength(1);
  });

  it('25 creates for a user who holds no key: exactly 20 succeed, the others are refused for the limit, none 5xx', async () => {
    // bob's one key (from the load file) goes first: he holds none, and root makes his keys.
    const [own] = await keysOf('bob');
    expect((await http.call('root', 'DELETE', `/api/v2/api_keys/${own!.uuid}/`)).status).toBe(204);
    expect(await http.env.identity.apiKeyCount('bob')).toBe(0);

    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => create('root', { name: `burst ${i}`, user: 'bob' })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status >= 500), answers.map((a) => a.text).join('\n')).toEqual([]);
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ non_field_errors: ['A user may hold at most 20 API keys: revoke one first.'] });
    }
    const held = await keysOf('bob');
    expect(held).toHaveLength(20);
    expect(new Set(held.map((key) => key.name)).size).toBe(20);
    expect(await http.env.identity.apiKeyCount('bob')).toBe(20);
    // Every key created works.
    for (const created of answers.filter((answer) => answer.status === 201)) {
      expect((await http.api.call('GET', '/api/v2/', { token: created.json.secret })).status).toBe(200);
    }
  });
});
