/**
 * What the violations and status endpoints read (PolicyStore.readViolations) is one evaluation's
 * answer, never half of two: a violation's count and the waivers the same evaluation counted come from
 * the same commit, however the reads interleave with the commits. (A pipeline test once read the
 * count of the evaluation that applied a waiver beside the state of the one before it: "violation_count
 * 2, waived_count 0".)
 */
import { beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestTable } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { PolicyStore, StaleEvaluationError, type EvaluationState } from '../../shared/store/policy-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { ProductService } from '../../shared/services/products.ts';
import type { Caller } from '../../shared/domain/caller.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let policy: PolicyStore;
let products: ProductService;
const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { root: { superuser: true } } } });
  policy = new PolicyStore(env.doc, env.tableName);
  products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
});

it('reads a violation and the waivers counted with it from one commit, while evaluations commit', async () => {
  const product = await products.create(root, { name: `Torn ${randomUUID().slice(0, 6)}`, version: '' }, 'https://api.test');
  const COMMITS = 150;
  let committed = false;
  // Commit n records the violation with count n and the waivers it held back as n: a read that mixes
  // two commits sees them differ.
  const writer = (async () => {
    let before: EvaluationState = { version: 0, evaluatedAt: null, coveredUntil: null, waived: [] };
    for (let n = 1; n <= COMMITS; n++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
      await policy.commitEvaluation(
        { uuid: product.uuid, dataspace: 'acme' },
        before,
        at,
        at,
        [{ ruleType: 'usage_policy_error', count: n, detectedDate: at, resolvedDate: null, lastEvaluatedAt: at }],
        [],
        new Date(),
        new Map(),
        [{ ruleType: 'usage_policy_error', waivedCount: n, waivers: [], waivedOff: false }],
      );
      before = { version: n, evaluatedAt: at, coveredUntil: at, waived: [] };
    }
    committed = true;
  })();
  const seen: { count: number; waived: number; version: number }[] = [];
  while (!committed) {
    const read = await policy.readViolations(product.uuid, { waivers: true });
    if (read.violations.length === 0) continue;
    seen.push({ count: read.violations[0]!.count, waived: read.state.waived[0]?.waivedCount ?? 0, version: read.state.version });
  }
  await writer;
  // The reads overlapped the commits: many of them, at many versions.
  expect(new Set(seen.map((s) => s.version)).size).toBeGreaterThan(10);
  expect(seen.filter((s) => s.count !== s.waived || s.version !== s.count)).toEqual([]);
}, 120_000);

it('an evaluation whose violations are of a commit after its head starts again rather than reconcile them', async () => {
  const product = await products.create(root, { name: `Behind ${randomUUID().slice(0, 6)}`, version: '' }, 'https://api.test');
  const head = (await policy.readHead(product.uuid))!;
  const at = new Date().toISOString();
  await policy.commitEvaluation({ uuid: product.uuid, dataspace: 'acme' }, head.state, at, at, [{ ruleType: 'usage_policy_error', count: 1, detectedDate: at, resolvedDate: null, lastEvaluatedAt: at }], [], new Date());
  await expect(policy.readForEvaluation(head, { consistent: true })).rejects.toBeInstanceOf(StaleEvaluationError);
  // Read again, the head agrees with its violations.
  const again = await policy.readForEvaluation((await policy.readHead(product.uuid))!, { consistent: true });
  expect(again.violations).toMatchObject([{ ruleType: 'usage_policy_error', count: 1 }]);
  expect(again.state).toMatchObject({ version: 1, violationsWritten: ['usage_policy_error'] });
});
