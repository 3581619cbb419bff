/**
 * Scale issue, whole-collection counts: what page 1 of each list costs in read units (ReturnConsumedCapacity
 * of every call the list's service makes, DynamoDB Local reporting it) at SMALL and at LARGE objects of
 * that kind in a dataspace, for the unfiltered list and each documented filter on its own. The target
 * (page 1 at 100,000 costs at most 1.5 times its cost at 1,000) is checked here as the same ratio over a
 * tenfold growth: a list that counts its whole collection (or its whole filtered range) costs ten times
 * as much, one that reads counters or one page costs the same.
 *
 * Why 200 and 2,000 and not 1,000 and 100,000: the seeding runs through DynamoDB Local, which here writes
 * a few hundred items a second (fewer with the eight request indexes); six kinds at 10,000 took over 25
 * minutes, 100,000 would take hours. A count that grows with its collection shows at any size.
 */
import { randomUUID } from 'node:crypto';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { capacityCountingClient } from '../lib/capacity.ts';
import { benchDocumentClient, createUserWithKey, writeAll } from '../lib/seed.ts';
import { createDocumentClient, createDynamoControlClient } from '../../shared/aws/clients.ts';
import { benchPackage } from './policy-seed.ts';
import { Composition, catalogService, dynamoClient, productPackageService, productService, requestService } from '../../shared/runtime.ts';
import { parseConfig } from '../../shared/config.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { PRODUCT_PACKAGE_DEFAULTS, type License, type Package, type ProductPackage, type Vulnerability } from '../../shared/domain/catalog.ts';
import { REQUEST_STATUSES, type RequestRecord } from '../../shared/domain/request.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';
import type { LicenseCategory } from '../../shared/domain/reference-license.ts';
import { CATALOG_SPECS, catalogCountSeedItems, catalogSeedItems, type CollectionSpec } from '../../shared/store/catalog-store.ts';
import { productCountItem, productSeedItems, productVersionCountItems } from '../../shared/store/product-store.ts';
import { productPackageCountSeedItems, productPackageSeedItems } from '../../shared/store/product-package-store.ts';
import { RequestStore, requestSeedItems } from '../../shared/store/request-store.ts';
import type { Item } from '../../shared/store/dynamo.ts';

const SMALL = 200;
const LARGE = 2_000;
const TARGET = 1.5;
const PRIORITIES = ['Urgent', 'High', 'Normal', 'Low'];
const CATEGORIES: readonly LicenseCategory[] = ['Permissive', 'Copyleft', 'Proprietary Free'];

interface Seeded {
  readonly dataspace: string;
  /** The dataspace's users (usernames are global: each dataspace has its own). */
  readonly users: readonly string[];
  readonly templateUuid: string;
  readonly productUuid: string;
}

