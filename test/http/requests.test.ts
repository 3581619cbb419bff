import { beforeAll, describe, expect, it } from 'vitest';
import { aTeam, load, type Team } from '../support/factories.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { COMMENTS_SHOWN, ORDERING_FIELDS } from '../../shared/domain/request.ts';
import { keys } from '../../shared/keys.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, bob: {}, carol: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

let templates: Record<string, { uuid: string; api_url: string }>;

const questions = [
  { label: 'Justification', input_type: 'TextField', is_required: true },
  { label: 'Deadline', input_type: 'DateField', is_required: false },
  { label: 'Commercial use', input_type: 'BooleanField', is_required: false },
];

beforeAll(async () => {
  await load(http.env, {
    request_templates: [
      { name: 'Package Review', dataspace: 'acme', description: 'Review a package', content_type: 'product', questions },
      { name: 'License Review', dataspace: 'acme', content_type: 'product' },
      { name: 'Retired', dataspace: 'acme', content_type: 'product', is_active: false },
      { name: 'Package Review', dataspace: 'beta', content_type: 'product', questions },
    ],
    priorities: [
      { label: 'Urgent', dataspace: 'acme' },
      { label: 'low', dataspace: 'acme' },
      { label: 'Urgent', dataspace: 'beta' },
    ],
  });
  const listed = (await call('alice', 'GET', '/api/v2/request_templates/')).json.results as { name: string; uuid: string; api_url: string }[];
  templates = Object.fromEntries(listed.map((t) => [t.name, t]));
  const beta = (await call('mallory', 'GET', '/api/v2/request_templates/')).json.results as { name: string; uuid: string; api_url: string }[];
  templates['beta:Package Review'] = beta[0]!;
});

const valid = (overrides: Record<string, unknown> = {}) => ({
  title: 'Review zlib',
  request_template: 'Package Review',
  serialized_data: { Justification: 'Needed by the build' },
  ...overrides,
});

async function aRequest(as = 'alice', overrides: Record<string, unknown> = {}) {
  const response = await call(as, 'POST', '/api/v2/requests/', valid(overrides));
  expect(response.status, response.text).toBe(201);
  return response.json;
}

describe('request templates', () => {
  it('lists the dataspace templates by name with questions and form_data_layout in question order', async () => {
    const response = await call('bob', 'GET', '/api/v2/request_templates/');
    expect(response.status).toBe(200);
    expect(response.json.count).toBe(3);
    expect(response.json.results.map((t: { name: string }) => t.name)).toEqual(['License Review', 'Package Review', 'Retired']);
    const review = response.json.results[1];
    expect(review).toEqual({
      uuid: templates['Package Review']!.uuid,
      api_url: `${http.api.url}/api/v2/request_templates/${templates['Package Review']!.uuid}/`,
      name: 'Package Review',
      description: 'Review a package',
      content_type: 'product',
      is_active: true,
      questions,
      form_data_layout: {
        Justification: 'string, required',
        Deadline: 'date (YYYY-MM-DD)',
        'Commercial use': 'boolean (true or false)',
      },
    });
    expect(Object.keys(review.form_data_layout)).toEqual(['Justification', 'Deadline', 'Commercial use']);
    expect((await call('bob', 'GET', `/api/v2/request_templates/${review.uuid}/`)).json).toEqual(review);
  });

  it('hides other dataspaces templates', async () => {
    expect((await call('alice', 'GET', `/api/v2/request_templates/${templates['beta:Package Review']!.uuid}/`)).status).toBe(404);
    expect((await call('alice', 'GET', '/api/v2/request_templates/nope/')).status).toBe(404);
  });

  it('loading the same templates again changes nothing; a changed one is updated in place', async () => {
    const before = await snapshot();
    const again = await load(http.env, { request_templates: [{ name: 'License Review', dataspace: 'acme', content_type: 'product' }] });
    expect(again.created.request_templates + again.updatedTemplates).toBe(0);
    expect(await snapshot()).toBe(before);
  });
});

