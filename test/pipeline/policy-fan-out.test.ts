/**
 * A dataspace-wide re-evaluation, paged: with pages of 4, a dataspace of 10 products takes three
 * pages; each page queues at most 4 products and the next page, and a change of the rule
 * configuration re-evaluates every product through the real pipeline (stream router → first page →
 * evaluator → products and the next page → evaluator).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';
import { EvaluationFanOut } from '../../shared/services/evaluation-fan-out.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { isFanOutPage, type EvaluationMessage, type FanOutPage } from '../../shared/aws/evaluation-queue.ts';

const PAGE = 4;
const PRODUCTS = 10;
let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;
const products: string[] = [];

const { ok } = teamApi(() => stack.apiUrl, () => team.keys);

beforeAll(async () => {
  stack = await startTestStack({ settings: { EVALUATION_FAN_OUT_PAGE_SIZE: PAGE } });
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true } } } });
  // Every product holds a package with no license: license_coverage_gap finds it once the rule is on.
  const pkg = (await ok('POST', '/api/v2/packages/', { purl: 'pkg:npm/unlicensed@1.0.0' })).uuid as string;
  for (let i = 0; i < PRODUCTS; i++) {
    const product = (await ok('POST', '/api/v2/products/', { name: `Paged ${String(i).padStart(2, '0')}` })).uuid as string;
    await ok('POST', '/api/v2/product_packages/', { product, package: pkg });
    products.push(product);
  }
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

it(`walks a dataspace of ${PRODUCTS} products in pages of ${PAGE}: each call queues at most a page and the next page, and the pages cover every product once`, async () => {
  let sent: EvaluationMessage[] = [];
  const fanOut = new EvaluationFanOut({
    products: new ProductStore(stack.env.doc, stack.env.tableName),
    queue: { send: async (messages) => void sent.push(...messages) },
    pageSize: PAGE,
  });
  const queued: string[] = [];
  let page: FanOutPage | undefined = { fanOut: 'dataspace', dataspace: 'acme', requestedAt: new Date().toISOString() };
  let calls = 0;
  while (page) {
    sent = [];
    await fanOut.page(page);
    calls++;
    const pages = sent.filter(isFanOutPage);
    const requests = sent.filter((message) => !isFanOutPage(message));
    expect(requests.length).toBeLessThanOrEqual(PAGE);
    expect(pages.length).toBeLessThanOrEqual(1);
    queued.push(...requests.map((request) => ('product' in request ? request.product : '')));
    page = pages[0];
    expect(calls).toBeLessThanOrEqual(PRODUCTS);
  }
  expect(calls).toBe(Math.ceil(PRODUCTS / PAGE));
  expect([...queued].sort()).toEqual([...products].sort());
}, 60_000);

it('re-evaluates every product of a several-page dataspace when its rule configuration changes', async () => {
  await ok('PUT', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true } });
  const violating = async () => {
    let count = 0;
    for (const product of products) {
      const list = await ok('GET', `/api/v2/products/${product}/policy_violations/`);
      if (list.some((violation: { rule_type: string }) => violation.rule_type === 'license_coverage_gap')) count++;
    }
    return count;
  };
  expect(await eventually(violating, (count) => count === PRODUCTS, 60_000)).toBe(PRODUCTS);
}, 90_000);
