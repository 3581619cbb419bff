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
 * Files that run after all the others, one group at a time in this order, each group's files one after
 * another (maxWorkers 1) on a DynamoDB Local of the group's own pool (global-setup.ts). On a machine the
 * other files load, DynamoDB Local, which applies transactions one at a time, answers these files' heavy
 * writes several times slower than idle, past the
 * service's time limits (the SDK's per-call timeout, an API function's): what they test is the service's
 * handling of contention and volume, not the emulator's speed under load.
 */
const ALONE = {
  /**
   * 50 writers on one object at once: sent together, they wait in DynamoDB Local for 3 to 5.5 s under
   * four busy cores (1 to 2 s idle), past the SDK's 2.5 s per call, a wait DynamoDB itself never makes
   * them do. (A DynamoDB Local that had served heavy files served them slower still, 35 s against 10 s
   * with 35 of 50 answered 503: its unindexed stream records, which bin/local/dynamodb-local.ts now
   * indexes.)
   */
  contention: ['test/http/concurrency.test.ts', 'test/http/api-key-concurrency.test.ts'],
  /**
   * A vulnerability past one item's 400 KB: 5,000 packages and 5,000 links written, 70 s alone. Beside
   * the other files it took 302 s in a full run, and the SBOM imports next to it ran past their DynamoDB
   * timeouts (503).
   */
  volume: ['test/http/vulnerability-links.test.ts'],
  /**
   * Synchronous imports of real SBOMs (275 components: 1,236 items in 36 transactions, 7 s alone). In
   * loaded full runs, the list counters' first import (cdxgen's) was cut off at the SDK's limit and sent
   * again until it gave up (503), after which its DynamoDB Local answered even single creates 503; and
   * the round trip's cyclonedx-npm import ran past the import function's 29 s (503).
   */
  imports: ['test/http/list-counters.test.ts', 'test/http/sbom-round-trip.test.ts'],
};
/**
 * The local stand-ins, started once for a project's run, and each file's DynamoDB Local leased before it
 * runs; a failed test reports what it was still waiting for (failure-report.ts).
 */
const STAND_INS = { globalSetup: ['test/support/global-setup.ts'], setupFiles: ['test/support/lease-dynamodb.ts', 'test/support/failure-report.ts'] };

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
      { extends: true, test: { name: 'stack', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...PROCESSES, ...Object.values(ALONE).flat()], ...STAND_INS } },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESSES,
          ...STAND_INS,
          sequence: { groupOrder: 1 },
          // expect.poll waits on what a page shows once the stack has answered: as long as a page's own
          // waits (Playwright's 30 s), not vitest's default of 1 s, which a loaded run's API answers passed
          // (the Policy page's waivers, the request form's choices: the slowest answer seen beside a
          // full .ci/run, 2.9 s, is in test-output/browser-waits.log).
          expect: { poll: { timeout: 30_000, interval: 100 } },
        },
      },
      ...Object.entries(ALONE).map(([name, include], i) => ({
        extends: true as const,
        test: { name, include, maxWorkers: 1, ...STAND_INS, sequence: { groupOrder: 2 + i } },
      })),
    ],
  },
});
