/**
 * The drill-down to the packages behind a violation, on DynamoDB Local: the evaluation stores each
 * active violation's list in chunks of its own, pages cross chunks exactly, the route answers from
 * the list without running the rules again, and a superseded list is deleted.
 */
import { beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import { CatalogService } from '../../shared/services/catalog.ts';
import { ProductPackageService } from '../../shared/services/product-packages.ts';
import { EvaluationService } from '../../shared/services/evaluation.ts';
import { PolicyService } from '../../shared/services/policy.ts';
import type { Offender } from '../../shared/domain/policy-rules.ts';
import type { Caller } from '../../shared/domain/caller.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let policy: PolicyStore;
let products: ProductService;
let evaluation: EvaluationService;
let catalogService: CatalogService;
let packages: ProductPackageService;
const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { root: { superuser: true } } } });
  policy = new PolicyStore(env.doc, env.tableName);
  const catalog = new CatalogStore(env.doc, env.tableName);
  const productPackages = new ProductPackageStore(env.doc, env.tableName);
  products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  evaluation = new EvaluationService({ policy, catalog, now: () => new Date(), newUuid: randomUUID, baseUrl: 'https://api.test' });
  await policy.saveConfig('acme', { license_coverage_gap: { is_active: true, threshold: 0, parameters: {} } }, 0, new Date().toISOString());
  catalogService = new CatalogService({ catalog, productPackages, now: () => new Date(), newUuid: randomUUID });
  packages = new ProductPackageService({ catalog, productPackages, products, now: () => new Date(), newUuid: randomUUID });
});

const listItems = async (product: string) =>
  (
    await env.doc.send(
      new QueryCommand({
        TableName: env.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
        ExpressionAttributeValues: { ':pk': `PRODUCT#${product}`, ':p': 'VIOLATIONPKG#' },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

it('stores a list in chunks far below 400 KB, and answers any page of it exactly, across chunks', async () => {
  const product = randomUUID();
  // 3,000 packages with 200-character purls: about 900 KB of list, more than one item could hold.
  const offenders: Offender[] = Array.from({ length: 3_000 }, (_, i) => ({
    uuid: randomUUID(),
    purl: `pkg:npm/${'x'.repeat(180)}-${String(i).padStart(5, '0')}@1.0.0`,
    reasons: ['unknown-license-reference'],
  }));
  await policy.writeViolationPackages({ uuid: product, dataspace: 'acme' }, 'license_unknown', 'l1', offenders);
  const items = await listItems(product);
  expect(items.length).toBeGreaterThan(20);
  for (const item of items) expect(JSON.stringify(item).length).toBeLessThan(40_000);
  const list = { id: 'l1', hash: 'h' };
  for (const [offset, limit] of [[0, 20], [100, 100], [139, 7], [2_990, 20], [1_234, 500]] as const) {
    expect(await policy.readViolationPackages(product, 'license_unknown', list, offset, limit)).toEqual(offenders.slice(offset, offset + limit));
  }
  await policy.deleteViolationPackages(product, 'license_unknown', 'l1');
  expect(await listItems(product)).toEqual([]);
});

it('answers the drill-down from the stored list, without running the rules again, and replaces the list when the packages change', async () => {
  const product = (await products.create(root, { name: `Drill ${randomUUID().slice(0, 6)}`, version: '' }, 'https://api.test')).uuid;
  const bare: string[] = [];
  for (let i = 0; i < 3; i++) {
    const pkg = await catalogService.savePackage(root, undefined, () => ({ purl: `pkg:npm/drill-${randomUUID().slice(0, 8)}@1.0.0` }), 'https://api.test');
    await packages.add(root, () => ({ product, package: pkg.uuid }), 'https://api.test');
    bare.push(pkg.uuid);
  }
  expect((await evaluation.evaluate(product)).outcome).toBe('evaluated');
  const noRerun = { currentResults: () => Promise.reject(new Error('the drill-down ran the rules again')) } as unknown as EvaluationService;
  const service = new PolicyService({ policy, products, catalog: catalogService, evaluation: noRerun, queue: { send: async () => undefined }, now: () => new Date() });
  const drill = (page: string) =>
    service.violationPackages(root, product, 'license_coverage_gap', { page, page_size: '2' }, new URL(`https://api.test/api/v2/products/${product}/policy_violations/license_coverage_gap/packages/`), 'https://api.test');
  const first = await drill('1');
  const second = await drill('2');
  expect(first.count).toBe(3);
  expect([...first.results, ...second.results].map((p) => p.uuid).sort()).toEqual([...bare].sort());
  const [before] = await listItems(product);

  // A license for one package: the next evaluation stores a new list of two and deletes the old one.
  await catalogService.savePackage(root, bare[0], () => ({ license_expression: 'mit' }), 'https://api.test');
  expect((await evaluation.evaluate(product)).outcome).toBe('evaluated');
  const after = await drill('1');
  expect(after.count).toBe(2);
  expect(after.results.map((p) => p.uuid).sort()).toEqual(bare.slice(1).sort());
  const items = await listItems(product);
  expect(items).toHaveLength(1);
  expect(items[0]!.SK).not.toBe(before!.SK);
});
