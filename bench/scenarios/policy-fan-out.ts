/**
 * A dataspace-wide re-evaluation through the real pipeline: BENCH_FAN_OUT_PRODUCTS small products
 * (1,000 by default: what seeds and evaluates twice in about ten minutes on this shared machine; 5,000
 * took 16 minutes to seed alone under a load average of 15), then a change of the rule configuration. The stream router queues the dataspace's first page; each evaluator invocation
 * queues one page of products (EVALUATION_FAN_OUT_PAGE_SIZE, 1,000 by default; set it in the
 * environment to walk more pages) and the next page. The figure is
 * the share of the products whose evaluation started after the change, once the pipeline is done.
 */
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey, patientDocumentClient, writeAll } from '../lib/seed.ts';
import type { Item } from '../../shared/store/dynamo.ts';
import { keys } from '../../shared/keys.ts';
import { productCountItem, productSeedItems } from '../../shared/store/product-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { parseConfig } from '../../shared/config.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';
import { ALL_RULES_CONFIG } from './policy-rules.ts';
import { pollUntil } from './policy-seed.ts';

const DATASPACE = 'bench-fan-out';
const PRODUCTS = Number(process.env.BENCH_FAN_OUT_PRODUCTS ?? 1_000);

/** The evaluatedAt of each product's state (undefined: not evaluated yet), 100 keys a call. */
async function evaluatedAts(doc: DynamoDBDocumentClient, tableName: string, products: readonly string[]): Promise<(string | undefined)[]> {
  const found = new Map<string, string>();
  for (let i = 0; i < products.length; i += 100) {
    let pending: Record<string, unknown>[] = products.slice(i, i + 100).map((uuid) => keys.policyState(uuid));
    while (pending.length > 0) {
      const result = await doc.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ProjectionExpression: 'productUuid, evaluatedAt' } } }));
      for (const item of result.Responses?.[tableName] ?? []) found.set(String(item.productUuid), String(item.evaluatedAt));
      pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return products.map((uuid) => found.get(uuid));
}

/** `count` products without packages, each granted to `owner`, and the dataspace's product count: the items to seed. */
export function smallProducts(dataspace: string, owner: string, count: number): { products: string[]; items: Item[] } {
  const at = isoWithOffset(new Date());
  const products = Array.from({ length: count }, () => randomUUID());
  const items = products.flatMap((uuid, i) =>
    productSeedItems(
      { uuid, dataspace, name: `fan-out-${String(i).padStart(6, '0')}`, version: '1.0', createdBy: owner, createdDate: at, lastModifiedDate: at, rev: 0 },
      [{ principal: { type: 'user', name: owner }, permissions: ['change_product', 'delete_product', 'view_product'] }],
    ),
  );
  items.push(productCountItem(dataspace, count));
  return { products, items };
}

export const policyFanOut: Scenario = {
  name: 'policy dataspace fan-out',
  async run({ tableName, dynamodbEndpoint, region, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    // Seeding and polling with patience: DynamoDB Local under the pipeline's load answers in seconds.
    const patient = patientDocumentClient({ dynamodbEndpoint, region });
    try {
      const owner = 'bench-fan-out-root';
      await createUserWithKey(doc, tableName, { username: owner, dataspace: DATASPACE, isSuperuser: true });
      const policy = new PolicyStore(doc, tableName);
      if (!(await policy.saveConfig(DATASPACE, {}, 0, isoWithOffset(new Date())))) throw new Error('the policy configuration was already there');
      const { products, items } = smallProducts(DATASPACE, owner, PRODUCTS);
      const seedStart = Date.now();
      await writeAll(patient, tableName, items);
      log(`seeded ${PRODUCTS} products (${items.length} items) in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
      // Each new product is evaluated once by the pipeline: let those settle before the change.
      const settleStart = Date.now();
      await pollUntil(
        'the pipeline to evaluate each seeded product once',
        async () => ((await evaluatedAts(patient, tableName, products)).every((value) => value !== undefined) ? true : undefined),
        900_000,
        5_000,
      );
      log(`the pipeline evaluated every new product in ${((Date.now() - settleStart) / 1000).toFixed(1)} s`);

      const changedAt = isoWithOffset(new Date());
      const changeStart = Date.now();
      if (!(await policy.saveConfig(DATASPACE, ALL_RULES_CONFIG, 1, changedAt))) throw new Error('the policy configuration changed meanwhile');
      let done = 0;
      await pollUntil(
        'every product to be re-evaluated after the change',
        async () => {
          done = (await evaluatedAts(patient, tableName, products)).filter((value) => value !== undefined && value >= changedAt).length;
          return done === PRODUCTS ? true : undefined;
        },
        900_000,
        5_000,
      ).catch((error: unknown) => log(String(error)));
      const seconds = (Date.now() - changeStart) / 1000;
      // The stack's functions take their settings from this process's environment, as `npm start` does.
      const pageSize = parseConfig({ ...process.env, TABLE_NAME: tableName }).EVALUATION_FAN_OUT_PAGE_SIZE;
      const pages = Math.floor(PRODUCTS / pageSize) + 1;
      log(`${done} of ${PRODUCTS} products re-evaluated ${seconds.toFixed(1)} s after the change`);
      const share = done / PRODUCTS;
      return [
        {
          scenario: this.name,
          figure: `products of a ${PRODUCTS.toLocaleString('en-US')}-product dataspace re-evaluated after a rule configuration change, through the pipeline, in pages of ${pageSize.toLocaleString('en-US')}`,
          value: share,
          unit: 'ratio',
          target: '1 (all)',
          met: share === 1,
          note:
            `${done} of ${PRODUCTS} evaluations started after the change, the last within ${seconds.toFixed(0)} s (polled every 5 s; ` +
            `${(done / seconds).toFixed(0)} evaluations/s on the local stack, one evaluator poller); ${pages} page messages, each handled by one invocation`,
        },
      ];
    } finally {
      doc.destroy();
      patient.destroy();
    }
  },
};
