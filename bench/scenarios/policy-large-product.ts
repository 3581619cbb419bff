/**
 * Evaluation of a large product in consumed capacity and memory: one evaluation
 * (EvaluationService.evaluate against the stack's DynamoDB Local) of a product with
 * BENCH_LARGE_PRODUCT_PACKAGES packages (50,000 by default, the scale issue's size), its read units
 * against two floors measured in the same run, its time against the evaluator's timeout, and the
 * bench process's heap and RSS growth while it runs. The product is seeded into a table of its own
 * whose stream nothing consumes: seeded through the stack's table, the pipeline's own evaluations of the
 * growing product made the seed take four minutes for 5,000 packages.
 *
 * - The partition floor: the product's partition read once, eventually consistent, with the
 *   projection the rules need (what the issue calls the floor).
 * - The items floor: that, plus each catalog item the rules need (the product's packages, their
 *   licenses and usage policies) read once, eventually consistent. The rules judge a package by its
 *   catalog item, which lives outside the product's partition, so no evaluation can read less than
 *   this without copying package facts into the partition.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Scenario } from '../lib/scenario.ts';
import { createUserWithKey, patientDocumentClient, writeAll } from '../lib/seed.ts';
import { capacityCountingClient } from '../lib/capacity.ts';
import { keys } from '../../shared/keys.ts';
import { PolicyStore, EVALUATION_PROJECTION } from '../../shared/store/policy-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { EvaluationService } from '../../shared/services/evaluation.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';
import { ALL_RULES_CONFIG } from './policy-rules.ts';
import { seedItems } from './policy-evaluation.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { FUNCTIONS } from '../../shared/functions.ts';

const DATASPACE = 'bench-policy-large';
const PACKAGES = Number(process.env.BENCH_LARGE_PRODUCT_PACKAGES ?? 50_000);
/** The targets. */
const MAX_READS_PER_FLOOR = 1.2;
const MAX_MEMORY_MB = 512;

const mb = (bytes: number) => bytes / 1024 / 1024;

/** Runs `fn` while sampling the process's heap and RSS every 5 ms: the growth over the values before it. */
async function memoryGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; heapMb: number; rssMb: number }> {
  const before = process.memoryUsage();
  let peak = { heap: before.heapUsed, rss: before.rss };
  const sample = () => {
    const now = process.memoryUsage();
    peak = { heap: Math.max(peak.heap, now.heapUsed), rss: Math.max(peak.rss, now.rss) };
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await fn();
    sample();
    return { result, heapMb: mb(peak.heap - before.heapUsed), rssMb: mb(peak.rss - before.rss) };
  } finally {
    clearInterval(timer);
  }
}

