import { defineConfig } from 'vitest/config';

/** Pure tests: no emulator, no server (`npm run test:unit`). */
const UNIT = ['test/unit/**/*.test.ts'];
/**
 * Tests that start whole stacks as processes (`npm start`: a Java DynamoDB Local each, a Chromium): they
 * run after the others, so that their processes' start-up does not compete with the in-process tests
 * for the machine's cores.
 */
const PROCESSES = ['test/e2e/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/faults/local-stack-kill.test.ts'];
/**
 * Many writers on one object at once (50 requests in flight): run after the others, on their own and on
 * a DynamoDB Local of their own. DynamoDB Local applies transactions one at a time, so on a machine the
 * other files load, 50 sent at once wait in it for seconds (3 to 5.5 s measured under four busy cores,
 * 1 to 2 s idle), past the SDK's 2.5 s per call, a wait DynamoDB itself never makes them do; and a
 * DynamoDB Local that served heavy files before serves them slower (50 concurrent adds: 10 s on a fresh
 * one, 35 s and 35 of 50 answered 503 after the 5,000-link file, its table dropped, heap 2 GB or 512 MB).
 * What the file tests is the service's handling of contention, not the emulator's state.
 */
const CONTENTION = ['test/http/concurrency.test.ts'];
/**
 * A vulnerability past one item's 400 KB: 5,000 packages and 5,000 links written, 70 s alone. Beside the
 * other files it took 302 s in a full run, and the SBOM imports next to it ran past their DynamoDB
 * timeouts (503): it runs last, alone, on its own DynamoDB Local.
 */
const VOLUME = ['test/http/vulnerability-links.test.ts'];
/**
 * The list counters' file imports real SBOMs synchronously (cdxgen's, 30 to 48 s a file): in two of three
 * full runs, its first import's 100-item transactions were cut off at the SDK's limit on its worker's
 * loaded DynamoDB Local and sent again until the import gave up (503), and the same DynamoDB Local then
 * answered even single creates 503 for the rest of the file. Last, alone, on its own DynamoDB Local.
 */
const IMPORTS = ['test/http/list-counters.test.ts'];
const GLOBAL_SETUP = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    // Each file gets its own table, so files may run in parallel and in any order.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    sequence: { shuffle: { files: true, tests: false } },
    // The functions' logs and EMF metric lines would bury the test output: the logger only speaks when
    // TEST_LOG_LEVEL asks, and the metrics are off but where a test reads them (the unit project's
    // observability test, and test/e2e/correlation.test.ts, which turns them on for its npm start).
    env: { POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'CRITICAL', POWERTOOLS_METRICS_DISABLED: 'true' },
    projects: [
      // Pure tests share their workers' module graph (no isolation): `npm run test:unit` in 18 s instead
      // of 28 s, most of the difference being each file importing the same modules again.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false, env: { POWERTOOLS_METRICS_DISABLED: 'false' } } },
      // Everything else runs against the real local stand-ins, started once for the run.
      { extends: true, test: { name: 'stack', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...PROCESSES, ...CONTENTION, ...VOLUME, ...IMPORTS], globalSetup: GLOBAL_SETUP } },
      { extends: true, test: { name: 'processes', include: PROCESSES, globalSetup: GLOBAL_SETUP, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'contention', include: CONTENTION, globalSetup: GLOBAL_SETUP, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: 'volume', include: VOLUME, globalSetup: GLOBAL_SETUP, sequence: { groupOrder: 3 } } },
      { extends: true, test: { name: 'imports', include: IMPORTS, globalSetup: GLOBAL_SETUP, sequence: { groupOrder: 4 } } },
    ],
  },
});
