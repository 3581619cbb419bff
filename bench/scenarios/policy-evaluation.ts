/**
 * Policy rules speed: one evaluation of a product with 2,000 packages, end to end in the evaluator
 * (EvaluationService.evaluate against the stack's DynamoDB Local: read, rules, reconcile, commit),
 * divided by the floor of merely reading that product's data the way the evaluator reads it (its
 * partition, its packages, their licenses and usage policies, the configuration), both measured
 * interleaved in the bench process. The ratio must stay under 2. And the DynamoDB calls of one
 * evaluation, counted at the document client: they must grow with pages (about 20 BatchGetItem
 * calls for 2,000 packages), never one call per package.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey, writeAll } from '../lib/seed.ts';
import { timeInterleaved } from '../lib/load.ts';
import { keys } from '../../shared/keys.ts';
import { ANALYSIS_STATES, PRODUCT_PACKAGE_DEFAULTS, type Analysis, type ComplianceAlert, type License, type Package, type PackageVulnerability, type UsagePolicy, type Vulnerability } from '../../shared/domain/catalog.ts';
import { RULE_TYPES } from '../../shared/domain/policy-rules.ts';
import { productCountItem, productSeedItems } from '../../shared/store/product-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { CATALOG_SPECS, CatalogStore, catalogSeedItems } from '../../shared/store/catalog-store.ts';
import { EvaluationService } from '../../shared/services/evaluation.ts';
import { DAY_MS, isoWithOffset } from '../../shared/domain/time.ts';
import { ALL_RULES_CONFIG } from './policy-rules.ts';
import { analysisSeedItems, productPackageSeedItems } from '../../shared/store/product-package-store.ts';
import { benchPackage, pollUntil } from './policy-seed.ts';

const DATASPACE = 'bench-policy-eval';
const PACKAGES = 2_000;
const LICENSES = 60;
const VULNERABILITIES = 300;
const REPETITIONS = 20;
const MAX_CALLS = 100;

type Item = Record<string, unknown>;

export interface Seeded {
  readonly productUuid: string;
  readonly items: Item[];
  readonly expectedCoverageGap: number;
  readonly vulnerable: number;
  readonly analyses: number;
}

/**
 * Usage policies, licenses, `packageCount` packages (a quarter with vulnerabilities), a product holding
 * them all, some analyses (policy-large-product.ts seeds the same shape, larger, in its own dataspace).
 */