export const policyLargeProduct: Scenario = {
  name: 'policy large product',
  async run({ apiUrl, dynamodbEndpoint, region, log }) {
    const tableName = `bench-large-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region, endpoint: dynamodbEndpoint }, tableName);
    const { doc, measure } = capacityCountingClient({ dynamodbEndpoint, region }, { patient: true });
    // The read units alone (the commit's writes are counted by `measure` too): reads are what the floor compares.
    const reads = { units: 0 };
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (/Get|Query|Scan/.test(context.commandName ?? '')) {
          const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
          for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) reads.units += entry.CapacityUnits ?? 0;
        }
        return result;
      },
      { step: 'initialize', name: 'benchReadUnits' },
    );
    const readUnitsOf = async <T,>(fn: () => Promise<T>) => {
      reads.units = 0;
      const measured = await measure(fn);
      return { ...measured, reads: reads.units };
    };
    try {
      const owner = 'bench-policy-large-root';
      await createUserWithKey(doc, tableName, { username: owner, dataspace: DATASPACE, isSuperuser: true });
      const seeded = seedItems(owner, new Date(), DATASPACE, PACKAGES);
      const { productUuid } = seeded;
      const policy = new PolicyStore(doc, tableName);
      if (!(await policy.saveConfig(DATASPACE, ALL_RULES_CONFIG, 0, isoWithOffset(new Date())))) throw new Error('the policy configuration was already there');
      const seeder = patientDocumentClient({ dynamodbEndpoint, region });
      const seedStart = Date.now();
      try {
        await writeAll(seeder, tableName, seeded.items);
      } finally {
        seeder.destroy();
      }
      log(`seeded a product with ${PACKAGES} packages (${seeded.items.length} items) in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

      const catalog = new CatalogStore(doc, tableName);
      const evaluation = new EvaluationService({ policy, catalog, now: () => new Date(), newUuid: randomUUID, baseUrl: apiUrl });
      const evaluated = await readUnitsOf(() =>
        memoryGrowth(async () => {
          const started = performance.now();
          // As the evaluator meets a queued request: seen (and delayed by the queue) seconds before.
          const outcome = await evaluation.evaluate(productUuid, { requestedAt: isoWithOffset(new Date(Date.now() - 3_000)) });
          if (outcome.outcome !== 'evaluated') throw new Error(`evaluation ${outcome.outcome}: ${outcome.reason}`);
          return { outcome, ms: performance.now() - started };
        }),
      );
      const gap = evaluated.result.result.outcome.violations.find((v) => v.ruleType === 'license_coverage_gap' && v.resolvedDate === null)?.count;
      if (gap !== seeded.expectedCoverageGap) throw new Error(`license_coverage_gap counted ${gap}, expected ${seeded.expectedCoverageGap}`);

      // The partition floor: one eventually consistent pass over the partition, with the evaluation's projection.
      const held: string[] = [];
      const partition = await readUnitsOf(async () => {
        let count = 0;
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        do {
          const page = await doc.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'PK = :pk',
              ExpressionAttributeValues: { ':pk': keys.productPartition(productUuid).PK },
              ...EVALUATION_PROJECTION,
              ExclusiveStartKey,
            }),
          );
          for (const item of page.Items ?? []) if (item.entity === 'ProductPackage') held.push(String(item.packageUuid));
          count += page.Items?.length ?? 0;
          ExclusiveStartKey = page.LastEvaluatedKey;
        } while (ExclusiveStartKey);
        return count;
      });
      // The items floor: that, the configuration, and each catalog item the rules need, once, eventually consistent.
      const catalogItems = await readUnitsOf(async () => {
        await policy.getConfig(DATASPACE);
        const packages = await catalog.packages.getMany(held, false);
        const licenses = await catalog.licenses.getByUnique(DATASPACE, [...new Set(packages.flatMap((pkg) => pkg.licenseKeys))], false);
        const labels = new Set<string>();
        for (const pkg of packages) if (pkg.usagePolicy) labels.add(pkg.usagePolicy);
        for (const license of licenses.values()) if (license.usagePolicy) labels.add(license.usagePolicy);
        await catalog.usagePolicies.getByUnique(DATASPACE, [...labels], false);
        return packages.length;
      });
      const items = { result: catalogItems.result, reads: partition.reads + catalogItems.reads };
      // The reads the evaluator made before this issue, made again the same way: the whole partition in
      // one strongly consistent Query, then every package, license and usage policy strongly consistent.
      const previous = await readUnitsOf(async () => {
        const data = await policy.readProduct(productUuid);
        if (!data) throw new Error('the product is gone');
        await policy.getConfig(DATASPACE);
        const packages = await catalog.packages.getMany(data.productPackages.map((pp) => pp.packageUuid), true);
        const licenses = await catalog.licenses.getByUnique(DATASPACE, [...new Set(packages.flatMap((pkg) => pkg.licenseKeys))], true);
        const labels = new Set<string>();
        for (const pkg of packages) if (pkg.usagePolicy) labels.add(pkg.usagePolicy);
        for (const license of licenses.values()) if (license.usagePolicy) labels.add(license.usagePolicy);
        await catalog.usagePolicies.getByUnique(DATASPACE, [...labels], true);
        return packages.length;
      });
      if (items.result !== PACKAGES) throw new Error(`read ${items.result} packages, expected ${PACKAGES}`);
      const { heapMb, rssMb, result } = evaluated.result;
      const perPartition = evaluated.reads / partition.reads;
      const perItems = evaluated.reads / items.reads;
      log(
        `evaluation: ${evaluated.reads.toFixed(1)} read units (${evaluated.units.toFixed(1)} with its writes) in ${evaluated.calls} calls, ${result.ms.toFixed(0)} ms, heap +${heapMb.toFixed(0)} MB, RSS +${rssMb.toFixed(0)} MB; ` +
          `partition floor ${partition.reads.toFixed(1)} units (${partition.result} items), items floor ${items.reads.toFixed(1)} units; the previous read path ${previous.reads.toFixed(1)} units`,
      );
      const sized = `${PACKAGES.toLocaleString('en-US')} packages`;
      return [
        {
          scenario: this.name,
          figure: `evaluation read units / partition floor, ${sized}`,
          value: perPartition,
          unit: 'ratio',
          target: `≤ ${MAX_READS_PER_FLOOR}`,
          met: perPartition <= MAX_READS_PER_FLOOR,
          note:
            `one EvaluationService.evaluate of a request queued 3 s before: ${evaluated.reads.toFixed(1)} read units (ReturnConsumedCapacity; ${evaluated.units.toFixed(1)} with its commit's writes) in ${evaluated.calls} calls; ` +
            `floor: its partition (${partition.result} items) read once, eventually consistent, ${partition.reads.toFixed(1)} units`,
        },
        {
          scenario: this.name,
          figure: `evaluation read units, ${sized}`,
          value: evaluated.reads,
          unit: 'RCU',
          target: 'reference',
          met: true,
          note:
            `${(evaluated.reads / PACKAGES).toFixed(2)} per package; the evaluator's previous read path (the whole partition and every catalog item, ` +
            `strongly consistent), made again in this run: ${previous.reads.toFixed(1)} RCU (${(previous.reads / PACKAGES).toFixed(2)} per package)`,
        },
        {
          scenario: this.name,
          figure: `evaluation read units / items floor, ${sized}`,
          value: perItems,
          unit: 'ratio',
          target: `≤ ${MAX_READS_PER_FLOOR}`,
          met: perItems <= MAX_READS_PER_FLOOR,
          note: `floor: the partition and the configuration, then each catalog package, license and usage policy the rules need, read once, eventually consistent: ${items.reads.toFixed(1)} units`,
        },
        {
          scenario: this.name,
          figure: `evaluation time ÷ the evaluator's timeout, ${sized}`,
          value: +(result.ms / (FUNCTIONS.evaluator.timeoutSeconds * 1000)).toFixed(3),
          unit: 'ratio',
          target: '< 1',
          met: result.ms < FUNCTIONS.evaluator.timeoutSeconds * 1000,
          note: `${(result.ms / 1000).toFixed(1)} s in this process against DynamoDB Local, against the evaluator's ${FUNCTIONS.evaluator.timeoutSeconds} s (it hands products not started back to the queue after half of it, so a batch never runs into it)`,
        },
        {
          scenario: this.name,
          figure: `evaluation memory growth (heap), ${sized}`,
          value: heapMb,
          unit: 'MB',
          target: `≤ ${MAX_MEMORY_MB}`,
          met: heapMb <= MAX_MEMORY_MB && rssMb <= MAX_MEMORY_MB,
          note: `peak over the value before, sampled every 5 ms in the bench process; RSS +${rssMb.toFixed(0)} MB; the evaluation took ${result.ms.toFixed(0)} ms`,
        },
      ];
    } finally {
      doc.destroy();
    }
  },
};
