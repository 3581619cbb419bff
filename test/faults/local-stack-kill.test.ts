/**
 * The local stack killed with SIGKILL in the middle of a burst of writes, then started again on the
 * same DATA_DIR, the way the README runs it (`npm start` as a child process). Every product the API
 * acknowledged with 201 must be there, none half there (the dataspace's count, its index, the
 * creator's viewer index and the name reservations agree with the products), and the pipeline must
 * pick up where it stopped: the change records written before the kill reach the evaluator, and a
 * change made after the restart produces its violation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bin/local/ports.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { npmStart, repositoryRoot, type RunningStack } from '../support/npm-start.ts';
import { eventually } from '../support/local-stack.ts';

const started: ChildProcess[] = [];
const dirs: string[] = [];

/** The products fired in the burst, how many run at once, and after how many 201s the stack dies. */
const BURST = 60;
const CONCURRENCY = 12;
const KILL_AFTER_ACKS = 15;
/**
 * Evaluation requests wait this long in the queue (1 s by default locally). Well beyond the second or
 * so between the first POST and the kill, so no evaluation is in flight when the stack dies (it would
 * stay invisible for the queue's 180 s visibility timeout after the restart, as on AWS): every
 * evaluation of the burst runs after the restart.
 */
const EVALUATION_DELAY_SECONDS = '5';

afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) signalGroup(child, 'SIGKILL');
  for (const dir of dirs) {
    await waitUntil(() => javaProcessesFor(dir).length === 0, 30_000);
    rmSync(dir, { recursive: true, force: true });
  }
});

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** The environment of a child: this one's, without the test table settings a worker may carry. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'EVALUATION_QUEUE_URL', 'PUBLIC_BASE_URL']) delete env[name];
  // No per-key throttling: the burst is one user's 60 concurrent POSTs.
  return { ...env, RATE_LIMIT_PER_SECOND: '0', ...extra };
}

function startStack(env: Record<string, string>): Promise<RunningStack> {
  return npmStart(childEnv(env), started);
}

function admin(dataDir: string, ...args: string[]) {
  return spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: repositoryRoot,
    env: childEnv({ DATA_DIR: dataDir, TABLE_NAME: '' }),
    encoding: 'utf8',
    timeout: 180_000,
  });
}