describe('POST /api/v2/requests/', () => {
  it('creates a request and answers it whole', async () => {
    const response = await call('alice', 'POST', '/api/v2/requests/', valid({ priority: 'Urgent', assignee: 'bob', cc_emails: ['a@example.com'] }));
    expect(response.status).toBe(201);
    const request = response.json;
    expect(request).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_url: `${http.api.url}/api/v2/requests/${request.uuid}/`,
      title: 'Review zlib',
      request_template: templates['Package Review']!.api_url,
      request_template_name: 'Package Review',
      status: 'open',
      priority: 'Urgent',
      assignee: 'bob',
      requester: 'alice',
      product_context: null,
      content_object: null,
      content_type: 'product',
      notes: '',
      serialized_data: { Justification: 'Needed by the build' },
      is_private: false,
      cc_emails: ['a@example.com'],
      last_modified_by: 'alice',
      created_date: expect.stringMatching(/\+00:00$/),
      last_modified_date: request.created_date,
      comment_count: 0,
      comments_url: `${http.api.url}/api/v2/requests/${request.uuid}/comments/`,
      comments: [],
    });
    expect((await call('bob', 'GET', `/api/v2/requests/${request.uuid}/`)).json).toEqual(request);
  });

  it('accepts the template by URL, uuid or name, and serialized_data as an object or a string', async () => {
    for (const reference of [templates['Package Review']!.api_url, templates['Package Review']!.uuid, 'Package Review']) {
      const created = await aRequest('alice', { request_template: reference, serialized_data: JSON.stringify({ Justification: 'x', 'Commercial use': true }) });
      expect(created.request_template_name).toBe('Package Review');
      expect(created.serialized_data).toEqual({ Justification: 'x', 'Commercial use': true });
    }
  });

  it('links a product the caller can see, by URL or uuid', async () => {
    const product = (await call('alice', 'POST', '/api/v2/products/', { name: 'Linked', version: '1' })).json;
    const byUrl = await aRequest('alice', { product_context: product.api_url, content_object: product.uuid });
    expect(byUrl.product_context).toBe(product.api_url);
    expect(byUrl.content_object).toBe(product.api_url);
    const hidden = await call('bob', 'POST', '/api/v2/requests/', valid({ product_context: product.uuid }));
    expect(hidden.status).toBe(400);
    expect(hidden.json).toEqual({ product_context: [`No product "${product.uuid}" that you can see (give its URL or uuid).`] });
  });

  it.each([
    ['no title', { title: undefined }, { title: ['This field is required.'] }],
    ['no template', { request_template: undefined }, { request_template: ['This field is required.'] }],
    ['an unknown template', { request_template: 'Nope' }, { request_template: ['No request template "Nope" in this dataspace.'] }],
    ['an inactive template', { request_template: 'Retired' }, { request_template: ['This request template is not active.'] }],
    ['a status not offered', { status: 'pending' }, { status: ['"pending" is not a valid choice.'] }],
    ['an unknown priority', { priority: 'Someday' }, { priority: ['Priority "Someday" does not exist in this dataspace.'] }],
    ['an assignee of another dataspace', { assignee: 'mallory' }, { assignee: ['User "mallory" does not exist in this dataspace.'] }],
    ['a bad cc address', { cc_emails: ['ok@example.com', 'not-an-email'] }, { cc_emails: ['Enter a valid email address: "not-an-email".'] }],
    ['an unknown field', { colour: 'red' }, { colour: ['Unknown field.'] }],
    ['an unknown question', { serialized_data: { Justification: 'x', Budget: '10' } }, { serialized_data: ['"Budget" is not a question of this template.'] }],
    ['a missing required answer', { serialized_data: { Deadline: '2026-12-01' } }, { serialized_data: ['"Justification" is required.'] }],
    ['a date not as YYYY-MM-DD', { serialized_data: { Justification: 'x', Deadline: '01/12/2026' } }, { serialized_data: ['"Deadline" must be a date as YYYY-MM-DD.'] }],
    ['a date that does not exist', { serialized_data: { Justification: 'x', Deadline: '2026-02-30' } }, { serialized_data: ['"Deadline" must be a date as YYYY-MM-DD.'] }],
    ['a boolean as a string', { serialized_data: { Justification: 'x', 'Commercial use': 'yes' } }, { serialized_data: ['"Commercial use" must be true or false.'] }],
    ['a number as text', { serialized_data: { Justification: 42 } }, { serialized_data: ['"Justification" must be a string.'] }],
    ['a string that is not a JSON object', { serialized_data: '[1, 2]' }, { serialized_data: ['Must be a JSON object, or a string holding one.'] }],
  ])('refuses %s with a 400 naming it, and stores nothing', async (_, overrides, errors) => {
    const before = await snapshot();
    const body = { ...valid(), ...overrides } as Record<string, unknown>;
    for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
    const response = await call('alice', 'POST', '/api/v2/requests/', body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('reports every field error at once', async () => {
    const response = await call('alice', 'POST', '/api/v2/requests/', valid({ priority: 'Someday', assignee: 'ghost' }));
    expect(Object.keys(response.json).sort()).toEqual(['assignee', 'priority']);
  });

  it('will not use a template of another dataspace, even by uuid', async () => {
    const response = await call('alice', 'POST', '/api/v2/requests/', valid({ request_template: templates['beta:Package Review']!.uuid }));
    expect(response.status).toBe(400);
  });
});

describe('updating a request', () => {
  it('PATCH changes only what it is given, e.g. status to closed', async () => {
    const request = await aRequest('alice', { notes: 'keep me' });
    const response = await call('alice', 'PATCH', `/api/v2/requests/${request.uuid}/`, { status: 'closed' });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ status: 'closed', notes: 'keep me', title: request.title, last_modified_by: 'alice' });
    expect(response.json.last_modified_date > request.last_modified_date).toBe(true);
  });

  it('PUT needs every writable field', async () => {
    const request = await aRequest('alice');
    const response = await call('alice', 'PUT', `/api/v2/requests/${request.uuid}/`, { title: 'Only title', request_template: 'Package Review' });
    expect(response.status).toBe(400);
    expect(Object.keys(response.json).sort()).toEqual(
      ['assignee', 'cc_emails', 'content_object', 'is_private', 'notes', 'priority', 'product_context', 'serialized_data', 'status'].sort(),
    );
    expect(response.json.status).toEqual(['This field is required.']);
    const full = await call('alice', 'PUT', `/api/v2/requests/${request.uuid}/`, {
      ...request,
      title: 'Replaced',
      priority: 'low',
      serialized_data: { Justification: 'new' },
    });
    expect(full.status, full.text).toBe(200);
    expect(full.json).toMatchObject({ title: 'Replaced', priority: 'low', serialized_data: { Justification: 'new' } });
  });

  it('keeps the template: changing it is a 400', async () => {
    const request = await aRequest('alice');
    const response = await call('alice', 'PATCH', `/api/v2/requests/${request.uuid}/`, { request_template: 'License Review' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ request_template: ['The request template cannot be changed.'] });
    expect((await call('alice', 'PATCH', `/api/v2/requests/${request.uuid}/`, { request_template: 'Package Review' })).status).toBe(200);
  });

  it('lets the requester, the assignee and superusers update; others get 403; other dataspaces 404', async () => {
    const request = await aRequest('alice', { assignee: 'bob' });
    const path = `/api/v2/requests/${request.uuid}/`;
    expect((await call('bob', 'PATCH', path, { notes: 'assignee' })).status).toBe(200);
    expect((await call('root', 'PATCH', path, { notes: 'superuser' })).status).toBe(200);
    const before = await snapshot();
    const denied = await call('carol', 'PATCH', path, { notes: 'no' });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect((await call('mallory', 'PATCH', path, { notes: 'no' })).status).toBe(404);
    expect((await call('mallory', 'GET', path)).status).toBe(404);
    expect((await call('mallory', 'POST', `${path}add_comment/`, { text: 'hi' })).status).toBe(404);
    expect(await snapshot()).toBe(before);
  });
});

