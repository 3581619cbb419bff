/**
 * Builds the reference license texts file the service ships (shared/reference/scancode-license-texts.bin,
 * read by shared/reference/scancode-texts.ts) from the `.LICENSE` files of aboutcode-org/scancode-toolkit:
 * each license's text (the file without its YAML front matter), for the keys of the reference library.
 *
 *   npm run build:license-texts -- --toolkit ./scancode-toolkit --commit <sha>
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { parseFrontMatter, toolkitOptions } from './build-license-rules.ts';
import { readReferenceRecords } from '../shared/reference/scancode-licensedb.ts';
import { TEXTS_DATA_FILE, type TextsHeader } from '../shared/reference/scancode-texts.ts';

const OUTPUT = fileURLToPath(new URL(`../shared/reference/${TEXTS_DATA_FILE}`, import.meta.url));

export async function buildTextsFile(toolkit: string, commit: string): Promise<{ file: Buffer; count: number; textBytes: number }> {
  const dir = path.join(toolkit, 'src', 'licensedcode', 'data', 'licenses');
  const known = new Set(readReferenceRecords().map((record) => record.key));
  const entries: Record<string, [number, number]> = {};
  const chunks: Buffer[] = [];
  let offset = 0;
  let textBytes = 0;
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.LICENSE')).sort()) {
    const { front, text } = parseFrontMatter(await readFile(path.join(dir, file), 'utf8'));
    const key = String(front.key ?? file.replace(/\.LICENSE$/, ''));
    const body = text.replace(/^\s*\n/, '').replace(/\s+$/, '\n');
    if (!known.has(key) || body.trim() === '') continue;
    const deflated = deflateRawSync(Buffer.from(body, 'utf8'), { level: 9 });
    entries[key] = [offset, deflated.length];
    chunks.push(deflated);
    offset += deflated.length;
    textBytes += Buffer.byteLength(body);
  }
  const header: TextsHeader = { source: { repository: 'https://github.com/aboutcode-org/scancode-toolkit', path: 'src/licensedcode/data/licenses', commit, licence: 'CC-BY-4.0' }, texts: entries };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(headerBytes.length, 0);
  return { file: Buffer.concat([length, headerBytes, ...chunks]), count: Object.keys(entries).length, textBytes };
}

async function main(argv: string[]): Promise<void> {
  const options = toolkitOptions(argv, 'build:license-texts', OUTPUT);
  if (!options) return;
  const { file, count, textBytes } = await buildTextsFile(options.toolkit, options.commit);
  const out = options.out;
  await writeFile(out, file);
  process.stdout.write(`Wrote ${out}: ${count} texts, ${(textBytes / 1024 / 1024).toFixed(1)} MB of text in ${(file.length / 1024 / 1024).toFixed(1)} MB\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main(process.argv.slice(2));
