/**
 * Published advisories (issue 31), in this process against tables of its own on the stack's DynamoDB Local:
 * - load: the whole Go vulnerability database as OSV distributes it (bench/data/osv/Go-all.zip, 4,291
 *   real records) loaded by the admin command's loader (read, checked, bounded, hashed, compared with
 *   the stored heads, written), against bare BatchWriteItem calls writing the very same items into a
 *   fresh table (recorded from the load: same items, same calls): ≤ 3×. And the load again: nothing
 *   written.
 * - import: 1,000 Go modules of the database (each at v0.0.1, which most of their records affect)
 *   imported into a product by the synchronous import's code (SbomImportService.load) with matching on,
 *   against the same 1,000 names as `pkg:generic` purls, which no advisory database covers (matching
 *   off: no index entry, no link message): ≤ 1.2×; and the same with the linker's matching of the
 *   imported packages added (AdvisoryLinker.linkPackages, ten packages a message, as SQS delivers them).
 * - one changed advisory for a package 1,000 products hold, in a dataspace of 100,000 Go packages
 *   (BENCH_ADVISORY_PACKAGES): the linker's DynamoDB calls and units for that record (AdvisoryLinker
 *   .linkKey, as the advisory linker runs it), and the products its package change then queues for
 *   evaluation (ChangeTargetResolver, as the stream router runs it); against the same change in a
 *   dataspace of 1,000 packages: the cost follows the packages the record names, not the catalog.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Scenario, ScenarioContext } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { patientDocumentClient, writeAll } from '../lib/seed.ts';
import { capacityCountingClient } from '../lib/capacity.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { osvInputsAt } from '../../shared/admin/osv-files.ts';
import { AdvisoryLoader } from '../../shared/services/advisory-load.ts';
import { AdvisoryLinker } from '../../shared/services/advisory-links.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { CatalogStore, CATALOG_SPECS, catalogSeedItems, objectItem } from '../../shared/store/catalog-store.ts';
import { SbomImportService } from '../../shared/services/sbom-import.ts';
import { ProductService } from '../../shared/services/products.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import { ChangeTargetResolver } from '../../shared/store/change-targets.ts';
import { ProductPackageStore, productPackageItem } from '../../shared/store/product-package-store.ts';
import { batchWriteAll, type WriteRequest } from '../../shared/store/dynamo.ts';
import { osvPackageKey } from '../../shared/domain/osv-packages.ts';
import type { Package } from '../../shared/domain/catalog.ts';
import { aPackage } from '../../test/support/factories.ts';

const NAME = 'advisories';
const GO_DATABASE = fileURLToPath(new URL('../data/osv/Go-all.zip', import.meta.url));
const DATASPACE = 'bench-advisories';
const COMPONENTS = 1_000;
const PACKAGES = Number(process.env.BENCH_ADVISORY_PACKAGES ?? 100_000);
const HOLDERS = 1_000;
/** The module whose record changes in the third part: in the database, and used everywhere. */
const CHANGED_MODULE = 'golang.org/x/net';

/** A Go module at a version, as the catalog stores it (purl type golang). */
function goPackage(dataspace: string, module: string, version: string): Package {
  const slash = module.lastIndexOf('/');
  return aPackage({ dataspace, type: 'golang', namespace: slash < 0 ? '' : module.slice(0, slash), name: slash < 0 ? module : module.slice(slash + 1), version });
}

/** A document client that also keeps every BatchWriteItem request it sends (the load's items, to replay). */
function recordingClient(context: ScenarioContext) {
  const { doc, measure } = capacityCountingClient(context, { patient: true });
  const writes: WriteRequest[] = [];
  let batchCalls = 0;
  doc.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, WriteRequest[]> };
      const lists = Object.values(input.RequestItems ?? {}).filter((requests) => Array.isArray(requests));
      if (lists.length > 0) {
        batchCalls++;
        // As the document client is given them (the marshalling middleware runs later), so the same client type replays them.
        for (const requests of lists) writes.push(...structuredClone(requests));
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchRecordWrites' },
  );
  return { doc, measure, writes, batchCalls: () => batchCalls };
}

async function modulesOfDatabase(): Promise<string[]> {
  const names = new Set<string>();
  for await (const input of osvInputsAt(GO_DATABASE)) {
    if ('problem' in input) continue;
    const record = input.record as { affected?: { package?: { ecosystem?: string; name?: string } }[] };
    for (const entry of record.affected ?? []) {
      const name = entry.package?.name;
      if (entry.package?.ecosystem === 'Go' && name && name !== 'stdlib' && name !== 'toolchain' && name.includes('/')) names.add(name);
    }
  }
  return [...names].sort();
}