describe('private requests', () => {
  it('are seen only by their requester, assignee and superusers', async () => {
    const secret = await aRequest('alice', { is_private: true, assignee: 'bob', title: 'Secret matter' });
    const path = `/api/v2/requests/${secret.uuid}/`;
    for (const user of ['alice', 'bob', 'root']) expect((await call(user, 'GET', path)).status, user).toBe(200);
    for (const user of ['carol', 'mallory']) {
      expect((await call(user, 'GET', path)).status, user).toBe(404);
      expect((await call(user, 'PATCH', path, { notes: 'x' })).status, user).toBe(404);
      expect((await call(user, 'POST', `${path}add_comment/`, { text: 'x' })).status, user).toBe(404);
    }
    const carolList = await call('carol', 'GET', '/api/v2/requests/?page_size=100');
    expect(carolList.json.results.map((r: { uuid: string }) => r.uuid)).not.toContain(secret.uuid);
    expect(carolList.json.count).toBe(carolList.json.results.length);
    const bobList = await call('bob', 'GET', '/api/v2/requests/?page_size=100');
    expect(bobList.json.results.map((r: { uuid: string }) => r.uuid)).toContain(secret.uuid);
    expect(bobList.json.count).toBe(bobList.json.results.length);
  });
});

describe('comments', () => {
  it('adds a comment by the caller, listed oldest first', async () => {
    const request = await aRequest('alice');
    const path = `/api/v2/requests/${request.uuid}/`;
    const first = await call('carol', 'POST', `${path}add_comment/`, { text: 'First!' });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ status: 'Comment added.' });
    await call('alice', 'POST', `${path}add_comment/`, { text: 'Second' });
    const comments = (await call('bob', 'GET', path)).json.comments;
    expect(comments).toEqual([
      { uuid: expect.any(String), username: 'carol', text: 'First!', created_date: expect.stringMatching(/\+00:00$/) },
      { uuid: expect.any(String), username: 'alice', text: 'Second', created_date: expect.stringMatching(/\+00:00$/) },
    ]);
  });

  it.each([
    ['no text', {}, { text: ['This field is required.'] }],
    ['empty text', { text: '' }, { text: ['This field may not be blank.'] }],
    ['blank text', { text: '   ' }, { text: ['This field may not be blank.'] }],
    ['a number', { text: 5 }, { text: ['Not a valid string.'] }],
    ['null', { text: null }, { text: ['This field may not be null.'] }],
  ])('refuses %s with a 400 and stores nothing', async (_, body, errors) => {
    const request = await aRequest('alice');
    const before = await snapshot();
    const response = await call('alice', 'POST', `/api/v2/requests/${request.uuid}/add_comment/`, body);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
    expect(await snapshot()).toBe(before);
  });

  it('answers 404 for an unknown request', async () => {
    const response = await call('alice', 'POST', '/api/v2/requests/00000000-0000-4000-8000-000000000000/add_comment/', { text: 'x' });
    expect(response.status).toBe(404);
  });
});

