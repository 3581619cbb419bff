/**
 * Scale issue, per-dataspace write contention: request creates through the HTTP API from 16 concurrent
 * clients in one dataspace, against the same 16 clients spread over 16 dataspaces (one each). Every
 * create updates the list counters of its dataspace in its transaction, so clients of one dataspace
 * write the same counter items and lose races to each other where clients of different dataspaces
 * never meet. Target: creates a second in one dataspace ≥ 0.8 of spread, no 5xx, every create present
 * (read back two ways: the list's `count`, which reads the counters, and a Query of the index).
 *
 * DynamoDB Local runs transactions one at a time and so never cancels one for a conflict: the loads run
 * on a stack of their own whose DynamoDB calls pass through a proxy that gives transactions DynamoDB's
 * isolation (bench/lib/conflict-proxy.ts). Without it both layouts would measure the same serial queue.
 *
 * What one create costs in write units is the "api capacity" scenario's: DynamoDB Local reports a
 * transaction as if it had written one item, and that scenario computes it by DynamoDB's rules.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Scenario, ScenarioContext } from '../lib/scenario.ts';
import { startConflictProxy, type ConflictProxy } from '../lib/conflict-proxy.ts';
import { withFreshStack } from '../lib/stack.ts';
import type { BenchFigure } from '../lib/results.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { keys } from '../../shared/keys.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { indexKeys } from '../../shared/store/dynamo.ts';

const NAME = 'request creates';
const CLIENTS = 16;
/** The two layouts take turns, ROUNDS times SECONDS each, so a change in the machine's load meets both. */
const ROUNDS = 4;
const SECONDS = 5;
const WARMUP_SECONDS = 3;
const TARGET = 0.8;
const TEMPLATE = 'Contention Review';
const PRIORITIES = ['Urgent', 'Normal'];

interface Client {
  readonly dataspace: string;
  readonly username: string;
  readonly key: string;
}

interface Run {
  readonly created: number;
  readonly perSecond: number;
  readonly status5xx: number;
  readonly other: number;
  readonly seconds: number;
  readonly byDataspace: ReadonlyMap<string, number>;
  /** Every answer other than 201, by status. */
  readonly refused: ReadonlyMap<number, number>;
}

async function seedClients(context: ScenarioContext, layout: 'one' | 'spread'): Promise<Client[]> {
  const doc = benchDocumentClient(context);
  try {
    const tag = randomUUID().slice(0, 6);
    const dataspaces = Array.from({ length: CLIENTS }, (_, i) => (layout === 'one' ? `creates-one-${tag}` : `creates-${i}-${tag}`));
    const clients: Client[] = [];
    const store = new RequestStore(doc, context.tableName);
    for (const dataspace of new Set(dataspaces)) {
      await store.saveTemplate({ uuid: randomUUID(), dataspace, name: TEMPLATE, description: '', contentType: 'product', isActive: true, questions: [] }, undefined);
      for (const label of PRIORITIES) await store.createPriority({ dataspace, label });
    }
    for (const [i, dataspace] of dataspaces.entries()) {
      const username = `creator-${i}-${tag}`;
      clients.push({ dataspace, username, key: await createUserWithKey(doc, context.tableName, { username, dataspace }) });
    }
    return clients;
  } finally {
    doc.destroy();
  }
}

