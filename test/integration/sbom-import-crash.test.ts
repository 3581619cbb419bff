/**
 * An import function killed part-way (its DynamoDB calls stop after some transactions, as when Lambda
 * ends it) leaves whole transactions behind: no package twice, no purl without its package, and the
 * redelivered event completes the import, creating only what is missing.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { useTestTable } from '../support/environment.ts';
import { load } from '../support/factories.ts';
import { tableItems } from '../support/snapshot.ts';
import { cyclonedxNpm } from '../support/cyclonedx-npm.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { SbomImportService } from '../../shared/services/sbom-import.ts';
import { ProductService } from '../../shared/services/products.ts';
import { ProductStore } from '../../shared/store/product-store.ts';
import type { SbomUploads } from '../../shared/aws/sbom-uploads.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import type { Caller } from '../../shared/domain/caller.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
const alice: Caller = { username: 'alice', email: 'alice@example.com', dataspace: 'acme', isSuperuser: false, groups: [] };
const COMPONENTS = 300;
/** A document of its own per case, so that each one creates all its packages. */
const documentOf = (prefix: string) =>
  cyclonedxNpm(
    { name: 'app', version: '1.0.0' },
    Array.from({ length: COMPONENTS }, (_, i) => ({ name: `${prefix}-${i}`, version: '1.0.0', license: i % 2 ? 'MIT' : 'Apache-2.0', dependsOn: i > 0 ? [`${prefix}-${i - 1}`] : [] })),
    { vulnerabilities: [{ id: `CVE-2026-${prefix.length}${COMPONENTS}`, score: 8, affects: [`${prefix}-7`], analysis: { state: 'in_triage' } }] },
  );

/** A document client whose transactions stop after `allowed` of them: the function was killed. */
function killedAfter(doc: DynamoDBDocumentClient, allowed: number): DynamoDBDocumentClient {
  let transactions = 0;
  return new Proxy(doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: unknown, ...rest: unknown[]) => {
        if (command instanceof TransactWriteCommand && ++transactions > allowed) throw new Error('Killed: the function ran out of time');
        return (target.send as (...args: unknown[]) => Promise<unknown>).call(target, command, ...rest);
      };
    },
  });
}

function service(doc: DynamoDBDocumentClient, document: unknown = {}): SbomImportService {
  const uploads: SbomUploads = {
    presignPut: async (uuid) => ({ url: `https://uploads.invalid/${uuid}`, headers: {} }),
    read: async () => Buffer.from(JSON.stringify(document)),
    remove: async () => undefined,
  };
  const products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  return new SbomImportService({
    store: new SbomImportStore(doc, env.tableName, env.catalog),
    products,
    library: scancodeLibrary,
    uploads: () => uploads,
    now: () => new Date(),
    newUuid: randomUUID,
  });
}

async function aProduct(name: string): Promise<string> {
  const products = new ProductService({ products: new ProductStore(env.doc, env.tableName), identity: env.identity, now: () => new Date(), newUuid: randomUUID });
  return (await products.create(alice, { name, version: '' }, 'http://x.invalid')).uuid;
}

/** Packages by purl, and reservations whose package is missing: what a crash must never leave. */
async function catalogState() {
  const items = await tableItems(env);
  const packages = items.filter((item) => item.entity === 'Package');
  const reservations = items.filter((item) => item.entity === 'CatalogUnique' && String(item.PK).startsWith('DS#acme#PACKAGE#'));
  const uuids = new Set(packages.map((item) => String(item.uuid)));
  return {
    purls: packages.map((item) => String(item.purl)),
    dangling: reservations.filter((item) => !uuids.has(String(item.uuid))).length,
    unreserved: packages.filter((item) => !reservations.some((r) => r.uuid === item.uuid)).length,
  };
}

beforeAll(async () => {
  env = await useTestTable();
  await load(env, { dataspaces: [{ name: 'acme' }], users: [{ username: 'alice', email: 'alice@example.com', dataspace: 'acme' }] });
});

describe('an import killed part-way', () => {
  it.each([
    ['while it creates packages', 2, 'early'],
    ['while it writes the product packages', 9, 'late'],
  ])('%s leaves no duplicate, and the retry completes it', async (_, allowed, prefix) => {
    const product = await aProduct(`Crashed after ${allowed}`);
    const document = documentOf(`crash-${prefix}`);
    const healthy = service(env.doc, document);
    const created = await healthy.createUpload(alice, product, { mode: 'replace', updateExistingPackages: false, contentType: 'application/json', size: 1_000 }, 'http://x.invalid');
    await expect(service(killedAfter(env.doc, allowed), document).runUpload(created.uuid, `uploads/${created.uuid}`, 1_000, 'e1', false)).rejects.toThrow(/Killed/);
    const partial = await catalogState();
    expect(partial.dangling + partial.unreserved).toBe(0);
    expect(new Set(partial.purls).size).toBe(partial.purls.length);

    await healthy.runUpload(created.uuid, `uploads/${created.uuid}`, 1_000, 'e1', false);
    const record = await healthy.retrieve(alice, created.uuid, 'http://x.invalid');
    expect(record.status).toBe('completed');
    expect(record.summary!.packages_created + record.summary!.packages_matched).toBe(COMPONENTS);
    const after = await catalogState();
    expect(after.dangling + after.unreserved).toBe(0);
    expect(new Set(after.purls).size).toBe(after.purls.length);
    expect(after.purls.filter((purl) => purl.startsWith(`pkg:npm/crash-${prefix}-`))).toHaveLength(COMPONENTS);
    const held = await env.productPackages.ofProduct(product);
    expect(held).toHaveLength(COMPONENTS);
    expect(held.filter((pp) => pp.dependsOn.length === 1)).toHaveLength(COMPONENTS - 1);
    expect(await env.productPackages.analysesOfProduct(product)).toHaveLength(1);
    // A redelivery after completion changes nothing.
    const before = JSON.stringify(await tableItems(env));
    await healthy.runUpload(created.uuid, `uploads/${created.uuid}`, 1_000, 'e1', false);
    expect(JSON.stringify(await tableItems(env))).toBe(before);
    // Two imports of a real SBOM's worth of components on DynamoDB Local: 13-22 s alone, past 30 s while
    // the rest of the suite runs beside it. The bound is for a hang, not a speed target.
  }, 120_000);

  it('on its last delivery, is recorded as failed, and its writes ask for an evaluation', async () => {
    const product = await aProduct('Failed for good');
    const document = documentOf('crash-final');
    const healthy = service(env.doc, document);
    const created = await healthy.createUpload(alice, product, { mode: 'replace', updateExistingPackages: false, contentType: 'application/json', size: 1_000 }, 'http://x.invalid');
    await service(killedAfter(env.doc, 1), document).runUpload(created.uuid, `uploads/${created.uuid}`, 1_000, 'e1', true);
    const record = await healthy.retrieve(alice, created.uuid, 'http://x.invalid');
    expect(record.status).toBe('failed');
    expect(record.errors[0]).toMatch(/failed/);
    const item = (await tableItems(env)).find((i) => i.entity === 'SbomImport' && i.uuid === created.uuid)!;
    expect(item.changed).toBe(true);
  });
});
