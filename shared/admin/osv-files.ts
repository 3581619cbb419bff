/**
 * OSV records on disk, as the admin's `vulnerabilities load PATH` reads them: a JSON file (one record,
 * or an array of them), a folder of such files (recursively; other files are skipped), or a zip as
 * OSV distributes an ecosystem (`<Ecosystem>/all.zip`), read as a stream (an ecosystem's zip unpacks to
 * hundreds of megabytes). Each entry that is not JSON is an input with its problem, so the load lists
 * it and goes on. A path that cannot be read at all is an OsvSourceError with a one-line message.
 */
import { createReadStream } from 'node:fs';
import { open, readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Unzip, UnzipInflate } from 'fflate';
import type { OsvInput } from '../services/advisory-load.ts';

export class OsvSourceError extends Error {}

const isJsonName = (name: string) => /\.json$/i.test(name);

/** The records of the JSON text (one record, or an array of them), or its problem. */
function recordsOf(source: string, text: string): OsvInput[] {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return [{ source, problem: `not JSON: ${(error as Error).message}` }];
  }
  if (Array.isArray(value)) return value.map((record, index) => ({ source: `${source}[${index}]`, record }));
  return [{ source, record: value }];
}

export interface OsvSourceSummary {
  /** Files (or zip entries) read as JSON. */
  jsonFiles: number;
  /** Other files (or entries) skipped. */
  skipped: number;
}

/** The inputs at `path`, with a running summary of what was read and skipped. */
export async function* osvInputsAt(path: string, summary: OsvSourceSummary = { jsonFiles: 0, skipped: 0 }): AsyncGenerator<OsvInput> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new OsvSourceError(`${path} cannot be read: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (error as Error).message}`);
  }
  if (info.isDirectory()) {
    yield* folderInputs(path, path, summary);
  } else if (await isZip(path)) {
    yield* zipInputs(path, summary);
  } else {
    summary.jsonFiles += 1;
    yield* recordsOf(path, await readFile(path, 'utf8'));
  }
}

async function* folderInputs(root: string, folder: string, summary: OsvSourceSummary): AsyncGenerator<OsvInput> {
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* folderInputs(root, path, summary);
    else if (entry.isFile() && isJsonName(entry.name)) {
      summary.jsonFiles += 1;
      yield* recordsOf(relative(root, path), await readFile(path, 'utf8'));
    } else summary.skipped += 1;
  }
}

/** A zip starts with a local file header ("PK\x03\x04"), or is an empty archive's end record. */
async function isZip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4), 0, 4, 0);
    return bytesRead === 4 && buffer.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

/** Whether the file ends with a zip's end-of-central-directory record (a truncated zip does not). */
async function hasZipEnd(path: string, size: number): Promise<boolean> {
  const length = Math.min(size, 65_557);
  const handle = await open(path, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    for (let i = length - 22; i >= 0; i--) if (buffer.readUInt32LE(i) === 0x06054b50) return true;
    return false;
  } finally {
    await handle.close();
  }
}

async function* zipInputs(path: string, summary: OsvSourceSummary): AsyncGenerator<OsvInput> {
  const { size } = await stat(path);
  if (!(await hasZipEnd(path, size))) throw new OsvSourceError(`${path} is not a whole zip: its end (the central directory) is missing, so it was cut short`);
  const done: OsvInput[] = [];
  const unfinished = new Set<string>();
  let failure: Error | undefined;
  const decoder = new TextDecoder('utf-8');
  const unzip = new Unzip((file) => {
    if (!isJsonName(file.name)) {
      summary.skipped += file.name.endsWith('/') ? 0 : 1;
      return;
    }
    summary.jsonFiles += 1;
    const parts: Uint8Array[] = [];
    unfinished.add(file.name);
    file.ondata = (error, chunk, final) => {
      if (error) {
        failure = error;
        return;
      }
      parts.push(chunk);
      if (final) {
        unfinished.delete(file.name);
        done.push(...recordsOf(`${path}:${file.name}`, decoder.decode(Buffer.concat(parts))));
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const fail = (error: unknown) => new OsvSourceError(`${path} is not a readable zip: ${(error as Error).message}`);
  for await (const chunk of createReadStream(path)) {
    try {
      unzip.push(chunk as Uint8Array);
    } catch (error) {
      throw fail(error);
    }
    if (failure) throw fail(failure);
    while (done.length > 0) yield done.shift()!;
  }
  try {
    unzip.push(new Uint8Array(0), true);
  } catch (error) {
    throw fail(error);
  }
  if (failure) throw fail(failure);
  while (done.length > 0) yield done.shift()!;
  if (unfinished.size > 0) throw new OsvSourceError(`${path} ends inside ${[...unfinished][0]}: the zip was cut short`);
}
