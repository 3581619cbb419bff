/**
 * The processes and ports of a started `npm start`, read from /proc, so a test can assert that a stop
 * left nothing behind: every process of the tree gone (a zombie counts as gone: it holds no port and
 * no file), every port refusing connections.
 */
import { readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { readProcStat, type ProcStat } from '../../bin/local/process-guard.ts';

/** `root` and every process under it, each with its start time (so a reused pid is not mistaken for it). */
export function processTree(root: number): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat) all.push(stat);
  }
  const tree: ProcStat[] = [];
  const rootStat = all.find((stat) => stat.pid === root);
  if (!rootStat) return tree;
  const queue = [rootStat];
  for (let next = queue.shift(); next; next = queue.shift()) {
    tree.push(next);
    queue.push(...all.filter((stat) => stat.ppid === next.pid));
  }
  return tree;
}

/** The processes of `tree` that still run (same pid and start time, not a zombie). */
export function stillRunning(tree: readonly ProcStat[]): ProcStat[] {
  return tree.filter((process) => {
    const now = readProcStat(process.pid);
    return now !== undefined && now.startTime === process.startTime && now.state !== 'Z';
  });
}

export function portAnswers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** Polls `condition` every 100 ms until it holds (resolves with the ms it took) or `boundMs` passes (rejects). */
export async function within(boundMs: number, what: string, condition: () => boolean | Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > boundMs) throw new Error(`${what}: not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