async function create(apiUrl: string, client: Client, peers: readonly Client[], n: number): Promise<number> {
  const assignee = peers[n % peers.length]!;
  const response = await fetch(`${apiUrl}/api/v2/requests/`, {
    method: 'POST',
    headers: { Authorization: `Token ${client.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: `Contention ${n}`,
      request_template: TEMPLATE,
      priority: PRIORITIES[n % PRIORITIES.length],
      // Same dataspace only (another dataspace's user does not exist here).
      ...(assignee.dataspace === client.dataspace ? { assignee: assignee.username } : {}),
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Every client creates requests one after another for `seconds`; counts what was answered. */
async function load(apiUrl: string, clients: readonly Client[], seconds: number): Promise<Run> {
  let created = 0;
  let status5xx = 0;
  let other = 0;
  const byDataspace = new Map<string, number>();
  const refused = new Map<number, number>();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    clients.map(async (client, i) => {
      const peers = clients.filter((c) => c.dataspace === client.dataspace);
      for (let n = i; performance.now() < until; n++) {
        const status = await create(apiUrl, client, peers, n);
        if (status === 201) {
          created++;
          byDataspace.set(client.dataspace, (byDataspace.get(client.dataspace) ?? 0) + 1);
          continue;
        }
        refused.set(status, (refused.get(status) ?? 0) + 1);
        if (status >= 500) status5xx++;
        else other++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { created, perSecond: created / elapsed, status5xx, other, seconds: elapsed, byDataspace, refused };
}

/** The requests of each dataspace, counted twice: the list's `count` (counters) and a Query of the index. */
async function present(context: ScenarioContext, clients: readonly Client[]): Promise<{ listed: number; indexed: number }> {
  const doc = benchDocumentClient(context);
  try {
    let listed = 0;
    let indexed = 0;
    for (const dataspace of new Set(clients.map((c) => c.dataspace))) {
      const client = clients.find((c) => c.dataspace === dataspace)!;
      const response = await fetch(`${context.apiUrl}/api/v2/requests/?page_size=1`, { headers: { Authorization: `Token ${client.key}` } });
      if (response.status !== 200) throw new Error(`list in ${dataspace}: ${response.status}`);
      listed += Number(((await response.json()) as { count: number }).count);
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new QueryCommand({
            TableName: context.tableName,
            IndexName: keys.requestOrderingIndex.created_date,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': indexKeys(keys.requestOrderingIndex.created_date)[0] },
            ExpressionAttributeValues: { ':pk': keys.requestsPartition(dataspace) },
            Select: 'COUNT',
            ExclusiveStartKey: start,
          }),
        );
        indexed += page.Count ?? 0;
        start = page.LastEvaluatedKey;
      } while (start);
    }
    return { listed, indexed };
  } finally {
    doc.destroy();
  }
}

export const requestCreates: Scenario = {
  name: NAME,
  async run(shared) {
    const proxy = await startConflictProxy(shared.dynamodbEndpoint);
    try {
      return await withFreshStack((stack) => measure({ ...stack, log: shared.log }, proxy), {
        dynamodbEndpoint: proxy.endpoint,
        tableName: 'contention',
        log: (line) => shared.log(`  (contention stack) ${line}`),
      });
    } finally {
      await proxy.stop();
    }
  },
};

async function measure(context: ScenarioContext, proxy: ConflictProxy): Promise<BenchFigure[]> {
  const one = await seedClients(context, 'one');
  const spread = await seedClients(context, 'spread');
  context.log(`${NAME}: warming up`);
  const spreadWarmup = await load(context.apiUrl, spread, WARMUP_SECONDS);
  const oneWarmup = await load(context.apiUrl, one, WARMUP_SECONDS);
  context.log(`${NAME}: ${CLIENTS} clients over ${CLIENTS} dataspaces, then in one, ${SECONDS} s each, ${ROUNDS} times`);
  const spreadRuns: Run[] = [];
  const oneRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    spreadRuns.push(await load(context.apiUrl, spread, SECONDS));
    oneRuns.push(await load(context.apiUrl, one, SECONDS));
  }
  const [spreadRun, oneRun] = [combine(spreadRuns), combine(oneRuns)];
  const [onePresent, spreadPresent] = [await present(context, one), await present(context, spread)];
  // The warm-up wrote to the same dataspaces: every 201 of both loads must be there.
  const oneCreated = oneWarmup.created + oneRun.created;
  const spreadCreated = spreadWarmup.created + spreadRun.created;
  if (spreadRun.created === 0 || oneRun.created === 0) {
    throw new Error(`No create succeeded (spread ${spreadRun.created}, one dataspace ${oneRun.created}; answers ${refusedText([spreadRun, oneRun])}): DynamoDB Local is too busy to measure`);
  }
  const ratio = oneRun.perSecond / spreadRun.perSecond;
  const complete = onePresent.listed === oneCreated && onePresent.indexed === oneCreated && spreadPresent.listed === spreadCreated && spreadPresent.indexed === spreadCreated;
  const conflicts = proxy.conflicts();
  const figures: BenchFigure[] = [
    {
      scenario: NAME,
      figure: `creates/s, ${CLIENTS} clients in one dataspace ÷ spread over ${CLIENTS}`,
      value: ratio,
      target: `≥ ${TARGET}`,
      met: ratio >= TARGET && oneRun.status5xx === 0 && spreadRun.status5xx === 0 && complete,
      note:
        `one dataspace ${oneRun.perSecond.toFixed(1)}/s (${oneRun.created} in ${oneRun.seconds.toFixed(1)} s, ${oneRun.status5xx} 5xx, ${oneRun.other} other), ` +
        `spread ${spreadRun.perSecond.toFixed(1)}/s (${spreadRun.created}, ${spreadRun.status5xx} 5xx, ${spreadRun.other} other); ` +
        `answers other than 201 by status: ${refusedText([oneWarmup, oneRun, spreadWarmup, spreadRun])}; ` +
        `present: one ${onePresent.listed} listed / ${onePresent.indexed} indexed of ${oneCreated}, spread ${spreadPresent.listed} / ${spreadPresent.indexed} of ${spreadCreated}; ` +
        `${conflicts.transactions} transactions cancelled for a conflict, ${conflicts.inProgress} resends refused as in progress (DynamoDB's isolation, bench/lib/conflict-proxy.ts)`,
    },
    {
      scenario: NAME,
      figure: '5xx answers to creates',
      value: oneRun.status5xx + spreadRun.status5xx,
      target: '0',
      met: oneRun.status5xx + spreadRun.status5xx === 0,
    },
  ];
  return figures;
}

function refusedText(runs: readonly Run[]): string {
  const all = new Map<number, number>();
  for (const run of runs) for (const [status, n] of run.refused) all.set(status, (all.get(status) ?? 0) + n);
  return all.size === 0 ? 'none' : [...all].map(([status, n]) => `${n} × ${status}`).join(', ');
}

function combine(runs: readonly Run[]): Run {
  const sum = (f: (run: Run) => number) => runs.reduce((total, run) => total + f(run), 0);
  const refused = new Map<number, number>();
  const byDataspace = new Map<string, number>();
  for (const run of runs) {
    for (const [status, n] of run.refused) refused.set(status, (refused.get(status) ?? 0) + n);
    for (const [dataspace, n] of run.byDataspace) byDataspace.set(dataspace, (byDataspace.get(dataspace) ?? 0) + n);
  }
  const seconds = sum((run) => run.seconds);
  const created = sum((run) => run.created);
  return { created, perSecond: created / seconds, status5xx: sum((run) => run.status5xx), other: sum((run) => run.other), seconds, byDataspace, refused };
}
