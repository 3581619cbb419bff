/**
 * CycloneDX XML import against JSON import of the same document, on the local stack: a 10,000-component
 * CycloneDX 1.6 document shaped like cyclonedx-npm's output (the sbom import scenario's), written as JSON
 * and, by the service's own XML writer, as XML; each uploaded into a product of its own dataspace (so
 * both create their 10,000 packages) and imported by the import function in a fresh Node process, as
 * Lambda runs it. The XML import's time over the JSON import's (target ≤ 1.3); then each imported
 * again, which writes nothing: the reading and planning alone, XML over JSON (no target: it shows where
 * the difference is). The stream's work of each import is let drain before the next one starts.
 */
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { callApi } from '../lib/api.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { cyclonedxNpm } from '../../test/support/cyclonedx-npm.ts';
import { cyclonedxXml } from '../../shared/sbom/write-cyclonedx-xml.ts';
import type { CycloneDxDocument } from '../../shared/sbom/write-cyclonedx.ts';
import { drained, generatedPackages, runImportProcess, upload } from './sbom-import.ts';

const NAME = 'sbom formats';
const COMPONENTS = 10_000;

export const sbomFormats: Scenario = {
  name: NAME,
  async run(context) {
    const { tableName, log } = context;
    const doc = benchDocumentClient(context);
    try {
      const document = cyclonedxNpm({ name: 'bench-formats', version: '1.0.0' }, generatedPackages(COMPONENTS));
      const encodings = {
        json: { body: JSON.stringify(document), type: 'application/vnd.cyclonedx+json' },
        xml: { body: cyclonedxXml(document as unknown as CycloneDxDocument, '1.6'), type: 'application/vnd.cyclonedx+xml' },
      };
      log(`document: ${COMPONENTS.toLocaleString('en-US')} components, ${(encodings.json.body.length / 1024 / 1024).toFixed(1)} MB of JSON, ${(encodings.xml.body.length / 1024 / 1024).toFixed(1)} MB of XML`);
      const runs: Record<'json' | 'xml', { first: number; again: number; rss: number }> = { json: { first: 0, again: 0, rss: 0 }, xml: { first: 0, again: 0, rss: 0 } };
      // JSON first: the table then holds the JSON import's items when the XML one runs (the slower case for XML).
      for (const encoding of ['json', 'xml'] as const) {
        const dataspace = `bench-formats-${encoding}`;
        const key = await createUserWithKey(doc, tableName, { username: `bench-formats-${encoding}`, dataspace, isSuperuser: true });
        const product = String((await callApi(context, key, 'POST', '/api/v2/products/', { name: `SBOM formats bench (${encoding})` }, 201)).uuid);
        const sentinel = String((await callApi(context, key, 'POST', '/api/v2/products/', { name: `SBOM formats sentinel (${encoding})` }, 201)).uuid);
        await drained(context, doc, key, sentinel, 1);
        const { body, type } = encodings[encoding];
        for (const round of ['first', 'again'] as const) {
          const uploaded = await upload(context, key, product, body, type);
          const run = await runImportProcess(context, uploaded.uuid, uploaded.key, Buffer.byteLength(body));
          const record = await callApi(context, key, 'GET', `/api/v2/sbom_imports/${uploaded.uuid}/`, undefined, 200);
          const expected = round === 'first' ? record.summary?.packages_created : record.summary?.packages_matched;
          if (record.status !== 'completed' || expected !== COMPONENTS) throw new Error(`${encoding} import (${round}): ${JSON.stringify(record).slice(0, 800)}`);
          runs[encoding][round] = run.durationMs;
          if (round === 'first') runs[encoding].rss = run.maxRssBytes;
          log(`${encoding} import (${round}): ${(run.durationMs / 1000).toFixed(1)} s, peak RSS ${(run.maxRssBytes / 1024 / 1024).toFixed(0)} MB`);
          await drained(context, doc, key, sentinel, round === 'first' ? 2 : 3);
        }
      }
      const ratio = runs.xml.first / runs.json.first;
      const readRatio = runs.xml.again / runs.json.again;
      const figures: BenchFigure[] = [
        {
          scenario: NAME,
          figure: `CycloneDX XML import of ${COMPONENTS.toLocaleString('en-US')} new components / the JSON import of the same document`,
          value: ratio,
          target: '≤ 1.3',
          met: ratio <= 1.3,
          unit: 'ratio',
          note:
            `XML ${(runs.xml.first / 1000).toFixed(1)} s (${(encodings.xml.body.length / 1024 / 1024).toFixed(1)} MB: parsed by saxes, checked against the 1.6 XSD in a worker meanwhile), ` +
            `JSON ${(runs.json.first / 1000).toFixed(1)} s (${(encodings.json.body.length / 1024 / 1024).toFixed(1)} MB); each the import function's work in a fresh process, from S3 to the last write, ` +
            `into its own dataspace; peak RSS ${(runs.xml.rss / 1024 / 1024).toFixed(0)} MB against ${(runs.json.rss / 1024 / 1024).toFixed(0)} MB`,
        },
        {
          scenario: NAME,
          figure: `CycloneDX XML re-import of ${COMPONENTS.toLocaleString('en-US')} components (nothing written) / the JSON re-import`,
          value: readRatio,
          target: 'none (where the difference is)',
          met: true,
          unit: 'ratio',
          note: `XML ${(runs.xml.again / 1000).toFixed(1)} s, JSON ${(runs.json.again / 1000).toFixed(1)} s: reading the document, the product and the catalog, and planning; no write`,
        },
      ];
      return figures;
    } finally {
      doc.destroy();
    }
  },
};
