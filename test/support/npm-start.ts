/**
 * `npm start` as a child process, the way an engineer runs it: its own process group (so a test can
 * signal npm and everything under it), its output kept, ready when it prints the API's address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const repositoryRoot = join(import.meta.dirname, '..', '..');

export interface RunningStack {
  child: ChildProcess;
  apiUrl: string;
  output: () => string;
}

export interface NpmStartOptions {
  /**
   * How long start-up may take. Generous: on a loaded 2-core machine start-up takes tens of seconds,
   * and this bounds a hang, it does not measure speed.
   */
  readyWithinMs?: number;
  /** Run it as a wrapper script would, `sh -c 'npm start; ...'`: the child is that shell, npm its child. */
  viaShell?: boolean;
}

/** Starts `npm start` with `env`, records the child in `started` (for afterAll), waits until it is ready. */
export async function npmStart(env: NodeJS.ProcessEnv, started: ChildProcess[], options: NpmStartOptions | number = {}): Promise<RunningStack> {
  const { readyWithinMs = 300_000, viaShell = false } = typeof options === 'number' ? { readyWithinMs: options } : options;
  const child = viaShell
    ? spawn('sh', ['-c', 'npm start; echo "npm start exited with $?"'], { cwd: repositoryRoot, env, detached: true })
    : spawn('npm', ['start'], { cwd: repositoryRoot, env, detached: true });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const apiUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready after ${readyWithinMs / 1000} s:\n${output}`)), readyWithinMs);
    const check = () => {
      const ready = /Compliance API ready at (http:\/\/\S+)\/api\/v2\//.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolveUrl(ready[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { child, apiUrl, output: () => output };
}

/**
 * `npm run admin -- ARGS` against the local stack of `dataDir` (as the README runs it), without blocking
 * this process while the CLI runs: a test blocked for seconds stops driving its browser and its HTTP
 * connections, which under load turned into timeouts and reused dead sockets. Killed after 180 s.
 */
export function npmRunAdmin(dataDir: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: repositoryRoot,
      env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: '' },
      timeout: 180_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (status) => done({ status, stdout, stderr }));
  });
}
