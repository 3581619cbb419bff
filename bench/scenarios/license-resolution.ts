/**
 * License recognition with ScanCode's rules (issue 32):
 * - a 1,000-component import of real Maven components (Keycloak 10.0.2's, Dropwizard 1.3.15's and Dependency-Track 4.5.0's, as
 *   their SBOMs name their licenses: ids, free-text names, URLs), imported by the synchronous import's
 *   code (SbomImportService.load) with the rules index on and off, in one run (target ≤ 1.1×);
 * - what reading the index costs a process once: time and heap.
 * The import runs against a table of its own, in this process, as the advisories scenario does.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { patientDocumentClient } from '../lib/seed.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { SbomImportService } from '../../shared/services/sbom-import.ts';
import { ProductService } from '../../shared/services/products.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { readRulesData, scancodeKnowledge } from '../../shared/reference/scancode-rules.ts';
import { licenseKnowledgeOf } from '../../shared/domain/license-knowledge.ts';
import type { Caller } from '../../shared/domain/caller.ts';

const NAME = 'license-resolution';
const DATASPACE = 'bench-license-resolution';
const COMPONENTS = 1_000;
const FIXTURES = ['maven-keycloak-10.0.2.cdx.json', 'maven-dropwizard-1.3.15.cdx.json', 'maven-dependency-track-4.5.0.cdx.json'].map((file) => new URL(`../../test/fixtures/sbom/licenses/${file}`, import.meta.url));

interface Component {
  readonly name: string;
  readonly version?: string;
  readonly group?: string;
  readonly licenses?: unknown[];
}

/** The real components (nested ones too) with their licenses as written, the first COMPONENTS of distinct group, name and version. */
function realComponents(): Component[] {
  const seen = new Set<string>();
  const out: Component[] = [];
  const walk = (components: unknown) => {
    for (const component of (components as (Component & { components?: unknown })[] | undefined) ?? []) {
      const id = `${component.group ?? ''}/${component.name}@${component.version ?? ''}`;
      if (!seen.has(id)) {
        seen.add(id);
        out.push(component);
      }
      walk(component.components);
    }
  };
  for (const file of FIXTURES) walk((JSON.parse(readFileSync(file, 'utf8')) as { components: unknown }).components);
  if (out.length < COMPONENTS) throw new Error(`the fixtures hold ${out.length} distinct components, fewer than ${COMPONENTS}`);
  return out.slice(0, COMPONENTS);
}

/** A CycloneDX 1.4 document of the components, under purls of their own (`label`), so each import creates its packages. */
function documentOf(components: readonly Component[], label: string) {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.4',
    version: 1,
    metadata: { component: { type: 'application', name: `bench-${label}`, version: '1.0.0' } },
    components: components.map((c, i) => ({
      type: 'library',
      'bom-ref': `c${i}`,
      group: c.group,
      name: c.name,
      version: c.version ?? '1',
      purl: `pkg:maven/${encodeURIComponent(c.group || 'none')}/${encodeURIComponent(c.name)}@${encodeURIComponent(`${c.version ?? '1'}-${label}`)}`,
      ...(c.licenses ? { licenses: c.licenses } : {}),
    })),
  };
}

export const licenseResolution: Scenario = {
  name: NAME,
  async run(context) {
    const { log } = context;
    const figures: BenchFigure[] = [];

    // --- 1. What the index costs a process to read, once. ------------------------------------------
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let started = performance.now();
    const knowledge = licenseKnowledgeOf(readRulesData());
    const readMs = performance.now() - started;
    global.gc?.();
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
    if (!knowledge.byName('ALv2')) throw new Error('the rules index does not know ALv2');
    figures.push({
      scenario: NAME,
      figure: 'read the rules index once (a cold function that resolves a license)',
      value: readMs,
      unit: 'ms',
      target: 'reported',
      met: true,
      note: `${readRulesData().names.length.toLocaleString('en-US')} names, ${readRulesData().urls.length.toLocaleString('en-US')} URLs, ${readRulesData().texts.length.toLocaleString('en-US')} text digests; heap about ${heapMb.toFixed(0)} MB${global.gc ? '' : ' (without --expose-gc: approximate)'}`,
    });

    // --- 2. 1,000 real components imported, the rules on and off. ------------------------------------
    const table = `bench-license-resolution-${randomUUID().slice(0, 8)}`;
    await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, table);
    const doc = patientDocumentClient(context);
    const products = new ProductService({ products: new ProductStore(doc, table), identity: new IdentityStore(doc, table), now: () => new Date(), newUuid: randomUUID });
    const catalog = new CatalogStore(doc, table);
    const noRules = licenseKnowledgeOf({ source: { repository: '', path: '', commit: '', licence: '' }, expressions: [], names: [], urls: [], texts: [] });
    const importer = (rules: boolean) =>
      new SbomImportService({
        store: new SbomImportStore(doc, table, catalog),
        products,
        library: scancodeLibrary,
        knowledge: rules ? scancodeKnowledge : () => noRules,
        uploads: () => {
          throw new Error('no uploads here');
        },
        now: () => new Date(),
        newUuid: randomUUID,
      });
    await new IdentityStore(doc, table).createDataspace(DATASPACE, new Date());
    const caller: Caller = { username: 'bench-license-root', email: 'root@example.com', dataspace: DATASPACE, isSuperuser: true, groups: [] };
    const components = realComponents();
    const importOnce = async (rules: boolean, label: string, of: readonly Component[]) => {
      const product = (await products.create(caller, { name: `bench licenses ${label}`, version: '1.0.0' }, context.apiUrl)).uuid;
      const document = Buffer.from(JSON.stringify(documentOf(of, label)));
      const begun = performance.now();
      const answer = await importer(rules).load(caller, product, () => ({ document, contentType: 'application/vnd.cyclonedx+json', options: { mode: 'replace', updateExistingPackages: false } }), context.apiUrl);
      const ms = performance.now() - begun;
      if (!answer.summary || answer.summary.packages_created !== of.length) throw new Error(`import ${label}: ${JSON.stringify(answer.summary)}`);
      return { ms, unknown: answer.summary.unknown_licenses.length, resolved: answer.summary.resolved_licenses.length };
    };
    // Each path once first, on purls of their own (the first calls load code, the index, and open connections).
    await importOnce(false, 'warm-off', components.slice(0, 20));
    await importOnce(true, 'warm-on', components.slice(0, 20));
    const off = await importOnce(false, 'off', components);
    const on = await importOnce(true, 'on', components);
    const ratio = on.ms / off.ms;
    log(`license-resolution: import of ${COMPONENTS}: ${(on.ms / 1000).toFixed(1)} s with the rules, ${(off.ms / 1000).toFixed(1)} s without`);
    figures.push({
      scenario: NAME,
      figure: `import of ${COMPONENTS} real Maven components, the rules index on vs off`,
      value: ratio,
      target: '≤ 1.1',
      met: ratio <= 1.1,
      note: `SbomImportService.load ${(on.ms / 1000).toFixed(1)} s (${on.unknown} distinct unknown licenses left, ${on.resolved} recognitions listed) against ${(off.ms / 1000).toFixed(1)} s (${off.unknown} distinct unknown), in one run`,
    });
    return figures;
  },
};