describe('GET /api/v2/requests/{uuid}/comments/', () => {
  type Comment = { uuid: string; username: string; text: string; created_date: string };
  const texts = (comments: Comment[]) => comments.map((comment) => comment.text);

  /** Every page of a comments list, following next from `path`; each page's count must be the same. */
  async function everyComment(user: string, path: string): Promise<{ count: number; comments: Comment[]; pages: number }> {
    let response = await call(user, 'GET', path);
    expect(response.status, response.text).toBe(200);
    const count = response.json.count;
    const comments: Comment[] = [...response.json.results];
    let pages = 1;
    while (response.json.next) {
      response = await call(user, 'GET', response.json.next.slice(http.api.url.length));
      expect(response.status, response.text).toBe(200);
      expect(response.json.count).toBe(count);
      comments.push(...response.json.results);
      pages += 1;
    }
    return { count, comments, pages };
  }

  it(`keeps the detail to the latest ${COMMENTS_SHOWN} comments with the exact count, and pages through all of them oldest first`, async () => {
    const request = await aRequest('alice');
    const path = `/api/v2/requests/${request.uuid}/`;
    const total = COMMENTS_SHOWN + 5;
    const written = Array.from({ length: total }, (_, i) => `comment ${String(i + 1).padStart(3, '0')}`);
    for (const [i, text] of written.entries()) {
      const added = await call(i % 2 === 0 ? 'alice' : 'carol', 'POST', `${path}add_comment/`, { text });
      expect(added.status, added.text).toBe(201);
    }

    const detail = (await call('bob', 'GET', path)).json;
    expect(detail.comment_count).toBe(total);
    expect(detail.comments_url).toBe(`${http.api.url}${path}comments/`);
    expect(texts(detail.comments)).toEqual(written.slice(-COMMENTS_SHOWN));

    const all = await everyComment('bob', `${path}comments/`);
    expect(all.count).toBe(total);
    expect(all.pages).toBe(Math.ceil(total / 10));
    expect(texts(all.comments)).toEqual(written);
    expect(all.comments[0]).toEqual({ uuid: expect.any(String), username: 'alice', text: written[0], created_date: expect.stringMatching(/\+00:00$/) });
    expect(all.comments[1]!.username).toBe('carol');
    // Dates follow the order of the comments, and the detail shows the very same comments.
    expect(all.comments.map((c) => c.created_date)).toEqual(all.comments.map((c) => c.created_date).sort());
    expect(detail.comments).toEqual(all.comments.slice(-COMMENTS_SHOWN));

    const big = await call('bob', 'GET', `${path}comments/?page_size=100&page=2`);
    expect(big.json).toMatchObject({ count: total, next: null, previous: `${http.api.url}${path}comments/?page_size=100` });
    expect(texts(big.json.results)).toEqual(written.slice(100));
    const past = await call('bob', 'GET', `${path}comments/?page_size=100&page=3`);
    expect(past.status).toBe(404);
    expect(past.json).toEqual({ detail: 'Invalid page.' });
  }, 240_000);

  it("stays inside Lambda's 6 MB answer with more comments than all of them would fit in", async () => {
    const request = await aRequest('alice');
    const path = `/api/v2/requests/${request.uuid}/`;
    // The longest comment there is: 10,000 characters of three UTF-8 bytes each.
    const longest = (i: number) => `${String(i).padStart(4, '0')}${'€'.repeat(9_996)}`;
    const total = Math.ceil((6 * 1024 * 1024) / Buffer.byteLength(longest(0))) + 5;
    for (let i = 0; i < total; i++) {
      const added = await call('alice', 'POST', `${path}add_comment/`, { text: longest(i) });
      expect(added.status, added.text).toBe(201);
    }
    const all = await everyComment('bob', `${path}comments/?page_size=100`);
    expect(all.count).toBe(total);
    expect(all.comments.map((c) => c.text)).toEqual(Array.from({ length: total }, (_, i) => longest(i)));
    // Every comment in one answer, as the detail used to hold them, is past Lambda's limit...
    expect(Buffer.byteLength(JSON.stringify(all.comments))).toBeGreaterThan(6 * 1024 * 1024);
    // ...the detail is not: it answers, with the latest comments and the exact count.
    const detail = await call('bob', 'GET', path);
    expect(detail.status, detail.text.slice(0, 200)).toBe(200);
    expect(Buffer.byteLength(detail.text)).toBeLessThan(6 * 1024 * 1024);
    expect(detail.json.comment_count).toBe(total);
    expect(detail.json.comments).toEqual(all.comments.slice(-COMMENTS_SHOWN));
    console.log(`request detail with ${total} comments of ${Buffer.byteLength(longest(0))} bytes: ${Buffer.byteLength(detail.text)} bytes; all comments: ${Buffer.byteLength(JSON.stringify(all.comments))} bytes`);
  }, 300_000);

  it('answers an empty first page for a request without comments', async () => {
    const request = await aRequest('alice');
    const response = await call('carol', 'GET', `/api/v2/requests/${request.uuid}/comments/`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('is 404 to whoever may not see the request, as the request itself', async () => {
    const secret = await aRequest('alice', { is_private: true, assignee: 'bob' });
    const path = `/api/v2/requests/${secret.uuid}/comments/`;
    expect((await call('bob', 'POST', `/api/v2/requests/${secret.uuid}/add_comment/`, { text: 'between us' })).status).toBe(201);
    for (const user of ['alice', 'bob', 'root']) expect((await call(user, 'GET', path)).json.count, user).toBe(1);
    for (const user of ['carol', 'mallory']) {
      const response = await call(user, 'GET', path);
      expect(response.status, user).toBe(404);
      expect(response.json, user).toEqual({ detail: 'Not found.' });
    }
    for (const other of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect((await call('root', 'GET', `/api/v2/requests/${other}/comments/`)).status, other).toBe(404);
    }
  });

  it('counts comments written before comments were counted, and numbers the next one after them', async () => {
    const request = await aRequest('alice');
    // Comment items as the service wrote them before the comment count existed: no count item, no seq;
    // more than the detail shows, so that it cannot count them from what it read.
    const total = COMMENTS_SHOWN + 2;
    const old = Array.from({ length: total }, (_, i) => {
      const createdDate = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString().replace('Z', '+00:00');
      const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      return { ...keys.comment(request.uuid, createdDate, uuid), entity: 'RequestComment', requestUuid: request.uuid, uuid, username: 'carol', text: `old ${i}`, createdDate };
    });
    for (const item of old) await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item: item }));
    const path = `/api/v2/requests/${request.uuid}/`;
    expect((await call('bob', 'GET', path)).json.comment_count).toBe(total);
    expect((await call('bob', 'GET', `${path}comments/`)).json.count).toBe(total);
    expect((await call('bob', 'POST', `${path}add_comment/`, { text: 'new' })).status).toBe(201);
    const detail = (await call('bob', 'GET', path)).json;
    expect(detail.comment_count).toBe(total + 1);
    expect(texts(detail.comments)).toEqual([...old.slice(-(COMMENTS_SHOWN - 1)).map((item) => item.text), 'new']);
    const all = await everyComment('bob', `${path}comments/`);
    expect(all.count).toBe(total + 1);
    expect(texts(all.comments)).toEqual([...old.map((item) => item.text), 'new']);
  }, 120_000);
});