/** A CycloneDX 1.5 document of these purls, one component each. */
function documentOf(purls: readonly string[]) {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: { component: { type: 'application', name: 'bench-go-service', version: '1.0.0' } },
    components: purls.map((purl, i) => {
      const [name, version] = purl.slice(purl.indexOf('/') + 1).split('@') as [string, string];
      return { type: 'library', 'bom-ref': `c${i}`, name, version, purl };
    }),
  };
}

export const advisories: Scenario = {
  name: NAME,
  async run(context) {
    const { log } = context;
    const figures: BenchFigure[] = [];

    // --- 1. The whole Go database, loaded; then its items written bare. -------------------------------
    // Into a table of its own (nothing consumes its stream: the stack's linker would otherwise work beside the bare writes).
    const loadTable = `bench-advisories-load-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, loadTable);
    const recorder = recordingClient(context);
    const store = new AdvisoryStore(recorder.doc, loadTable);
    const loader = new AdvisoryLoader({ advisories: store, now: () => new Date() });
    let started = performance.now();
    const loaded = await recorder.measure(() => loader.load(osvInputsAt(GO_DATABASE)));
    const loadMs = performance.now() - started;
    const records = loaded.result.new + loaded.result.withdrawn;
    if (loaded.result.refused.length > 0) throw new Error(`the Go database: ${loaded.result.refused.length} refused (${loaded.result.refused[0]!.problems.join('; ')})`);
    log(`advisories: ${records} records loaded in ${(loadMs / 1000).toFixed(1)} s (${recorder.writes.length} items, ${recorder.batchCalls()} BatchWriteItem calls)`);
    const again = await recorder.measure(() => loader.load(osvInputsAt(GO_DATABASE)));
    const bareTable = `bench-advisories-bare-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, bareTable);
    const first = recorder.writes[0];
    if (!first || !('PutRequest' in first) || typeof first.PutRequest.Item.PK !== 'string') throw new Error('the recorded writes are not document-client items');
    const bare = capacityCountingClient(context, { patient: true });
    started = performance.now();
    // The same requests, 25 a call, one call at a time (as the store writes them).
    const bareWrite = await bare.measure(() => batchWriteAll(bare.doc, bareTable, recorder.writes));
    const bareMs = performance.now() - started;
    // What the records keep: each item's attributes as DynamoDB sizes them (names and values, about their JSON).
    const storedBytes = recorder.writes.reduce((sum, request) => sum + ('PutRequest' in request ? Buffer.byteLength(JSON.stringify(request.PutRequest.Item)) : 0), 0);
    const loadRatio = loadMs / bareMs;
    figures.push(
      { scenario: NAME, figure: 'load the Go database: records a second', value: records / (loadMs / 1000), unit: 'records/s', target: 'reported', met: true, note: `${records} real records (bench/data/osv/Go-all.zip), ${recorder.writes.length} items in ${recorder.batchCalls()} BatchWriteItem calls, ${Math.round(loaded.units)} write and read units, ${(loadMs / 1000).toFixed(1)} s` },
      { scenario: NAME, figure: 'load the Go database vs bare BatchWriteItem of the same items', value: loadRatio, target: '≤ 3', met: loadRatio <= 3, note: `${(loadMs / 1000).toFixed(1)} s against ${(bareMs / 1000).toFixed(1)} s, in one run` },
      { scenario: NAME, figure: 'load: write units a record', value: bareWrite.units / records, target: 'reported', met: true, note: `${Math.round(bareWrite.units)} write units for ${records} records (the bare writes of the same items)` },
      { scenario: NAME, figure: 'load: stored bytes a record', value: storedBytes / records, unit: 'bytes', target: 'reported', met: true, note: `${(storedBytes / 1024 / 1024).toFixed(1)} MB for ${records} records, their package items included` },
      { scenario: NAME, figure: 'load again: read units a record', value: again.units / records, target: 'reported', met: true, note: 'the stored heads, read strongly consistent, 100 a BatchGetItem' },
      { scenario: NAME, figure: 'load the Go database again: items written', value: again.result.new + again.result.changed + again.result.withdrawn, target: '0', met: again.result.new + again.result.changed + again.result.withdrawn === 0, note: `${again.result.unchanged} unchanged; ${again.calls} calls, ${Math.round(again.units)} read units (the heads, strongly consistent)` },
    );

    // --- 2. 1,000 Go modules imported, matching on and off. ------------------------------------------
    // The synchronous import's code (SbomImportService.load, as load_sboms runs it) in this process, against the table the
    // database was loaded into; matching is the linker's work on the packages the import wrote (AdvisoryLinker.linkPackages,
    // as the advisory linker runs it for their link messages). Through the local stack's API a 1,000-component import
    // answered 503 (busy: DynamoDB Local past the API's 2.5 s calls) beside a test suite, six times in a row.
    const doc = patientDocumentClient(context);
    const products = new ProductService({ products: new ProductStore(doc, loadTable), identity: new IdentityStore(doc, loadTable), now: () => new Date(), newUuid: randomUUID });
    const catalog = new CatalogStore(doc, loadTable);
    const imports = new SbomImportService({
      store: new SbomImportStore(doc, loadTable, catalog),
      products,
      library: scancodeLibrary,
      uploads: () => {
        throw new Error('no uploads here');
      },
      now: () => new Date(),
      newUuid: randomUUID,
    });
    const linker = new AdvisoryLinker({ advisories: new AdvisoryStore(doc, loadTable), catalog, doc, tableName: loadTable, now: () => new Date(), newUuid: randomUUID });
    await new IdentityStore(doc, loadTable).createDataspace(DATASPACE, new Date());
    const caller: Caller = { username: 'bench-advisories-root', email: 'root@example.com', dataspace: DATASPACE, isSuperuser: true, groups: [] };
    const modules = (await modulesOfDatabase()).slice(0, COMPONENTS);
    if (modules.length < COMPONENTS) throw new Error(`the Go database names ${modules.length} modules, fewer than ${COMPONENTS}`);
    const importOnce = async (purls: string[], label: string) => {
      const product = (await products.create(caller, { name: `bench advisories ${label}`, version: '1.0.0' }, context.apiUrl)).uuid;
      const document = Buffer.from(JSON.stringify(documentOf(purls)));
      const begun = performance.now();
      const answer = (await imports.load(caller, product, () => ({ document, contentType: 'application/vnd.cyclonedx+json', options: { mode: 'replace', updateExistingPackages: false } }), context.apiUrl)) as { summary?: { packages_created?: number } };
      const ms = performance.now() - begun;
      if (answer.summary?.packages_created !== purls.length) throw new Error(`import ${label}: ${JSON.stringify(answer.summary)}`);
      return { ms, product };
    };
    // Each path once first, on names of their own (the first calls load code and open connections).
    await importOnce(modules.slice(0, 20).map((m) => `pkg:generic/warm/${m}@v0.0.1`), 'warm off');
    await importOnce(modules.slice(0, 20).map((m) => `pkg:golang/${m}@v0.0.2`), 'warm on');
    const off = await importOnce(modules.map((m) => `pkg:generic/${m}@v0.0.1`), 'off');
    const on = await importOnce(modules.map((m) => `pkg:golang/${m}@v0.0.1`), 'on');
    // The link messages the stream router would send: one per package the import created, in batches of ten as SQS delivers them.
    const created = await new ProductPackageStore(doc, loadTable).ofProduct(on.product);
    const begun = performance.now();
    let links = 0;
    for (let i = 0; i < created.length; i += 10) links += (await linker.linkPackages(created.slice(i, i + 10).map((pp) => ({ dataspace: DATASPACE, uuid: pp.packageUuid })))).linked;
    const linkMs = performance.now() - begun;
    const importRatio = on.ms / off.ms;
    const withLinking = (on.ms + linkMs) / off.ms;
    figures.push(
      { scenario: NAME, figure: `import of ${COMPONENTS} components, matching on vs off`, value: importRatio, target: '≤ 1.2', met: importRatio <= 1.2, note: `SbomImportService.load ${(on.ms / 1000).toFixed(1)} s (Go purls: each package's advisory index entry written) against ${(off.ms / 1000).toFixed(1)} s (the same names as pkg:generic), in one run` },
      { scenario: NAME, figure: `import of ${COMPONENTS} components and the matching of its packages vs the import alone`, value: withLinking, target: '≤ 1.2', met: withLinking <= 1.2, note: `the linker after the import (on AWS, its own function, after the import has answered): ${(linkMs / 1000).toFixed(1)} s for ${created.length} packages, ${links} links made` },
    );

    // --- 3. One changed advisory, 100,000 packages, 1,000 products. ----------------------------------
    for (const size of [Math.min(1_000, PACKAGES), PACKAGES]) {
      const table = `bench-advisories-scale-${randomUUID().slice(0, 8)}`;
      await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, table);
      const seed = patientDocumentClient(context);
      const dataspace = `bench-advisory-scale-${size}`;
      // The packages: the database's modules at versions of their own, the changed module's once (at a version its records affect).
      const target = goPackage(dataspace, CHANGED_MODULE, 'v0.0.1');
      const others = Array.from({ length: size - 1 }, (_, i) => goPackage(dataspace, modules[i % modules.length]!, `v1.${Math.floor(i / modules.length)}.${i % 97}`));
      started = performance.now();
      // The changed module's package as the API writes it; the others only their object items, with their lookup and
      // advisory index entries (what a linker or a list could meet), without the uniqueness and counter items a read
      // here never touches: 100,000 packages seed in minutes, not the better part of an hour, beside a test suite.
      await writeAll(seed, table, [...catalogSeedItems(CATALOG_SPECS.packages, target), ...others.map((pkg) => objectItem(CATALOG_SPECS.packages, pkg))]);
      await writeAll(
        seed,
        table,
        Array.from({ length: HOLDERS }, () =>
          productPackageItem({ uuid: randomUUID(), dataspace, productUuid: randomUUID(), packageUuid: target.uuid, createdDate: new Date().toISOString(), rev: 1, licenseExpression: '', licenseKeys: [], declaredLicenseExpression: '', unknownLicenses: [], isDeployed: true, isModified: false, dependsOn: [] }),
        ),
      );
      // The advisories of the changed module, as the load wrote them (copied from the load's table).
      const source = new AdvisoryStore(doc, loadTable);
      const packageKey = osvPackageKey('Go', CHANGED_MODULE);
      const ofModule = await source.ofPackageKey(packageKey);
      const full = (await Promise.all(ofModule.map((advisory) => source.get(advisory.id)))).filter((a) => a !== undefined);
      await new AdvisoryStore(seed, table).save(full.map((after) => ({ before: undefined, after })), new Date());
      log(`advisories: ${size} packages and ${HOLDERS} holders seeded in ${((performance.now() - started) / 1000).toFixed(1)} s; ${full.length} records name ${CHANGED_MODULE}`);

      const counting = capacityCountingClient(context, { patient: true });
      const linker = new AdvisoryLinker({ advisories: new AdvisoryStore(counting.doc, table), catalog: new CatalogStore(counting.doc, table), doc: counting.doc, tableName: table, now: () => new Date(), newUuid: randomUUID });
      // First the links as they stand (the module's records, all new), then one record changed: what the sync's change costs.
      await linker.linkKey(packageKey, full.map((advisory) => advisory.id));
      // A record that affects the package (a changed summary is then written to its vulnerability): the costlier change.
      const [linkedPackage] = await new CatalogStore(seed, table).packages.getMany([target.uuid], true);
      const changed = full.find((advisory) => Object.keys(linkedPackage?.vulnerabilities ?? {}).some((id) => id === advisory.id || advisory.aliases.includes(id)));
      if (!changed) throw new Error(`none of the ${full.length} records of ${CHANGED_MODULE} affects ${target.purl}`);
      await new AdvisoryStore(seed, table).save([{ before: undefined, after: { ...changed, summary: `${changed.summary} (changed)`, modified: new Date().toISOString() } }], new Date());
      const linking = await counting.measure(() => linker.linkKey(packageKey, [changed.id]));
      const resolving = await counting.measure(() => new ChangeTargetResolver(counting.doc, table).products([{ kind: 'package', dataspace, uuid: target.uuid }]));
      figures.push(
        { scenario: NAME, figure: `one changed advisory, ${size.toLocaleString('en')} packages: linker calls`, value: linking.calls, target: 'reported', met: true, note: `${linking.units.toFixed(1)} capacity units; ${linking.result.written} vulnerability written` },
        { scenario: NAME, figure: `one changed advisory, ${size.toLocaleString('en')} packages: products queued for evaluation`, value: resolving.result.length, target: `${HOLDERS}`, met: resolving.result.length === HOLDERS, note: `${resolving.calls} calls, ${resolving.units.toFixed(1)} read units` },
      );
    }
    return figures;
  },
};
