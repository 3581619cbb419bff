/**
 * Every change that can change a product's evaluation leaves a record on the table's stream that
 * maps to exactly the right products: the API makes the change, the stream poller reads DynamoDB
 * Local's stream, and changeTargets + the resolver name the products (a whole dataspace's in pages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { collectStreamRecords } from '../support/stream-records.ts';
import { changeTargets } from '../../shared/domain/change-records.ts';
import { ChangeTargetResolver, changeRecordOf } from '../../shared/store/change-targets.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { PolicyWaiverStore } from '../../shared/store/policy-waiver-store.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } }, beta: { users: { mallory: { superuser: true } } } });
let poller: { stop(): Promise<void> };
const seen: DynamoDBRecord[] = [];
let resolver: ChangeTargetResolver;
let productStore: ProductStore;

const call = async (method: string, path: string, body?: unknown, as = 'root') => {
  const response = await http.call(as, method, path, body);
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
  return response.json;
};

let marks = 0;

/**
 * Writes a marker item and waits until the poller has delivered its record. DynamoDB Local's stream
 * has one shard, so every record written before the marker has been delivered by then.
 */
async function mark(): Promise<number> {
  const id = `MARK#${++marks}`;
  await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item: { PK: id, SK: id } }));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const index = seen.findIndex((record) => record.dynamodb?.Keys?.PK?.S === id);
    if (index >= 0) return index;
    if (Date.now() > deadline) throw new Error(`marker ${id} never came through the stream`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The products named by the stream records that `action` leaves behind (between two markers). */
async function affectedBy(action: () => Promise<unknown>): Promise<string[]> {
  const start = await mark();
  await action();
  const end = await mark();
  const targets = seen.slice(start + 1, end).flatMap((record) => changeTargets(changeRecordOf(record)));
  const found = new Set((await resolver.products(targets)).map((product) => product.uuid));
  // A dataspace target is walked page by page, as the evaluator walks it (shared/services/evaluation-fan-out.ts).
  for (const dataspace of new Set(targets.flatMap((target) => (target.kind === 'dataspace' ? [target.dataspace] : [])))) {
    let cursor: string | undefined;
    do {
      const page = await productStore.uuidsOfDataspacePage(dataspace, cursor, 2);
      for (const uuid of page.uuids) found.add(uuid);
      cursor = page.next;
    } while (cursor);
  }
  return [...found].sort();
}

let p1: string;
let p2: string;
let other: string;
let pkg: { uuid: string };

beforeAll(async () => {
  resolver = new ChangeTargetResolver(http.env.doc, http.env.tableName);
  productStore = new ProductStore(http.env.doc, http.env.tableName);
  poller = collectStreamRecords(http.env.tableName, seen);
  await call('POST', '/api/v2/usage_policies/', { label: 'Forbidden', content_type: 'license', compliance_alert: 'error' });
  await call('POST', '/api/v2/usage_policies/', { label: 'Watch', content_type: 'package', compliance_alert: 'warning' });
  await call('POST', '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GPL 3' });
  await call('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT' });
  p1 = (await call('POST', '/api/v2/products/', { name: 'One' })).uuid;
  p2 = (await call('POST', '/api/v2/products/', { name: 'Two' })).uuid;
  other = (await call('POST', '/api/v2/products/', { name: 'Elsewhere' }, 'mallory')).uuid;
  pkg = await call('POST', '/api/v2/packages/', { purl: 'pkg:npm/shared@1.0.0' });
  await call('POST', '/api/v2/product_packages/', { product: p1, package: pkg.uuid });
  await call('POST', '/api/v2/product_packages/', { product: p2, package: pkg.uuid });
});
afterAll(async () => {
  await poller?.stop();
});

