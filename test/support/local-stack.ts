/**
 * The whole local stack for pipeline tests: its own table in the run's DynamoDB Local (global-setup.ts),
 * its own SQS emulator, pollers, event bus and gateway (bin/local/stack.ts), as `npm start` runs them,
 * in this test process. Stop it after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { startLocalStack } from '../../bin/local/stack.ts';
import { readRunningStack } from '../../bin/local/stack-file.ts';
import { createDocumentClient, createDynamoControlClient } from '../../shared/aws/clients.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { openApiChecker } from './openapi-check.ts';
import type { ConfigInput } from '../../shared/config.ts';
import { dynamodbEndpoint } from './environment.ts';
import { keptLog, tracked } from './pending-work.ts';

/** `settings`: the functions' settings beyond the evaluation delay (shared/config.ts names). */
export async function startTestStack({ evaluationDelaySeconds = 0, settings = {} }: { evaluationDelaySeconds?: number; settings?: ConfigInput } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-pipeline-'));
  // The logger is the process's own (shared/logger.ts), configured by the environment.
  process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'CRITICAL';
  // Its own log lines (pollers' errors, records given up) are kept for a failed test's report.
  const kept = keptLog(`stack ${dataDir}`);
  const stack = await startLocalStack({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    tableName: `pipeline-${randomUUID().slice(0, 8)}`,
    region: 'us-east-1',
    log: kept.log,
    settings: { EVALUATION_DELAY_SECONDS: evaluationDelaySeconds, ...settings },
    dynamodbEndpoint: dynamodbEndpoint(),
  });
  const running = readRunningStack(dataDir)!;
  // The test's own reads and seeding are set-up, not what is measured: the long timeouts of set-up code (a
  // seeding BatchWriteItem ran past the API's 2.5 s beside a second suite, 2026-11-29).
  const doc = createDocumentClient(createDynamoControlClient({ region: running.region, endpoint: running.dynamodbEndpoint }));
  const env = {
    doc,
    tableName: running.tableName,
    identity: new IdentityStore(doc, running.tableName),
    requests: new RequestStore(doc, running.tableName),
    catalog: new CatalogStore(doc, running.tableName),
    productPackages: new ProductPackageStore(doc, running.tableName),
    policy: new PolicyStore(doc, running.tableName),
  };
  return {
    ...stack,
    env,
    dataDir,
    async stop() {
      doc.destroy();
      await stack.stop();
      kept.forget();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls `probe` until it returns a value that `done` accepts, or fails after `timeoutMs`. The failure
 * (its own, or the test's timeout meanwhile: pending-work.ts) names the probe, the condition and the
 * last value seen.
 */
export async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const what = `${oneLine(probe)} to satisfy ${oneLine(done)}`;
  return tracked(what, async (note) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = await probe();
      if (done(last)) return last;
      note(shortJson(last));
      if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms: ${what}; last value: ${shortJson(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}

function oneLine(fn: (...args: never[]) => unknown): string {
  const source = String(fn).replace(/\s+/g, ' ');
  return `\`${source.length > 200 ? `${source.slice(0, 200)}…` : source}\``;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 1_000 ? `${text.slice(0, 1_000)}… (${text.length} characters)` : text;
}

/**
 * JSON calls to a running stack's API as one of the team (by username): `call` answers status and
 * body (checked against the served OpenAPI document, as startTestGateway's are), `ok` also expects a 2xx. Both read the stack and the keys when called, so they can be made
 * before beforeAll has started the stack.
 */
export function teamApi(apiUrl: () => string, keys: () => Readonly<Record<string, string>>) {
  const call = async (method: string, path: string, body?: unknown, as = 'root') => {
    const { response, text } = await tracked(`the answer to ${method} ${path} (as ${as})`, async () => {
      const response = await fetch(`${apiUrl()}${path}`, {
        method,
        headers: { Authorization: `Token ${keys()[as]}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { response, text: await response.text() };
    });
    openApiChecker().check(method, path, { status: response.status, headers: response.headers, text });
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const ok = async (method: string, path: string, body?: unknown, as = 'root') => {
    const response = await call(method, path, body, as);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.json)}`).toBeLessThan(300);
    return response.json;
  };
  return { call, ok };
}
