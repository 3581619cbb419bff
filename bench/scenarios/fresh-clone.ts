/**
 * Fresh clone: what a new user waits for on this machine. A `git clone` of this checkout's HEAD into a
 * temporary folder, then, there, as typed in a shell (the machine's own npm and Node, none of this
 * run's npm or Node 22 on PATH):
 * - `npm ci`, with the npm cache as this machine has it (warm: every package was downloaded before);
 * - `npm start` until it prints its "ready" line, on a fresh DATA_DIR (the first start: the table and
 *   queues are created, the console is built) and again on the same DATA_DIR (a second start: the data
 *   is there, the console is built again).
 * Wall-clock seconds: they depend on the load of the machine, and the notes say what else ran.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bin/local/ports.ts';
import { median } from '../lib/load.ts';
import type { BenchFigure } from '../lib/results.ts';
import type { Scenario } from '../lib/scenario.ts';

const NAME = 'fresh clone';
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Rounds of first start then second start, each on a DATA_DIR of its own. */
const ROUNDS = 3;
const READY = /Compliance API ready at http:\/\/\S+\/api\/v2\//;

/** The environment of a user's shell: no npm script variables, no node_modules/.bin on PATH. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.toLowerCase().startsWith('npm_') && name !== 'INIT_CWD' && name !== 'NODE') env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.includes(`node_modules${'/'}.bin`))
    .join(delimiter);
  return env;
}

/** Runs a command to its end; its wall time in seconds. */
function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => {
      if (code === 0) done((performance.now() - started) / 1000);
      else fail(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
}

/** Starts `npm start` in `cwd`; seconds until its "ready" line. Stops it (the whole group) afterwards. */
async function timeStart(cwd: string, env: NodeJS.ProcessEnv, dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd,
    env: { ...env, DATA_DIR: dataDir, PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    return await new Promise<number>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`npm start not ready after 300 s:\n${output}`)), 300_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (READY.test(output)) {
          clearTimeout(timer);
          ready((performance.now() - started) / 1000);
        }
      });
      child.once('error', fail);
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`npm start exited with ${code}:\n${output}`));
      });
    });
  } finally {
    await stopGroup(child);
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 30_000);
  await closed;
  clearTimeout(timer);
}

const range = (values: readonly number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)} s`;

export const freshClone: Scenario = {
  name: NAME,
  async run({ log }) {
    const work = mkdtempSync(join(tmpdir(), 'compliance-bench-clone-'));
    try {
      const env = userEnvironment();
      const version = (command: string) => execFileSync(command, ['--version'], { env, encoding: 'utf8' }).trim();
      const tools = `npm ${version('npm')} on Node ${version('node')}`;
      const load = `1-minute load average ${loadavg()[0]!.toFixed(1)} on 2 cores when it began`;
      const clone = join(work, 'clone');
      await timed('git', ['clone', '--quiet', PROJECT_ROOT, clone], work, env);

      const ci = await timed('npm', ['ci'], clone, env);
      log(`npm ci: ${ci.toFixed(1)} s`);

      const first: number[] = [];
      const second: number[] = [];
      let dataDirs = 0;
      // Under load a first start can fail with "Cannot create preexisting table" (a CreateTable
      // that timed out on the client, retried after it succeeded). Such a start is counted, not
      // timed, and the round starts again on another fresh DATA_DIR; any other failure fails the
      // scenario.
      let tableFlakes = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        let dataDir: string;
        for (;;) {
          dataDir = join(work, `data-${(dataDirs += 1)}`);
          try {
            first.push(await timeStart(clone, env, dataDir));
            break;
          } catch (error) {
            if (!String(error).includes('Cannot create preexisting table') || tableFlakes >= 5) throw error;
            tableFlakes += 1;
            log(`a first start failed with "Cannot create preexisting table"; starting again on a fresh DATA_DIR`);
          }
        }
        second.push(await timeStart(clone, env, dataDir));
        log(`round ${round + 1}: first start ${first.at(-1)!.toFixed(1)} s, second start ${second.at(-1)!.toFixed(1)} s`);
      }
      const flakes = tableFlakes === 0 ? '' : `; ${tableFlakes} more first start(s) failed with "Cannot create preexisting table" (a table DynamoDB Local had not finished making) and were not timed`;

      const machine = `${load}, the bench's own stack idle beside it`;
      return [
        {
          scenario: NAME,
          figure: '`npm ci` in a fresh clone, warm npm cache',
          value: ci,
          unit: 's',
          target: 'reference',
          met: true,
          note: `one run, wall clock, the machine's own ${tools}; ${machine}`,
        },
        {
          scenario: NAME,
          figure: '`npm start` to "ready", first start on a fresh DATA_DIR',
          value: median(first),
          unit: 's',
          target: 'reference',
          met: true,
          note: `median of ${ROUNDS} (${range(first)}), from spawning npm to the ready line: DynamoDB Local and the SQS emulator started, the table and queues created, the console built; ${machine}${flakes}`,
        },
        {
          scenario: NAME,
          figure: '`npm start` to "ready", second start on the same DATA_DIR',
          value: median(second),
          unit: 's',
          target: 'reference',
          met: true,
          note: `median of ${ROUNDS} (${range(second)}), the data kept from the first start, the console built again; ${machine}`,
        },
      ] satisfies BenchFigure[];
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
