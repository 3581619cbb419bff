/**
 * Benchmark suite issue, API overhead: the throughput of `GET /api/v2/products/{uuid}/` at 16
 * concurrent clients (autocannon through the local stack's HTTP gateway and handler), divided by the
 * throughput of the bare DynamoDB calls that request needs, made directly at the same concurrency
 * (api-setup.ts: two GetItems to authenticate, one BatchGetItem for the product and the caller's
 * grants, all strongly consistent). What is left is the cost of HTTP, middy, validation and JSON.
 */
import type { Scenario } from '../lib/scenario.ts';
import { CONNECTIONS, HTTP_SECONDS, ms, productGetRun } from './api-setup.ts';

const TARGET = 0.5;

export const apiOverhead: Scenario = {
  name: 'api overhead',
  async run(context) {
    const { http, floor, floorBefore, floorAfter, batchKeys } = await productGetRun(context);
    const ratio = http.requestsPerSecond / floor.requestsPerSecond;
    context.log(`GET ${http.requestsPerSecond.toFixed(0)} req/s / floor ${floor.requestsPerSecond.toFixed(0)} calls/s = ${ratio.toFixed(2)}`);
    return [
      {
        scenario: this.name,
        figure: `GET /api/v2/products/{uuid}/ throughput / bare DynamoDB calls, ${CONNECTIONS} concurrent`,
        value: ratio,
        target: `≥ ${TARGET}`,
        met: ratio >= TARGET,
        unit: 'ratio',
        note:
          `as a non-superuser with a direct view grant; API ${http.requestsPerSecond.toFixed(0)} req/s ` +
          `(${http.total} requests in ${http.durationSeconds.toFixed(1)} s, p50 ${ms(http.p50Ms)}); floor ` +
          `${floor.requestsPerSecond.toFixed(0)} calls/s (GetItem APIKEY, GetItem USER, BatchGetItem of ${batchKeys} keys, ` +
          `all ConsistentRead; ${HTTP_SECONDS / 2} s before the API run: ${floorBefore.requestsPerSecond.toFixed(0)}/s, p50 ` +
          `${ms(floorBefore.p50Ms)}; ${HTTP_SECONDS / 2} s after: ${floorAfter.requestsPerSecond.toFixed(0)}/s, p50 ${ms(floorAfter.p50Ms)})`,
      },
    ];
  },
};
