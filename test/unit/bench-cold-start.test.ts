/**
 * The cold-start scenario bundles the functions itself (esbuild's API) instead of through CDK, so its
 * options must stay those of lib/constructs/service-function.ts: this test reads the construct's
 * bundling props and fails when the two drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BANNER, bundleOptions } from '../../bench/scenarios/cold-start.ts';
import { XML_VALIDATOR_MODULE } from '../../shared/sbom/cyclonedx-xml-schema.ts';

const construct = readFileSync(join(import.meta.dirname, '..', '..', 'lib', 'constructs', 'service-function.ts'), 'utf8');
const bundling = /bundling: \{([\s\S]*?)\n {6}\},/.exec(construct)?.[1] ?? '';

describe('the cold-start bundle options', () => {
  const options = bundleOptions('functions/not-found.ts', '/tmp/out/index.mjs');

  it('found the bundling props of ServiceFunction', () => {
    expect(bundling).toContain('format:');
  });

  it.each([
    ['banner', `banner: ${JSON.stringify(BANNER)}`],
    ['format', 'format: OutputFormat.ESM'],
    ['target', `target: '${String(options.target)}'`],
    ['mainFields', `mainFields: ${JSON.stringify(options.mainFields).replaceAll('"', "'").replaceAll(',', ', ')}`],
    ['minify', `minify: ${String(options.minify)}`],
    ['sourceMap', `sourceMap: ${String(options.sourcemap)}`],
    ['sourcesContent', `sourcesContent: ${String(options.sourcesContent)}`],
    ['bundleAwsSDK', 'bundleAwsSDK: true'],
    ['externalModules', 'externalModules: [XML_VALIDATOR_MODULE]'],
  ])('%s matches the construct', (_name, line) => {
    expect(bundling).toContain(line);
  });

  it('bundles every dependency but the XML schema validator into one ES module for Node', () => {
    expect(options).toMatchObject({ bundle: true, platform: 'node', format: 'esm', write: true, banner: { js: BANNER } });
    expect(options.external).toEqual([XML_VALIDATOR_MODULE]);
  });
});
