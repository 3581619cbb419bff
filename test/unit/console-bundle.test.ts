/** The console bundle benchmark's measurement: which files count, which load at once, what gzip gives. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { gzipSize, measureBuild, summarize } from '../../bench/lib/console-bundle.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function build(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-bundle-test-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

describe('the console bundle measurement', () => {
  it('counts every chunk, and tells the ones index.html loads from those a page imports later', () => {
    const chart = randomBytes(4000).toString('base64'); // does not compress: its gzip size is near its size
    const dir = build({
      'index.html': '<script type="module" crossorigin src="/assets/index-a1.js"></script><link rel="modulepreload" crossorigin href="/assets/vendor-b2.js"><link rel="stylesheet" href="/assets/index-c3.css">',
      'assets/index-a1.js': 'export const a = 1;'.repeat(500),
      'assets/vendor-b2.js': 'export const b = 2;'.repeat(100),
      'assets/portfolio-d4.js': chart,
      'assets/index-c3.css': 'body { color: red; }',
    });
    const files = measureBuild(dir);
    expect(files.map((file) => [file.path, file.initial])).toEqual([
      ['assets/index-a1.js', true],
      ['assets/index-c3.css', true],
      ['assets/portfolio-d4.js', false],
      ['assets/vendor-b2.js', true],
      ['index.html', true],
    ]);
    const sizes = summarize(files);
    expect(sizes.chunks).toBe(3);
    expect(sizes.jsBytes).toBe(500 * 19 + 100 * 19 + chart.length);
    expect(sizes.jsGzip).toBe(files.filter((f) => f.path.endsWith('.js')).reduce((t, f) => t + f.gzipBytes, 0));
    // The lazy chunk counts in the total, not in what loads at once.
    expect(sizes.jsGzip - sizes.initialJsGzip).toBe(gzipSize(Buffer.from(chart)));
    expect(gzipSize(Buffer.from(chart))).toBeGreaterThan(chart.length * 0.7);
    expect(sizes.cssGzip).toBe(gzipSync('body { color: red; }', { level: 9 }).length);
  });
});
