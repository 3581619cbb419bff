/**
 * A request's product (product_context, content_object) is shown only to callers who may view that
 * product: superusers, and users with view_product directly or through a group. To everyone else who
 * sees the request it is null, in the detail, the list and the answers to their own writes, and a PUT
 * of what they saw keeps the link they could not see.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { load } from '../support/factories.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, bob: {}, carol: { groups: ['legal'] }, dave: {} } },
});
const { call } = http;

let product: { uuid: string; api_url: string };
let other: { uuid: string; api_url: string };
let request: { uuid: string; api_url: string };

beforeAll(async () => {
  await load(http.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
  const created = await call('alice', 'POST', '/api/v2/products/', { name: 'Secret Project', version: '1.0' });
  expect(created.status, created.text).toBe(201);
  product = created.json;
  const another = await call('bob', 'POST', '/api/v2/products/', { name: 'Bob Tool', version: '1.0' });
  expect(another.status, another.text).toBe(201);
  other = another.json;
  for (const body of [{ group: 'legal', permissions: ['view_product'] }, { user: 'dave', permissions: ['view_product'] }]) {
    expect((await call('alice', 'POST', `/api/v2/products/${product.uuid}/permissions/`, body)).status).toBe(200);
  }
  // Public, assigned to bob, who may not view the product.
  const answer = await call('alice', 'POST', '/api/v2/requests/', {
    title: 'Review the secret project',
    request_template: 'Review',
    assignee: 'bob',
    product_context: product.api_url,
    content_object: product.uuid,
  });
  expect(answer.status, answer.text).toBe(201);
  request = answer.json;
});

const detail = (as: string) => call(as, 'GET', `/api/v2/requests/${request.uuid}/`);
const listed = async (as: string) => {
  const page = await call(as, 'GET', '/api/v2/requests/');
  expect(page.status).toBe(200);
  return (page.json.results as { uuid: string; product_context: string | null; content_object: string | null }[]).find((r) => r.uuid === request.uuid)!;
};

describe("a request's product", () => {
  it.each([
    ['the superuser', 'root'],
    ['the product creator', 'alice'],
    ['a member of a group with view_product', 'carol'],
    ['a user with view_product', 'dave'],
  ])('is shown to %s (%s), in the detail and the list', async (_, as) => {
    const answer = await detail(as);
    expect(answer.status).toBe(200);
    expect(answer.json.product_context).toBe(product.api_url);
    expect(answer.json.content_object).toBe(product.api_url);
    expect(await listed(as)).toMatchObject({ product_context: product.api_url, content_object: product.api_url });
  });

  it('is null to a caller who sees the request but may not view the product, in the detail and the list', async () => {
    const answer = await detail('bob');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ title: 'Review the secret project', product_context: null, content_object: null });
    expect(JSON.stringify(answer.json)).not.toContain(product.uuid);
    expect(await listed('bob')).toMatchObject({ product_context: null, content_object: null });
  });

  it("is null in the answer to that caller's own update, and a PUT of what they saw keeps the link", async () => {
    const seen = (await detail('bob')).json;
    const put = await call('bob', 'PUT', `/api/v2/requests/${request.uuid}/`, { ...seen, title: 'Reviewed by bob' });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ title: 'Reviewed by bob', product_context: null, content_object: null });
    expect((await detail('alice')).json).toMatchObject({ title: 'Reviewed by bob', product_context: product.api_url, content_object: product.api_url });
    // Linking a product they may view replaces the link, and they see it.
    const patched = await call('bob', 'PATCH', `/api/v2/requests/${request.uuid}/`, { content_object: other.api_url });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ product_context: null, content_object: other.api_url });
    expect((await call('bob', 'PATCH', `/api/v2/requests/${request.uuid}/`, { content_object: product.api_url })).status).toBe(400);
    expect((await call('alice', 'PATCH', `/api/v2/requests/${request.uuid}/`, { content_object: product.api_url })).status).toBe(200);
  });

  it('disappears when the view permission is removed', async () => {
    expect((await detail('dave')).json.product_context).toBe(product.api_url);
    const removed = await call('alice', 'DELETE', `/api/v2/products/${product.uuid}/permissions/`, { user: 'dave', permissions: ['view_product'] });
    expect(removed.status, removed.text).toBe(200);
    expect((await detail('dave')).json).toMatchObject({ product_context: null, content_object: null });
  });
});
