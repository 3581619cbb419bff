/**
 * README.md's examples, run as a new user would: every `sh` block (not marked no-test), in order, in one
 * bash, from a fresh directory that looks like a fresh clone (the checkout's files linked in, no .data,
 * no files left by earlier runs). The README's `npm start &` starts the stack on a free port (PORT) and
 * its default DATA_DIR (.data of that directory); 8000 and 8001 in the examples become the test's ports
 * (see test/support/readme-script.ts). A command that fails, or a curl whose answer is not the status
 * its comment states, fails the test. Everything the examples start is stopped with their process group.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bin/local/ports.ts';
import { repositoryRoot } from '../support/npm-start.ts';
import { readmeScript } from '../support/readme-script.ts';

/**
 * The blocks that may not run, and why (by their first line). Keep this short: every other example runs.
 */
const NOT_RUN: Record<string, string> = {
  'npm ci && npm start     # the web console on http://127.0.0.1:8000/, the API under http://127.0.0.1:8000/api/v2/':
    'the two commands: npm ci would reinstall the node_modules this test runs from, npm test would run this test again; the next block starts npm start itself',
  'npm run synth                 # writes cdk.out/ offline; cdk-nag AwsSolutions checks run on the way':
    'deploying needs an AWS account (synth alone is covered by test/infra/)',
  'TABLE_NAME=<TableName output> AWS_REGION=<region> npm run admin -- load seed.json':
    'a deployed table needs an AWS account',
  '"context": {': 'a fragment of cdk.json, not a command (test/infra/webhook-destinations.test.ts synthesizes it)',
  '      - name: Compliance gate': 'a GitHub Actions step: it runs in a pipeline (test/e2e/compliance-gate.test.ts runs the gate itself)',
  'compliance-gate:': 'a GitLab CI job: it runs in a pipeline (test/e2e/compliance-gate.test.ts runs the gate itself)',
};

const started: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const child of started) if (child.exitCode === null || child.stdout?.readable) killGroup(child, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone
  }
}

/** A directory that looks like a fresh clone: the tracked top-level entries and node_modules, linked. */
function freshCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cms-readme-'));
  dirs.push(dir);
  const tracked = spawnSync('git', ['ls-files'], { cwd: repositoryRoot, encoding: 'utf8' });
  const names =
    tracked.status === 0
      ? new Set(tracked.stdout.split('\n').filter(Boolean).map((path) => path.split('/')[0]!))
      : new Set(readdirSync(repositoryRoot).filter((name) => !name.startsWith('.')));
  names.add('node_modules');
  for (const name of names) symlinkSync(join(repositoryRoot, name), join(dir, name));
  return dir;
}

function javaProcessesFor(dataDir: string): string[] {
  const result = spawnSync('pgrep', ['-f', '--', `DynamoDBLocal.jar .*-dbPath ${join(dataDir, 'dynamodb')}`], { encoding: 'utf8' });
  return result.stdout.split('\n').filter(Boolean);
}

describe('the README, followed by a new user', () => {
  it('runs every shell example in order against npm start, each answering what it says', async () => {
    const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
    const ports = { api: await freePort(), receiver: await freePort() };
    const { script, skipped } = readmeScript(readme, ports);
    for (const block of skipped) {
      expect(NOT_RUN, `README.md:${block.line}: marked no-test, but not in NOT_RUN with a reason`).toHaveProperty([block.body[0]!]);
    }
    expect(skipped.map((block) => block.body[0]).sort(), 'NOT_RUN names a block the README no longer has').toEqual(Object.keys(NOT_RUN).sort());

    const dir = freshCheckout();
    writeFileSync(join(dir, 'readme-examples.sh'), script);
    const child = spawn('bash', ['readme-examples.sh'], {
      cwd: dir,
      detached: true,
      // A new user's shell: no test-run settings (TABLE_NAME would send the admin CLI to AWS).
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG ?? 'C.UTF-8', TMPDIR: process.env.TMPDIR, PORT: String(ports.api) },
    });
    started.push(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    const exitCode = await new Promise<number | string>((done) => {
      const timer = setTimeout(() => done('timed out after 8 minutes'), 8 * 60_000);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        done(code ?? String(signal));
      });
    });

    // Stop what the examples left running (npm start, the webhook receiver), as Ctrl-C would.
    killGroup(child, 'SIGTERM');
    const stopped = await Promise.race([closed.then(() => true), new Promise<false>((done) => setTimeout(() => done(false), 30_000))]);
    if (!stopped) killGroup(child, 'SIGKILL');

    // What the examples printed, for a reader checking the README's sample answers against real ones.
    mkdirSync(join(repositoryRoot, 'test-output'), { recursive: true });
    writeFileSync(join(repositoryRoot, 'test-output', 'readme-examples.log'), output);

    expect(exitCode, `the README's examples failed:\n${output}`).toBe(0);
    expect(output, 'the webhook receiver verified the ping').toMatch(/verified webhook\.ping/);
    expect(stopped, `something the examples started outlived SIGTERM:\n${output}`).toBe(true);
    // DynamoDB Local goes with the stack's shutdown; poll rather than assume it is already gone.
    for (const deadline = Date.now() + 30_000; javaProcessesFor(join(dir, '.data')).length > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(javaProcessesFor(join(dir, '.data'))).toEqual([]);
  }, 10 * 60_000);
});
