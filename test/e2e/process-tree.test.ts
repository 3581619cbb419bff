/**
 * `npm start` stopped every way a user, a supervisor or a crash stops it, with real processes: SIGTERM
 * to npm's pid only, SIGINT to the process group (Ctrl-C), SIGKILL of the process that started npm,
 * the reader of its output going away, SIGKILL of npm or of the stack's node process. Each time the
 * whole tree (npm, node, DynamoDB Local's Java, its watchdog) must be gone and every port (HTTP,
 * DynamoDB Local, SQS) must refuse connections; after a SIGKILL the next start on the same DATA_DIR
 * must come up cleanly with the data. The bounds are generous (the machine is loaded); the measured
 * times are printed at the end.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { freePort } from '../../bin/local/ports.ts';
import type { StackFile } from '../../bin/local/stack-file.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import { QUEUES } from '../../shared/resources.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { npmRunAdmin, npmStart, type NpmStartOptions, type RunningStack } from '../support/npm-start.ts';
import { portAnswers, processTree, stillRunning, within } from '../support/process-tree.ts';
import type { ProcStat } from '../../bin/local/process-guard.ts';

/** How long a stop may take here, on a loaded machine; the service's own aim is 5 s (see the measured times). */
const GONE_WITHIN_MS = 20_000;

const started: ChildProcess[] = [];
const trees: ProcStat[][] = [];
const dirs: string[] = [];
const measured: Record<string, number> = {};

afterAll(async () => {
  // Whatever a failed test left: every process it started, by pid and start time.
  for (const tree of trees) {
    for (const stat of stillRunning(tree)) {
      try {
        process.kill(stat.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  console.info(`process-tree stop times (ms): ${JSON.stringify(measured)}`);
});

/** The environment of a child: this one's, without the test table settings a worker may carry. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'EVALUATION_QUEUE_URL', 'PUBLIC_BASE_URL']) delete env[name];
  return { ...env, POWERTOOLS_LOG_LEVEL: 'INFO', ...extra };
}

interface Started {
  stack: RunningStack;
  dataDir: string;
  file: StackFile;
  /** npm (or its wrapper shell) and everything under it, as it was when the stack was ready. */
  tree: ProcStat[];
  ports: { http: number; dynamodb: number; sqs: number };
}

async function start(dataDir: string, options: NpmStartOptions = {}): Promise<Started> {
  const stack = await npmStart(childEnv({ PORT: String(await freePort()), DATA_DIR: dataDir }), started, options);
  const file = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as StackFile;
  const tree = processTree(stack.child.pid!);
  trees.push(tree);
  // The tree holds npm and the stack's node process, and Java under it.
  expect(tree.map((stat) => stat.pid)).toContain(file.pid);
  expect(tree.length).toBeGreaterThanOrEqual(options.viaShell ? 4 : 3);
  const ports = {
    http: Number(new URL(file.apiUrl).port),
    dynamodb: Number(new URL(file.dynamodbEndpoint).port),
    sqs: Number(new URL(file.sqsEndpoint).port),
  };
  for (const port of Object.values(ports)) expect(await portAnswers(port)).toBe(true);
  return { stack, dataDir, file, tree, ports };
}

function newDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'cms-tree-'));
  dirs.push(dir);
  return dir;
}

/** Waits until every process of the tree is gone and every port refuses; records how long it took. */
async function expectAllGone(name: string, { tree, ports }: Started) {
  const took = await within(GONE_WITHIN_MS, `${name}: processes still running`, () => stillRunning(tree).length === 0).catch((error: unknown) => {
    throw new Error(`${String(error)}: ${JSON.stringify(stillRunning(tree))}`);
  });
  measured[name] = took;
  for (const [which, port] of Object.entries(ports)) expect(await portAnswers(port), `${which} port ${port}`).toBe(false);
}

function signal(pid: number, name: NodeJS.Signals) {
  process.kill(pid, name);
}

describe('npm start stops as a whole', () => {
  it('on SIGTERM to the npm process only', async () => {
    const running = await start(newDataDir());
    signal(running.stack.child.pid!, 'SIGTERM');
    await expectAllGone('SIGTERM to npm', running);
    expect(running.stack.output()).toMatch(/SIGTERM: stopping the local stack\.\.\.[\s\S]*Local stack stopped\./);
  }, 600_000);

  it('on SIGINT to the process group (Ctrl-C)', async () => {
    const running = await start(newDataDir());
    signal(-running.stack.child.pid!, 'SIGINT');
    await expectAllGone('SIGINT to the group', running);
    expect(running.stack.output()).toMatch(/Local stack stopped\./);
  }, 600_000);

  it('when the process that started npm is killed', async () => {
    const running = await start(newDataDir(), { viaShell: true });
    // The wrapper shell dies at once; npm is left with no parent, and the stack must notice.
    signal(running.stack.child.pid!, 'SIGKILL');
    await expectAllGone('SIGKILL of the parent of npm', running);
  }, 600_000);

  it('when nobody reads its output any more, without spinning', async () => {
    const running = await start(newDataDir());
    // The reader goes: the reading ends of npm's stdout and stderr pipes are closed.
    running.stack.child.stdout!.destroy();
    running.stack.child.stderr!.destroy();
    // Then the stack has something to say: a malformed evaluation request makes the evaluator log an error.
    const sqs = createSqsClient({ region: running.file.region, endpoint: running.file.sqsEndpoint, secret: running.file.localSecret });
    try {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: QUEUES.evaluation.localName }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'not an evaluation request' }));
    } finally {
      sqs.destroy();
    }
    await expectAllGone('output reader gone', running);
  }, 600_000);

  it('after SIGKILL of npm, and after SIGKILL of the stack itself, starts again on the same DATA_DIR with the data', async () => {
    const dataDir = newDataDir();
    const key = generateApiKey();
    const seed = join(dataDir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({ dataspaces: [{ name: 'acme' }], users: [{ username: 'alice', email: 'alice@example.com', dataspace: 'acme', api_key: key }] }),
    );
    const knowsAlice = async (apiUrl: string) => (await fetch(`${apiUrl}/api/v2/`, { headers: { Authorization: `Token ${key}` } })).status;

    let running = await start(dataDir);
    const loaded = await npmRunAdmin(dataDir, 'load', seed);
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(await knowsAlice(running.stack.apiUrl)).toBe(200);

    // npm dies at once; the stack, its parent gone, stops itself.
    signal(running.stack.child.pid!, 'SIGKILL');
    await expectAllGone('SIGKILL of npm', running);

    running = await start(dataDir);
    expect(await knowsAlice(running.stack.apiUrl)).toBe(200);

    // The stack's node process dies at once (a crash): npm follows it, the watchdog stops Java. The next
    // start does not wait for any of that: it must come up cleanly anyway.
    const crashed = running;
    signal(crashed.file.pid, 'SIGKILL');
    running = await start(dataDir);
    expect(await knowsAlice(running.stack.apiUrl)).toBe(200);
    await expectAllGone('SIGKILL of the stack node process', crashed);

    signal(running.stack.child.pid!, 'SIGTERM');
    await expectAllGone('SIGTERM to npm after restarts', running);
  }, 900_000);
});
