/**
 * The one infrastructure test that bundles for real (local esbuild, no Docker): every function becomes
 * an ES module asset with a source map, small enough, and the bundle runs on this Node.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { logicalId, synthesize, type Synthesized } from './helpers.ts';
import { REFERENCE_DATA_FILE } from '../../shared/reference/scancode-licensedb.ts';
import { RULES_DATA_FILE } from '../../shared/reference/scancode-rules.ts';
import { TEXTS_DATA_FILE } from '../../shared/reference/scancode-texts.ts';
import { CYCLONEDX_SCHEMA_FOLDER, cyclonedxSchemaFiles, VENDORED_SCHEMA_FILES } from '../../shared/sbom/schema-validation.ts';
import { XML_VALIDATOR_FILES, XML_VALIDATOR_MODULE } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { useTestTable } from '../support/environment.ts';
import { aUserWithKey } from '../support/factories.ts';
import { bundleBudget, readsSboms } from '../../bench/lib/bundle-budget.ts';

const names = Object.keys(FUNCTIONS) as FunctionName[];
let outdir: string;
let synth: Synthesized;

// Bundling every function, one esbuild run each: 39 s on an idle machine (27 functions), 148 s in a
// fresh-clone run beside a second suite (2026-11-29), past the 120 s hook timeout of the rest.
beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'compliance-cdk-'));
  synth = synthesize({}, { bundle: true, outdir });
}, 300_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

function bundleOf(name: FunctionName): string {
  const id = logicalId(synth.stack, synth.stack.functions[name].function);
  const key = synth.template.toJSON().Resources[id].Properties.Code.S3Key as string;
  return path.join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
}

describe('bundled functions', () => {
  it.each(names)('%s is a minified ES module with the createRequire banner and a source map', (name) => {
    const bundle = bundleOf(name);
    const code = readFileSync(bundle, 'utf8');
    expect(code.startsWith("import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);")).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    expect(statSync(`${bundle}.map`).size).toBeGreaterThan(0);
    expect(statSync(bundle).size).toBeLessThan(bundleBudget(name));
  });

  it.each(names.filter(readsSboms))(
    '%s has the CycloneDX, SPDX 3 and OpenVEX schemas and the XML validator beside its bundle, where the SBOM reader looks for them',
    (name) => {
      for (const file of cyclonedxSchemaFiles()) {
        const copy = path.join(path.dirname(bundleOf(name)), CYCLONEDX_SCHEMA_FOLDER, file);
        const source = path.join(import.meta.dirname, '..', '..', 'node_modules', '@cyclonedx', 'cyclonedx-library', 'res', 'schema', file);
        expect(readFileSync(copy).equals(readFileSync(source)), file).toBe(true);
      }
      // The schemas this repository vendors, in the same folder; the XML validator in node_modules beside the bundle.
      for (const file of VENDORED_SCHEMA_FILES) {
        const copy = path.join(path.dirname(bundleOf(name)), CYCLONEDX_SCHEMA_FOLDER, file);
        expect(readFileSync(copy).equals(readFileSync(path.join(import.meta.dirname, '..', '..', 'shared', 'sbom', file))), file).toBe(true);
      }
      for (const file of XML_VALIDATOR_FILES) {
        const copy = path.join(path.dirname(bundleOf(name)), 'node_modules', XML_VALIDATOR_MODULE, file);
        expect(readFileSync(copy).equals(readFileSync(path.join(import.meta.dirname, '..', '..', 'node_modules', XML_VALIDATOR_MODULE, file))), file).toBe(true);
      }
    },
  );

  it.each(names)('%s has the reference license data and the rules index beside its bundle, as the source tree has them', (name) => {
    for (const file of [REFERENCE_DATA_FILE, RULES_DATA_FILE]) {
      const copy = path.join(path.dirname(bundleOf(name)), file);
      expect(readFileSync(copy).equals(readFileSync(path.join(import.meta.dirname, '..', '..', 'shared', 'reference', file))), file).toBe(true);
    }
  });

  it.each(names)('%s has the license texts beside its bundle only if it serves them', (name) => {
    const copy = path.join(path.dirname(bundleOf(name)), TEXTS_DATA_FILE);
    const serves = (FUNCTIONS[name] as { servesLicenseTexts?: true }).servesLicenseTexts === true;
    expect(existsSync(copy)).toBe(serves);
    if (serves) expect(readFileSync(copy).equals(readFileSync(path.join(import.meta.dirname, '..', '..', 'shared', 'reference', TEXTS_DATA_FILE)))).toBe(true);
  });

  it('the catalog bundle reads the data from beside itself, and holds none of it', () => {
    const code = readFileSync(bundleOf('catalog'), 'utf8');
    // (toBe on includes: a failed toContain would print the whole bundle.)
    expect(code.includes(REFERENCE_DATA_FILE)).toBe(true);
    expect(code.includes('389 Directory Server Exception to GPL 2.0')).toBe(false);
    expect(code.includes(RULES_DATA_FILE)).toBe(true);
    expect(code.includes('bsd-3-clause-no-nuclear-warranty_9.RULE')).toBe(false);
  });

  it('runs: the catalog function answers a reference license, and resolves a license name with ScanCode\'s rules, from the data beside its bundle', async () => {
    const env = await useTestTable();
    const { apiKey } = await aUserWithKey(env, { isSuperuser: true });
    const { handler } = (await import(pathToFileURL(bundleOf('catalog')).href)) as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
    };
    const path = '/api/v2/reference_licenses/MIT/';
    const event = {
      version: '2.0',
      routeKey: 'GET /api/v2/reference_licenses/{key}',
      rawPath: path,
      rawQueryString: '',
      headers: { host: 'api.example.com', authorization: `Token ${apiKey}` },
      pathParameters: { key: 'MIT' },
      requestContext: {
        http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
        requestId: 'test-request',
        routeKey: 'GET /api/v2/reference_licenses/{key}',
        stage: '$default',
        domainName: 'api.example.com',
      },
      isBase64Encoded: false,
    };
    const context = { awsRequestId: 'test-request', functionName: 'catalog', getRemainingTimeInMillis: () => 5_000 };
    const response = await handler(event, context);
    expect(response.statusCode, response.body).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ key: 'mit', spdx_license_key: 'MIT', category: 'Permissive' });
    // Its text is read from the texts file beside the bundle.
    expect(JSON.parse(response.body).text).toMatch(/^Permission is hereby granted/);

    // ScanCode's rules index is read from beside the bundle too: a Maven-style name resolves (superuser writes).
    const packagesPath = '/api/v2/packages/';
    const body = JSON.stringify({ type: 'maven', namespace: 'org.example', name: 'bundled', version: '1.0', declared_license_expression: 'ALv2' });
    const write = {
      version: '2.0',
      routeKey: 'POST /api/v2/packages',
      rawPath: packagesPath,
      rawQueryString: '',
      headers: { host: 'api.example.com', authorization: `Token ${apiKey}`, 'content-type': 'application/json' },
      body,
      requestContext: {
        http: { method: 'POST', path: packagesPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
        requestId: 'test-request-rules',
        routeKey: 'POST /api/v2/packages',
        stage: '$default',
        domainName: 'api.example.com',
      },
      isBase64Encoded: false,
    };
    const writeContext = { awsRequestId: 'test-request-rules', functionName: 'catalog', getRemainingTimeInMillis: () => 5_000 };
    const written = await handler(write, writeContext);
    expect(written.statusCode, written.body).toBe(201);
    expect(JSON.parse(written.body)).toMatchObject({
      license_expression: 'apache-2.0',
      unknown_licenses: [],
      resolved_from: [{ written: 'ALv2', license_expression: 'apache-2.0', by: 'name', rule: 'apache-2.0_388.RULE' }],
    });
    });

  it('runs: the $default function answers 404 for an unknown path', async () => {
    const { handler } = (await import(pathToFileURL(bundleOf('not-found')).href)) as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
    };
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/no/such/path/',
      rawQueryString: '',
      headers: { host: 'api.example.com' },
      requestContext: {
        http: { method: 'GET', path: '/no/such/path/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
        requestId: 'test-request',
        routeKey: '$default',
        stage: '$default',
        domainName: 'api.example.com',
      },
      isBase64Encoded: false,
    };
    const context = { awsRequestId: 'test-request', functionName: 'not-found', getRemainingTimeInMillis: () => 5_000 };
    const response = await handler(event, context);
    expect(response.statusCode).toBe(404);
  });
});