function javaProcessesFor(dataDir: string): string[] {
  const result = spawnSync('pgrep', ['-f', '--', `DynamoDBLocal.jar .*-dbPath ${join(dataDir, 'dynamodb')}`], { encoding: 'utf8' });
  return result.stdout.split('\n').filter(Boolean);
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

type Outcome = { name: string } & ({ kind: 'acknowledged'; uuid: string } | { kind: 'answered'; status: number } | { kind: 'no answer'; error: string });

describe('SIGKILL during a burst of writes, then a restart on the same DATA_DIR', () => {
  it('keeps every acknowledged product whole, and the pipeline catches up', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-kill-burst-'));
    dirs.push(dataDir);
    const port = String(await freePort());
    const stackEnv = { PORT: port, DATA_DIR: dataDir, EVALUATION_DELAY_SECONDS };
    let stack = await startStack(stackEnv);

    const keys = { root: generateApiKey(), alice: generateApiKey() };
    const seed = join(dataDir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        dataspaces: [{ name: 'acme' }],
        users: [
          { username: 'root', email: 'root@example.com', dataspace: 'acme', is_superuser: true, api_key: keys.root },
          { username: 'alice', email: 'alice@example.com', dataspace: 'acme', is_superuser: false, api_key: keys.alice },
        ],
      }),
    );
    const loaded = admin(dataDir, 'load', seed);
    expect(loaded.status, loaded.stderr).toBe(0);

    const api = (user: keyof typeof keys, method: string, path: string, body?: unknown) =>
      fetch(`${stack.apiUrl}${path}`, {
        method,
        headers: { Authorization: `Token ${keys[user]}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const json = async (user: keyof typeof keys, method: string, path: string, body?: unknown) => {
      const response = await api(user, method, path, body);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
    };

    // ---- the burst, and the kill in its middle ----
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as { pid: number };
    const outcomes: Outcome[] = [];
    let acknowledged = 0;
    let killed = false;
    const names = Array.from({ length: BURST }, (_, i) => `Burst ${String(i).padStart(3, '0')}`);
    const queue = [...names];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        try {
          const response = await api('alice', 'POST', '/api/v2/products/', { name, version: '1.0' });
          const text = await response.text();
          if (response.status === 201) {
            outcomes.push({ name, kind: 'acknowledged', uuid: (JSON.parse(text) as { uuid: string }).uuid });
            acknowledged += 1;
            if (acknowledged >= KILL_AFTER_ACKS && !killed) {
              killed = true;
              // Only the stack's node process dies, as in a crash; DynamoDB Local is left to the watchdog.
              process.kill(pid, 'SIGKILL');
            }
          } else {
            outcomes.push({ name, kind: 'answered', status: response.status });
          }
        } catch (error) {
          outcomes.push({ name, kind: 'no answer', error: String((error as Error).cause ?? error) });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(killed).toBe(true);
    const acked = outcomes.filter((o): o is Outcome & { kind: 'acknowledged' } => o.kind === 'acknowledged');
    // Every POST got its 201, no answer at all, or, on a loaded machine, the documented 503 "busy" (a
    // DynamoDB call that outlasted the SDK's retries): never any other error. A 503, like no answer,
    // leaves the client not knowing whether the product was written: both are checked alike below.
    const busy = (o: Outcome) => o.kind === 'answered' && o.status === 503;
    expect(outcomes.filter((o) => o.kind === 'answered' && !busy(o))).toEqual([]);
    const unanswered = outcomes.filter((o) => o.kind === 'no answer' || busy(o));
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(outcomes.filter((o) => o.kind === 'no answer').length).toBeGreaterThan(0);

    // The watchdog stops the orphaned DynamoDB Local; the stack file stays behind, stale.
    expect(await waitUntil(() => javaProcessesFor(dataDir).length === 0, 30_000)).toBe(true);
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(true);
    // The stream checkpoints survived the kill whole (they are replaced by rename, never rewritten in place).
    for (const poller of ['stream-router', 'outbox-publisher']) {
      const file = join(dataDir, `stream-checkpoint-${poller}.json`);
      expect(existsSync(file), file).toBe(true);
      expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
    }

    // ---- the restart ----
    stack = await startStack(stackEnv);

    // Every acknowledged product is there, as it was answered.
    const reads = await Promise.all(acked.map((product) => json('alice', 'GET', `/api/v2/products/${product.uuid}/`)));
    acked.forEach((product, i) => {
      expect(reads[i]!.status, reads[i]!.text).toBe(200);
      expect(reads[i]!.body).toMatchObject({ uuid: product.uuid, name: product.name, version: '1.0', created_by: 'alice' });
    });

    // None is half-written: the superuser's list (the count item and the dataspace index) and
    // alice's list (her viewer index, i.e. the creator grants) name the same products, each readable.
    const listAll = async (user: keyof typeof keys) => {
      const first = await json(user, 'GET', '/api/v2/products/?page_size=100');
      expect(first.status, first.text).toBe(200);
      expect(first.body.next).toBeNull();
      return { count: first.body.count as number, products: first.body.results as { uuid: string; name: string }[] };
    };
    const asRoot = await listAll('root');
    const asAlice = await listAll('alice');
    expect(asRoot.count).toBe(asRoot.products.length);
    expect(asAlice.count).toBe(asAlice.products.length);
    expect(asAlice.products.map((p) => p.uuid).sort()).toEqual(asRoot.products.map((p) => p.uuid).sort());
    const statuses = await Promise.all(asRoot.products.map(async (product) => (await json('alice', 'GET', `/api/v2/products/${product.uuid}/`)).status));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(asRoot.products.map((p) => p.uuid)).toEqual(expect.arrayContaining(acked.map((p) => p.uuid)));
    // Products exist only for names that were sent, and each name at most once.
    const listedNames = asRoot.products.map((p) => p.name);
    expect(new Set(listedNames).size).toBe(listedNames.length);
    expect(names).toEqual(expect.arrayContaining(listedNames));

    // A POST that got no answer either committed whole or not at all: its name is reserved exactly
    // when its product exists (sending it again is a 400 for a product that exists, a 201 otherwise).
    // Sent one at a time, not as a second burst; a 503 "busy" (a loaded machine) is retried as its
    // Retry-After says, and a retry may then find the product its own first try wrote.
    for (const lost of unanswered) {
      const exists = listedNames.includes(lost.name);
      let resent = await json('alice', 'POST', '/api/v2/products/', { name: lost.name, version: '1.0' });
      let retried = false;
      for (let tries = 1; resent.status === 503 && tries < 10; tries++) {
        retried = true;
        await sleep(1_000);
        resent = await json('alice', 'POST', '/api/v2/products/', { name: lost.name, version: '1.0' });
      }
      const expected = exists ? [400] : retried ? [201, 400] : [201];
      expect(expected, `${lost.name}: ${resent.text}`).toContain(resent.status);
      if (resent.status === 400) expect(resent.body).toEqual({ name: ['Product with this name and version already exists.'] });
    }
    const afterResend = await listAll('root');
    expect(afterResend.count).toBe(BURST);
    expect(afterResend.products).toHaveLength(BURST);

    // ---- the pipeline catches up ----
    // Whether the kill left a product's change record unread on the stream (the router resumes from
    // its checkpoint) or its evaluation request queued (the queue keeps it on disk), every product the
    // burst wrote, answered or not, gets evaluated after the restart, with no rule change to force it.
    await eventually(
      async () => Promise.all(asRoot.products.map(async (p) => (await json('alice', 'GET', `/api/v2/products/${p.uuid}/policy_status/`)).body)),
      (statuses) => statuses.every((status) => status?.evaluated_at !== null && status?.evaluated_at !== undefined),
      120_000,
    );

    // And a change made now flows through the stream router, the queue and the evaluator.
    const rules = await json('root', 'PUT', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true, threshold: 0 } });
    expect(rules.status, rules.text).toBe(200);
    const pkg = await json('root', 'POST', '/api/v2/packages/', { purl: 'pkg:npm/unlicensed@1.0.0' });
    expect(pkg.status, pkg.text).toBe(201);
    const target = acked[0]!;
    const added = await json('alice', 'POST', '/api/v2/product_packages/', { product: target.uuid, package: pkg.body.uuid });
    expect(added.status, added.text).toBe(201);
    const violations = await eventually(
      async () => (await json('alice', 'GET', `/api/v2/products/${target.uuid}/policy_violations/`)).body as { rule_type: string }[],
      (found) => Array.isArray(found) && found.some((v) => v.rule_type === 'license_coverage_gap'),
      120_000,
    );
    expect(violations.map((v) => v.rule_type)).toEqual(['license_coverage_gap']);

    // ---- a clean stop leaves nothing running ----
    const closed = new Promise<void>((done) => stack.child.once('close', () => done()));
    signalGroup(stack.child, 'SIGTERM');
    await closed;
    expect(stack.output()).toMatch(/Local stack stopped\.\s*$/);
    expect(await waitUntil(() => javaProcessesFor(dataDir).length === 0, 30_000)).toBe(true);
  }, 900_000);
});
