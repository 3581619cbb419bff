/**
 * Absolute links (api_url, next, previous, the API root's map) come from the configured public base URL,
 * never from what a client sends: X-Forwarded-Host, Host and X-Forwarded-Proto change none of them, so
 * one caller cannot poison the links another follows.
 */
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

// Configured before any function module loads: the functions read it once, at cold start.
const PUBLIC_BASE_URL = 'https://compliance.example.com';
process.env.PUBLIC_BASE_URL = PUBLIC_BASE_URL;

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });

/** A GET with any headers, Host included (fetch cannot set Host). */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const url = new URL(path, http.api.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'GET', headers: { authorization: `Token ${http.team.keys.root}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Every absolute URL in a JSON answer. */
function links(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(links);
  if (value && typeof value === 'object') return Object.values(value).flatMap(links);
  return [];
}

const HOSTILE_HEADERS: Record<string, Record<string, string>> = {
  'X-Forwarded-Host': { 'x-forwarded-host': 'evil.example' },
  'X-Forwarded-Host with a port, and X-Forwarded-Proto': { 'x-forwarded-host': 'evil.example:8443', 'x-forwarded-proto': 'gopher' },
  Host: { host: 'evil.example' },
  'Host and X-Forwarded-Proto': { host: 'evil.example:9999', 'x-forwarded-proto': 'http' },
  'all three': { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
};

beforeAll(async () => {
  for (const name of ['Alpha', 'Beta', 'Gamma']) {
    const created = await http.call('root', 'POST', '/api/v2/products/', { name, version: '1.0' });
    expect(created.status, created.text).toBe(201);
  }
});

describe('absolute links', () => {
  it('are built on the configured public base URL', async () => {
    const page = await get('/api/v2/products/?page_size=1&page=2', {});
    expect(page.status).toBe(200);
    expect(page.json.next).toBe(`${PUBLIC_BASE_URL}/api/v2/products/?page_size=1&page=3`);
    expect(page.json.previous).toBe(`${PUBLIC_BASE_URL}/api/v2/products/?page_size=1`);
    expect(page.json.results[0].api_url).toMatch(new RegExp(`^${PUBLIC_BASE_URL}/api/v2/products/[0-9a-f-]{36}/$`));
  });

  it.each(Object.entries(HOSTILE_HEADERS))('do not follow a client-sent %s', async (_, headers) => {
    for (const path of ['/api/v2/', '/api/v2/products/?page_size=1&page=2']) {
      const answer = await get(path, headers);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const found = links(answer.json);
      expect(found.length).toBeGreaterThan(0);
      for (const link of found) expect(link.startsWith(`${PUBLIC_BASE_URL}/`), link).toBe(true);
    }
    const product = (await get('/api/v2/products/?page_size=1', {})).json.results[0];
    const detail = await get(`/api/v2/products/${product.uuid}/`, headers);
    expect(detail.json.api_url).toBe(`${PUBLIC_BASE_URL}/api/v2/products/${product.uuid}/`);
  });
});
