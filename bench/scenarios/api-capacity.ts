/**
 * What one API call costs the table, in read and write units (ReturnConsumedCapacity, DynamoDB Local
 * reporting it), the work it sets off in the pipeline included: the stream router, the product's
 * evaluation, the outbox publisher. The figures docs/cost.md is computed from (bench/cost-model.ts).
 *
 * The stack runs with the deployment's rate limits (a key's and its dataspace's quota are kept in the
 * table, so every call pays for them), behind a proxy that counts every data-plane call
 * (lib/capacity-proxy.ts). Each call is made when the table has been quiet for QUIET_MS, and counted
 * until it is quiet again: longer than the evaluation's delay and the pollers' pauses, so the
 * evaluation a change asks for is counted with it. The median of REPEATS calls of each kind.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario, ScenarioContext } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { callApi } from '../lib/api.ts';
import { startCapacityProxy, type CapacityProxy, type Consumed } from '../lib/capacity-proxy.ts';
import { withFreshStack } from '../lib/stack.ts';
import { benchDocumentClient, createUserWithKey } from '../lib/seed.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { DEFAULT_DATASPACE_RATE_LIMIT, DEFAULT_KEY_RATE_LIMIT } from '../../lib/compliance-stack.ts';

const NAME = 'api capacity';
const REPEATS = 5;
/** Quiet long enough for the stream poller (250 ms), the evaluation's delay (1 s) and the queue poller. */
const QUIET_MS = 3_000;
/** A real producer's SBOM: cyclonedx-npm 1.6 of this repository's production dependencies. */
const SBOM = 'test/fixtures/sbom/cyclonedx-npm-1.6-prod.cdx.json';
const DATASPACE = 'capacity';
/** Webhook subscriptions when measuring deliveries. */
const SUBSCRIBERS = 10;
const ROOT = 'capacity-root';
const REVIEWER = 'capacity-reviewer';
/**
 * Write units of the first request create above, measured by this scenario before the scale issue's
 * item #3 (bench/results/latest.json at d6f0dfb): the baseline its target halves.
 */
const CREATE_WRITES_BEFORE = 36;

interface Measured {
  readonly consumed: Consumed;
  readonly ms: number;
}

async function quiet(proxy: CapacityProxy): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (proxy.idleMs() < QUIET_MS) {
    if (Date.now() > deadline) throw new Error(`The table was never quiet for ${QUIET_MS} ms in 120 s`);
    await sleep(100);
  }
}

