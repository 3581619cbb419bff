/**
 * What keeps `npm start` from outliving the ones who started it, or from spinning when nobody reads it.
 *
 * - guardOutput: stdout and stderr are written only while their reader is there. The first write error
 *   (EPIPE: the pipe's reading end was closed) marks the stream closed and calls onClosed once; errors
 *   on these streams never reach the uncaughtException handler, so a handler that logs cannot loop.
 * - watchLauncher: the stack belongs to the process that launched it. Every `intervalMs` (an unref'd
 *   timer, never a busy loop) it checks that its parent is still the one it started with (a process
 *   whose parent dies is handed to init or a subreaper, and process.ppid changes), and, when it runs
 *   under npm (`exec node ...` in the start script, so npm is the parent), that npm's own parent is too.
 *   A launcher that is pid 1 (init, systemd, a container's entry point) is not watched: it does not go.
 */
import { readFileSync } from 'node:fs';

export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** utime + stime, in clock ticks. */
  readonly cpuTicks: number;
  /** Clock ticks after boot when the process started: with the pid, names one process for good. */
  readonly startTime: number;
}

/** /proc/<pid>/stat, or undefined where there is no such process or no /proc (macOS). */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: field(4),
    pgid: field(5),
    sid: field(6),
    cpuTicks: field(14) + field(15),
    startTime: field(22),
  };
}

export function hasProcFs(): boolean {
  return readProcStat(process.pid) !== undefined;
}

/** Whether `pid` runs (a zombie does not); with `startTime`, whether it is still that same process. */
export function processRuns(pid: number, startTime?: number): boolean {
  const stat = readProcStat(pid);
  if (stat) return stat.state !== 'Z' && (startTime === undefined || stat.startTime === startTime);
  if (hasProcFs()) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface GuardedOutput {
  /** A line to stdout, dropped once stdout's reader is gone. */
  out(line: string): void;
  /** A line to stderr, dropped once stderr's reader is gone. */
  err(line: string): void;
}

export function guardOutput(onClosed: (stream: 'stdout' | 'stderr', error: Error) => void): GuardedOutput {
  const closed = { stdout: false, stderr: false };
  const streams = { stdout: process.stdout, stderr: process.stderr };
  for (const name of ['stdout', 'stderr'] as const) {
    // Kept for the life of the process: every later error of the stream lands here too, and is dropped.
    streams[name].on('error', (error: Error) => {
      if (closed[name]) return;
      closed[name] = true;
      onClosed(name, error);
    });
  }
  const write = (name: 'stdout' | 'stderr', line: string) => {
    const stream = streams[name];
    if (closed[name] || stream.destroyed || !stream.writable) return;
    try {
      stream.write(`${line}\n`);
    } catch {
      // A synchronous failure (a closed file descriptor): the 'error' listener above has the rest.
    }
  };
  return { out: (line) => write('stdout', line), err: (line) => write('stderr', line) };
}

export interface LauncherWatch {
  /** The pids being watched, for the log. */
  readonly watched: readonly number[];
  stop(): void;
}

export function watchLauncher(onGone: (reason: string) => void, { intervalMs = 500, underNpm = process.env.npm_lifecycle_event !== undefined } = {}): LauncherWatch {
  const parent = process.ppid;
  const checks: (() => string | undefined)[] = [];
  const watched: number[] = [];
  if (parent > 1) {
    watched.push(parent);
    checks.push(() => (process.ppid !== parent ? `the process that started it (pid ${parent}) has gone` : undefined));
    const parentStat = readProcStat(parent);
    const grandparent = parentStat?.ppid;
    if (underNpm && parentStat && grandparent !== undefined && grandparent > 1) {
      // npm's parent: the shell, test runner or supervisor that ran `npm start`. When it dies, npm is
      // reparented (its ppid changes) but lives on, waiting for us: we notice it here.
      watched.push(grandparent);
      checks.push(() => {
        const now = readProcStat(parent);
        if (now && now.startTime === parentStat.startTime && now.ppid !== grandparent) {
          return `the process that started npm (pid ${grandparent}) has gone`;
        }
        return undefined;
      });
    }
  }
  let fired = false;
  const timer = setInterval(() => {
    if (fired) return;
    for (const check of checks) {
      const reason = check();
      if (reason) {
        fired = true;
        clearInterval(timer);
        onGone(reason);
        return;
      }
    }
  }, intervalMs);
  timer.unref();
  return { watched, stop: () => clearInterval(timer) };
}
