/**
 * The audit trail through the real pipeline on the local stack: API writes → DynamoDB Local's stream →
 * stream router → audit records → GET /api/v2/audit_events/, and the export to the audit bucket (the
 * emulator's S3). Each kind of object the issue names, changed by the API, with who changed it (user and
 * key name), what changed, never a secret; the filters, the cursor pages, and who may read the trail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, load, type Team } from '../support/factories.ts';
import { createS3Client } from '../../shared/aws/s3.ts';
import { readRunningStack } from '../../bin/local/stack-file.ts';
import { AUDIT_BUCKET } from '../../shared/resources.ts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;
const { call, ok } = teamApi(() => stack.apiUrl, () => ({ ...team.keys, ci: ciKey }));

interface AuditEvent {
  uuid: string;
  date: string;
  action: 'create' | 'update' | 'delete';
  object_type: string;
  object: string;
  object_repr: string;
  user: string | null;
  api_key: string | null;
  changes: Record<string, [unknown, unknown]>;
}

/** Every record of the trail the query selects, following the next links. */
async function trail(query = '', as = 'root'): Promise<AuditEvent[]> {
  const records: AuditEvent[] = [];
  let path: string | null = `/api/v2/audit_events/?page_size=100${query ? `&${query}` : ''}`;
  while (path) {
    const page = await ok('GET', path, undefined, as);
    records.push(...page.results);
    path = page.next ? new URL(page.next).pathname + new URL(page.next).search : null;
  }
  return records;
}

/** When the product's creation was sent and answered. */
const sent = { before: '', after: '' };
let ciKey = '';
let ciKeyUuid = '';
let webhookSecret = '';
const ids = { product: '', request: '', webhook: '', license: '', pkg: '', waiver: '' };

