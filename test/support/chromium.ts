/**
 * The browser of the browser tests comes from the npm registry: `@sparticuz/chromium` ships a headless
 * Chromium inside the package (Brotli-compressed, about 67 MB), so `npm ci` is the whole set-up and no
 * OS package is needed. `CHROMIUM_PATH` may name another Chromium instead.
 *
 * The package unpacks itself into os.tmpdir() and answers "already there" as soon as the binary's file
 * exists, even half-written, so two test runs side by side raced on it (spawn ETXTBSY). Here it unpacks
 * once per version into a folder of its own under node_modules/.cache: each process unpacks into a
 * private staging folder and renames it into place, which is atomic; a process that loses the race
 * drops its copy and uses the winner's. A folder that exists is complete.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium as playwright, type Browser } from 'playwright-core';
import { repositoryRoot } from './npm-start.ts';

const PACKAGE_DIR = join(repositoryRoot, 'node_modules', '@sparticuz', 'chromium');
const STAGING_PREFIX = '.unpacking-';
/** A staging folder this old belongs to a run that was killed mid-unpack (unpacking takes seconds). */
const STALE_STAGING_MS = 60 * 60 * 1000;

export const DEFAULT_CACHE_DIR = join(repositoryRoot, 'node_modules', '.cache', 'sparticuz-chromium');

export interface ChromiumOptions {
  /** Where the unpacked browser is kept (default: node_modules/.cache/sparticuz-chromium). */
  readonly cacheDir?: string;
}

/** The Chromium to launch: CHROMIUM_PATH if set, else the npm package's, unpacked on first use. */
export async function chromiumExecutable(options: ChromiumOptions = {}): Promise<string> {
  const override = process.env.CHROMIUM_PATH;
  if (override) {
    if (!existsSync(override)) throw new Error(`CHROMIUM_PATH names no file: ${override}`);
    return override;
  }
  const cacheDir = options.cacheDir ?? DEFAULT_CACHE_DIR;
  const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
  const unpacked = join(cacheDir, `chromium-${version}`);
  const executable = join(unpacked, 'chromium');
  if (existsSync(executable)) return executable;

  mkdirSync(cacheDir, { recursive: true });
  removeStaleStaging(cacheDir);
  const staging = mkdtempSync(join(cacheDir, `${STAGING_PREFIX}${version}-`));
  try {
    await unpackInto(staging);
    try {
      renameSync(staging, unpacked);
    } catch (error) {
      // Another process renamed its complete copy into place first: use that one.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !existsSync(executable)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return executable;
}

/**
 * Runs the package's own unpacking (the browser, its fonts, SwiftShader) in a child process whose
 * os.tmpdir() is `dir`, so it writes nowhere else.
 */
function unpackInto(dir: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: dir };
  // These make the package believe it runs on Lambda and unpack Amazon Linux libraries too.
  for (const name of ['AWS_EXECUTION_ENV', 'AWS_LAMBDA_JS_RUNTIME', 'CODEBUILD_BUILD_IMAGE', 'VERCEL']) delete env[name];
  const script = 'const { default: chromium } = await import(process.argv[1]); await chromium.executablePath();';
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, join(PACKAGE_DIR, 'build', 'index.js')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code, signal) => {
      if (code === 0 && existsSync(join(dir, 'chromium'))) done();
      else fail(new Error(`Unpacking @sparticuz/chromium failed (exit ${code ?? signal}): ${stderr}`));
    });
  });
}

function removeStaleStaging(cacheDir: string): void {
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const path = join(cacheDir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_STAGING_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}

/**
 * Flags for a desktop test run, not the package's `chromium.args`: those are for Lambda
 * (--single-process, --no-zygote, --in-process-gpu, and --disable-web-security with site isolation
 * off, which would hide the very browser protections the console relies on). The background-
 * networking flags keep Chromium from calling Google's hosts, which this machine's closed network
 * refuses many at a time.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--no-pings',
];

/** Launches headless Chromium (see chromiumExecutable) with CHROMIUM_ARGS. */
export async function launchChromium(options: ChromiumOptions = {}): Promise<Browser> {
  return playwright.launch({ executablePath: await chromiumExecutable(options), headless: true, args: [...CHROMIUM_ARGS] });
}
