/**
 * Cold start: each function of shared/functions.ts bundled the way the CDK ServiceFunction bundles it
 * (lib/constructs/service-function.ts), then its size, and the time a fresh Node process takes to
 * import the bundle, which is the part of a Lambda cold start the code controls.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { QUEUES } from '../../shared/resources.ts';
import { REFERENCE_DATA_FILE } from '../../shared/reference/scancode-licensedb.ts';
import { XML_VALIDATOR_MODULE } from '../../shared/sbom/cyclonedx-xml-schema.ts';
import { median } from '../lib/load.ts';
import type { BenchFigure } from '../lib/results.ts';
import type { Scenario } from '../lib/scenario.ts';
import { bundleBudget, readsSboms } from '../lib/bundle-budget.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NAME = 'cold start';
const MAX_IMPORT_MS = 200;
const RUNS = 5;

/** The banner of ServiceFunction's bundling options; test/unit/bench-cold-start.test.ts keeps the two equal. */
export const BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * ServiceFunction's `bundling` props as the esbuild options NodejsFunction turns them into
 * (aws-cdk-lib/aws-lambda-nodejs, Bundling.buildEsbuildArgs): every dependency bundled (bundleAwsSDK,
 * no externals), ES module output, minified, an external source map without sources.
 */
export function bundleOptions(entry: string, outfile: string): BuildOptions {
  return {
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [join(PROJECT_ROOT, entry)],
    bundle: true,
    target: 'node22',
    platform: 'node',
    format: 'esm',
    outfile,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: BANNER },
    external: [XML_VALIDATOR_MODULE],
    write: true,
    logLevel: 'warning',
  };
}

/**
 * The environment of a deployed function, with dummy values: what bindTable/bindQueue/bindEventBus
 * and the construct set. Configuration is read at module load, so a missing variable fails the import.
 */
function lambdaEnvironment(name: FunctionName): NodeJS.ProcessEnv {
  const queueUrls = Object.fromEntries(
    Object.values(QUEUES).map((queue) => [queue.urlEnvVar, `https://sqs.us-east-1.amazonaws.com/000000000000/bench-${queue.localName}`]),
  );
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_LAMBDA_FUNCTION_NAME: name,
    TABLE_NAME: 'bench',
    EVENT_BUS_NAME: 'bench-events',
    ...queueUrls,
    POWERTOOLS_SERVICE_NAME: name,
    NODE_OPTIONS: '--enable-source-maps',
  };
}

const IMPORT_TIMER =
  'const started = performance.now(); const module = await import(process.argv[1]);' +
  " if (typeof module.handler !== 'function') throw new Error('no handler export');" +
  ' console.log(performance.now() - started);';

/** Milliseconds a fresh Node process spends importing `file`. */
function importTime(file: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveTime, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = Number(stdout.trim().split('\n').at(-1));
      if (code !== 0 || !Number.isFinite(ms)) reject(new Error(`Importing ${file} failed (exit ${code}): ${stderr || stdout}`));
      else resolveTime(ms);
    });
  });
}

export const coldStart: Scenario = {
  name: NAME,
  async run({ log }) {
    const outdir = mkdtempSync(join(tmpdir(), 'compliance-bench-bundles-'));
    try {
      const figures: BenchFigure[] = [];
      for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
        const outfile = join(outdir, name, 'index.mjs');
        await build(bundleOptions(FUNCTIONS[name].entry, outfile));
        // As ServiceFunction's afterBundling hook does: the reference license data beside the bundle.
        copyFileSync(join(PROJECT_ROOT, 'shared', 'reference', REFERENCE_DATA_FILE), join(outdir, name, REFERENCE_DATA_FILE));
        const bytes = statSync(outfile).size;
        const mapBytes = statSync(`${outfile}.map`).size;
        const sbomReader = readsSboms(name);
        const maxBytes = bundleBudget(name);

        const env = lambdaEnvironment(name);
        const importTimes = async (environment: NodeJS.ProcessEnv) => {
          const runs: number[] = [];
          for (let run = 0; run < RUNS; run += 1) runs.push(await importTime(outfile, environment));
          return runs;
        };
        const times = await importTimes(env);
        const ms = median(times);
        // Under active tracing (the stack's functions run with it) Lambda names its X-Ray daemon, and the
        // function loads the Tracer and the X-Ray SDK at import.
        const tracedTimes = await importTimes({ ...env, AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000' });
        const tracedMs = median(tracedTimes);
        log(`${name}: ${bytes} bytes, import ${ms.toFixed(1)} ms (runs: ${times.map((t) => t.toFixed(1)).join(', ')}), under active tracing ${tracedMs.toFixed(1)} ms`);

        figures.push(
          {
            scenario: NAME,
            figure: `${name} bundle size`,
            value: bytes,
            unit: 'bytes',
            target: `< ${(maxBytes / 1024 / 1024).toFixed(2)} MB`,
            met: bytes < maxBytes,
            note: `minified ES module, all dependencies bundled; source map beside it: ${mapBytes} bytes${sbomReader ? '; it reads SBOMs (Ajv, the CycloneDX library), hence 1 MB + 256 kB' : ''}, and 160 kB for the tracer (Powertools' Tracer, the X-Ray SDK)`,
          },
          {
            scenario: NAME,
            figure: `${name} import time`,
            value: ms,
            unit: 'ms',
            target: `< ${MAX_IMPORT_MS} ms`,
            met: ms < MAX_IMPORT_MS,
            note: `median of ${RUNS} fresh node processes with --enable-source-maps (range ${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} ms), without active tracing`,
          },
          {
            scenario: NAME,
            figure: `${name} import time under active tracing`,
            value: tracedMs,
            unit: 'ms',
            target: `< ${MAX_IMPORT_MS} ms`,
            met: tracedMs < MAX_IMPORT_MS,
            note: `as above with AWS_XRAY_DAEMON_ADDRESS set, as Lambda sets it under active tracing (the stack's default): the Tracer and the X-Ray SDK load at import (range ${Math.min(...tracedTimes).toFixed(1)}–${Math.max(...tracedTimes).toFixed(1)} ms)`,
          },
        );
      }
      return figures;
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  },
};
