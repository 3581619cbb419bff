/**
 * Scale issue #8: loading BENCH_MERGE_PACKAGES (50,000) packages into one product in merges of 1,000
 * components (POST load_sboms?mode=merge, the synchronous limit: a pipeline adding a product's parts
 * one SBOM at a time). Every merge runs the synchronous import's code (SbomImportService.load) in this
 * process against a table of its own; the first, the middle and the last one go through the capacity
 * proxy, so their read and write units are counted by DynamoDB's rules (the proxy triples a merge's
 * time, so the others go straight to DynamoDB Local). Nothing else touches the table: its stream is not
 * consumed here (the evaluation a merge asks for is the "policy large product" scenario's figure).
 *
 * Target: the units per added package of the last merge (the product already holding 49,000) at most
 * 1.5 times those of the first (an empty product), for reads and for writes.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { startCapacityProxy } from '../lib/capacity-proxy.ts';
import { benchDocumentClient } from '../lib/seed.ts';
import { cyclonedxNpm, type NpmPackage } from '../../test/support/cyclonedx-npm.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { IMPORT_LIMITS } from '../../shared/domain/sbom-import.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { SbomImportService } from '../../shared/services/sbom-import.ts';
import { ProductService } from '../../shared/services/products.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import type { Caller } from '../../shared/domain/caller.ts';

const NAME = 'sbom merge at scale';
const DATASPACE = 'bench-merge';
const PACKAGES = Number(process.env.BENCH_MERGE_PACKAGES ?? 50_000);
const PER_MERGE = IMPORT_LIMITS.syncComponents;
const TARGET = 1.5;
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
const LICENSES = ['MIT', 'MIT', 'ISC', 'Apache-2.0', 'BSD-3-Clause', { expression: 'MIT OR Apache-2.0' }] as const;

/** The packages of merge `m`: new to the product and to the catalog, each depending on the one before it. */
function packagesOfMerge(m: number): NpmPackage[] {
  return Array.from({ length: PER_MERGE }, (_, i) => ({
    name: i % 5 === 0 ? `@part-${m}/lib-${i}` : `part-${m}-lib-${i}`,
    version: `${1 + (i % 3)}.${i % 10}.0`,
    license: LICENSES[i % LICENSES.length]!,
    dependsOn: i > 0 ? [(i - 1) % 5 === 0 ? `@part-${m}/lib-${i - 1}` : `part-${m}-lib-${i - 1}`] : [],
  }));
}

export const sbomMergeScale: Scenario = {
  name: NAME,
  async run(context) {
    const tableName = `bench-merge-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, tableName);
    const proxy = await startCapacityProxy(context.dynamodbEndpoint);
    const counted = benchDocumentClient({ dynamodbEndpoint: proxy.endpoint, region: context.region });
    const direct = benchDocumentClient(context);
    try {
      const identity = new IdentityStore(direct, tableName);
      const productsOn = (doc: typeof direct) => new ProductService({ products: new ProductStore(doc, tableName), identity: new IdentityStore(doc, tableName), now: () => new Date(), newUuid: randomUUID });
      const products = productsOn(direct);
      const importsOn = (doc: typeof direct) =>
        new SbomImportService({
          store: new SbomImportStore(doc, tableName, new CatalogStore(doc, tableName)),
          products: productsOn(doc),
          library: scancodeLibrary,
          uploads: () => {
            throw new Error('no uploads here');
          },
          now: () => new Date(),
          newUuid: randomUUID,
        });
      const [countedImports, directImports] = [importsOn(counted), importsOn(direct)];
      await identity.createDataspace(DATASPACE, new Date());
      const caller: Caller = { username: 'bench-merge-root', email: 'root@example.com', dataspace: DATASPACE, isSuperuser: true, groups: [] };
      const product = (await products.create(caller, { name: 'bench-monolith', version: '1.0.0' }, context.apiUrl)).uuid;

      const merges = Math.ceil(PACKAGES / PER_MERGE);
      const measured = new Set([0, Math.floor(merges / 2), merges - 1]);
      const runs: { holding: number; reads: number; writes: number; ms: number }[] = [];
      const seeding: number[] = [];
      for (let m = 0; m < merges; m++) {
        const document = Buffer.from(JSON.stringify(cyclonedxNpm({ name: 'bench-monolith', version: `part-${m}` }, packagesOfMerge(m))));
        proxy.reset();
        const imports = measured.has(m) ? countedImports : directImports;
        const started = performance.now();
        const answer = await imports.load(caller, product, () => ({ document, contentType: 'application/vnd.cyclonedx+json', options: { mode: 'merge', updateExistingPackages: false } }), context.apiUrl);
        const ms = performance.now() - started;
        const summary = (answer as { summary?: { added?: number; unchanged?: number } }).summary;
        if (summary?.added !== PER_MERGE || summary.unchanged !== m * PER_MERGE) {
          throw new Error(`merge ${m + 1}: expected ${PER_MERGE} added and ${m * PER_MERGE} unchanged, got ${JSON.stringify(summary)}`);
        }
        if (!measured.has(m)) {
          seeding.push(ms);
          if (m % 10 === 9) context.log(`${NAME}: ${(m + 1) * PER_MERGE} packages, last merge ${(ms / 1000).toFixed(1)} s`);
          continue;
        }
        const consumed = proxy.consumed();
        runs.push({ holding: m * PER_MERGE, reads: consumed.readUnits / PER_MERGE, writes: consumed.writeUnits / PER_MERGE, ms });
        context.log(`${NAME}: merge into ${(m * PER_MERGE).toLocaleString('en-US')}: ${runs.at(-1)!.reads.toFixed(2)} RCU + ${runs.at(-1)!.writes.toFixed(2)} WCU a package (${(ms / 1000).toFixed(1)} s through the proxy)`);
      }
      const first = runs[0]!;
      const last = runs.at(-1)!;
      const curve = runs.map((run) => `into ${run.holding.toLocaleString('en-US')}: ${run.reads.toFixed(2)} RCU + ${run.writes.toFixed(2)} WCU`).join('; ');
      const seconds = (values: readonly number[]) => values.map((v) => (v / 1000).toFixed(1)).join(', ');
      const note =
        `${merges} merges of ${PER_MERGE.toLocaleString('en-US')} new components into one product (SbomImportService.load, mode merge; units per added package): ${curve}; ` +
        `the merges not measured took ${seconds(seeding.filter((_, i) => i < 3))} … ${seconds(seeding.slice(-3))} s each, straight to DynamoDB Local`;
      const figure = (what: 'read' | 'write', ratio: number): BenchFigure => ({
        scenario: NAME,
        figure: `${what} units per added package, merge into ${last.holding.toLocaleString('en-US')} ÷ into an empty product`,
        value: +ratio.toFixed(3),
        target: `≤ ${TARGET}`,
        met: ratio <= TARGET,
        note,
      });
      return [
        figure('read', last.reads / first.reads),
        figure('write', last.writes / first.writes),
        {
          scenario: NAME,
          figure: 'seconds per merge of 1,000: the last three ÷ the first three',
          value: +(median(seeding.slice(-3)) / median(seeding.slice(0, 3))).toFixed(2),
          target: 'reference',
          met: true,
          note: 'merges straight to DynamoDB Local (not through the proxy); times on this machine are noisy',
        },
      ];
    } finally {
      counted.destroy();
      direct.destroy();
      await proxy.stop();
    }
  },
};
