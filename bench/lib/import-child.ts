/**
 * One import, run the way the import function runs it on Lambda: a fresh Node process (so its peak
 * memory is the import's alone, not the benchmark's or the local stack's), configured by environment
 * variables, against the stack's DynamoDB Local and S3. The benchmark spawns it with the import's uuid
 * and the object's key and size, and reads one JSON line: how long the import took and the process's
 * peak resident memory.
 *
 *   node --import tsx bench/lib/import-child.ts <import uuid> <key> <size>
 */
import { performance } from 'node:perf_hooks';

const [importUuid, key, size] = process.argv.slice(2);
if (!importUuid || !key || !size) {
  console.error('usage: import-child.ts <import uuid> <key> <size>');
  process.exit(2);
}

// What the function's module loads at cold start is not the import's time: load it first.
const { sbomImportService } = await import('../../shared/sbom-runtime.ts');
const { Composition } = await import('../../shared/runtime.ts');
const { getConfig } = await import('../../shared/config.ts');
const service = sbomImportService(new Composition(getConfig()));
const started = performance.now();
await service.runUpload(importUuid, key, Number(size), '', true);
const durationMs = performance.now() - started;
// ru_maxrss: kilobytes on Linux.
console.log(JSON.stringify({ durationMs, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