export function seedItems(owner: string, now: Date, dataspace = DATASPACE, packageCount = PACKAGES): Seeded {
  const at = isoWithOffset(now);
  const items: Item[] = [];
  const policy = (label: string, contentType: UsagePolicy['contentType'], complianceAlert: ComplianceAlert): UsagePolicy => ({
    uuid: randomUUID(),
    dataspace,
    rev: 0,
    label,
    contentType,
    complianceAlert,
    description: '',
  });
  const policies = [
    policy('Approved package', 'package', ''),
    policy('Package to check', 'package', 'warning'),
    policy('Prohibited package', 'package', 'error'),
    policy('Approved license', 'license', ''),
    policy('License to check', 'license', 'warning'),
    policy('Prohibited license', 'license', 'error'),
  ];
  for (const p of policies) items.push(...catalogSeedItems(CATALOG_SPECS.usagePolicies, p));
  const licensePolicies = [null, 'Approved license', 'Approved license', 'License to check', 'Prohibited license'];
  const licenses: License[] = Array.from({ length: LICENSES }, (_, i) => ({
    uuid: randomUUID(),
    dataspace,
    rev: 0,
    key: `bench-license-${i}`,
    name: `Bench License ${i}`,
    shortName: `BL-${i}`,
    spdxLicenseKey: '',
    category: '',
    isException: false,
    usagePolicy: licensePolicies[i % licensePolicies.length]!,
  }));
  for (const l of licenses) items.push(...catalogSeedItems(CATALOG_SPECS.licenses, l));

  const vulnerabilities: { id: string; uuid: string; riskScore: number | null; affected: { packageUuid: string; linkedDate: string }[] }[] = Array.from(
    { length: VULNERABILITIES },
    (_, i) => ({ id: `VCID-bench-${i}`, uuid: randomUUID(), riskScore: i % 7 === 0 ? null : ((i * 37) % 101) / 10, affected: [] }),
  );
  const packagePolicies = [null, null, 'Approved package', 'Package to check', 'Prohibited package'];
  const packages: Package[] = [];
  const links: { pkg: number; vulnerabilityId: string }[] = [];
  let expectedCoverageGap = 0;
  let vulnerable = 0;
  for (let i = 0; i < packageCount; i++) {
    const uuid = randomUUID();
    const keysOf = i % 10 === 0 ? [] : [`bench-license-${i % LICENSES}`, ...(i % 3 === 0 ? [`bench-license-${(i * 7 + 1) % LICENSES}`] : [])];
    if (keysOf.length === 0) expectedCoverageGap++;
    const packageVulnerabilities: Record<string, PackageVulnerability> = {};
    if (i % 4 === 0) {
      vulnerable++;
      for (let j = 0; j < 1 + (i % 3); j++) {
        const vulnerability = vulnerabilities[(i * 13 + j * 101) % VULNERABILITIES]!;
        if (packageVulnerabilities[vulnerability.id]) continue;
        const linkedDate = isoWithOffset(new Date(now.getTime() - ((i * 17 + j * 29) % 90) * DAY_MS - 3_600_000));
        packageVulnerabilities[vulnerability.id] = { riskScore: vulnerability.riskScore, linkedDate };
        vulnerability.affected.push({ packageUuid: uuid, linkedDate });
        links.push({ pkg: i, vulnerabilityId: vulnerability.id });
      }
    }
    packages.push(
      benchPackage({
        uuid,
        dataspace,
        name: `bench-eval-${String(i).padStart(6, '0')}`,
        licenseExpression: keysOf.join(' AND '),
        licenseKeys: keysOf,
        usagePolicy: packagePolicies[i % packagePolicies.length]!,
        vulnerabilities: packageVulnerabilities,
      }),
    );
  }
  for (const p of packages) items.push(...catalogSeedItems(CATALOG_SPECS.packages, p));
  for (const v of vulnerabilities) {
    const vulnerability: Vulnerability = {
      uuid: v.uuid,
      dataspace,
      rev: 0,
      vulnerabilityId: v.id,
      aliases: [],
      summary: 'bench',
      riskScore: v.riskScore,
      affectedPackages: v.affected,
    };
    items.push(...catalogSeedItems(CATALOG_SPECS.vulnerabilities, vulnerability));
  }

  const productUuid = randomUUID();
  items.push(
    ...productSeedItems(
      { uuid: productUuid, dataspace, name: 'Policy evaluation bench', version: '1.0', createdBy: owner, createdDate: at, lastModifiedDate: at, rev: 0 },
      [{ principal: { type: 'user', name: owner }, permissions: ['change_product', 'delete_product', 'view_product'] }],
    ),
    productCountItem(dataspace, 1),
  );
  const productPackageUuids: string[] = [];
  packages.forEach((pkg, i) => {
    const uuid = randomUUID();
    productPackageUuids[i] = uuid;
    items.push(...productPackageSeedItems({ ...PRODUCT_PACKAGE_DEFAULTS, uuid, dataspace, productUuid, packageUuid: pkg.uuid, createdDate: at }));
  });
  // A third of the links have an analysis, in every state (terminal or not).
  let analyses = 0;
  links.forEach((link, n) => {
    if (n % 3 !== 0) return;
    const analysis: Analysis = {
      uuid: randomUUID(),
      dataspace,
      rev: 0,
      productUuid,
      productPackageUuid: productPackageUuids[link.pkg]!,
      packageUuid: packages[link.pkg]!.uuid,
      vulnerabilityId: link.vulnerabilityId,
      state: ANALYSIS_STATES[n % ANALYSIS_STATES.length]!,
      justification: null,
      responses: [],
      detail: '',
      createdDate: at,
      lastModifiedDate: at,
    };
    items.push(...analysisSeedItems(analysis));
    analyses++;
  });
  return { productUuid, items, expectedCoverageGap, vulnerable, analyses };
}

/** Counts the calls made through a document client while `counting` is on, by command. */
export function countCalls(doc: DynamoDBDocumentClient) {
  const counter = { counting: false, calls: new Map<string, number>() };
  const send = doc.send.bind(doc) as (...args: unknown[]) => Promise<unknown>;
  doc.send = ((...args: unknown[]) => {
    if (counter.counting) {
      const name = (args[0] as { constructor: { name: string } }).constructor.name.replace(/Command$/, '');
      counter.calls.set(name, (counter.calls.get(name) ?? 0) + 1);
    }
    return send(...args);
  }) as unknown as DynamoDBDocumentClient['send'];
  return {
    async count(fn: () => Promise<unknown>): Promise<{ total: number; byCommand: string }> {
      counter.calls.clear();
      counter.counting = true;
      try {
        await fn();
      } finally {
        counter.counting = false;
      }
      const total = [...counter.calls.values()].reduce((sum, n) => sum + n, 0);
      const byCommand = [...counter.calls].map(([name, n]) => `${n} ${name}`).join(', ');
      return { total, byCommand };
    },
  };
}

