/**
 * End to end, the way the README says: `npm start` as a child process, `npm run admin -- load`,
 * HTTP calls to the API, then SIGTERM, after which nothing it started may still run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portAnswers } from '../support/process-tree.ts';
import { freePort } from '../../bin/local/ports.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { npmRunAdmin, npmStart, repositoryRoot, type RunningStack } from '../support/npm-start.ts';

const started: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) stopGroup(child, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function stopGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

function startStack(env: Record<string, string>): Promise<RunningStack> {
  return npmStart({ ...process.env, ...env }, started);
}

/** SIGTERM to the process group, like Ctrl-C in a terminal; resolves with the stack's own verdict. */
async function stopStack(stack: RunningStack): Promise<string> {
  // 'close' fires once every process holding npm's output pipes (the stack's node process) has gone.
  const closed = new Promise<void>((done) => stack.child.once('close', () => done()));
  stopGroup(stack.child, 'SIGTERM');
  await closed;
  // npm itself dies of the signal; the stack reports how its shutdown went before exiting 0.
  return /SIGTERM: stopping the local stack\.\.\.[\s\S]*Local stack stopped\.\s*$/.test(stack.output()) ? 'stopped' : stack.output();
}

const admin = npmRunAdmin;

function javaProcessesFor(dataDir: string): string[] {
  const result = spawnSync('pgrep', ['-f', '--', `DynamoDBLocal.jar .*-dbPath ${join(dataDir, 'dynamodb')}`], {
    encoding: 'utf8',
  });
  return result.stdout.split('\n').filter(Boolean);
}

describe('npm start, admin load, the API over HTTP, and a clean stop', () => {
  it('serves the API to a loaded user, keeps data across restarts, and leaves nothing running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-e2e-'));
    dirs.push(dataDir);
    const port = await freePort();
    let stack = await startStack({ PORT: String(port), DATA_DIR: dataDir });
    expect(stack.apiUrl).toBe(`http://127.0.0.1:${port}`);

    const aliceKey = generateApiKey();
    const file = join(dataDir, 'seed.json');
    writeFileSync(
      file,
      JSON.stringify({
        dataspaces: [{ name: 'acme' }],
        groups: [{ name: 'legal', dataspace: 'acme' }],
        users: [
          { username: 'alice', email: 'alice@example.com', dataspace: 'acme', is_superuser: false, groups: ['legal'], api_key: aliceKey },
          { username: 'bob', email: 'bob@example.com', dataspace: 'acme' },
        ],
      }),
    );
    const loaded = await admin(dataDir, 'load', file);
    expect(loaded.status, loaded.stderr).toBe(0);
    const bobKey = /API key for bob \(shown once\): (\S+)/.exec(loaded.stdout)?.[1];
    expect(bobKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await admin(dataDir, 'load', file)).stdout).toContain('Created: 0 dataspaces, 0 groups, 0 users, 0 request templates, 0 priorities, 0 usage policies, 0 licenses, 0 vulnerabilities. Updated: 0 users, 0 request templates, 0 catalog objects.');

    const withKey = await fetch(`${stack.apiUrl}/api/v2/`, { headers: { Authorization: `Token ${aliceKey}` } });
    expect(withKey.status).toBe(200);
    expect(await withKey.json()).toBeTypeOf('object');
    const without = await fetch(`${stack.apiUrl}/api/v2/`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Token');
    expect((await fetch(`${stack.apiUrl}/api/v2/`, { headers: { Authorization: `Token ${bobKey}` } })).status).toBe(200);

    // create-api-key replaces bob's key at once.
    const rotated = await admin(dataDir, 'create-api-key', 'bob');
    expect(rotated.status, rotated.stderr).toBe(0);
    const newBobKey = /: (\S+)$/m.exec(rotated.stdout.trim())?.[1];
    expect((await fetch(`${stack.apiUrl}/api/v2/`, { headers: { Authorization: `Token ${bobKey}` } })).status).toBe(401);
    expect((await fetch(`${stack.apiUrl}/api/v2/`, { headers: { Authorization: `Token ${newBobKey}` } })).status).toBe(200);
    expect((await admin(dataDir, 'list-users')).stdout).toMatch(/alice\s+alice@example.com\s+acme\s+no\s+yes\s+legal\s+set/);

    const stackFile = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8'));
    const dynamoPort = Number(new URL(stackFile.dynamodbEndpoint).port);
    expect(await portAnswers(dynamoPort)).toBe(true);
    expect(javaProcessesFor(dataDir)).toHaveLength(1);

    expect(await stopStack(stack)).toBe('stopped');
    expect(await portAnswers(port)).toBe(false);
    expect(await portAnswers(dynamoPort)).toBe(false);
    expect(javaProcessesFor(dataDir)).toEqual([]);
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    expect((await admin(dataDir, 'list-users')).status).toBe(2);

    // The data is on disk under DATA_DIR: a restart still knows alice.
    stack = await startStack({ PORT: String(port), DATA_DIR: dataDir });
    expect((await fetch(`${stack.apiUrl}/api/v2/`, { headers: { Authorization: `Token ${aliceKey}` } })).status).toBe(200);
    expect(await stopStack(stack)).toBe('stopped');
    expect(javaProcessesFor(dataDir)).toEqual([]);
  }, 600_000);

  it('runs two instances side by side with different PORT and DATA_DIR, and refuses a shared DATA_DIR', async () => {
    const [dirA, dirB] = [mkdtempSync(join(tmpdir(), 'cms-a-')), mkdtempSync(join(tmpdir(), 'cms-b-'))];
    dirs.push(dirA, dirB);
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = await Promise.all([
      startStack({ PORT: String(portA), DATA_DIR: dirA }),
      startStack({ PORT: String(portB), DATA_DIR: dirB }),
    ]);
    for (const stack of [a, b]) expect((await fetch(`${stack.apiUrl}/api/v2/`)).status).toBe(401);

    await expect(startStack({ PORT: String(await freePort()), DATA_DIR: dirA })).rejects.toThrow(/Another local stack/);

    expect(await Promise.all([stopStack(a), stopStack(b)])).toEqual(['stopped', 'stopped']);
    expect([...javaProcessesFor(dirA), ...javaProcessesFor(dirB)]).toEqual([]);
  }, 600_000);

  it('stops DynamoDB Local even when the stack is killed with SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-kill-'));
    dirs.push(dataDir);
    const stack = await startStack({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(javaProcessesFor(dataDir)).toHaveLength(1);
    // Only the stack's own node process dies, as in a crash; Java is left to the watchdog.
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    while (javaProcessesFor(dataDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(javaProcessesFor(dataDir)).toEqual([]);
  }, 600_000);
});
