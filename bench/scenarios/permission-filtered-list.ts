/**
 * Products issue: listing for a user who can see K of the N products must cost in proportion to K.
 * With N = 5,000 products and K = 20 visible to a non-superuser, that user's first page may take at
 * most twice a superuser's first page, both measured interleaved in the same run.
 */
import { randomUUID } from 'node:crypto';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey, writeAll } from '../lib/seed.ts';
import { timeInterleaved } from '../lib/load.ts';
import { productCountItem, productSeedItems } from '../../shared/store/product-store.ts';
import type { Grant, Product } from '../../shared/domain/product.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';

const N = 5_000;
const K = 20;
const DATASPACE = 'bench-products';
const REPETITIONS = 60;

export const permissionFilteredList: Scenario = {
  name: 'permission-filtered list',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    try {
      const rootKey = await createUserWithKey(doc, tableName, { username: 'bench-root', dataspace: DATASPACE, isSuperuser: true });
      const viewerKey = await createUserWithKey(doc, tableName, { username: 'bench-viewer', dataspace: DATASPACE });
      const now = isoWithOffset(new Date());
      const items: Record<string, unknown>[] = [];
      for (let i = 0; i < N; i++) {
        const product: Product = {
          uuid: randomUUID(),
          dataspace: DATASPACE,
          name: `Product ${String(i).padStart(5, '0')}`,
          version: '1.0',
          createdBy: 'bench-root',
          createdDate: now,
          lastModifiedDate: now,
          rev: 0,
        };
        const grants: Grant[] = [
          { principal: { type: 'user', name: 'bench-root' }, permissions: ['change_product', 'delete_product', 'view_product'] },
        ];
        // K products spread over the whole list order are visible to the viewer.
        if (i % (N / K) === 0) grants.push({ principal: { type: 'user', name: 'bench-viewer' }, permissions: ['view_product'] });
        items.push(...productSeedItems(product, grants));
      }
      items.push(productCountItem(DATASPACE, N));
      const seedStart = Date.now();
      await writeAll(doc, tableName, items);
      log(`  seeded ${N} products (${items.length} items) in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

      const firstPage = async (key: string, expectedCount: number) => {
        const response = await fetch(`${apiUrl}/api/v2/products/`, { headers: { Authorization: `Token ${key}` } });
        const body = (await response.json()) as { count: number; results: unknown[] };
        if (response.status !== 200 || body.count !== expectedCount || body.results.length !== 10) {
          throw new Error(`first page: ${response.status}, count ${body.count}, expected ${expectedCount}`);
        }
      };
      const medians = await timeInterleaved(
        { superuser: () => firstPage(rootKey, N), user: () => firstPage(viewerKey, K) },
        REPETITIONS,
        5,
      );
      const ratio = medians.user / medians.superuser;
      log(`  first page: superuser ${medians.superuser.toFixed(2)} ms, user ${medians.user.toFixed(2)} ms`);
      return [
        {
          scenario: this.name,
          figure: `user (K=${K}) / superuser first page, N=${N}`,
          value: ratio,
          target: '≤ 2',
          met: ratio <= 2,
          unit: 'ratio',
          note: `medians of ${REPETITIONS} interleaved runs: user ${medians.user.toFixed(2)} ms, superuser ${medians.superuser.toFixed(2)} ms`,
        },
      ];
    } finally {
      doc.destroy();
    }
  },
};