describe('GET /api/v2/requests/ in a dataspace of its own', () => {
  type Listed = Record<string, any>;
  let lister: Team;
  let all: Listed[];
  const as = (user: string, query = '') => http.api.call('GET', `/api/v2/requests/${query}`, { token: lister.keys[user] });

  async function everyPage(user: string, query: string): Promise<Listed[]> {
    const results: Listed[] = [];
    let response = await as(user, query);
    expect(response.status, response.text).toBe(200);
    results.push(...response.json.results);
    const count = response.json.count;
    while (response.json.next) {
      response = await http.api.call('GET', response.json.next.slice(http.api.url.length), { token: lister.keys[user] });
      results.push(...response.json.results);
    }
    expect(results).toHaveLength(count);
    return results;
  }

  beforeAll(async () => {
    lister = await aTeam(http.env, { ordering: { users: { boss: { superuser: true }, ann: {}, ben: {}, cat: {} } } });
    await load(http.env, {
      request_templates: [
        { name: 'Alpha', dataspace: 'ordering', content_type: 'product' },
        { name: 'beta', dataspace: 'ordering', content_type: 'product' },
      ],
      priorities: [
        { label: 'High', dataspace: 'ordering' },
        { label: 'low', dataspace: 'ordering' },
      ],
    });
    const titles = ['apple', 'Banana', 'cherry', 'apple', 'Date', 'elder', 'Fig', 'grape', 'apple', 'Honeydew', 'kiwi', 'Lemon', 'mango', 'Nectarine'];
    const users = ['ann', 'ben', 'cat'];
    for (const [i, title] of titles.entries()) {
      const response = await http.api.call('POST', '/api/v2/requests/', {
        token: lister.keys[users[i % 3]!],
        body: {
          title,
          request_template: i % 2 === 0 ? 'Alpha' : 'beta',
          status: (['open', 'closed', 'draft'] as const)[i % 3],
          priority: i % 4 === 0 ? null : i % 4 === 1 ? 'High' : 'low',
          assignee: i % 5 === 0 ? null : users[(i + 1) % 3],
          is_private: i === 6,
        },
      });
      expect(response.status, response.text).toBe(201);
    }
    all = await everyPage('boss', '?page_size=100');
    expect(all).toHaveLength(titles.length);
  });

  const valueOf = (request: Listed, field: string) =>
    field === 'request_template' ? request.request_template_name : (request[field] as string | null);
  const compare = (a: string | null, b: string | null) => {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  };

  it.each(ORDERING_FIELDS.flatMap((field) => [field, `-${field}`]))(
    'ordering=%s pages through every request once, in order, and the same way twice',
    async (ordering) => {
      const field = ordering.replace('-', '');
      const descending = ordering.startsWith('-');
      const pages = await everyPage('boss', `?ordering=${ordering}&page_size=4`);
      expect(new Set(pages.map((r) => r.uuid)).size).toBe(all.length);
      for (let i = 1; i < pages.length; i++) {
        const order = compare(valueOf(pages[i - 1]!, field), valueOf(pages[i]!, field));
        expect(descending ? order >= 0 : order <= 0, `${ordering} at ${i}`).toBe(true);
      }
      const again = await everyPage('boss', `?ordering=${ordering}&page_size=4`);
      expect(again.map((r) => r.uuid)).toEqual(pages.map((r) => r.uuid));
    },
  );

  it('orders by -last_modified_date by default, and ignores an unknown ordering', async () => {
    const defaults = await everyPage('boss', '?page_size=5');
    const explicit = await everyPage('boss', '?ordering=-last_modified_date&page_size=5');
    expect(defaults.map((r) => r.uuid)).toEqual(explicit.map((r) => r.uuid));
    expect((await everyPage('boss', '?ordering=nonsense&page_size=5')).map((r) => r.uuid)).toEqual(explicit.map((r) => r.uuid));
  });

  it.each([
    ['status=open', (r: Listed) => r.status === 'open'],
    ['status=closed&ordering=title', (r: Listed) => r.status === 'closed'],
    ['request_template=Alpha', (r: Listed) => r.request_template_name === 'Alpha'],
    ['requester=ben', (r: Listed) => r.requester === 'ben'],
    ['assignee=cat&ordering=-title', (r: Listed) => r.assignee === 'cat'],
    ['priority=High', (r: Listed) => r.priority === 'High'],
    ['priority=low&ordering=priority', (r: Listed) => r.priority === 'low'],
    ['content_type=product', () => true],
    ['status=open&priority=low', (r: Listed) => r.status === 'open' && r.priority === 'low'],
    ['status=draft&requester=cat&ordering=-created_date', (r: Listed) => r.status === 'draft' && r.requester === 'cat'],
  ])('filters %s', async (query, predicate) => {
    const results = await everyPage('boss', `?${query}&page_size=3`);
    expect(results.map((r) => r.uuid).sort()).toEqual(all.filter(predicate).map((r) => r.uuid).sort());
  });

  it('filters on template uuid and last_modified_date (a date or a timestamp), on or after', async () => {
    const alpha = all.find((r) => r.request_template_name === 'Alpha')!.request_template.split('/').at(-2);
    expect((await everyPage('boss', `?request_template=${alpha}&page_size=50`)).length).toBe(all.filter((r) => r.request_template_name === 'Alpha').length);
    const sorted = [...all].sort((a, b) => (a.last_modified_date < b.last_modified_date ? -1 : 1));
    const middle = sorted[7]!.last_modified_date;
    const since = await everyPage('boss', `?last_modified_date=${encodeURIComponent(middle)}&page_size=50`);
    expect(since.map((r) => r.uuid).sort()).toEqual(sorted.slice(7).map((r) => r.uuid).sort());
    expect((await everyPage('boss', '?last_modified_date=2000-01-01')).length).toBe(all.length);
    expect((await as('boss', '?last_modified_date=2999-01-01')).json.count).toBe(0);
    const combined = await everyPage('boss', `?last_modified_date=${encodeURIComponent(middle)}&status=open`);
    expect(combined.map((r) => r.uuid).sort()).toEqual(sorted.slice(7).filter((r) => r.status === 'open').map((r) => r.uuid).sort());
  });

  it.each([
    ['status=pending', { status: ['Select a valid choice. pending is not one of the available choices.'] }],
    ['requester=nobody', { requester: ['Select a valid choice. nobody is not one of the available choices.'] }],
    ['priority=Someday', { priority: ['Select a valid choice. Someday is not one of the available choices.'] }],
    ['request_template=Nope', { request_template: ['Select a valid choice. Nope is not one of the available choices.'] }],
    ['content_type=license', { content_type: ['Select a valid choice. license is not one of the available choices.'] }],
    ['last_modified_date=yesterday', { last_modified_date: ['Enter a valid date/time.'] }],
    ['last_modified_date=2026-13-01', { last_modified_date: ['Enter a valid date/time.'] }],
  ])('answers 400 for %s', async (query, errors) => {
    const response = await as('boss', `?${query}`);
    expect(response.status).toBe(400);
    expect(response.json).toEqual(errors);
  });

  it('keeps ordering and filters in next and previous', async () => {
    const response = await as('boss', '?ordering=-title&status=open&page_size=2&page=2');
    const next = Object.fromEntries(new URL(response.json.next).searchParams);
    expect(next).toEqual({ ordering: '-title', status: 'open', page_size: '2', page: '3' });
    expect(Object.fromEntries(new URL(response.json.previous).searchParams)).toEqual({ ordering: '-title', status: 'open', page_size: '2' });
  });

  it('counts and lists for a non-superuser exactly what they may see, with filters', async () => {
    const visibleTo = (user: string) => (r: Listed) => !r.is_private || r.requester === user || r.assignee === user;
    for (const user of ['ann', 'ben', 'cat']) {
      for (const query of ['', '?status=open', '?requester=ann', '?ordering=title', '?priority=High&status=closed']) {
        const listed = await everyPage(user, `${query}${query ? '&' : '?'}page_size=5`);
        const params = new URLSearchParams(query);
        const expected = all
          .filter(visibleTo(user))
          .filter((r) => [...params].every(([key, value]) => key === 'ordering' || String(r[key]) === value));
        expect(listed.map((r) => r.uuid).sort(), `${user} ${query}`).toEqual(expected.map((r) => r.uuid).sort());
      }
    }
  });

  it('never lists another dataspace', async () => {
    const response = await call('mallory', 'GET', '/api/v2/requests/?page_size=100');
    expect(response.json.results.every((r: Listed) => !all.some((mine) => mine.uuid === r.uuid))).toBe(true);
  });
});
