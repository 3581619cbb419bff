/**
 * Scale issue #6: a dataspace-wide re-evaluation of BENCH_FAN_OUT_SCALE_PRODUCTS (100,000) small
 * products completes. The pipeline's parts run in this process against a table of their own (nothing
 * consumes its stream): the evaluator's handling of a dataspace fan-out page (EvaluationFanOut.page: up
 * to EVALUATION_FAN_OUT_PAGE_SIZE products queued, then the next page) and of each product's request
 * (EvaluationService.evaluate), with a queue in memory in place of SQS, 16 evaluations at a time. Every
 * product's request is queued; every BENCH_FAN_OUT_SCALE_EVALUATE_EVERY-th product (20th) is evaluated:
 * DynamoDB Local evaluates about 50 small products a second here, so all 100,000 would take over half an
 * hour, while each evaluation is independent of the others and of the dataspace's size. The real
 * pipeline walks the same pages ("policy dataspace fan-out", 3,000 products, is that figure).
 *
 * Figures: the products queued (each once), the sampled products evaluated after the change (target:
 * all), and the longest page against the evaluator's timeout (no invocation walks the dataspace).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, patientDocumentClient, writeAll } from '../lib/seed.ts';
import { smallProducts } from './policy-fan-out.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { EvaluationService } from '../../shared/services/evaluation.ts';
import { EvaluationFanOut } from '../../shared/services/evaluation-fan-out.ts';
import { isFanOutPage, type EvaluationMessage } from '../../shared/aws/evaluation-queue.ts';
import { parseConfig } from '../../shared/config.ts';
import { FUNCTIONS } from '../../shared/functions.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';
import { ALL_RULES_CONFIG } from './policy-rules.ts';

const NAME = 'policy fan-out at scale';
const DATASPACE = 'bench-fan-out-scale';
const PRODUCTS = Number(process.env.BENCH_FAN_OUT_SCALE_PRODUCTS ?? 100_000);
const EVALUATE_EVERY = Number(process.env.BENCH_FAN_OUT_SCALE_EVALUATE_EVERY ?? 20);
const CONCURRENCY = 16;

export const policyFanOutScale: Scenario = {
  name: NAME,
  async run({ apiUrl, dynamodbEndpoint, region, log }) {
    const tableName = `bench-fan-out-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region, endpoint: dynamodbEndpoint }, tableName);
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    const patient = patientDocumentClient({ dynamodbEndpoint, region });
    try {
      const owner = 'bench-fan-out-scale-root';
      const policy = new PolicyStore(doc, tableName);
      if (!(await policy.saveConfig(DATASPACE, {}, 0, isoWithOffset(new Date())))) throw new Error('the policy configuration was already there');
      // The product items alone (and the dataspace's count): the pages and the evaluations read no more.
      const seed = smallProducts(DATASPACE, owner, PRODUCTS);
      const items = seed.items.filter((item) => item.entity === 'Product' || item.entity === 'ProductCount');
      const sampled = new Set(seed.products.filter((_, i) => i % EVALUATE_EVERY === 0));
      const seedStart = Date.now();
      await writeAll(patient, tableName, items);
      log(`${NAME}: seeded ${PRODUCTS.toLocaleString('en-US')} products (${items.length.toLocaleString('en-US')} items) in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

      const changedAt = isoWithOffset(new Date());
      if (!(await policy.saveConfig(DATASPACE, ALL_RULES_CONFIG, 1, changedAt))) throw new Error('the policy configuration changed meanwhile');
      const pageSize = parseConfig({ ...process.env, TABLE_NAME: tableName }).EVALUATION_FAN_OUT_PAGE_SIZE;
      const queue: EvaluationMessage[] = [{ fanOut: 'dataspace', dataspace: DATASPACE, requestedAt: changedAt }];
      const fanOut = new EvaluationFanOut({ products: new ProductStore(doc, tableName), queue: { send: async (messages) => void queue.push(...messages) }, pageSize });
      const evaluation = new EvaluationService({ policy, catalog: new CatalogStore(doc, tableName), now: () => new Date(), newUuid: randomUUID, baseUrl: apiUrl });
      const evaluated = new Set<string>();
      const queued = new Map<string, number>();
      const failures: string[] = [];
      let pages = 0;
      let longestPageMs = 0;
      const started = performance.now();
      let busy = 0;
      const handle = async (message: EvaluationMessage) => {
        if (isFanOutPage(message)) {
          const pageStart = performance.now();
          await fanOut.page(message);
          pages++;
          longestPageMs = Math.max(longestPageMs, performance.now() - pageStart);
          return;
        }
        queued.set(message.product, (queued.get(message.product) ?? 0) + 1);
        if (!sampled.has(message.product)) return;
        try {
          const outcome = await evaluation.evaluate(message.product, { requestedAt: message.requestedAt });
          if (outcome.outcome === 'evaluated') evaluated.add(message.product);
          else failures.push(`${message.product}: ${outcome.outcome}`);
        } catch (error) {
          failures.push(`${message.product}: ${String(error)}`);
        }
        if (evaluated.size % 1_000 === 0) log(`${NAME}: ${evaluated.size.toLocaleString('en-US')} evaluated`);
      };
      // A worker waits while the queue is empty but another one is busy: a page being handled queues more.
      const worker = async () => {
        for (;;) {
          const message = queue.shift();
          if (!message) {
            if (busy === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          busy++;
          try {
            await handle(message);
          } finally {
            busy--;
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (performance.now() - started) / 1000;
      const once = [...queued.values()].filter((n) => n === 1).length;
      const share = evaluated.size / sampled.size;
      const timeout = FUNCTIONS.evaluator.timeoutSeconds;
      log(`${NAME}: ${queued.size} of ${PRODUCTS} queued (${once} once), ${evaluated.size} of ${sampled.size} sampled evaluated in ${seconds.toFixed(0)} s, ${pages} pages, longest ${(longestPageMs / 1000).toFixed(2)} s, ${failures.length} failures`);
      return [
        {
          scenario: NAME,
          figure: `products of a ${PRODUCTS.toLocaleString('en-US')}-product dataspace queued for evaluation after a rule configuration change, each once, in pages of ${pageSize.toLocaleString('en-US')}`,
          value: once / PRODUCTS,
          unit: 'ratio',
          target: '1 (all)',
          met: once === PRODUCTS && queued.size === PRODUCTS,
          note: `${queued.size.toLocaleString('en-US')} products queued, ${once.toLocaleString('en-US')} of them once, by ${pages} fan-out pages`,
        },
        {
          scenario: NAME,
          figure: `of those, every ${EVALUATE_EVERY}th product evaluated after the change`,
          value: share,
          unit: 'ratio',
          target: '1 (all)',
          met: share === 1 && failures.length === 0,
          note:
            `${evaluated.size.toLocaleString('en-US')} of ${sampled.size.toLocaleString('en-US')} evaluated (${failures.length} failed${failures.length ? `: ${failures.slice(0, 3).join('; ')}` : ''}), ` +
            `${CONCURRENCY} at a time in this process against DynamoDB Local; the run took ${seconds.toFixed(0)} s`,
        },
        {
          scenario: NAME,
          figure: "longest fan-out page ÷ the evaluator's timeout",
          value: +(longestPageMs / (timeout * 1000)).toFixed(4),
          unit: 'ratio',
          target: '< 1',
          met: longestPageMs < timeout * 1000,
          note: `${(longestPageMs / 1000).toFixed(2)} s for the longest of ${pages} pages (one Query of up to ${pageSize.toLocaleString('en-US')} products and their queueing), against ${timeout} s`,
        },
      ];
    } finally {
      doc.destroy();
      patient.destroy();
    }
  },
};
