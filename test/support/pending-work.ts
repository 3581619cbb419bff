/**
 * What a test is waiting on right now, for the report of a test that fails while still waiting (a
 * vitest timeout cuts a test short without saying what it waited for): the `eventually` polls with
 * their last value, the HTTP calls without an answer yet, and the last lines the test's in-process
 * stacks logged. failure-report.ts (a setup file of every stack project) prints them when a test fails.
 */
import { expect } from 'vitest';

interface Pending {
  readonly what: string;
  /** The test that started it (a timed-out test's waits go on after it). */
  readonly test: string | undefined;
  readonly since: number;
  last?: string;
}

const pending = new Set<Pending>();
const stackLogs = new Map<string, string[]>();
/** How many of a stack's last log lines are kept. */
const LOG_LINES = 40;

/** Runs `work`, listed as pending (`what`) until it settles; `note` updates what it last saw. */
export async function tracked<T>(what: string, work: (note: (last: string) => void) => Promise<T>): Promise<T> {
  const entry: Pending = { what, test: expect.getState().currentTestName, since: Date.now() };
  pending.add(entry);
  try {
    return await work((last) => (entry.last = last));
  } finally {
    pending.delete(entry);
  }
}

/** A log function for an in-process stack that keeps its last lines under `name`. */
export function keptLog(name: string): { log: (line: string) => void; forget: () => void } {
  const lines: string[] = [];
  stackLogs.set(name, lines);
  return {
    log: (line) => {
      lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
      if (lines.length > LOG_LINES) lines.shift();
    },
    forget: () => stackLogs.delete(name),
  };
}

/** The report: each pending wait with its age and last value, then each live stack's last lines. */
export function pendingWorkReport(): string {
  const now = Date.now();
  const waits = [...pending].map(
    (entry) => `${entry.test ? `"${entry.test}" ` : ''}waiting ${now - entry.since} ms for ${entry.what}${entry.last === undefined ? '' : `; last seen: ${entry.last}`}`,
  );
  const logs = [...stackLogs].map(([name, lines]) => `${name} last logged:${lines.length ? `\n  ${lines.join('\n  ')}` : ' nothing'}`);
  return [...waits, ...logs].join('\n');
}