export const policyEvaluation: Scenario = {
  name: 'policy evaluation',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    try {
      const owner = 'bench-policy-eval-root';
      await createUserWithKey(doc, tableName, { username: owner, dataspace: DATASPACE, isSuperuser: true });
      const seeded = seedItems(owner, new Date());
      const { productUuid } = seeded;
      const seedStart = Date.now();
      await writeAll(doc, tableName, seeded.items);
      const policy = new PolicyStore(doc, tableName);
      if (!(await policy.saveConfig(DATASPACE, ALL_RULES_CONFIG, 0, isoWithOffset(new Date())))) throw new Error('the policy configuration was already there');
      const seededAt = isoWithOffset(new Date());
      log(
        `seeded a product with ${PACKAGES} packages (${seeded.vulnerable} vulnerable, ${seeded.analyses} analyses; ${seeded.items.length} items) in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`,
      );

      // The seed went through the table's stream too: let the pipeline's own evaluations settle
      // (one that read after the seed, then 3 s without a commit) so they do not run during the measurement.
      const settleStart = Date.now();
      let last = { version: -1, since: Date.now() };
      const settled = await pollUntil(
        'the pipeline to evaluate the seeded product and go quiet',
        async () => {
          const state = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.policyState(productUuid), ConsistentRead: true }))).Item;
          const version = Number(state?.version ?? 0);
          if (version !== last.version) last = { version, since: Date.now() };
          const evaluatedAt = state?.evaluatedAt as string | undefined;
          return evaluatedAt !== undefined && evaluatedAt >= seededAt && Date.now() - last.since >= 3_000 ? version : undefined;
        },
        180_000,
      );
      log(`the pipeline evaluated the product ${settled} time(s) and went quiet in ${((Date.now() - settleStart) / 1000).toFixed(1)} s`);

      const counter = countCalls(doc);
      const catalog = new CatalogStore(doc, tableName);
      const evaluation = new EvaluationService({ policy, catalog, now: () => new Date(), newUuid: randomUUID, baseUrl: apiUrl });

      const evaluate = async () => {
        const outcome = await evaluation.evaluate(productUuid);
        if (outcome.outcome !== 'evaluated') throw new Error(`evaluation ${outcome.outcome}: ${outcome.reason}`);
        return outcome;
      };
      // What the evaluator reads, the way it reads it, and nothing else: no rules, no writes.
      const read = async () => {
        const data = await policy.readProduct(productUuid);
        if (!data) throw new Error('the product is gone');
        await policy.getConfig(data.product.dataspace);
        const packages = await catalog.packages.getMany(data.productPackages.map((pp) => pp.packageUuid));
        const licenses = await catalog.licenses.getByUnique(DATASPACE, [...new Set(packages.flatMap((pkg) => pkg.licenseKeys))]);
        const labels = new Set<string>();
        for (const pkg of packages) if (pkg.usagePolicy) labels.add(pkg.usagePolicy);
        for (const license of licenses.values()) if (license.usagePolicy) labels.add(license.usagePolicy);
        await catalog.usagePolicies.getByUnique(DATASPACE, [...labels]);
        return packages.length;
      };

      // The evaluation is complete and right before it is timed.
      let checked: Awaited<ReturnType<typeof evaluate>> | undefined;
      const evaluationCalls = await counter.count(async () => (checked = await evaluate()));
      const floorCalls = await counter.count(async () => {
        const count = await read();
        if (count !== PACKAGES) throw new Error(`read ${count} packages, expected ${PACKAGES}`);
      });
      const active = checked!.violations.filter((violation) => violation.resolvedDate === null);
      const gap = active.find((violation) => violation.ruleType === 'license_coverage_gap')?.count;
      if (gap !== seeded.expectedCoverageGap) throw new Error(`license_coverage_gap counted ${gap}, expected ${seeded.expectedCoverageGap}`);
      const counts = active.map((violation) => `${violation.ruleType} ${violation.count}`).join(', ');
      log(`violations (${active.length} of ${RULE_TYPES.length} rules): ${counts}`);
      log(`DynamoDB calls: evaluation ${evaluationCalls.total} (${evaluationCalls.byCommand}); floor ${floorCalls.total} (${floorCalls.byCommand})`);

      const medians = await timeInterleaved({ evaluation: evaluate, floor: read }, REPETITIONS, 2);
      const ratio = medians.evaluation / medians.floor;
      log(`evaluation ${medians.evaluation.toFixed(1)} ms, floor ${medians.floor.toFixed(1)} ms`);

      return [
        {
          scenario: this.name,
          figure: `one evaluation of a product with ${PACKAGES.toLocaleString('en-US')} packages / reading its data`,
          value: ratio,
          unit: 'ratio',
          target: '< 2',
          met: ratio < 2,
          note:
            `medians of ${REPETITIONS} interleaved runs in the bench process against DynamoDB Local: EvaluationService.evaluate ` +
            `${medians.evaluation.toFixed(1)} ms (read, ${RULE_TYPES.length} rules, reconcile, commit), floor ${medians.floor.toFixed(1)} ms ` +
            `(readProduct + getConfig + packages.getMany + licenses and usage policies getByUnique); ` +
            `${seeded.vulnerable} vulnerable packages, ${seeded.analyses} analyses; violations: ${counts}`,
        },
        {
          scenario: this.name,
          figure: `DynamoDB calls per evaluation, ${PACKAGES.toLocaleString('en-US')} packages`,
          value: evaluationCalls.total,
          target: 'grows with pages, not packages',
          met: evaluationCalls.total < MAX_CALLS,
          note:
            `${evaluationCalls.byCommand}; ${(evaluationCalls.total / PACKAGES).toFixed(4)} calls per package ` +
            `(met: fewer than ${MAX_CALLS}); the floor makes ${floorCalls.total} (${floorCalls.byCommand})`,
        },
      ];
    } finally {
      doc.destroy();
    }
  },
};