/** One call, counted from a quiet table until the table is quiet again. */
async function measureOne(proxy: CapacityProxy, fn: () => Promise<unknown>): Promise<Measured> {
  await quiet(proxy);
  proxy.reset();
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  await quiet(proxy);
  return { consumed: proxy.consumed(), ms };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** The write units of one run by what was written, per `per`, largest first (capacity-proxy.ts writeUnitsBy). */
function byKind(consumed: Measured['consumed'], per: number): string {
  const by = Object.entries(consumed.writeUnitsBy ?? {}).filter(([, units]) => units / per >= 0.01);
  if (by.length === 0) return '';
  return `; write units by item written: ${by
    .sort(([, a], [, b]) => b - a)
    .map(([kind, units]) => `${kind} ${+(units / per).toFixed(2)}`)
    .join(', ')}`;
}

/** Two figures (read units, write units) for one kind of call, from REPEATS measurements. */
function figuresOf(what: string, runs: readonly Measured[], per = 1, perWhat = ''): BenchFigure[] {
  const reads = median(runs.map((run) => run.consumed.readUnits / per));
  const writes = median(runs.map((run) => run.consumed.writeUnits / per));
  const calls = runs.at(runs.length >> 1)!.consumed.calls;
  const note =
    `median of ${runs.length} (read ${runs.map((run) => +(run.consumed.readUnits / per).toFixed(2)).join(', ')}; write ${runs.map((run) => +(run.consumed.writeUnits / per).toFixed(2)).join(', ')})` +
    `${perWhat}; of the write units, the audit trail's records: ${+median(runs.map((run) => run.consumed.auditWriteUnits / per)).toFixed(2)}` +
    `; API call p50 ${median(runs.map((run) => run.ms)).toFixed(0)} ms; calls of one: ${Object.entries(calls).map(([op, n]) => `${op} ${n}`).join(', ')}` +
    byKind(runs.at(runs.length >> 1)!.consumed, per);
  return [
    { scenario: NAME, figure: `read units per ${what}`, value: +reads.toFixed(2), target: 'reference', met: true, unit: 'RCU', note },
    { scenario: NAME, figure: `write units per ${what}`, value: +writes.toFixed(2), target: 'reference', met: true, unit: 'WCU', note },
  ];
}

async function measure(context: ScenarioContext, proxy: CapacityProxy): Promise<BenchFigure[]> {
  const doc = benchDocumentClient(context);
  const key = await createUserWithKey(doc, context.tableName, { username: ROOT, dataspace: DATASPACE, isSuperuser: true });
  await createUserWithKey(doc, context.tableName, { username: REVIEWER, dataspace: DATASPACE, isSuperuser: false });
  const store = new RequestStore(doc, context.tableName);
  const template = randomUUID();
  await store.saveTemplate({ uuid: template, dataspace: DATASPACE, name: 'Package Review', description: '', contentType: 'product', isActive: true, questions: [] }, undefined);
  await store.createPriority({ dataspace: DATASPACE, label: 'Normal' });
  doc.destroy();

  const product = (name: string) => callApi(context, key, 'POST', '/api/v2/products/', { name }, 201).then((made) => made.uuid as string);
  const products: string[] = [];
  for (let i = 0; i < 3; i++) products.push(await product(`capacity product ${i}`));
  const figures: BenchFigure[] = [];
  const repeat = async (fn: (i: number) => Promise<unknown>) => {
    const runs: Measured[] = [];
    for (let i = 0; i < REPEATS; i++) runs.push(await measureOne(proxy, () => fn(i)));
    return runs;
  };

  context.log(`${NAME}: reads`);
  figures.push(...figuresOf('GET of a product', await repeat(() => callApi(context, key, 'GET', `/api/v2/products/${products[0]}/`, undefined, 200))));
  figures.push(...figuresOf('GET of page 1 of the products', await repeat(() => callApi(context, key, 'GET', '/api/v2/products/', undefined, 200))));

  context.log(`${NAME}: requests`);
  const requests: string[] = [];
  const createRequest = async (title: string, fields: Record<string, unknown> = {}) => {
    const made = await callApi(context, key, 'POST', '/api/v2/requests/', { title, request_template: template, priority: 'Normal', assignee: ROOT, ...fields }, 201);
    requests.push(made.uuid as string);
  };
  const created = await repeat((i) => createRequest(`Review ${i}`));
  figures.push(...figuresOf('request created', created));
  const createWrites = median(created.map((run) => run.consumed.writeUnits));
  const auditWrites = median(created.map((run) => run.consumed.auditWriteUnits));
  // Scale issue #3 halved what the request's own writes cost; the audit trail (issue 18) came after it
  // and adds its record, counted apart here so that each figure says what it measures.
  figures.push({
    scenario: NAME,
    figure: 'write units per request created ÷ before (scale issue #3)',
    value: +((createWrites - auditWrites) / CREATE_WRITES_BEFORE).toFixed(3),
    target: '≤ 0.5',
    met: (createWrites - auditWrites) / CREATE_WRITES_BEFORE <= 0.5,
    note: `${createWrites - auditWrites} WCU now without its audit record (${createWrites} with it, ${(createWrites / CREATE_WRITES_BEFORE).toFixed(3)} of before); ${CREATE_WRITES_BEFORE} WCU measured by this scenario at d6f0dfb (counters an item each, the request item in eight indexes projecting all attributes)`,
  });
  figures.push({
    scenario: NAME,
    figure: 'audit write units per request created',
    value: auditWrites,
    target: 'reference',
    met: true,
    unit: 'WCU',
    note: "the stream router's put of the request's audit record: the item, and its object and user index entries (GSI10 and GSI9, keys only); part of the write units per request created",
  });
  // Webhook deliveries: the same create with SUBSCRIBERS subscriptions to request.added, less the create alone.
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', () => listening()));
  const hooks: string[] = [];
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    for (let i = 0; i < SUBSCRIBERS; i++) hooks.push((await callApi(context, key, 'POST', '/api/v2/webhooks/', { target_url: `${url}/${i}`, events: ['request.added'] }, 201)).uuid as string);
    const withHooks = await repeat((i) => createRequest(`Delivered ${i}`));
    const alone = { readUnits: median(created.map((run) => run.consumed.readUnits)), writeUnits: median(created.map((run) => run.consumed.writeUnits)) };
    const deliveryRuns = withHooks.map((run) => ({
      ms: run.ms,
      consumed: { readUnits: run.consumed.readUnits - alone.readUnits, writeUnits: run.consumed.writeUnits - alone.writeUnits, auditWriteUnits: 0, calls: run.consumed.calls },
    }));
    figures.push(
      ...figuresOf('webhook delivery', deliveryRuns, SUBSCRIBERS, `; request creates with ${SUBSCRIBERS} subscriptions to request.added, less a create alone, per delivery (each received and answered 204)`),
    );
  } finally {
    // Off before the receiver goes, so that the creates below deliver nothing (and fail no delivery).
    for (const hook of hooks) await callApi(context, key, 'PATCH', `/api/v2/webhooks/${hook}/`, { is_active: false }, 200);
    receiver.closeAllConnections();
    await new Promise<void>((closed) => receiver.close(() => closed()));
  }
  figures.push(...figuresOf('GET of page 1 of the requests', await repeat(() => callApi(context, key, 'GET', '/api/v2/requests/', undefined, 200))));
  figures.push(...figuresOf('comment added', await repeat((i) => callApi(context, key, 'POST', `/api/v2/requests/${requests[i]}/add_comment/`, { text: 'Looks fine.' }, 201))));
  figures.push(...figuresOf('request changed (PATCH status)', await repeat((i) => callApi(context, key, 'PATCH', `/api/v2/requests/${requests[i]}/`, { status: 'closed' }, 200))));
  // Creates of other shapes, after the reads above so that these do not change what page 1 holds.
  figures.push(...figuresOf('request created, assigned to another user', await repeat((i) => createRequest(`Assigned ${i}`, { assignee: REVIEWER }))));
  figures.push(...figuresOf('private request created, assigned to another user', await repeat((i) => createRequest(`Private ${i}`, { assignee: REVIEWER, is_private: true }))));
  figures.push(...figuresOf('request created with 2.4 KB of notes', await repeat((i) => createRequest(`Noted ${i}`, { notes: 'Notes of a real review. '.repeat(100) }))));

  context.log(`${NAME}: SBOM imports and packages`);
  const sbom = readFileSync(SBOM, 'utf8');
  const components = (JSON.parse(sbom) as { components: unknown[] }).components.length;
  const targets: string[] = [];
  for (let i = 0; i < REPEATS * 2; i++) targets.push(await product(`capacity import ${i}`));
  // The first import into the dataspace creates its packages; the rest only add them to a new product.
  const load = (i: number) => callApi(context, key, 'POST', `/api/v2/products/${targets[i]}/load_sboms/`, sbom, 200, 'application/vnd.cyclonedx+json');
  const first = await measureOne(proxy, () => load(0));
  figures.push(...figuresOf('SBOM component new to the catalog', [first], components, `; one import of ${components} components (${SBOM}), its product's evaluation included`));
  figures.push(
    ...figuresOf(
      'SBOM component already in the catalog',
      await repeat((i) => load(i + 1)),
      components,
      `; imports of the same ${components} components into new products, each product's evaluation included`,
    ),
  );
  figures.push(
    ...figuresOf(
      'SBOM component re-imported unchanged',
      await repeat((i) => load(i + 1)),
      components,
      `; the same ${components} components imported again into the products that hold them: reads only, no evaluation`,
    ),
  );
  const listed = await callApi(context, key, 'GET', `/api/v2/packages/?page_size=${REPEATS}`, undefined, 200);
  const packages = (listed.results as { uuid: string }[]).map((pkg) => pkg.uuid);
  figures.push(
    ...figuresOf(
      'package added to a product',
      await repeat((i) => callApi(context, key, 'POST', '/api/v2/product_packages/', { product: products[1], package: packages[i] }, 201)),
      1,
      `; the product's evaluation included (it holds ${REPEATS} packages at the end)`,
    ),
  );
  return figures;
}

export const apiCapacity: Scenario = {
  name: NAME,
  async run(shared) {
    const proxy = await startCapacityProxy(shared.dynamodbEndpoint);
    try {
      return await withFreshStack((stack) => measure({ ...stack, log: shared.log }, proxy), {
        dynamodbEndpoint: proxy.endpoint,
        tableName: 'capacity',
        log: (line) => shared.log(`  (capacity stack) ${line}`),
        settings: {
          RATE_LIMIT_PER_SECOND: DEFAULT_KEY_RATE_LIMIT.perSecond,
          RATE_LIMIT_BURST: DEFAULT_KEY_RATE_LIMIT.burst,
          DATASPACE_RATE_LIMIT_PER_SECOND: DEFAULT_DATASPACE_RATE_LIMIT.perSecond,
          DATASPACE_RATE_LIMIT_BURST: DEFAULT_DATASPACE_RATE_LIMIT.burst,
        },
      });
    } finally {
      await proxy.stop();
    }
  },
};
