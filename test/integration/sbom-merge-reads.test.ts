/**
 * A merge (or a VEX) removes nothing from the product, so it reads only the product packages its
 * document names, by key, not the whole product: loading a large product in merges then costs each
 * merge what its own document costs (scale issue #8; `npm run bench -- "sbom merge"` measures it at
 * 50,000). Here the import's own DynamoDB calls are counted item by item while merging into a product
 * that already holds many packages; a replace, which must read them all, is the contrast.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createDocumentClient, createDynamoControlClient } from '../../shared/aws/clients.ts';
import { dynamodbEndpoint, useTestTable } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { cyclonedxNpm, cyclonedxVex, type NpmPackage } from '../support/cyclonedx-npm.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { SbomImportService } from '../../shared/services/sbom-import.ts';
import { ProductService } from '../../shared/services/products.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import type { ImportMode } from '../../shared/domain/sbom-import.ts';
import type { Caller } from '../../shared/domain/caller.ts';

type Env = Awaited<ReturnType<typeof useTestTable>>;
let env: Env;
const caller: Caller = { username: 'root', email: 'root@example.com', dataspace: 'merging', isSuperuser: true, groups: [] };
/** Items DynamoDB returned to reads (Query, GetItem, BatchGetItem) since the last reset. */
let itemsRead = 0;
let imports: SbomImportService;
let product: string;
const HELD = 400;
/** Packages the tests below add besides the HELD ones (a replace by the HELD alone removes them). */
let extras = 0;

const packages = (prefix: string, count: number): NpmPackage[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i}`, version: '1.0.0', license: 'MIT', dependsOn: i > 0 ? [`${prefix}-${i - 1}`] : [] }));

async function load(mode: ImportMode, list: readonly NpmPackage[], vulnerabilities: Parameters<typeof cyclonedxNpm>[2] = {}) {
  return loadDocument(mode, cyclonedxNpm({ name: 'app', version: '1.0.0' }, list, vulnerabilities));
}

async function loadDocument(mode: ImportMode, sbom: unknown) {
  const document = Buffer.from(JSON.stringify(sbom));
  itemsRead = 0;
  const answer = await imports.load(caller, product, () => ({ document, contentType: 'application/vnd.cyclonedx+json', options: { mode, updateExistingPackages: false } }), 'http://localhost');
  extras += (answer.summary?.added ?? 0) - (answer.summary?.removed ?? 0);
  return { answer, itemsRead };
}

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { merging: { users: { root: { superuser: true } } } });
  const doc = createDocumentClient(createDynamoControlClient({ region: 'us-east-1', endpoint: dynamodbEndpoint() }));
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const output = result.output as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]> };
      if (/^(Query|Get|BatchGet)/.test(context.commandName ?? '')) {
        itemsRead += (output.Items?.length ?? 0) + (output.Item ? 1 : 0) + Object.values(output.Responses ?? {}).reduce((sum, items) => sum + items.length, 0);
      }
      return result;
    },
    { step: 'initialize', name: 'countItemsRead' },
  );
  const products = new ProductService({ products: new ProductStore(doc, env.tableName), identity: new IdentityStore(doc, env.tableName), now: () => new Date(), newUuid: randomUUID });
  imports = new SbomImportService({
    store: new SbomImportStore(doc, env.tableName, new CatalogStore(doc, env.tableName)),
    products,
    library: scancodeLibrary,
    uploads: () => {
      throw new Error('no uploads in this test');
    },
    now: () => new Date(),
    newUuid: randomUUID,
  });
  product = (await products.create(caller, { name: 'monolith', version: '1.0.0' }, 'http://localhost')).uuid;
  const first = await load('merge', packages('held', HELD));
  expect(first.answer.summary).toMatchObject({ added: HELD, unchanged: 0 });
  extras = 0;
}, 120_000);

describe('a merge into a product that holds many packages', () => {
  it('reads the product packages its document names, not the others, and counts them all as kept', async () => {
    const before = extras;
    const { answer, itemsRead: read } = await load('merge', [...packages('new', 3), ...packages('held', 2)]);
    expect(answer.status).toBe('completed');
    expect(answer.summary).toMatchObject({ added: 3, removed: 0, unchanged: HELD + before });
    // The product, 5 packages and their names, 2 product packages, counters, a license or two: far below the HELD held.
    expect(read).toBeLessThan(60);
  });

  it('reads by key the product packages a VEX names by purl, and records its analysis', async () => {
    const { answer, itemsRead: read } = await load('merge', packages('vex', 1), {
      vulnerabilities: [{ id: 'CVE-2026-0001', affects: ['pkg:npm/held-7@1.0.0'], analysis: { state: 'not_affected', justification: 'code_not_reachable' } }],
    });
    expect(answer.summary).toMatchObject({ added: 1, vulnerabilities: 1, analyses: 1 });
    expect(read).toBeLessThan(60);
  });

  it('reads by key the product packages a VEX-only document names, whatever the mode, and removes nothing', async () => {
    const vex = cyclonedxVex([{ id: 'CVE-2026-0002', affects: [{ name: 'held-9', version: '1.0.0' }], analysis: { state: 'exploitable', detail: 'Reached from the login form.' } }]);
    const { answer, itemsRead: read } = await loadDocument('replace', vex);
    expect(answer.summary).toMatchObject({ added: 0, removed: 0, vulnerabilities: 1, analyses: 1 });
    expect(read).toBeLessThan(60);
  });

  it('against a replace, which reads every product package to remove those its document does not name', async () => {
    const before = extras;
    const { answer, itemsRead: read } = await load('replace', packages('held', HELD));
    expect(answer.summary).toMatchObject({ removed: before, unchanged: HELD });
    extras = 0;
    expect(read).toBeGreaterThan(HELD);
  });
});
