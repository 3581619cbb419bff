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
import { createDocumentClient, createDynamoClient } from '../../shared/aws/clients.ts';
import { IdentityStore } from '../../shared/store/identity-store.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { PolicyStore } from '../../shared/store/policy-store.ts';
import { openApiChecker } from './openapi-check.ts';
import type { ConfigInput } from '../../shared/config.ts';
import { dynamodbEndpoint } from './environment.ts';

/** `settings`: the functions' settings beyond the evaluation delay (shared/config.ts names). */
export async function startTestStack({ evaluationDelaySeconds = 0, settings = {} }: { evaluationDelaySeconds?: number; settings?: ConfigInput } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-pipeline-'));
  // The logger is the process's own (shared/logger.ts), configured by the environment.
  process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';
  const stack = await startLocalStack({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    tableName: `pipeline-${randomUUID().slice(0, 8)}`,
    region: 'us-east-1',
    log: () => undefined,
    settings: { EVALUATION_DELAY_SECONDS: evaluationDelaySeconds, ...settings },
    dynamodbEndpoint: dynamodbEndpoint(),
  });
  const running = readRunningStack(dataDir)!;
  const doc = createDocumentClient(createDynamoClient({ region: running.region, endpoint: running.dynamodbEndpoint }));
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
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value that `done` accepts, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await probe();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * JSON calls to a running stack's API as one of the team (by username): `call` answers status and
 * body (checked against the served OpenAPI document, as startTestGateway's are), `ok` also expects a 2xx. Both read the stack and the keys when called, so they can be made
 * before beforeAll has started the stack.
 */
export function teamApi(apiUrl: () => string, keys: () => Readonly<Record<string, string>>) {
  const call = async (method: string, path: string, body?: unknown, as = 'root') => {
    const response = await fetch(`${apiUrl()}${path}`, {
      method,
      headers: { Authorization: `Token ${keys()[as]}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
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
