/**
 * The audit trail's writer on DynamoDB Local's real stream records: the API makes changes, the stream
 * poller reads them, the stream router (with the real AuditTrailWriter and AuditStore, a fake evaluation
 * queue) writes the records. A batch handled twice (Lambda's retry) leaves each record once; a delete
 * names the deleter its marker names; a comment finds its request's dataspace; what is not audited (a
 * key's use) is no record; the export gets each batch's records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { load } from '../support/factories.ts';
import { collectStreamRecords } from '../support/stream-records.ts';
import { cyclonedxNpm } from '../support/cyclonedx-npm.ts';
import { makeHandler as makeStreamRouter } from '../../functions/stream-router.ts';
import { AuditTrailWriter } from '../../shared/services/audit.ts';
import { AuditStore } from '../../shared/store/audit-store.ts';
import { ChangeTargetResolver } from '../../shared/store/change-targets.ts';
import type { AuditRecord } from '../../shared/domain/audit.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } } });
let stream: ReturnType<typeof collectStreamRecords>;
const seen = (): DynamoDBRecord[] => stream.seen;
const exported: AuditRecord[][] = [];
let store: AuditStore;
let router: ReturnType<typeof makeStreamRouter>;

const call = async (method: string, path: string, body?: unknown, as = 'root') => {
  const response = await http.call(as, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.json;
};

/** Every record of the dataspace's trail, newest first. */
async function trail(): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  let cursor: { position: string; reverse: boolean } | undefined;
  for (;;) {
    const page = await store.list('acme', {}, 100, cursor);
    records.push(...page.records);
    if (!page.more) return records;
    cursor = { position: page.positions[page.positions.length - 1]!, reverse: false };
  }
}

let marks = 0;

/**
 * The stream records `action` leaves: all of them once a marker item written after it has come through
 * (DynamoDB Local's stream has one shard, so it delivers in order).
 */
