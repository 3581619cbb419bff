/**
 * SBOM imports through the whole local stack: POST sbom_uploads → PUT to the presigned URL (the S3 API
 * of the SQS emulator) → the upload's object-created event → the sbom-uploads queue → the import
 * function → the import completed; and the evaluations an import causes: one for its product however
 * many components it has, none when it changed nothing, one for another product holding a package it
 * changed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';
import { cyclonedxNpm, type NpmPackage } from '../support/cyclonedx-npm.ts';
import { keys } from '../../shared/keys.ts';
import { createS3Client } from '../../shared/aws/sbom-uploads.ts';
import { SbomImportStore } from '../../shared/store/sbom-import-store.ts';
import { UPLOAD_BUCKET } from '../../shared/resources.ts';
import { readRunningStack } from '../../bin/local/stack-file.ts';
import { fixtureText } from '../support/sbom-documents.ts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;
const { call, ok } = teamApi(() => stack.apiUrl, () => team.keys);

const PROJECT = { name: 'storefront', version: '2.0.0' };
/** `count` packages named `<prefix>-<i>`, each depending on the one before. */
const packages = (count: number, prefix: string): NpmPackage[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i}`, version: '1.0.0', license: 'MIT', dependsOn: i > 0 ? [`${prefix}-${i - 1}`] : [] }));

/** How many evaluations of the product have committed (PolicyState's version). */
async function evaluations(product: string): Promise<number> {
  const state = await stack.env.doc.send(new GetCommand({ TableName: stack.env.tableName, Key: keys.policyState(product), ConsistentRead: true }));
  return Number(state.Item?.version ?? 0);
}

/**
 * The evaluation count once it is at least `atLeast` and has not moved for `quietMs`. A quiet window
 * alone answered before an evaluation that a loaded run's stream and queue had not delivered yet
 * ("expected 0 to be 1" beside a full suite): the evaluation expected is waited for first, then the
 * window shows no second one follows.
 */
async function settled(product: string, atLeast = 0, quietMs = 4_000): Promise<number> {
  await eventually(() => evaluations(product), (count) => count >= atLeast);
  let last = await evaluations(product);
  let since = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await evaluations(product);
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= quietMs) return now;
  }
}

async function upload(product: string, document: unknown, as = 'alice', body: Record<string, unknown> = {}) {
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  const created = await ok('POST', `/api/v2/products/${product}/sbom_uploads/`, { content_type: 'application/vnd.cyclonedx+json', size: Buffer.byteLength(text), ...body }, as);
  const put = await fetch(created.upload.url, { method: 'PUT', headers: created.upload.headers, body: text });
  expect(put.status).toBe(200);
  // Polled as a client polls: a 503 (busy, with Retry-After: the import function and this read share one
  // DynamoDB Local, which a full run loads) is asked again, anything else must be the record.
  const record = await eventually(
    async () => {
      const answer = await call('GET', `/api/v2/sbom_imports/${created.uuid}/`, undefined, as);
      if (answer.status === 503) return undefined;
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      return answer.json;
    },
    (found) => found?.status === 'completed' || found?.status === 'failed',
    60_000,
  );
  return record!;
}

beforeAll(async () => {
  stack = await startTestStack({ evaluationDelaySeconds: 1 });
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } } });
  await ok('POST', '/api/v2/usage_policies/', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error' });
  await ok('POST', '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GNU GPL 3.0', spdx_license_key: 'GPL-3.0-only', usage_policy: 'Prohibited' });
  await ok('PUT', '/api/v2/policy_rules/', { license_policy_error: { is_active: true } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

// Each test runs imports through the whole pipeline (S3 event, queue, import function, evaluation) with
// quiet periods to show that nothing more happens: 20-25 s alone, past 30 s beside the rest of the
// suite. The bound is for a hang, not a speed target.
vi.setConfig({ testTimeout: 120_000 });

describe('an uploaded SBOM', () => {
  it('is imported by the import function, evaluated once, and its object removed', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Storefront' }, 'alice');
    await eventually(() => evaluations(product.uuid), (version) => version >= 1, 30_000);
    const before = await settled(product.uuid, 0, 2_000);
    const document = cyclonedxNpm(PROJECT, [...packages(120, 'shop-lib'), { name: 'copyleft-thing', version: '3.1.0', license: 'GPL-3.0-only' }]);
    const record = await upload(product.uuid, document);
    expect(record).toMatchObject({ status: 'completed', format: 'cyclonedx', spec_version: '1.6', errors: [] });
    expect(record.summary).toMatchObject({ components: 121, packages_created: 121, added: 121 });
    expect((await ok('GET', `/api/v2/products/${product.uuid}/packages/?page_size=1`, undefined, 'alice')).count).toBe(121);
    // One evaluation for 121 new product packages, and it saw them: the GPL package is a violation.
    expect((await settled(product.uuid, before + 1)) - before).toBe(1);
    const violations = await ok('GET', `/api/v2/products/${product.uuid}/policy_violations/`, undefined, 'alice');
    expect(JSON.stringify(violations)).toContain('license_policy_error');
    // The audit trail holds the import once, as alice, who asked for it, with what it did; none of the
    // 121 packages and product packages it wrote is a record of its own.
    const auditedByAlice = async () => {
      const records: { object_type: string; object: string; object_repr: string; user: string; api_key: string; changes: Record<string, [unknown, unknown]> }[] = [];
      let path: string | null = '/api/v2/audit_events/?user=alice&page_size=100';
      while (path) {
        const page = await ok('GET', path);
        records.push(...page.results);
        path = page.next ? new URL(page.next).pathname + new URL(page.next).search : null;
      }
      return records;
    };
    const audited = await eventually(auditedByAlice, (records) => records.some((r) => r.object_type === 'sbom_import'), 30_000);
    const imports = audited.filter((r) => r.object_type === 'sbom_import');
    expect(imports).toHaveLength(1);
    expect(imports[0]).toMatchObject({ object: record.uuid, object_repr: 'SBOM import into Storefront', user: 'alice', api_key: 'default' });
    expect(imports[0]!.changes).toMatchObject({ product: [null, 'Storefront'], status: [null, 'completed'], components: [null, 121], added: [null, 121], removed: [null, 0] });
    expect((imports[0]!.changes.added_purls![1] as string[]).length).toBe(50);
    expect(audited.filter((r) => ['package', 'product_package'].includes(r.object_type))).toEqual([]);
    const s3 = createS3Client({ region: 'us-east-1', endpoint: readRunningStack(stack.dataDir)!.sqsEndpoint });
    const left = await s3.send(new ListObjectsV2Command({ Bucket: UPLOAD_BUCKET.localName, Prefix: 'uploads/' }));
    expect((left.Contents ?? []).map((object) => object.Key)).not.toContain(`uploads/${record.uuid}`);
    s3.destroy();

    // The same document again: nothing written, no evaluation.
    const again = await upload(product.uuid, document);
    expect(again.summary).toMatchObject({ packages_created: 0, packages_matched: 121, added: 0, removed: 0, unchanged: 121 });
    const store = new SbomImportStore(stack.env.doc, stack.env.tableName, stack.env.catalog);
    expect(await store.consumedWriteCapacity(again.uuid)).toBe(0);
    expect((await settled(product.uuid, before + 1, 3_000)) - before).toBe(1);
  });

  it('that is no SBOM fails, and says why', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Broken upload' }, 'alice');
    const record = await upload(product.uuid, '{"bomFormat": "CycloneDX", ');
    expect(record.status).toBe('failed');
    expect(record.errors.join(' ')).toMatch(/JSON/);
    expect(record.summary).toBeNull();
  });

  it('of every format is read by the import function: CycloneDX XML, SPDX tag-value, SPDX 3.0, then an OpenVEX of the same packages', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Every format' }, 'alice');
    const cases = [
      ['cyclonedx-composer-laravel-7.12.0-1.4.cdx.xml', 'application/vnd.cyclonedx+xml', 'cyclonedx', '1.4', 62],
      ['tag-value/tern-alpine.spdx', 'text/spdx', 'spdx', '2.2', undefined],
      ['spdx3/spdx-examples-example9-appbomination.spdx3.json', 'application/spdx+json', 'spdx', '3.0.1', 6],
    ] as const;
    for (const [file, type, format, version, components] of cases) {
      const record = await upload(product.uuid, fixtureText(file), 'alice', { content_type: type });
      expect(record, file).toMatchObject({ status: 'completed', format, spec_version: version });
      if (components !== undefined) expect(record.summary.components, file).toBe(components);
      expect(record.summary.components, file).toBeGreaterThan(0);
    }
    // An OpenVEX about a package the product now holds (the SPDX 3 example's, by its purl without a version).
    const held = (await ok('GET', `/api/v2/products/${product.uuid}/packages/?page_size=100`, undefined, 'alice')).results as { purl: string }[];
    const target = held.map((pkg) => pkg.purl).find((purl) => purl.includes('@'))!;
    const vex = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.com/vex/every-format-1',
      author: 'Pipeline test',
      timestamp: '2026-11-30T00:00:00Z',
      version: 1,
      statements: [{ vulnerability: { name: 'CVE-2099-40001', aliases: ['GHSA-9x9x-test-4001'] }, products: [{ '@id': target.slice(0, target.indexOf('@')) }], status: 'under_investigation' }],
    };
    const triaged = await upload(product.uuid, JSON.stringify(vex), 'alice', { content_type: 'application/openvex+json' });
    expect(triaged).toMatchObject({ status: 'completed', format: 'openvex', spec_version: '0.2.0', summary: { components: 0, vulnerabilities: 1, analyses: 1 } });
    const analyses = (await ok('GET', `/api/v2/vulnerability_analyses/?product=${product.uuid}`, undefined, 'alice')).results;
    expect(analyses).toMatchObject([{ vulnerability_id: 'CVE-2099-40001', state: 'in_triage' }]);
  });

  it('is started only by who may change the product', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Guarded' }, 'alice');
    await ok('POST', `/api/v2/products/${product.uuid}/permissions/`, { user: 'viewer', permissions: ['view_product'] }, 'alice');
    expect((await call('POST', `/api/v2/products/${product.uuid}/sbom_uploads/`, { size: 10 }, 'viewer')).status).toBe(403);
  });
});

describe('the upload URL, as strict as S3 (issue 30)', () => {
  /** A queued upload of alice's for `bytes` bytes of `type`, and its presigned URL. */
  const anUpload = async (product: string, bytes: number) =>
    (await ok('POST', `/api/v2/products/${product}/sbom_uploads/`, { content_type: 'application/vnd.cyclonedx+json', size: bytes }, 'alice')) as {
      uuid: string;
      upload: { url: string; headers: Record<string, string> };
    };
  const importOf = async (uuid: string) => (await call('GET', `/api/v2/sbom_imports/${uuid}/`, undefined, 'alice')).json;

  it("refuses the URL moved to another user's import, unsigned or with a zero signature, and the bucket and queues to anyone unsigned", async () => {
    const mine = await ok('POST', '/api/v2/products/', { name: 'Mine' }, 'alice');
    const theirs = await ok('POST', '/api/v2/products/', { name: 'Theirs' }, 'root');
    const document = JSON.stringify(cyclonedxNpm(PROJECT, [{ name: 'injected', version: '6.6.6', license: 'MIT' }]));
    const own = await anUpload(mine.uuid, Buffer.byteLength(document));
    const victim = (await ok('POST', `/api/v2/products/${theirs.uuid}/sbom_uploads/`, { content_type: 'application/vnd.cyclonedx+json', size: Buffer.byteLength(document) })) as { uuid: string };
    const moved = own.upload.url.replace(own.uuid, victim.uuid);
    const bare = own.upload.url.split('?')[0]!;
    const zero = own.upload.url.replace(/X-Amz-Signature=[0-9a-f]+/, 'X-Amz-Signature=00');
    for (const url of [moved, bare, zero]) {
      const put = await fetch(url, { method: 'PUT', headers: own.upload.headers, body: document });
      expect(put.status, url).toBe(403);
      expect(await put.text()).toMatch(/<Code>(SignatureDoesNotMatch|AccessDenied)<\/Code>/);
    }
    const endpoint = readRunningStack(stack.dataDir)!.sqsEndpoint;
    expect((await fetch(`${endpoint}/${UPLOAD_BUCKET.localName}?list-type=2&prefix=uploads/`)).status).toBe(403);
    expect((await fetch(`${endpoint}/${UPLOAD_BUCKET.localName}`)).status).toBe(403);
    const listQueues = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.ListQueues' }, body: '{}' });
    expect(listQueues.status).toBe(403);
    // The victim's import is untouched.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await call('GET', `/api/v2/sbom_imports/${victim.uuid}/`)).json).toMatchObject({ status: 'queued', summary: null });
  });

  it('takes a 12 MiB document (past the emulator\'s own 11 MiB) of the size it was signed for, and refuses one byte more', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Large' }, 'alice');
    const compact = JSON.stringify(cyclonedxNpm(PROJECT, packages(3, 'large-lib')));
    // The same document, padded with JSON whitespace to 12 MiB.
    const document = `${compact.slice(0, -1)}${' '.repeat(12 * 1024 * 1024 - Buffer.byteLength(compact))}}`;
    const started = await anUpload(product.uuid, Buffer.byteLength(document));
    const longer = await fetch(started.upload.url, { method: 'PUT', headers: { 'Content-Type': 'application/vnd.cyclonedx+json' }, body: `${document} ` });
    expect(longer.status).toBe(403);
    expect(await longer.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const put = await fetch(started.upload.url, { method: 'PUT', headers: started.upload.headers, body: document });
    expect(put.status).toBe(200);
    const record = await eventually(() => importOf(started.uuid), (found) => found.status === 'completed' || found.status === 'failed');
    expect(record).toMatchObject({ status: 'completed', summary: { components: 3, added: 3 } });
  });

  it('is good for one document: a PUT after the import completed is taken by S3, then ignored and its object removed', async () => {
    const product = await ok('POST', '/api/v2/products/', { name: 'Once' }, 'alice');
    const first = JSON.stringify(cyclonedxNpm(PROJECT, packages(2, 'once-lib')));
    const started = await anUpload(product.uuid, Buffer.byteLength(first));
    expect((await fetch(started.upload.url, { method: 'PUT', headers: started.upload.headers, body: first })).status).toBe(200);
    const done = await eventually(() => importOf(started.uuid), (found) => found.status === 'completed');
    const evaluated = await settled(product.uuid, 1, 2_000);
    // Another document of the same size, to the same URL, before it expires: S3 takes it, as on AWS.
    const second = first.replace('once-lib-0', 'evil-lib-0');
    expect(Buffer.byteLength(second)).toBe(Buffer.byteLength(first));
    expect((await fetch(started.upload.url, { method: 'PUT', headers: started.upload.headers, body: second })).status).toBe(200);
    const s3 = createS3Client({ region: 'us-east-1', endpoint: readRunningStack(stack.dataDir)!.sqsEndpoint });
    try {
      await eventually(
        async () => ((await s3.send(new ListObjectsV2Command({ Bucket: UPLOAD_BUCKET.localName, Prefix: `uploads/${started.uuid}` }))).Contents ?? []).length,
        (left) => left === 0,
      );
    } finally {
      s3.destroy();
    }
    expect(await importOf(started.uuid)).toEqual(done);
    expect((await ok('GET', `/api/v2/products/${product.uuid}/packages/?page_size=10`, undefined, 'alice')).results.map((p: { purl: string }) => p.purl).sort()).toEqual([
      'pkg:npm/once-lib-0@1.0.0',
      'pkg:npm/once-lib-1@1.0.0',
    ]);
    expect(await settled(product.uuid, evaluated, 2_000)).toBe(evaluated);
  });
});

describe('the evaluations an import causes', () => {
  it('are one for its product and one for another product holding a package it linked to a vulnerability', async () => {
    const holder = await ok('POST', '/api/v2/products/', { name: 'Holder' }, 'alice');
    const importer = await ok('POST', '/api/v2/products/', { name: 'Importer' }, 'alice');
    // Every evaluation a step must cause is waited for (atLeast) before the next step, never a quiet
    // window alone: in a loaded CI run the holder's baseline was read as 0 in a 2 s window that closed
    // before its creation's evaluation came; that evaluation then counted against the import ("expected 2 to be 1").
    // Creating a product evaluates it once.
    const [holderMade, importerBefore] = [await settled(holder.uuid, 1, 2_000), await settled(importer.uuid, 1, 2_000)];
    const shared: NpmPackage = { name: 'shared-lib', version: '2.0.0', license: 'MIT' };
    const first = await call('POST', `/api/v2/products/${holder.uuid}/load_sboms/`, undefined, 'alice');
    expect(first.status).toBe(415);
    const loaded = await fetch(`${stack.apiUrl}/api/v2/products/${holder.uuid}/load_sboms/`, {
      method: 'POST',
      headers: { authorization: `Token ${team.keys.alice}`, 'content-type': 'application/vnd.cyclonedx+json' },
      body: JSON.stringify(cyclonedxNpm(PROJECT, [shared])),
    });
    expect(loaded.status).toBe(200);
    // Loading into the holder after its first evaluation committed evaluates it once more.
    const holderBefore = await settled(holder.uuid, holderMade + 1, 2_000);
    const document = cyclonedxNpm(PROJECT, [...packages(40, 'importer-lib'), shared], {
      vulnerabilities: [{ id: 'CVE-2026-0001', score: 7.5, affects: ['shared-lib'], analysis: { state: 'in_triage' } }],
    });
    const record = await upload(importer.uuid, document);
    expect(record.summary).toMatchObject({ packages_created: 40, packages_matched: 1, vulnerabilities: 1, analyses: 1 });
    expect((await settled(importer.uuid, importerBefore + 1)) - importerBefore).toBe(1);
    expect((await settled(holder.uuid, holderBefore + 1, 1_000)) - holderBefore).toBe(1);
  });
});