/** `size` objects of each kind in a dataspace of their own, written in bulk. */
async function seed(context: Parameters<typeof benchDocumentClient>[0] & { tableName: string }, size: number): Promise<Seeded> {
  // Set-up's long timeouts: the pipeline evaluates every seeded product meanwhile, and DynamoDB Local slows.
  const doc = createDocumentClient(createDynamoControlClient({ region: context.region, endpoint: context.dynamodbEndpoint }));
  const dataspace = `lists-${size}-${randomUUID().slice(0, 6)}`;
  const users = ['ann', 'ben', 'cat', 'dan'].map((name) => `${name}-${dataspace}`);
  for (const username of users) await createUserWithKey(doc, context.tableName, { username, dataspace });
  const at = isoWithOffset(new Date('2026-01-01T00:00:00Z'));
  const store = new RequestStore(doc, context.tableName);
  const templateUuid = randomUUID();
  await store.saveTemplate({ uuid: templateUuid, dataspace, name: 'Package Review', description: '', contentType: 'product', isActive: true, questions: [] }, undefined);
  for (const label of PRIORITIES) await store.createPriority({ dataspace, label });

  const items: Item[] = [];
  const requests: RequestRecord[] = Array.from({ length: size }, (_, i) => ({
    uuid: randomUUID(),
    dataspace,
    title: `Review ${i}`,
    templateUuid,
    templateName: 'Package Review',
    contentType: 'product',
    status: REQUEST_STATUSES[i % REQUEST_STATUSES.length]!,
    priority: PRIORITIES[i % PRIORITIES.length]!,
    assignee: users[(i + 1) % users.length]!,
    requester: users[i % users.length]!,
    productContext: null,
    contentObject: null,
    notes: '',
    serializedData: {},
    isPrivate: false,
    ccEmails: [],
    lastModifiedBy: users[i % users.length]!,
    createdDate: at,
    lastModifiedDate: at,
    rev: 0,
  }));
  items.push(...requestSeedItems(requests));

  const productUuid = randomUUID();
  const products = Array.from({ length: size }, (_, i) => ({
    uuid: i === 0 ? productUuid : randomUUID(),
    dataspace,
    name: `product-${i}`,
    version: `${i % 10}.0`,
    createdBy: users[0]!,
    createdDate: at,
    lastModifiedDate: at,
    rev: 0,
  }));
  for (const product of products) items.push(...productSeedItems(product, []));
  items.push(productCountItem(dataspace, size), ...productVersionCountItems(dataspace, products));

  const packages: Package[] = [];
  const licenses: License[] = [];
  const vulnerabilities: Vulnerability[] = [];
  const productPackages: ProductPackage[] = [];
  for (let i = 0; i < size; i++) {
    const pkg = benchPackage({ uuid: randomUUID(), dataspace, name: `package-${i}`, licenseExpression: i % 10 === 0 ? '' : `license-${i % 50}`, licenseKeys: i % 10 === 0 ? [] : [`license-${i % 50}`] });
    packages.push(pkg);
    // The first product holds every package.
    productPackages.push({ ...PRODUCT_PACKAGE_DEFAULTS, uuid: randomUUID(), dataspace, productUuid, packageUuid: pkg.uuid, createdDate: at });
    licenses.push({
      uuid: randomUUID(),
      dataspace,
      rev: 0,
      key: `license-${i}`,
      name: `License ${i}`,
      shortName: `L-${i}`,
      spdxLicenseKey: i % 2 === 0 ? `LicenseRef-bench-${i}` : '',
      category: CATEGORIES[i % CATEGORIES.length]!,
      isException: i % 20 === 0,
      usagePolicy: null,
    });
    vulnerabilities.push({ uuid: randomUUID(), dataspace, rev: 0, vulnerabilityId: `VCID-lists-${i}`, aliases: [], summary: '', riskScore: null, affectedPackages: [] });
  }
  // Each kind with its list counters, as the API's writes would leave them.
  const seedKind = <T extends Package | License | Vulnerability>(spec: CollectionSpec<T>, objects: readonly T[]) =>
    items.push(...objects.flatMap((object) => catalogSeedItems(spec, object, { listCounted: true })), ...catalogCountSeedItems(spec, dataspace, objects));
  seedKind(CATALOG_SPECS.packages, packages);
  seedKind(CATALOG_SPECS.licenses, licenses);
  seedKind(CATALOG_SPECS.vulnerabilities, vulnerabilities);
  items.push(...productPackages.flatMap((pp) => productPackageSeedItems(pp, { listCounted: true })), ...productPackageCountSeedItems(dataspace, productPackages));
  await writeAll(doc, context.tableName, items);
  doc.destroy();
  return { dataspace, users, templateUuid, productUuid };
}

type ListCall = (query: Record<string, string>, seeded: Seeded) => Promise<{ count: number }>;

