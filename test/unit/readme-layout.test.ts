/**
 * README's "How the code is laid out" table against the tree, both ways: every path the table names
 * exists, and every entry of the top level, of bin/ and of shared/ is named by a row (a row naming a
 * folder covers what is inside it; bin/local/ and the like need no row of their own).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The backticked paths of the layout table's first column. */
function layoutPaths(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### How the code is laid out'));
  const table = section.slice(0, section.search(/\n## /));
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** Entries git tracks directly under `folder` ('' for the top level), folders with a trailing slash. */
function trackedEntries(folder: string): string[] {
  const files = execFileSync('git', ['ls-files', '--', folder || '.'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  const prefix = folder ? `${folder}/` : '';
  const entries = new Set<string>();
  for (const file of files) {
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf('/');
    entries.add(slash === -1 ? `${prefix}${rest}` : `${prefix}${rest.slice(0, slash)}/`);
  }
  return [...entries].sort();
}

describe("README's layout table", () => {
  const paths = layoutPaths();

  it('names at least the folders every CDK service has', () => {
    expect(paths).toEqual(expect.arrayContaining(['lib/', 'functions/', 'test/', 'bin/app.ts']));
  });

  it.each(paths)('names %s, which exists', (path) => {
    expect(existsSync(join(ROOT, path)), `${path} is in the README's layout table but not in the tree`).toBe(true);
  });

  it.each(['', 'bin', 'shared'])('has a row for every entry of %j', (folder) => {
    const named = new Set(paths);
    // A folder is covered by its own row or by rows of what it holds; a file by its row or its folder's.
    const covered = (entry: string) =>
      named.has(entry) || paths.some((path) => (path.endsWith('/') && entry.startsWith(path)) || (entry.endsWith('/') && path.startsWith(entry)));
    const missing = trackedEntries(folder).filter((entry) => !covered(entry));
    expect(missing, `entries of ${folder || 'the top level'} without a row in the README's layout table`).toEqual([]);
  });

  it('lists each test layer folder', () => {
    const layers = readdirSync(join(ROOT, 'test'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${d.name}/`);
    const testRow = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').find((line) => line.startsWith('| `test/` |'))!;
    expect(layers.filter((layer) => !testRow.includes(`\`${layer}\``))).toEqual([]);
  });
});
