/**
 * One correlation id followed through the local stack as `npm start` runs it: given in the
 * X-Correlation-Id header of the API request that adds a package without a license, it comes back in
 * the answer, and it is in the log lines of every function on the path of the violation event that
 * change causes (API function, stream router, evaluator, outbox publisher, webhook fan-out, webhook
 * delivery), in the event's envelope, and in the header of the webhook delivery. The path's metrics
 * are published as EMF lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../bin/local/ports.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import type { FunctionName } from '../../shared/functions.ts';
import { npmRunAdmin, npmStart, type RunningStack } from '../support/npm-start.ts';
import { eventually } from '../support/local-stack.ts';

const started: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'cms-correlation-'));
const key = generateApiKey();
const deliveries: { headers: IncomingHttpHeaders; body: { type: string; correlation_id?: string } }[] = [];
let receiver: Server;
let stack: RunningStack;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: JSON.parse(body) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const port = await freePort();
  // INFO and metrics on, as a deployment runs: the test environment itself keeps its stacks quiet.
  stack = await npmStart({ ...process.env, PORT: String(port), DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' }, started);
  const seed = join(dataDir, 'seed.json');
  writeFileSync(seed, JSON.stringify({ dataspaces: [{ name: 'acme' }], users: [{ username: 'root', email: 'root@example.com', dataspace: 'acme', is_superuser: true, api_key: key }] }));
  const loaded = await npmRunAdmin(dataDir, 'load', seed);
  expect(loaded.status, loaded.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode !== null) continue;
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    process.kill(-child.pid!, 'SIGTERM');
    await closed;
  }
  await new Promise<void>((closed) => receiver?.close(() => closed()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined, text };
}

/** The JSON lines `npm start` printed (log lines and EMF metric lines). */
function jsonLines(): Record<string, unknown>[] {
  return stack
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

describe('one correlation id along the whole path', () => {
  it('is answered back, carried by the event and the delivery, and in the log lines of every function on the path', async () => {
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    expect((await call('PUT', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true } })).status).toBe(200);
    expect((await call('POST', '/api/v2/webhooks/', { target_url: receiverUrl, events: ['policy.violation_detected'] })).status).toBe(201);
    const product = (await call('POST', '/api/v2/products/', { name: 'Traced' })).json.uuid as string;
    const pkg = (await call('POST', '/api/v2/packages/', { purl: 'pkg:npm/untraced-license@1.0.0', license_expression: '' })).json.uuid as string;
    // The product's own first evaluation (of its creation, under another id) is done before the traced change.
    await eventually(
      () => call('GET', `/api/v2/products/${product}/policy_status/`),
      (answer) => answer.json?.evaluated_at !== null,
    );

    const id = `trace-${Date.now()}`;
    const added = await call('POST', '/api/v2/product_packages/', { product, package: pkg }, { 'X-Correlation-Id': id });
    expect(added.status, added.text).toBe(201);
    expect(added.headers.get('x-correlation-id')).toBe(id);

    const delivery = await eventually(
      async () => deliveries.find((d) => d.body.type === 'policy.violation_detected'),
      (found) => found !== undefined,
      120_000,
    );
    expect(delivery!.body.correlation_id).toBe(id);
    expect(delivery!.headers['x-correlation-id']).toBe(id);

    // The local stack names each function's invocations as the catalog names the function.
    // The fan-out makes the delivery itself (webhook-delivery only retries what failed).
    const onPath: FunctionName[] = ['product-packages', 'stream-router', 'evaluator', 'outbox-publisher', 'webhook-fanout'];
    // The fan-out's own line is written after the receiver answered and the log was written: wait for it.
    const functionsLogging = await eventually(
      async () => new Set(jsonLines().filter((line) => line.correlation_id === id).map((line) => String(line.function_name))),
      (names) => onPath.every((name) => names.has(name)),
      30_000,
    );
    expect([...functionsLogging].sort()).toEqual([...onPath].sort());
    expect(jsonLines().find((line) => line.correlation_id === id && line.message === 'Event fanned out')).toMatchObject({ delivered: 1 });

    // Each function's metrics are one line written as its invocation ends, after its own log lines: the
    // fan-out's came after "Event fanned out" had been read in a loaded fresh-clone run (2026-11-29), so
    // they are waited for as its log line was.
    const expectedMetrics = ['Evaluations', 'ViolationsDetected', 'EventsPublished', 'WebhookDeliveries'];
    const metricNames = await eventually(
      async () =>
        new Set(
          jsonLines().flatMap((line) => ((line._aws as { CloudWatchMetrics?: { Metrics: { Name: string }[] }[] } | undefined)?.CloudWatchMetrics ?? []).flatMap((m) => m.Metrics.map((metric) => metric.Name))),
        ),
      (names) => expectedMetrics.every((name) => names.has(name)),
      30_000,
    );
    for (const name of expectedMetrics) expect(metricNames).toContain(name);
  }, 300_000);

  it('refuses a malformed X-Correlation-Id with 400 in the API error format, and answers with an id of its own when none is given', async () => {
    const refused = await call('GET', '/api/v2/products/', undefined, { 'X-Correlation-Id': 'two words' });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ detail: expect.stringContaining('X-Correlation-Id') });
    const plain = await call('GET', '/api/v2/products/');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-correlation-id')).toMatch(/\S+/);
  });
});