async function recordsOf(action: () => Promise<unknown>): Promise<DynamoDBRecord[]> {
  const start = seen().length;
  await action();
  const id = `MARK#${++marks}`;
  await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item: { PK: id, SK: id } }));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const index = seen().findIndex((record) => record.dynamodb?.Keys?.PK?.S === id);
    if (index >= 0) return seen().slice(start, index);
    if (Date.now() > deadline) throw new Error(`marker ${id} never came through the stream`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const batch = (records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

beforeAll(async () => {
  store = new AuditStore(http.env.doc, http.env.tableName);
  router = makeStreamRouter({
    changeTargetResolver: new ChangeTargetResolver(http.env.doc, http.env.tableName),
    evaluationQueue: { send: async () => undefined },
    auditTrail: new AuditTrailWriter({ store, retentionDays: 400, exporter: { put: async (_key, body) => void exported.push(body.trim().split('\n').map((line) => JSON.parse(line))) } }),
  });
  stream = collectStreamRecords(http.env.tableName, [], 'LATEST');
  await load(http.env, { request_templates: [{ name: 'Review', dataspace: 'acme', content_type: 'product' }] });
  // The poller reads from the stream's end: wait until it has begun (a first change comes through).
  await recordsOf(() => call('POST', '/api/v2/usage_policies/', { label: 'Watch', content_type: 'package', compliance_alert: 'warning' }));
}, 60_000);
afterAll(async () => {
  await stream?.stop();
});

describe('the audit trail writer', () => {
  it('writes each change once, however often its batch is handled', async () => {
    const records = await recordsOf(async () => {
      const product = await call('POST', '/api/v2/products/', { name: 'Once', version: '1' });
      await call('PATCH', `/api/v2/products/${product.uuid}/`, { version: '2' });
    });
    expect(await router(batch(records))).toEqual({ batchItemFailures: [] });
    const first = await trail();
    const once = first.filter((record) => record.objectType === 'product' && record.objectRepr.startsWith('Once'));
    expect(once.map((record) => [record.action, record.user, record.apiKey])).toEqual([
      ['update', 'root', 'default'],
      ['create', 'root', 'default'],
    ]);
    for (let i = 0; i < 2; i++) expect(await router(batch(records))).toEqual({ batchItemFailures: [] });
    expect(await trail()).toEqual(first);
    // Each handling exported its records: the same uuids each time (readers deduplicate on them).
    expect(new Set(exported.slice(-3).map((lines) => lines.map((line) => line.uuid).join()))).toHaveLength(1);
  });

  it('names who deleted an object, from its deletion marker', async () => {
    const product = await call('POST', '/api/v2/products/', { name: 'Gone', version: '1' });
    await call('POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'alice', permissions: ['view_product', 'delete_product'] });
    const records = await recordsOf(() => call('DELETE', `/api/v2/products/${product.uuid}/`, undefined, 'alice'));
    await router(batch(records));
    const deleted = (await trail()).find((record) => record.object === product.uuid && record.objectType === 'product' && record.action === 'delete');
    expect(deleted).toMatchObject({ user: 'alice', apiKey: 'default', changes: { name: ['Gone', null], version: ['1', null] } });
  });

  it("records a comment in its request's dataspace", async () => {
    const request = await call('POST', '/api/v2/requests/', { title: 'Comment me', request_template: 'Review' }, 'alice');
    const records = await recordsOf(() => call('POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: 'A comment' }, 'alice'));
    await router(batch(records));
    expect((await trail()).find((record) => record.objectType === 'request_comment')).toMatchObject({
      dataspace: 'acme',
      action: 'create',
      user: 'alice',
      // The request by its title, not its uuid.
      objectRepr: 'comment on request “Comment me”',
      changes: { text: [null, 'A comment'], request: [null, 'Comment me'] },
    });
  });

  it('records an SBOM import within the call as one record, as its caller, and none of the objects it writes', async () => {
    const product = await call('POST', '/api/v2/products/', { name: 'Imported', version: '1.0' }, 'alice');
    const document = cyclonedxNpm({ name: 'shop', version: '1.0.0' }, [
      { name: 'audited-a', version: '1.0.0', license: 'MIT' },
      { name: 'audited-b', version: '2.0.0', license: 'Apache-2.0', dependsOn: ['audited-a'] },
    ]);
    let imported: { uuid: string } | undefined;
    const records = await recordsOf(async () => (imported = await call('POST', `/api/v2/products/${product.uuid}/load_sboms/`, document, 'alice')));
    await router(batch(records));
    const all = await trail();
    const imports = all.filter((record) => record.object === imported!.uuid);
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ action: 'create', objectType: 'sbom_import', objectRepr: 'SBOM import into Imported 1.0', user: 'alice', apiKey: 'default' });
    expect(imports[0]!.changes).toMatchObject({ added: [null, 2], added_purls: [null, ['pkg:npm/audited-a@1.0.0', 'pkg:npm/audited-b@2.0.0']] });
    // The import's packages and product packages: written (their stream records were routed), never recorded.
    expect(records.some((record) => record.dynamodb?.NewImage?.entity?.S === 'ProductPackage')).toBe(true);
    expect(all.filter((record) => record.objectType !== 'sbom_import' && JSON.stringify(record).includes('audited-'))).toEqual([]);
  });

  it('lists an object by its name or purl as well as its uuid', async () => {
    const pkg = await call('POST', '/api/v2/packages/', { purl: 'pkg:npm/named-by-purl@1.0.0' });
    const product = await call('POST', '/api/v2/products/', { name: 'Named Product', version: '2.0' });
    const license = await call('POST', '/api/v2/licenses/', { key: 'named-license', name: 'Named' });
    await router(batch(await recordsOf(async () => undefined)));
    await router(batch(seen()));
    const listed = async (object: string) => {
      const page = await call('GET', `/api/v2/audit_events/?object=${encodeURIComponent(object)}`);
      return (page.results as { object: string; object_type: string }[]).map((r) => `${r.object_type}:${r.object}`);
    };
    expect(await listed('pkg:npm/named-by-purl@1.0.0')).toEqual([`package:${pkg.uuid}`]);
    // The product, and its creator's grant (a product permission's object is its product).
    expect((await listed('Named Product 2.0')).sort()).toEqual([`product:${product.uuid}`, `product_permission:${product.uuid}`]);
    expect(await listed('named-license')).toEqual([`license:${license.uuid}`]);
    expect(await listed('Named Product')).toEqual([]);
    expect(await listed('nothing by this name')).toEqual([]);
  });

  it('records nothing for a change of no audited field (a key used, an item not audited)', async () => {
    let key: { secret: string } = { secret: '' };
    await router(batch(await recordsOf(async () => (key = await call('POST', '/api/v2/api_keys/', { name: 'used', scope: 'read' })))));
    const before = (await trail()).length;
    const records = await recordsOf(async () => {
      const used = await fetch(`${http.api.url}/api/v2/products/`, { headers: { Authorization: `Token ${key.secret}` } });
      expect(used.status).toBe(200);
    });
    expect(records.length).toBeGreaterThan(0);
    await router(batch(records));
    expect((await trail()).length).toBe(before);
  });
});