describe('change records map to the products they affect', () => {
  it('a product saved, and only its save (not a grant)', async () => {
    expect(await affectedBy(() => call('PATCH', `/api/v2/products/${p1}/`, { version: '2' }))).toEqual([p1]);
    expect(await affectedBy(() => call('POST', `/api/v2/products/${p1}/permissions/`, { user: 'alice', permissions: ['view_product'] }))).toEqual([]);
  });

  it('a product created', async () => {
    let created = '';
    const affected = await affectedBy(async () => {
      created = (await call('POST', '/api/v2/products/', { name: 'Fresh' })).uuid;
    });
    expect(affected).toEqual([created]);
  });

  it('a package added to or removed from a product', async () => {
    const lone = await call('POST', '/api/v2/packages/', { purl: 'pkg:npm/lone@1.0.0' });
    let pp = '';
    expect(
      await affectedBy(async () => {
        pp = (await call('POST', '/api/v2/product_packages/', { product: p2, package: lone.uuid })).uuid;
      }),
    ).toEqual([p2]);
    expect(await affectedBy(() => call('DELETE', `/api/v2/product_packages/${pp}/`))).toEqual([p2]);
  });

  it('the license concluded for a product package changed: its product; is_deployed or is_modified: nothing', async () => {
    const pp = (await call('GET', `/api/v2/product_packages/?product=${p2}`)).results[0].uuid;
    expect(await affectedBy(() => call('PATCH', `/api/v2/product_packages/${pp}/`, { license_expression: 'MIT' }))).toEqual([p2]);
    expect(await affectedBy(() => call('PATCH', `/api/v2/product_packages/${pp}/`, { is_deployed: false, is_modified: true }))).toEqual([]);
    expect(await affectedBy(() => call('PATCH', `/api/v2/product_packages/${pp}/`, { license_expression: '' }))).toEqual([p2]);
  });

  it("a package's license expression or usage policy changed: every product holding it", async () => {
    expect(await affectedBy(() => call('PATCH', `/api/v2/packages/${pkg.uuid}/`, { license_expression: 'gpl-3.0' }))).toEqual([p1, p2].sort());
    expect(await affectedBy(() => call('PATCH', `/api/v2/packages/${pkg.uuid}/`, { usage_policy: 'Watch' }))).toEqual([p1, p2].sort());
    expect(await affectedBy(() => call('PATCH', `/api/v2/packages/${pkg.uuid}/`, { filename: 'shared.tgz' }))).toEqual([]);
  });

  it('a vulnerability linked, re-scored and unlinked: the products holding its packages', async () => {
    let vulnerability = '';
    expect(
      await affectedBy(async () => {
        vulnerability = (await call('POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-s', risk_score: 5, affected_packages: [{ package: pkg.uuid }] })).uuid;
      }),
    ).toEqual([p1, p2].sort());
    expect(await affectedBy(() => call('PATCH', `/api/v2/vulnerabilities/${vulnerability}/`, { risk_score: 9.5 }))).toEqual([p1, p2].sort());
    expect(await affectedBy(() => call('PATCH', `/api/v2/vulnerabilities/${vulnerability}/`, { summary: 'just words' }))).toEqual([]);
    expect(await affectedBy(() => call('PATCH', `/api/v2/vulnerabilities/${vulnerability}/`, { affected_packages: [] }))).toEqual([p1, p2].sort());
  });

  it('an analysis created, changed or deleted: its product', async () => {
    await call('POST', '/api/v2/vulnerabilities/', { vulnerability_id: 'VCID-t', risk_score: 5, affected_packages: [{ package: pkg.uuid }] });
    const pp = (await call('GET', `/api/v2/product_packages/?product=${p1}`)).results[0].uuid;
    let analysis = '';
    expect(
      await affectedBy(async () => {
        analysis = (await call('POST', '/api/v2/vulnerability_analyses/', { product_package: pp, vulnerability_id: 'VCID-t', state: 'in_triage' })).uuid;
      }),
    ).toEqual([p1]);
    expect(await affectedBy(() => call('PATCH', `/api/v2/vulnerability_analyses/${analysis}/`, { state: 'resolved' }))).toEqual([p1]);
    expect(await affectedBy(() => call('DELETE', `/api/v2/vulnerability_analyses/${analysis}/`))).toEqual([p1]);
  });

  it("a license's usage policy changed, or a usage policy's alert: every product of that dataspace only", async () => {
    const all = (await call('GET', '/api/v2/products/?page_size=100')).results.map((p: { uuid: string }) => p.uuid).sort();
    expect(all).not.toContain(other);
    const license = (await call('GET', '/api/v2/licenses/')).results.find((l: { key: string }) => l.key === 'gpl-3.0');
    expect(await affectedBy(() => call('PATCH', `/api/v2/licenses/${license.uuid}/`, { usage_policy: 'Forbidden' }))).toEqual(all);
    expect(await affectedBy(() => call('PATCH', `/api/v2/licenses/${license.uuid}/`, { name: 'GNU GPL 3' }))).toEqual([]);
    const policy = (await call('GET', '/api/v2/usage_policies/')).results.find((p: { label: string }) => p.label === 'Forbidden');
    expect(await affectedBy(() => call('PATCH', `/api/v2/usage_policies/${policy.uuid}/`, { compliance_alert: 'warning' }))).toEqual(all);
    expect(await affectedBy(() => call('PATCH', `/api/v2/usage_policies/${policy.uuid}/`, { description: 'words' }))).toEqual([]);
  });

  it('a license created with a usage policy (expressions may name its key as a reference license): every product of that dataspace', async () => {
    const all = (await call('GET', '/api/v2/products/?page_size=100')).results.map((p: { uuid: string }) => p.uuid).sort();
    expect(await affectedBy(() => call('POST', '/api/v2/licenses/', { key: 'isc', name: 'ISC', usage_policy: 'Forbidden' }))).toEqual(all);
    // Adopting a reference license brings its category, which the categories parameter reads.
    expect(await affectedBy(() => call('POST', '/api/v2/licenses/', { key: 'zlib' }))).toEqual(all);
    expect(await affectedBy(() => call('POST', '/api/v2/licenses/', { key: 'acme-internal', name: 'ACME internal' }))).toEqual([]);
  });

  it('the policy rule configuration saved: every product of that dataspace', async () => {
    const all = (await call('GET', '/api/v2/products/?page_size=100')).results.map((p: { uuid: string }) => p.uuid).sort();
    expect(await affectedBy(() => call('PATCH', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true } }))).toEqual(all);
  });

  it('a policy waiver made, revoked, or marked expired by the expiry job: its product', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    let waiver = '';
    expect(
      await affectedBy(async () => {
        waiver = (await call('POST', `/api/v2/products/${p1}/policy_waivers/`, { rule_type: 'usage_policy_warning', package: pkg.uuid, reason: 'r', expires_at: expires })).uuid;
      }),
    ).toEqual([p1]);
    expect(await affectedBy(() => call('DELETE', `/api/v2/products/${p1}/policy_waivers/${waiver}/`))).toEqual([p1]);
    const expiring = (await call('POST', `/api/v2/products/${p2}/policy_waivers/`, { rule_type: 'usage_policy_warning', reason: 'r', expires_at: expires })).uuid;
    const waivers = new PolicyWaiverStore(http.env.doc, http.env.tableName);
    // The expiry job's mark, as if its time had come (markExpired compares expires_at with the time it is given).
    expect(await affectedBy(async () => expect(await waivers.markExpired(p2, expiring, new Date(Date.now() + 2 * 86_400_000).toISOString().replace('Z', '+00:00'))).toBe(true))).toEqual([p2]);
    // Marked once.
    expect(await affectedBy(async () => expect(await waivers.markExpired(p2, expiring, new Date(Date.now() + 2 * 86_400_000).toISOString().replace('Z', '+00:00'))).toBe(false))).toEqual([]);
  });

  it('changes of things no evaluation reads map to nothing', async () => {
    expect(await affectedBy(() => call('POST', '/api/v2/packages/', { purl: 'pkg:npm/unused@1.0.0' }))).toEqual([]);
    expect(await affectedBy(() => call('POST', '/api/v2/usage_policies/', { label: 'New', content_type: 'package' }))).toEqual([]);
  });
});
