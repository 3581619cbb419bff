/**
 * The web console's size as a browser downloads it: a production build of web/ (the same Vite config
 * `npm start` and the CDK stack build with), each file's bytes and its gzip size (zlib level 9, what a
 * CDN's gzip gives at most; CloudFront compresses text files on the fly). Shared by the "console
 * bundle" scenario and test/unit/console-bundle.test.ts, which checks the measurement itself.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));
/** The budget for the console's JavaScript, every chunk together, gzipped. */
export const CONSOLE_JS_BUDGET_BYTES = 150 * 1024;

export interface BuiltFile {
  /** Path inside the build: `assets/index-3f2a.js`. */
  readonly path: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Whether index.html loads it (the entry and what it imports statically), or only a page loads it later. */
  readonly initial: boolean;
}

export function gzipSize(content: Buffer): number {
  return gzipSync(content, { level: 9 }).length;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The files of a built console: sizes, and which ones index.html loads at once (its script and its
 * modulepreload links) as against chunks a page imports dynamically.
 */
export function measureBuild(outDir: string): BuiltFile[] {
  const html = readFileSync(join(outDir, 'index.html'), 'utf8');
  const initial = new Set([...html.matchAll(/(?:src|href)="\/?([^"]+)"/g)].map((match) => match[1]));
  return listFiles(outDir)
    .map((file) => {
      const content = readFileSync(file);
      const path = relative(outDir, file);
      return { path, bytes: content.length, gzipBytes: gzipSize(content), initial: initial.has(path) || path === 'index.html' };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** Builds the console into a temporary folder, measures it and removes the folder. */
export async function buildAndMeasureConsole(): Promise<BuiltFile[]> {
  const outDir = mkdtempSync(join(tmpdir(), 'compliance-console-build-'));
  try {
    const { build } = await import('vite');
    await build({ configFile: join(WEB_ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    return measureBuild(outDir);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

export interface ConsoleSizes {
  readonly jsGzip: number;
  readonly jsBytes: number;
  readonly initialJsGzip: number;
  readonly cssGzip: number;
  readonly chunks: number;
}

export function summarize(files: readonly BuiltFile[]): ConsoleSizes {
  const js = files.filter((file) => file.path.endsWith('.js'));
  const sum = (list: readonly BuiltFile[], key: 'bytes' | 'gzipBytes') => list.reduce((total, file) => total + file[key], 0);
  return {
    jsGzip: sum(js, 'gzipBytes'),
    jsBytes: sum(js, 'bytes'),
    initialJsGzip: sum(js.filter((file) => file.initial), 'gzipBytes'),
    cssGzip: sum(files.filter((file) => file.path.endsWith('.css')), 'gzipBytes'),
    chunks: js.length,
  };
}
