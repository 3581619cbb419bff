/**
 * Benchmark suite issue, API latency: p99 below 4 × p50, at 16 concurrent clients, for
 * `GET /api/v2/products/{uuid}/` (the run of "api overhead", api-setup.ts) and for
 * `POST /api/v2/requests/` (a request from a template, as the same non-superuser). The figure is
 * p99 / p50; the milliseconds are in the note.
 *
 * Every request created is a request.added event for the pipeline (table stream → outbox publisher →
 * bus → webhook fan-out): the scenario waits until the bus has seen them all, so the scenarios after
 * it do not share the machine with that backlog.
 */
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { measureHttp, type LoadResult } from '../lib/load.ts';
import { REQUEST_ADDED } from '../../shared/events/request-events.ts';
import { InProcessEventBus } from '../../bin/local/event-bus.ts';
import { pollUntil } from './policy-seed.ts';
import { CONNECTIONS, DATASPACE, HTTP_SECONDS, apiSetup, ms, productGetRun } from './api-setup.ts';

const MAX_RATIO = 4;
const DRAIN_TIMEOUT_MS = 300_000;
/** Seconds of the one-client POST run the note compares with. */
const SINGLE_SECONDS = 3;

let addedOnBus = 0;
let ruleAdded = false;

function countRequestEvents(publisher: InProcessEventBus | undefined): boolean {
  if (!(publisher instanceof InProcessEventBus)) return false;
  if (!ruleAdded) {
    publisher.addRule({
      name: 'bench-api-latency',
      pattern: { 'detail-type': [REQUEST_ADDED], detail: { dataspace: [DATASPACE] } },
      target: async () => {
        addedOnBus += 1;
      },
    });
    ruleAdded = true;
  }
  return true;
}

function latencyFigure(name: string, endpoint: string, run: LoadResult, extra: string): BenchFigure {
  const ratio = run.p99Ms / run.p50Ms;
  return {
    scenario: name,
    figure: `${endpoint} p99 / p50, ${CONNECTIONS} concurrent`,
    value: ratio,
    target: `< ${MAX_RATIO}`,
    met: ratio < MAX_RATIO && run.non2xx === 0 && run.errors === 0,
    unit: 'ratio',
    note:
      `p50 ${ms(run.p50Ms)}, p99 ${ms(run.p99Ms)} over ${run.total} requests in ${run.durationSeconds.toFixed(1)} s ` +
      `(${run.requestsPerSecond.toFixed(0)} req/s)${run.non2xx > 0 ? `, ${run.non2xx} answers outside 2xx` : ''}; ${extra}`,
  };
}

export const apiLatency: Scenario = {
  name: 'api latency',
  async run(context) {
    const { apiUrl, log } = context;
    const { http: get, floorBefore, floorAfter } = await productGetRun(context);
    const { templateUuid, viewerKey } = await apiSetup(context);

    const counting = countRequestEvents(context.bus);
    const before = addedOnBus;
    const post = await measureHttp({
      url: `${apiUrl}/api/v2/requests/`,
      method: 'POST',
      headers: { Authorization: `Token ${viewerKey}` },
      body: { title: 'API latency bench [<id>]', request_template: templateUuid },
      idReplacement: true,
      connections: CONNECTIONS,
      durationSeconds: HTTP_SECONDS,
      allowNon2xx: true,
    });
    log(`POST request: ${post.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(post.p50Ms)}, p99 ${ms(post.p99Ms)}, non-2xx ${post.non2xx}`);
    // The same POST from one client, for comparison: what a create costs without contention.
    const single = await measureHttp({
      url: `${apiUrl}/api/v2/requests/`,
      method: 'POST',
      headers: { Authorization: `Token ${viewerKey}` },
      body: { title: 'API latency bench, one client [<id>]', request_template: templateUuid },
      idReplacement: true,
      connections: 1,
      durationSeconds: SINGLE_SECONDS,
      warmupSeconds: 1,
    });
    log(`POST request, 1 client: ${single.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(single.p50Ms)}, p99 ${ms(single.p99Ms)}`);

    // The requests made (warm-up included), then the pipeline catching up with their events.
    const listed = await fetch(`${apiUrl}/api/v2/requests/?page_size=1`, { headers: { Authorization: `Token ${viewerKey}` } });
    const created = ((await listed.json()) as { count: number }).count;
    let drain = 'not waited for (the bus is not in this process)';
    if (counting) {
      const runEnd = performance.now();
      await pollUntil(
        `the bus to see the request.added events of ${created} requests`,
        async () => (addedOnBus - before >= created ? true : undefined),
        DRAIN_TIMEOUT_MS,
        200,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)} (seen: ${addedOnBus - before})`);
      });
      const seconds = (performance.now() - runEnd) / 1000;
      drain = `the ${created} request.added events (warm-up included) were all on the bus ${seconds.toFixed(1)} s after the run`;
      log(drain);
    }

    return [
      latencyFigure(
        this.name,
        'GET /api/v2/products/{uuid}/',
        get,
        `the run of "api overhead"; its floor (the bare DynamoDB calls, ${CONNECTIONS} concurrent) had p50 ` +
          `${ms(floorBefore.p50Ms)}, p99 ${ms(floorBefore.p99Ms)} (p99 / p50 ${(floorBefore.p99Ms / floorBefore.p50Ms).toFixed(2)}) ` +
          `before and p50 ${ms(floorAfter.p50Ms)}, p99 ${ms(floorAfter.p99Ms)} (${(floorAfter.p99Ms / floorAfter.p50Ms).toFixed(2)}) after`,
      ),
      latencyFigure(
        this.name,
        'POST /api/v2/requests/',
        post,
        `from 1 client instead: ${single.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(single.p50Ms)}, p99 ${ms(single.p99Ms)} ` +
          `(${single.total} requests); ${drain}`,
      ),
    ];
  },
};
