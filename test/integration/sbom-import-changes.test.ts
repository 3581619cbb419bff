/**
 * The table-stream records an SBOM import leaves behind, read from DynamoDB Local's stream and mapped
 * as the stream router maps them: however many items it writes, they ask for one evaluation of the
 * importing product (its record finishing), and one of each other product holding a package it
 * changed; an import that writes nothing asks for none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { collectStreamRecords } from '../support/stream-records.ts';
import { changeTargets } from '../../shared/domain/change-records.ts';
import { ChangeTargetResolver, changeRecordOf } from '../../shared/store/change-targets.ts';
import { cyclonedxNpm, type NpmPackage } from '../support/cyclonedx-npm.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } } });
let poller: { stop(): Promise<void> };
const seen: DynamoDBRecord[] = [];
let resolver: ChangeTargetResolver;
let marks = 0;

async function mark(): Promise<number> {
  const id = `MARK#${++marks}`;
  await http.env.doc.send(new PutCommand({ TableName: http.env.tableName, Item: { PK: id, SK: id } }));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const index = seen.findIndex((record) => record.dynamodb?.Keys?.PK?.S === id);
    if (index >= 0) return index;
    if (Date.now() > deadline) throw new Error(`marker ${id} never came through the stream`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The products each record `action` leaves behind asks to evaluate, record by record (not deduplicated
 * within a batch, as the router would), and how many records it left.
 */
async function evaluationsAskedBy(action: () => Promise<unknown>): Promise<{ products: string[]; records: number }> {
  const start = await mark();
  await action();
  const end = await mark();
  const records = seen.slice(start + 1, end);
  const products: string[] = [];
  for (const record of records) products.push(...(await resolver.products(changeTargets(changeRecordOf(record)))).map((p) => p.uuid));
  return { products: products.sort(), records: records.length };
}

const load = async (product: string, document: unknown, query = '') => {
  const response = await http.api.call('POST', `/api/v2/products/${product}/load_sboms/${query}`, {
    token: http.team.keys.alice,
    headers: { 'content-type': 'application/vnd.cyclonedx+json' },
    body: JSON.stringify(document),
  });
  expect(response.status, response.text).toBe(200);
  return response.json;
};

const libs = (count: number, prefix: string): NpmPackage[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i}`, version: '1.0.0', license: 'MIT', dependsOn: i > 0 ? [`${prefix}-${i - 1}`] : [] }));

beforeAll(async () => {
  resolver = new ChangeTargetResolver(http.env.doc, http.env.tableName);
  poller = collectStreamRecords(http.env.tableName, seen);
});
afterAll(async () => {
  await poller?.stop();
});

describe('the change records of an SBOM import', () => {
  it('ask for one evaluation of the product, whatever it adds, removes or triages', async () => {
    const product = (await http.call('alice', 'POST', '/api/v2/products/', { name: 'Imported' })).json.uuid as string;
    const document = cyclonedxNpm({ name: 'app', version: '1.0.0' }, libs(60, 'first'), {
      vulnerabilities: [{ id: 'CVE-2026-1111', score: 9.1, affects: ['first-3'], analysis: { state: 'exploitable' } }],
    });
    const first = await evaluationsAskedBy(() => load(product, document));
    // Packages, reservations, product packages, pointers, the vulnerability, links, analysis, the record...
    expect(first.records).toBeGreaterThan(240);
    expect(first.products).toEqual([product]);
    // Replace with another document: 60 removed (with the analysis), 30 added.
    const replaced = await evaluationsAskedBy(() => load(product, cyclonedxNpm({ name: 'app', version: '1.0.0' }, libs(30, 'second'))));
    expect(replaced.products).toEqual([product]);
    // Again: no write, no evaluation.
    const again = await evaluationsAskedBy(() => load(product, cyclonedxNpm({ name: 'app', version: '1.0.0' }, libs(30, 'second'))));
    expect(again.products).toEqual([]);
  });

  it('ask for one evaluation of another product holding a package the import changed', async () => {
    const holder = (await http.call('alice', 'POST', '/api/v2/products/', { name: 'Holder' })).json.uuid as string;
    const importer = (await http.call('alice', 'POST', '/api/v2/products/', { name: 'Importer' })).json.uuid as string;
    const shared = libs(5, 'shared');
    await load(holder, cyclonedxNpm({ name: 'holder', version: '1.0.0' }, shared));
    const document = cyclonedxNpm({ name: 'importer', version: '1.0.0' }, [...shared, ...libs(20, 'own')], {
      vulnerabilities: [{ id: 'CVE-2026-2222', score: 5, affects: ['shared-0', 'shared-1', 'shared-2'] }],
    });
    const { products } = await evaluationsAskedBy(() => load(importer, document));
    // Three packages the holder holds were linked: three records for it (the router asks once per batch).
    expect(products.filter((uuid) => uuid === importer)).toEqual([importer]);
    expect(new Set(products.filter((uuid) => uuid !== importer))).toEqual(new Set([holder]));
  });
});
