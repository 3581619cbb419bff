/**
 * Many writers on one object at once, through the HTTP layer: every write answers 2xx (the service
 * retries the races it loses, never 503 for contention) and every accepted change is there afterwards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } } });
const { call } = http;

const WRITERS = 50;

beforeAll(async () => {
  await load(http.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
});

/** Status codes counted: { 200: 48, 503: 2 }. */
function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe(`${WRITERS} concurrent writers on one object`, () => {
  it('PATCH one request: every PATCH answers 200 and the last one written is what a GET shows', async () => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'Contended', request_template: 'Review' });
    expect(created.status, created.text).toBe(201);
    const path = `/api/v2/requests/${created.json.uuid}/`;

    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => call('alice', 'PATCH', path, { title: `Title ${i}`, notes: `note ${i}` })),
    );

    expect(tally(answers.map((a) => a.status))).toEqual({ 200: WRITERS });
    // Each PATCH answered its own change (title and notes written together, never mixed with another).
    answers.forEach((answer, i) => {
      expect(answer.json.title).toBe(`Title ${i}`);
      expect(answer.json.notes).toBe(`note ${i}`);
    });
    const after = await call('alice', 'GET', path);
    const i = Number(/^Title (\d+)$/.exec(after.json.title)![1]);
    expect(after.json.notes).toBe(`note ${i}`);
  });

  it('comment on one request while it is PATCHed: every call answers 2xx and every comment is there', async () => {
    const created = await call('alice', 'POST', '/api/v2/requests/', { title: 'Discussed', request_template: 'Review' });
    const path = `/api/v2/requests/${created.json.uuid}/`;

    const answers = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        i % 2 === 0 ? call('alice', 'POST', `${path}add_comment/`, { text: `comment ${i}` }) : call('alice', 'PATCH', path, { notes: `note ${i}` }),
      ),
    );

    expect(tally(answers.map((a) => a.status))).toEqual({ 200: WRITERS / 2, 201: WRITERS / 2 });
    const after = await call('alice', 'GET', path);
    expect(after.json.comments.map((c: { text: string }) => c.text).sort()).toEqual(
      Array.from({ length: WRITERS / 2 }, (_, j) => `comment ${2 * j}`).sort(),
    );
    expect(after.json.comment_count).toBe(WRITERS / 2);
    expect((await call('alice', 'GET', `${path}comments/?page_size=100`)).json.count).toBe(WRITERS / 2);
  });

  it('add packages to one product: every add answers 201 and every package is in the product', async () => {
    const product = await call('alice', 'POST', '/api/v2/products/', { name: 'Contended product' });
    expect(product.status, product.text).toBe(201);
    const purls = Array.from({ length: WRITERS }, (_, i) => `pkg:npm/contended-${i}@1.0.0`);
    for (const purl of purls) {
      const created = await call('root', 'POST', '/api/v2/packages/', { purl });
      expect(created.status, created.text).toBe(201);
    }

    const answers = await Promise.all(
      purls.map((purl) => call('alice', 'POST', '/api/v2/product_packages/', { product: product.json.uuid, package: purl })),
    );

    expect(tally(answers.map((a) => a.status))).toEqual({ 201: WRITERS });
    const held = await call('alice', 'GET', `/api/v2/products/${product.json.uuid}/packages/?page_size=100`);
    expect(held.json.count).toBe(WRITERS);
    expect(held.json.results.map((p: { purl: string }) => p.purl).sort()).toEqual([...purls].sort());
  });
});
