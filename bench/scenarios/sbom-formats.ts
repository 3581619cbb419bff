/**
 * CycloneDX XML import against JSON import of the same document: a 10,000-component CycloneDX 1.6
 * document shaped like cyclonedx-npm's output (the sbom import scenario's), written as JSON and, by the
 * service's own XML writer, as XML; each uploaded (POST sbom_uploads, the object in the stack's S3)
 * into a product of its own dataspace, so that both create their 10,000 packages, and imported by the
 * import function in a fresh Node process, as Lambda runs it. The import runs against a table of its own
 * without a stream (the product's and the import's items copied there): the stream's work after an
 * import (40,000 records for the router and the audit trail) is the pipeline's, the same for both
 * formats, and on DynamoDB Local it took longer than the imports themselves and loaded the machine
 * under the next one. The XML import's time over the JSON import's (target ≤ 1.3), run JSON, XML,
 * XML, JSON and taken as the sums, so that neither gains from going first; then each imported again,
 * which writes nothing: the reading and planning alone, XML over JSON (no target: it shows where the
 * difference is).
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { callApi } from '../lib/api.ts';
import { benchDocumentClient, createUserWithKey, writeAll } from '../lib/seed.ts';
import { ensureTable } from '../../bin/local/table-setup.ts';
import { createDynamoControlClient } from '../../shared/aws/clients.ts';
import { cyclonedxNpm } from '../../test/support/cyclonedx-npm.ts';
import { cyclonedxXml } from '../../shared/sbom/write-cyclonedx-xml.ts';
import type { CycloneDxDocument } from '../../shared/sbom/write-cyclonedx.ts';
import { keys } from '../../shared/keys.ts';
import { partitionQueryInput, queryAll } from '../../shared/store/dynamo.ts';
import { generatedPackages, runImportProcess, upload } from './sbom-import.ts';

const NAME = 'sbom formats';
const COMPONENTS = 10_000;
type Encoding = 'json' | 'xml';

export const sbomFormats: Scenario = {
  name: NAME,
  async run(context) {
    const { log } = context;
    const doc = benchDocumentClient(context);
    const tableName = `${context.tableName}-formats`;
    await ensureTable({ region: context.region, endpoint: context.dynamodbEndpoint }, tableName, { stream: false });
    try {
      const document = cyclonedxNpm({ name: 'bench-formats', version: '1.0.0' }, generatedPackages(COMPONENTS));
      const encodings: Record<Encoding, { body: string; type: string }> = {
        json: { body: JSON.stringify(document), type: 'application/vnd.cyclonedx+json' },
        xml: { body: cyclonedxXml(document as unknown as CycloneDxDocument, '1.6'), type: 'application/vnd.cyclonedx+xml' },
      };
      log(`document: ${COMPONENTS.toLocaleString('en-US')} components, ${(encodings.json.body.length / 1024 / 1024).toFixed(1)} MB of JSON, ${(encodings.xml.body.length / 1024 / 1024).toFixed(1)} MB of XML`);

      /** One import of `encoding` into a new product of a new dataspace (first) or into `product` again: its time. */
      const importOnce = async (encoding: Encoding, product?: { key: string; uuid: string }) => {
        let target = product;
        if (!target) {
          const dataspace = `bench-formats-${encoding}-${randomUUID().slice(0, 8)}`;
          const key = await createUserWithKey(doc, context.tableName, { username: `${dataspace}-owner`, dataspace, isSuperuser: true });
          target = { key, uuid: String((await callApi(context, key, 'POST', '/api/v2/products/', { name: `SBOM formats bench (${encoding})` }, 201)).uuid) };
        }
        const { body, type } = encodings[encoding];
        const uploaded = await upload(context, target.key, target.uuid, body, type);
        // The new product and the queued import, copied into the stream-less table the import runs against
        // (the product once: the import function keeps it there from then on).
        const items = [
          ...(product ? [] : (await queryAll(doc, { ...partitionQueryInput(context.tableName, keys.productPartition(target.uuid)), ConsistentRead: true })).filter((item) => item.entity === 'Product')),
          (await doc.send(new GetCommand({ TableName: context.tableName, Key: keys.sbomImport(uploaded.uuid), ConsistentRead: true }))).Item!,
        ];
        await writeAll(doc, tableName, items);
        const run = await runImportProcess(context, uploaded.uuid, uploaded.key, Buffer.byteLength(body), tableName);
        const record = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.sbomImport(uploaded.uuid), ConsistentRead: true }))).Item!;
        const summary = record.summary as { packagesCreated?: number; packagesMatched?: number; packages_created?: number; packages_matched?: number } | undefined;
        const done = (product ? (summary?.packagesMatched ?? summary?.packages_matched) : (summary?.packagesCreated ?? summary?.packages_created)) === COMPONENTS;
        if (record.status !== 'completed' || !done) throw new Error(`${encoding} import: ${JSON.stringify(record).slice(0, 800)}`);
        log(`${encoding} import (${product ? 'again' : 'new'}): ${(run.durationMs / 1000).toFixed(1)} s, peak RSS ${(run.maxRssBytes / 1024 / 1024).toFixed(0)} MB`);
        return { target, ...run };
      };

      const first: Record<Encoding, number[]> = { json: [], xml: [] };
      const again: Record<Encoding, number[]> = { json: [], xml: [] };
      const rss: Record<Encoding, number> = { json: 0, xml: 0 };
      for (const encoding of ['json', 'xml', 'xml', 'json'] as const) {
        const created = await importOnce(encoding);
        first[encoding].push(created.durationMs);
        rss[encoding] = Math.max(rss[encoding], created.maxRssBytes);
        again[encoding].push((await importOnce(encoding, created.target)).durationMs);
      }
      const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
      const ratio = sum(first.xml) / sum(first.json);
      const readRatio = sum(again.xml) / sum(again.json);
      const seconds = (values: number[]) => values.map((value) => `${(value / 1000).toFixed(1)}`).join(' and ');
      const figures: BenchFigure[] = [
        {
          scenario: NAME,
          figure: `CycloneDX XML import of ${COMPONENTS.toLocaleString('en-US')} new components / the JSON import of the same document`,
          value: ratio,
          target: '≤ 1.3',
          met: ratio <= 1.3,
          unit: 'ratio',
          note:
            `XML ${seconds(first.xml)} s (${(encodings.xml.body.length / 1024 / 1024).toFixed(1)} MB: parsed by saxes, checked against the 1.6 XSD in a worker meanwhile), ` +
            `JSON ${seconds(first.json)} s (${(encodings.json.body.length / 1024 / 1024).toFixed(1)} MB), run JSON, XML, XML, JSON; each the import function's work in a fresh process, ` +
            `from S3 to the last of its 40,000 writes, into a new dataspace, against a table without a stream; peak RSS ${(rss.xml / 1024 / 1024).toFixed(0)} MB against ${(rss.json / 1024 / 1024).toFixed(0)} MB`,
        },
        {
          scenario: NAME,
          figure: `CycloneDX XML re-import of ${COMPONENTS.toLocaleString('en-US')} components (nothing written) / the JSON re-import`,
          value: readRatio,
          target: 'none (where the difference is)',
          met: true,
          unit: 'ratio',
          note: `XML ${seconds(again.xml)} s, JSON ${seconds(again.json)} s: reading the document, the product and the catalog, and planning; no write`,
        },
      ];
      return figures;
    } finally {
      doc.destroy();
      const control = createDynamoControlClient({ region: context.region, endpoint: context.dynamodbEndpoint });
      await control.send(new DeleteTableCommand({ TableName: tableName })).catch((error: unknown) => log(`could not delete ${tableName}: ${String(error)}`));
      control.destroy();
    }
  },
};
