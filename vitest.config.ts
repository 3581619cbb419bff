import { defineConfig } from 'vitest/config';

/** Pure tests: no emulator, no server (`npm run test:unit`). */
const UNIT = ['test/unit/**/*.test.ts'];

export default defineConfig({
  test: {
    // Each file gets its own table, so files may run in parallel and in any order.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    sequence: { shuffle: { files: true, tests: false } },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        // Everything else runs against the real local stand-ins, started once for the run.
        test: { name: 'stack', include: ['test/**/*.test.ts'], exclude: UNIT, globalSetup: ['test/support/global-setup.ts'] },
      },
    ],
  },
});
