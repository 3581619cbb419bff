/**
 * SBOM reading in a Lambda bundle: bundled with the service's esbuild options (the cold-start
 * scenario's, which test/unit/bench-cold-start.test.ts holds to the CDK construct's), the reader finds
 * the CycloneDX schemas in a `cyclonedx-schemas` folder beside the bundle, with no node_modules.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOptions } from '../../bench/scenarios/cold-start.ts';
import { XML_VALIDATOR_FILES, XML_VALIDATOR_MODULE } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { cyclonedxSchemaFiles, VENDORED_SCHEMA_FILES } from '../../shared/sbom/schema-validation.ts';
import { SBOM_FIXTURES } from '../support/sbom-documents.ts';

const folder = mkdtempSync(join(tmpdir(), 'sbom-bundle-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const LIBRARY_SCHEMAS = join(dirname(createRequire(import.meta.url).resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
const DOCUMENTS = ['npm-sbom-prod.spdx.json', 'npm-sbom-prod.cdx.json', 'cyclonedx-npm-1.2-prod.cdx.json', 'schema-invalid.cdx.json', 'cyclonedx-gomod-proton-bridge-1.8.0.cdx.xml', 'spdx3/spdx-examples-example9-appbomination.spdx3.json', 'openvex/vexctl-demo.openvex.json'].map(
  (name) => SBOM_FIXTURES + name,
);
const VALIDATOR = join(dirname(createRequire(import.meta.url).resolve(`${XML_VALIDATOR_MODULE}/package.json`)));

describe('readSbom bundled for Lambda', () => {
  it('reads both formats, JSON and XML, with the schemas and the XML validator beside the bundle, and fails loudly without them', async () => {
    const bundle = join(folder, 'index.mjs');
    await build({ ...bundleOptions('test/support/sbom-bundle-entry.ts', bundle), logLevel: 'error' });

    // Without the folder (and no node_modules above /tmp) the CycloneDX schemas cannot be found.
    const without = spawnSync(process.execPath, ['--no-deprecation', bundle, DOCUMENTS[1]!], { cwd: folder, encoding: 'utf8' });
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain("Cannot find module '@cyclonedx/cyclonedx-library/package.json'");

    mkdirSync(join(folder, 'cyclonedx-schemas'));
    for (const file of cyclonedxSchemaFiles()) copyFileSync(join(LIBRARY_SCHEMAS, file), join(folder, 'cyclonedx-schemas', file));
    for (const file of VENDORED_SCHEMA_FILES) copyFileSync(join(import.meta.dirname, '..', '..', 'shared', 'sbom', file), join(folder, 'cyclonedx-schemas', file));
    // As ServiceFunction's afterBundling hook does: the XML validator, kept out of the bundle, beside it.
    mkdirSync(join(folder, 'node_modules', XML_VALIDATOR_MODULE), { recursive: true });
    for (const file of XML_VALIDATOR_FILES) copyFileSync(join(VALIDATOR, file), join(folder, 'node_modules', XML_VALIDATOR_MODULE, file));
    const output = execFileSync(process.execPath, ['--no-deprecation', bundle, ...DOCUMENTS], { cwd: folder, encoding: 'utf8' });
    expect(output.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { format: 'spdx', components: 34 },
      { format: 'cyclonedx', components: 34 },
      { format: 'cyclonedx', components: 89 },
      { ok: false, status: 400, errors: { input_file: expect.arrayContaining(['/components/1/purl: must be string']) } },
      { format: 'cyclonedx', components: 201 },
      { format: 'spdx', components: 6 },
      { format: 'openvex', components: 0 },
    ]);
  });
});