beforeAll(async () => {
  stack = await startTestStack();
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {} } }, globex: { users: { groot: { superuser: true } } } });
  await load(stack.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });

  // A named write key, so that its name is the record's api_key.
  const key = await ok('POST', '/api/v2/api_keys/', { name: 'ci-writer', scope: 'write' });
  ciKey = key.secret;
  ciKeyUuid = key.uuid;

  sent.before = new Date().toISOString();
  ids.product = (await ok('POST', '/api/v2/products/', { name: 'Toolkit', version: '1.0' }, 'ci')).uuid;
  sent.after = new Date().toISOString();
  await ok('PATCH', `/api/v2/products/${ids.product}/`, { version: '1.1' });
  await ok('POST', `/api/v2/products/${ids.product}/permissions/`, { user: 'alice', permissions: ['view_product', 'change_product'] });
  await ok('PATCH', `/api/v2/products/${ids.product}/`, { name: 'Toolkit Pro' }, 'alice');
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  ids.waiver = (await ok('POST', `/api/v2/products/${ids.product}/policy_waivers/`, { rule_type: 'license_policy_error', reason: 'Legal agreed', expires_at: expires }, 'alice')).uuid;
  expect((await call('DELETE', `/api/v2/products/${ids.product}/policy_waivers/${ids.waiver}/`)).status).toBe(204);

  await ok('POST', '/api/v2/usage_policies/', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error' });
  ids.license = (await ok('POST', '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GPL 3', usage_policy: 'Prohibited' })).uuid;
  ids.pkg = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/left-pad@1.3.0', license_expression: 'gpl-3.0' })).uuid;
  await ok('PATCH', `/api/v2/packages/${ids.pkg}/`, { description: 'Pads strings on the left' });
  await ok('PATCH', '/api/v2/policy_rules/', { license_policy_error: { is_active: true } });

  ids.request = (await ok('POST', '/api/v2/requests/', { title: 'Review left-pad', request_template: 'Review' }, 'alice')).uuid;
  await ok('POST', `/api/v2/requests/${ids.request}/add_comment/`, { text: 'Looks fine.' });
  await ok('PATCH', `/api/v2/requests/${ids.request}/`, { status: 'closed' });

  const webhook = await ok('POST', '/api/v2/webhooks/', { target_url: 'http://127.0.0.1:9/audit', events: ['policy.violation_resolved'], description: 'Audit' });
  ids.webhook = webhook.uuid;
  webhookSecret = webhook.secret;
  await ok('PATCH', `/api/v2/webhooks/${ids.webhook}/`, { is_active: false });
  await ok('DELETE', `/api/v2/webhooks/${ids.webhook}/`);

  expect((await call('DELETE', `/api/v2/products/${ids.product}/`)).status).toBe(204);
  expect((await call('DELETE', `/api/v2/api_keys/${ciKeyUuid}/`)).status).toBe(204);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe('the audit trail of the changes the API made', () => {
  let all: AuditEvent[];
  beforeAll(async () => {
    // Written off the request path: wait until the last change (the key's revocation) is in.
    all = await eventually(() => trail(), (records) => records.some((r) => r.object === ciKeyUuid && r.action === 'delete'), 60_000);
  }, 90_000);

  it("records a product's life with who made each change and with which key", () => {
    const product = all.filter((r) => r.object_type === 'product' && r.object === ids.product).reverse();
    expect(product.map((r) => [r.action, r.user, r.api_key])).toEqual([
      ['create', 'root', 'ci-writer'],
      ['update', 'root', 'default'],
      ['update', 'alice', 'default'],
      ['delete', 'root', 'default'],
    ]);
    expect(product[0]!.changes).toEqual({ name: [null, 'Toolkit'], version: [null, '1.0'] });
    expect(product[1]!.changes).toEqual({ version: ['1.0', '1.1'] });
    expect(product[2]!.changes).toEqual({ name: ['Toolkit', 'Toolkit Pro'] });
    expect(product[3]!.changes).toEqual({ name: ['Toolkit Pro', null], version: ['1.1', null] });
    expect(product[3]!.object_repr).toBe('Toolkit Pro 1.1');
    // Dated when the API wrote the change, to the millisecond (the stream's own time is coarser).
    const created = new Date(product[0]!.date).toISOString();
    expect(created >= sent.before && created <= sent.after, `${sent.before} <= ${created} <= ${sent.after}`).toBe(true);
  });

  it('records permissions, the catalog, the rules, requests and their comments, webhooks and keys', () => {
    const of = (type: string) => all.filter((r) => r.object_type === type);
    expect(of('product_permission').find((r) => r.action === 'create')).toMatchObject({ object: ids.product, user: 'root', changes: { principal: [null, 'alice'] } });
    expect(of('license').map((r) => r.action)).toEqual(['create']);
    expect(of('usage_policy').map((r) => r.action)).toEqual(['create']);
    expect(of('package').map((r) => r.action)).toEqual(['update', 'create']);
    expect(of('package')[0]!.changes).toEqual({ description: ['', 'Pads strings on the left'] });
    expect(of('policy_rules')).toHaveLength(1);
    expect(of('policy_rules')[0]).toMatchObject({ object: 'acme', user: 'root', action: expect.stringMatching(/create|update/) });
    const request = of('request').filter((r) => r.object === ids.request).reverse();
    expect(request.map((r) => [r.action, r.user])).toEqual([
      ['create', 'alice'],
      ['update', 'root'],
    ]);
    expect(request[1]!.changes.status).toEqual(['open', 'closed']);
    expect(of('request_comment')).toHaveLength(1);
    expect(of('request_comment')[0]).toMatchObject({ action: 'create', user: 'root', changes: { text: [null, 'Looks fine.'] } });
    expect(of('webhook').map((r) => r.action)).toEqual(['delete', 'update', 'create']);
    const waiver = of('policy_waiver').filter((r) => r.object === ids.waiver).reverse();
    // Made, revoked (an update: the item stays a week for its events), then deleted with its product.
    expect(waiver.map((r) => [r.action, r.user])).toEqual([
      ['create', 'alice'],
      ['update', 'root'],
      ['delete', 'root'],
    ]);
    expect(waiver[0]!.changes).toMatchObject({ rule_type: [null, 'license_policy_error'], reason: [null, 'Legal agreed'] });
    // The product by name: as it was when the record was written, or its uuid if it was deleted before
    // (this test deletes it at once, and the router may see the waiver after).
    expect(['Toolkit Pro 1.1', ids.product]).toContain(waiver[0]!.changes.product![1]);
    expect(Object.keys(waiver[1]!.changes)).toEqual(['revoked_date']);
    expect(of('api_key').filter((r) => r.object === ciKeyUuid).map((r) => [r.action, r.user])).toEqual([
      ['delete', 'root'],
      ['create', 'root'],
    ]);
  });

  it('never records a secret: no webhook secret, no key, no key hash', () => {
    const text = JSON.stringify(all);
    expect(webhookSecret.length).toBeGreaterThan(10);
    expect(text).not.toContain(webhookSecret);
    expect(text).not.toContain(ciKey);
    expect(text).not.toContain(ciKey.split('.')[0]!);
    for (const record of all) expect(Object.keys(record.changes)).not.toContain('secret');
  });

  it('lists newest first, each change once', () => {
    const dates = all.map((r) => r.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(new Set(all.map((r) => r.uuid)).size).toBe(all.length);
  });

  it('filters by object, user, action and time', async () => {
    expect((await trail(`object=${ids.product}`)).every((r) => r.object === ids.product)).toBe(true);
    expect(await trail(`object=${ids.product}`)).toHaveLength(all.filter((r) => r.object === ids.product).length);
    const alices = await trail('user=alice');
    expect(alices.map((r) => r.object_type).sort()).toEqual(['policy_waiver', 'product', 'request']);
    expect(await trail(`user=alice&object=${ids.product}`)).toEqual(alices.filter((r) => r.object === ids.product));
    const deletes = await trail('action=delete');
    expect(deletes.length).toBeGreaterThanOrEqual(3);
    expect(deletes.every((r) => r.action === 'delete')).toBe(true);
    const oldest = all[all.length - 1]!.date;
    expect(await trail(`until=${encodeURIComponent(oldest)}`)).toEqual(all.filter((r) => r.date <= oldest));
    expect(await trail(`since=${encodeURIComponent(new Date(Date.parse(all[0]!.date) + 1000).toISOString())}`)).toEqual([]);
    expect(await trail(`since=${encodeURIComponent(oldest)}`)).toEqual(all);
  });

  it('filters by object type, and by the dataspace name for the policy rules', async () => {
    const products = await trail('object_type=product');
    expect(products.length).toBe(all.filter((r) => r.object_type === 'product').length);
    expect(products.every((r) => r.object_type === 'product')).toBe(true);
    expect((await trail('object=acme')).map((r) => r.object_type)).toEqual(['policy_rules']);
    expect(await trail(`object=${ids.product.toUpperCase()}&object_type=product_permission`)).toEqual(all.filter((r) => r.object === ids.product && r.object_type === 'product_permission'));
  });

  it('is listed in the API root', async () => {
    expect((await ok('GET', '/api/v2/')).audit_events).toMatch(/\/api\/v2\/audit_events\/$/);
  });

  it('pages with cursors, next and previous, as DRF answers them', async () => {
    const first = await ok('GET', '/api/v2/audit_events/?page_size=3');
    expect(first.previous).toBeNull();
    expect(first.results.map((r: AuditEvent) => r.uuid)).toEqual(all.slice(0, 3).map((r) => r.uuid));
    const second = await ok('GET', new URL(first.next).pathname + new URL(first.next).search);
    expect(second.results.map((r: AuditEvent) => r.uuid)).toEqual(all.slice(3, 6).map((r) => r.uuid));
    const back = await ok('GET', new URL(second.previous).pathname + new URL(second.previous).search);
    expect(back.results.map((r: AuditEvent) => r.uuid)).toEqual(all.slice(0, 3).map((r) => r.uuid));
    expect(back.previous).toBeNull();
  });

  it('is for superusers, of their own dataspace only', async () => {
    expect((await call('GET', '/api/v2/audit_events/', undefined, 'alice')).status).toBe(403);
    // globex's own trail: its key, made by the admin CLI's load file (no user: not made through the API).
    const globex = await trail('', 'groot');
    expect(globex.map((r) => [r.object_type, r.action, r.user])).toEqual([['api_key', 'create', null]]);
    expect(JSON.stringify(globex)).not.toContain('acme');
    expect(await trail(`object=${ids.product}`, 'groot')).toEqual([]);
    expect(await trail('user=root', 'groot')).toEqual([]);
  });

  it.each([
    ['object=a%23b', 400, 'object'],
    ['object_type=widget', 400, 'object_type'],
    ['action=rename', 400, 'action'],
    ['since=yesterday', 400, 'since'],
    ['until=2026-13-01T00:00:00Z', 400, 'until'],
    ['cursor=bm90LWEtY3Vyc29y', 404, 'detail'],
    ['cursor=%00%01', 404, 'detail'],
  ])('answers ?%s with %i naming %s', async (query, status, field) => {
    const response = await call('GET', `/api/v2/audit_events/?${query}`);
    expect(response.status).toBe(status);
    expect(Object.keys(response.json)).toEqual([field]);
  });

  it('exports every record to the audit bucket as JSON lines', async () => {
    const s3 = createS3Client({ region: 'us-east-1', endpoint: readRunningStack(stack.dataDir)!.sqsEndpoint });
    try {
      const exported = await eventually(
        async () => {
          const listed = await s3.send(new ListObjectsV2Command({ Bucket: AUDIT_BUCKET.localName, Prefix: `${AUDIT_BUCKET.prefix}acme/` }));
          const lines: AuditEvent[] = [];
          for (const object of listed.Contents ?? []) {
            const body = await (await s3.send(new GetObjectCommand({ Bucket: AUDIT_BUCKET.localName, Key: object.Key! }))).Body!.transformToString();
            lines.push(...body.trim().split('\n').map((line) => JSON.parse(line) as AuditEvent));
          }
          return lines;
        },
        (lines) => all.every((record) => lines.some((line) => line.uuid === record.uuid)),
      );
      const byUuid = new Map(exported.map((line) => [line.uuid, line]));
      for (const record of all) expect(byUuid.get(record.uuid)).toMatchObject({ ...record, dataspace: 'acme' });
    } finally {
      s3.destroy();
    }
  });
});