export const listCounts: Scenario = {
  name: 'list counts',
  async run(context) {
    const { log } = context;
    const started = Date.now();
    const small = await seed(context, SMALL);
    const large = await seed(context, LARGE);
    log(`  seeded ${SMALL.toLocaleString('en-US')} and ${LARGE.toLocaleString('en-US')} of six kinds in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const counting = capacityCountingClient(context);
    const composition = new Composition(parseConfig({ TABLE_NAME: context.tableName, AWS_REGION: context.region })).provide(dynamoClient, counting.doc);
    const caller = (seeded: Seeded): Caller => ({ username: seeded.users[0]!, email: 'ann@bench.example.com', dataspace: seeded.dataspace, isSuperuser: true, groups: [] });
    const base = 'https://bench.invalid';
    const at = (path: string, query: Record<string, string>) => new URL(`${base}${path}?${new URLSearchParams(query)}`);

    // Each list with its documented filters (shared/routes), and a value of each that the seeded data holds.
    const lists: { list: string; call: ListCall; filters: Record<string, (seeded: Seeded) => string> }[] = [
      {
        list: 'products',
        call: (q, s) => productService(composition).list(caller(s), q, at('/api/v2/products/', q), base),
        filters: { name: () => 'product-7', version: () => '3.0', search: () => 'product-12' },
      },
      {
        list: 'requests',
        call: (q, s) => requestService(composition).list(caller(s), q, at('/api/v2/requests/', q), base),
        filters: {
          request_template: (s) => s.templateUuid,
          status: () => 'open',
          requester: (s) => s.users[1]!,
          assignee: (s) => s.users[2]!,
          priority: () => 'High',
          content_type: () => 'product',
          last_modified_date: () => '2025-12-31T00:00:00+00:00',
          search: () => 'Review 12',
        },
      },
      {
        list: 'packages',
        call: (q, s) => catalogService(composition).listPackages(caller(s), q, at('/api/v2/packages/', q), base),
        filters: {
          purl: () => 'pkg:npm/package-7@1.0.0',
          name: () => 'package-7',
          version: () => '1.0.0',
          type: () => 'npm',
          search: () => 'package-12',
          has_unknown_license: () => 'false',
          unknown_license: () => 'nothing-unknown',
        },
      },
      {
        list: 'licenses',
        call: (q, s) => catalogService(composition).listLicenses(caller(s), q, at('/api/v2/licenses/', q), base),
        filters: { key: () => 'license-7', spdx_license_key: () => 'LicenseRef-bench-8', category: () => 'Copyleft', is_exception: () => 'true', search: () => 'license-12' },
      },
      { list: 'vulnerabilities', call: (q, s) => catalogService(composition).listVulnerabilities(caller(s), q, at('/api/v2/vulnerabilities/', q), base), filters: {} },
      {
        list: 'product_packages',
        call: (q, s) => productPackageService(composition).list(caller(s), q, at('/api/v2/product_packages/', q), base),
        filters: { product: (s) => s.productUuid },
      },
    ];

    const figures: BenchFigure[] = [];
    for (const { list, call, filters } of lists) {
      for (const filter of [undefined, ...Object.keys(filters)]) {
        const query = (seeded: Seeded): Record<string, string> => (filter === undefined ? {} : { [filter]: filters[filter]!(seeded) });
        // Warm each size once (the services' first calls read configuration, and once per dataspace
        // whether its catalog lookups are indexed), then measure each size.
        await call(query(small), small);
        await call(query(large), large);
        const smallPage = await counting.measure(() => call(query(small), small));
        const largePage = await counting.measure(() => call(query(large), large));
        const ratio = largePage.units / Math.max(smallPage.units, 0.5);
        const name = filter === undefined ? `GET /api/v2/${list}/` : `GET /api/v2/${list}/?${filter}=`;
        log(`  ${name}: ${smallPage.units} RCU (count ${smallPage.result.count}) → ${largePage.units} RCU (count ${largePage.result.count})`);
        figures.push({
          scenario: 'list counts',
          figure: `${name} page 1 read units at ${LARGE.toLocaleString('en-US')} / at ${SMALL.toLocaleString('en-US')}`,
          value: Math.round(ratio * 100) / 100,
          target: `≤ ${TARGET}`,
          met: ratio <= TARGET,
          note: `${smallPage.units} RCU in ${smallPage.calls} calls (count ${smallPage.result.count}) → ${largePage.units} RCU in ${largePage.calls} calls (count ${largePage.result.count}); the target names 1,000 and 100,000: the same tenfold-or-more growth`,
        });
      }
    }
    counting.doc.destroy();
    return figures;
  },
};
