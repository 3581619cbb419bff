/**
 * Every stack project's set-up (vitest setupFiles): a test that fails says what it was still waiting
 * for and what its in-process stacks last logged (pending-work.ts), so a timeout explains itself.
 */
import { afterEach } from 'vitest';
import { pendingWorkReport } from './pending-work.ts';

afterEach(({ task }) => {
  if (task.result?.state !== 'fail') return;
  const report = pendingWorkReport();
  if (!report) return;
  const error = new Error(`When the test failed:\n${report}`);
  error.stack = error.message;
  throw error;
});
