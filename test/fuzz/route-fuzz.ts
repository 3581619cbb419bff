/**
 * Hostile input over every route of the route table, property-based with fast-check.
 * For each route: random callers (a superuser, a plain user, another dataspace's superuser, broken
 * keys), path parameters (seeded identifiers of both dataspaces, bad uuids, odd strings and
 * encodings), query strings (pagination, ordering, filters, odd and long values) and bodies (shaped by
 * the route's body schema, then broken: wrong types, hostile values at any depth, unknown and
 * prototype-named fields, 100 KB strings, 1,000 levels of nesting, malformed JSON, over 1 MB).
 *
 * Properties of every answer: it is a 2xx or a 4xx, never a 5xx; a 4xx has the API's error format;
 * a refused write leaves the table as it was; another dataspace's objects are never served or leaked;
 * a body over 1 MB is refused with 413 once the body is read; Object.prototype is never polluted.
 * Each route first gets fixed cases (every field of its body schema in turn set to a wrong type or an
 * object that cannot become a string, numbers outside what DynamoDB stores, lists full of one item,
 * every query parameter at odd values), then RUNS random ones. Runs are seeded (FUZZ_SEED overrides
 * the seed) so a failure replays; every violation is collected and reported with its route, input,
 * answer and, for a 5xx, the logged stack.
 */
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import * as fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { useTestTable } from '../support/environment.ts';
import { startTestGateway } from '../support/gateway.ts';
import { aTeam, load, type Team } from '../support/factories.ts';
import { watchTable, type TableChange, type TableWatch } from '../support/table-changes.ts';
import { ROUTES, matchRoute, type Route } from '../../shared/routes/index.ts';
import { ensureQueues } from '../../bin/local/queues.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import { logger } from '../../shared/observability/logger.ts';
import { WebhookStore } from '../../shared/store/webhook-store.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';
import { bodyCases, junkSegment, knownSegment, queryCases, sweepBodies, sweepQueries, type BodyCase, type Segment } from './arbitraries.ts';

/** Random cases per route (FUZZ_RUNS overrides), after each route's fixed cases. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20_250_808);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let env: Awaited<ReturnType<typeof useTestTable>>;
/** The table's stream from the end of the seeding on: what each request wrote. */
let watch: TableWatch;
let api: Awaited<ReturnType<typeof startTestGateway>>;
let team: Team;
let sqs: ReturnType<typeof createSqsClient>;
let stackTraceLimit = Error.stackTraceLimit;

const DATASPACE: Record<string, string> = { root: 'acme', alice: 'acme', mallory: 'beta' };

interface Seed {
  readonly collection: string;
  readonly uuid: string;
  readonly apiUrl: string | undefined;
  readonly dataspace: string;
  readonly names: readonly string[];
}

const seeds: Seed[] = [];
/** Values of path parameters other than {uuid}, by name: rule types, delivery ids. */
const knownParams: Record<string, string[]> = {};
/** Every identifier the seeding made, of both dataspaces: uuids, API URLs, names, purls, usernames. */
const identifiers = new Set<string>(['root', 'alice', 'mallory', 'legal', 'view_product', 'change_product', 'delete_product']);

let sent = 0;
const logged: unknown[][] = [];
const consoleErrors: unknown[][] = [];

/** The writes a request made, one line each, for the report. */
const describeChanges = (changes: readonly TableChange[]) =>
  changes.map((change) => `  ${change.event} ${change.key}: ${clip(JSON.stringify(change.after ?? change.before ?? null), 300)}`).join('\n');

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

async function send(method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await api.call(method, path, { ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });
  if (response.status >= 300) throw new Error(`seeding ${method} ${path}: ${response.status} ${response.text}`);
  return response.json as { uuid: string; api_url: string } & Record<string, unknown>;
}

function remember(collection: string, dataspace: string, object: { uuid: string; api_url?: string }, ...names: string[]) {
  seeds.push({ collection, uuid: object.uuid, apiUrl: object.api_url, dataspace, names });
  identifiers.add(object.uuid);
  if (object.api_url) identifiers.add(object.api_url);
  for (const name of names) identifiers.add(name);
}

/** One of everything in a dataspace, made through the API by its superuser (webhooks through the store). */
async function seedDataspace(dataspace: string, superuser: string) {
  const key = team.keys[superuser]!;
  const call = (method: string, path: string, body?: unknown) => send(method, path, key, body);
  const licensePolicy = await call('POST', '/api/v2/usage_policies/', { label: `LP-${dataspace}`, content_type: 'license', compliance_alert: 'error' });
  remember('usage_policies', dataspace, licensePolicy, `LP-${dataspace}`);
  const packagePolicy = await call('POST', '/api/v2/usage_policies/', { label: `PP-${dataspace}`, content_type: 'package', compliance_alert: 'warning' });
  remember('usage_policies', dataspace, packagePolicy, `PP-${dataspace}`);
  const license = await call('POST', '/api/v2/licenses/', { key: `lic-${dataspace}`, name: `License ${dataspace}`, usage_policy: `LP-${dataspace}` });
  remember('licenses', dataspace, license, `lic-${dataspace}`);
  const purl = `pkg:npm/${dataspace}-lib@1.0.0`;
  const pkg = await call('POST', '/api/v2/packages/', { purl, license_expression: `lic-${dataspace}`, usage_policy: `PP-${dataspace}` });
  remember('packages', dataspace, pkg, purl);
  const vulnerability = await call('POST', '/api/v2/vulnerabilities/', {
    vulnerability_id: `VCID-${dataspace}`,
    risk_score: 9.8,
    affected_packages: [{ package: purl }],
  });
  remember('vulnerabilities', dataspace, vulnerability, `VCID-${dataspace}`);
  const product = await call('POST', '/api/v2/products/', { name: `Product ${dataspace}`, version: '1.0' });
  remember('products', dataspace, product, `Product ${dataspace}`);
  const productPackage = await call('POST', '/api/v2/product_packages/', { product: product.uuid, package: pkg.uuid });
  remember('product_packages', dataspace, productPackage);
  const analysis = await call('POST', '/api/v2/vulnerability_analyses/', { product_package: productPackage.uuid, vulnerability_id: `VCID-${dataspace}`, state: 'in_triage' });
  remember('vulnerability_analyses', dataspace, analysis);
  const templates = (await call('GET', '/api/v2/request_templates/')) as unknown as { results: { uuid: string; api_url: string; name: string }[] };
  for (const template of templates.results) remember('request_templates', dataspace, template, template.name);
  const request = await call('POST', '/api/v2/requests/', {
    title: `Review ${dataspace}`,
    request_template: `Template ${dataspace}`,
    priority: `Urgent ${dataspace}`,
    product_context: product.uuid,
    serialized_data: { Reason: 'because' },
  });
  remember('requests', dataspace, request, `Review ${dataspace}`, `Urgent ${dataspace}`);
  await call('POST', `/api/v2/requests/${request.uuid}/add_comment/`, { text: 'first' });
  const rules = (await call('GET', '/api/v2/policy_rules/')) as unknown as { rule_type: string }[];
  await call('PUT', '/api/v2/policy_rules/', Object.fromEntries(rules.map((rule) => [rule.rule_type, { is_active: true, threshold: 0 }])));
  const violations = (await call('POST', `/api/v2/products/${product.uuid}/evaluate_policy_rules/?wait=true`)) as unknown as { rule_type: string }[];
  if (violations.length === 0) throw new Error(`seeding: product ${product.uuid} of ${dataspace} has no violations`);
  knownParams.rule_type = [...new Set([...(knownParams.rule_type ?? []), ...violations.map((v) => v.rule_type), ...rules.map((r) => r.rule_type)])];

  // A read key of the superuser's: its uuid is what the key routes' {uuid} names.
  const apiKey = await call('POST', '/api/v2/api_keys/', { name: `Fuzz ${dataspace}`, scope: 'read' });
  remember('api_keys', dataspace, apiKey, `Fuzz ${dataspace}`);

  // Webhooks through the store: their targets are loopback addresses, which the API refuses to
  // subscribe (and ping refuses to call), so pinging them never leaves this machine.
  const store = new WebhookStore(env.doc, env.tableName);
  const webhook = {
    uuid: randomUUID(),
    dataspace,
    targetUrl: 'https://127.0.0.1:9/hook',
    events: ['request.added' as const],
    isActive: true,
    description: `hooks of ${dataspace}`,
    secret: `whsec_${Buffer.from(randomUUID()).toString('base64')}`,
    createdDate: isoWithOffset(new Date()),
    failingSince: null,
    rev: 0,
  };
  await store.save(webhook, undefined);
  remember('webhooks', dataspace, webhook);
  const deliveryId = randomUUID();
  await store.recordDelivery(
    { deliveryId, webhookUuid: webhook.uuid, envelope: { id: randomUUID(), type: 'request.added', version: 1, timestamp: isoWithOffset(new Date()), dataspace, data: {} } },
    new Date(),
  );
  (knownParams.id ??= []).push(deliveryId);
  identifiers.add(deliveryId);
  return { product };
}

beforeAll(async () => {
  env = await useTestTable();
  const suffix = randomUUID().slice(0, 8);
  sqs = createSqsClient({ region: 'us-east-1', endpoint: inject('sqsEndpoint') });
  const queue = { visibilityTimeoutSeconds: 30, maxReceiveCount: 3, retentionDays: 1, deadLetterRetentionDays: 1 };
  const queues = await ensureQueues(sqs, {
    evaluation: { ...queue, localName: `fuzz-evaluation-${suffix}`, urlEnvVar: 'EVALUATION_QUEUE_URL' },
    deliveries: { ...queue, localName: `fuzz-deliveries-${suffix}`, urlEnvVar: 'WEBHOOK_DELIVERIES_QUEUE_URL' },
  });
  Object.assign(process.env, {
    EVALUATION_QUEUE_URL: queues.evaluation.url,
    WEBHOOK_DELIVERIES_QUEUE_URL: queues.deliveries.url,
    EVALUATION_DELAY_SECONDS: '0',
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false',
    RATE_LIMIT_PER_SECOND: '0',
    // The fuzz sends hundreds of broken keys from one address: with the failure throttle on, most
    // would answer 429 and hide the 401 paths it explores (test/http/auth-throttle.test.ts covers it).
    AUTH_FAILURES_PER_MINUTE: '0',
  });
  // The handlers log an unexpected error (a 500) through the service logger: keep its stack for the
  // report, deep enough to reach the project's frames under the AWS SDK's.
  stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  vi.spyOn(logger, 'error').mockImplementation((...args: unknown[]) => {
    logged.push(args);
  });
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    consoleErrors.push(args);
  });
  api = await startTestGateway();
  team = await aTeam(env, {
    acme: { users: { root: { superuser: true }, alice: { groups: ['legal'] } } },
    beta: { users: { mallory: { superuser: true } } },
  });
  await load(env, {
    request_templates: ['acme', 'beta'].map((dataspace) => ({
      name: `Template ${dataspace}`,
      dataspace,
      content_type: 'product',
      questions: [{ label: 'Reason', input_type: 'TextField', is_required: false }],
    })),
    priorities: ['acme', 'beta'].map((dataspace) => ({ label: `Urgent ${dataspace}`, dataspace })),
  });
  const { product } = await seedDataspace('acme', 'root');
  await seedDataspace('beta', 'mallory');
  await send('POST', `/api/v2/products/${product.uuid}/permissions/`, team.keys.root, { user: 'alice', permissions: ['view_product'] });
  const own = await send('POST', '/api/v2/products/', team.keys.alice, { name: 'Alice product' });
  remember('products', 'acme', own, 'Alice product');
  watch = await watchTable(env);
}, 120_000);

afterAll(async () => {
  watch?.stop();
  await api?.stop();
  sqs?.destroy();
  vi.restoreAllMocks();
  Error.stackTraceLimit = stackTraceLimit;
});

type Caller = { name: string; token?: string; authorization?: string; dataspace?: string };

function callers(): fc.Arbitrary<Caller> {
  const user = (name: string): Caller => ({ name, token: team.keys[name]!, dataspace: DATASPACE[name]! });
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(user('root')) },
    { weight: 3, arbitrary: fc.constant(user('alice')) },
    { weight: 3, arbitrary: fc.constant(user('mallory')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Caller>(
        { name: 'no key' },
        { name: 'empty Token', authorization: 'Token' },
        { name: 'Token with spaces', authorization: 'Token a b' },
        { name: 'Bearer scheme', authorization: `Bearer ${team.keys.root!}` },
        { name: 'unknown key', token: 'A'.repeat(43) },
        { name: 'truncated key', token: team.keys.root!.slice(0, 20) },
        { name: 'key with characters outside base64url', token: `${team.keys.root!.slice(0, 30)}!é$%=+/~` },
        { name: 'long key', token: 'k'.repeat(4000) },
      ),
    },
  );
}

/** The collection a {uuid} path parameter belongs to: the path segment before it. */
function collectionOf(path: string): string | undefined {
  return /\/([^/]+)\/\{uuid\}/.exec(path)?.[1];
}

/**
 * Path parameters for a caller: mostly the seeded objects of the route's collection in the caller's
 * own dataspace (so that the body is read), then another dataspace's, any seeded uuid, and junk.
 */
function pathSegments(route: Route, caller: Caller): fc.Arbitrary<Record<string, Segment>> {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const allUuids = seeds.map((seed) => seed.uuid);
  const record: Record<string, fc.Arbitrary<Segment>> = {};
  for (const name of names) {
    if (name === 'uuid') {
      const matching = seeds.filter((seed) => seed.collection === collectionOf(route.path));
      const own = matching.filter((seed) => caller.dataspace === undefined || seed.dataspace === caller.dataspace).map((seed) => seed.uuid);
      const foreign = matching.filter((seed) => caller.dataspace !== undefined && seed.dataspace !== caller.dataspace).map((seed) => seed.uuid);
      record[name] = fc.oneof(
        ...(own.length > 0 ? [{ weight: 6, arbitrary: knownSegment(own) }] : []),
        ...(foreign.length > 0 ? [{ weight: 2, arbitrary: knownSegment(foreign) }] : []),
        { weight: 1, arbitrary: knownSegment(allUuids) },
        { weight: 3, arbitrary: junkSegment(allUuids) },
      );
    } else {
      const known = knownParams[name] ?? [];
      record[name] = fc.oneof(...(known.length > 0 ? [{ weight: 3, arbitrary: knownSegment(known) }] : []), { weight: 1, arbitrary: junkSegment(known.length > 0 ? known : allUuids) });
    }
  }
  return fc.record(record);
}

/** Likely values by field name: a field named like a collection (product, package, usage_policy…) gets its identifiers. */
function pools() {
  const hints: Record<string, string[]> = {};
  for (const seed of seeds) {
    const singular = seed.collection.replace(/ies$/, 'y').replace(/s$/, '');
    for (const field of [seed.collection, singular, `${singular}_id`]) {
      (hints[field] ??= []).push(seed.uuid, ...(seed.apiUrl ? [seed.apiUrl] : []), ...seed.names);
    }
  }
  hints.product_context = hints.content_object = hints.product ?? [];
  hints.user = hints.assignee = Object.keys(DATASPACE);
  hints.group = ['legal'];
  hints.priority = ['Urgent acme', 'Urgent beta'];
  hints.permissions = ['view_product', 'change_product', 'delete_product'];
  return { identifiers: [...identifiers], hints };
}

interface Case {
  readonly caller: Caller;
  readonly segments: Record<string, Segment>;
  readonly query: { text: string; pairs: [string, string][] };
  readonly body: BodyCase | undefined;
}

function cases(route: Route): fc.Arbitrary<Case> {
  const fieldPools = pools();
  const ids = fieldPools.identifiers;
  const queryNames = route.query ? Object.keys(route.query.shape) : [];
  return fc.record({
    who: callers().chain((caller) => fc.record({ caller: fc.constant(caller), segments: pathSegments(route, caller) })),
    query: fc.oneof({ weight: route.query ? 2 : 1, arbitrary: queryCases(queryNames, ids) }, { weight: 1, arbitrary: fc.constant({ text: '', pairs: [] as [string, string][] }) }),
    body: route.method === 'GET' ? fc.constant(undefined) : bodyCases(route.body, fieldPools),
  }).map(({ who, ...rest }) => ({ ...who, ...rest }));
}

function isFieldErrors(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return entries.length > 0 && entries.every(([, messages]) => Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'));
}

/** The API's error format: {"detail": "…"}, field errors, or {"errors": {…}} on the permissions routes. */
function errorFormatProblem(route: Route, json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'the body is not a JSON object';
  const keys = Object.keys(json);
  const record = json as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === 'detail' && typeof record.detail === 'string') return undefined;
  if (route.wrapErrors) {
    if (keys.length === 1 && keys[0] === 'errors' && isFieldErrors(record.errors)) return undefined;
    return 'neither {"detail": "…"} nor {"errors": {field: [messages]}}';
  }
  return isFieldErrors(json) ? undefined : 'neither {"detail": "…"} nor {field: [messages]}';
}

/** Every value under a "dataspace" key of an answer. */
function dataspacesIn(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 6 || typeof value !== 'object' || value === null) return found;
  if (Array.isArray(value)) {
    for (const item of value) dataspacesIn(item, found, depth + 1);
    return found;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'dataspace' && typeof inner === 'string') found.push(inner);
    else dataspacesIn(inner, found, depth + 1);
  }
  return found;
}

interface Violation {
  readonly property: string;
  readonly request: string;
  readonly answer: string;
  readonly details?: string;
}

function describeCase(route: Route, c: Case, path: string): string {
  const params = Object.entries(c.segments).map(([name, s]) => `${name}=${JSON.stringify(clip(s.value, 80))}`);
  const body = c.body === undefined ? 'no body' : `${c.body.kind}: ${clip(c.body.text ?? '', 400)}`;
  return [
    `${route.method} ${clip(path, 300)}`,
    `caller ${c.caller.name}`,
    params.length > 0 ? `path parameters ${params.join(', ')}` : undefined,
    c.query.pairs.length > 0 ? `query ${clip(JSON.stringify(c.query.pairs), 300)}` : undefined,
    `body (${body})`,
  ]
    .filter(Boolean)
    .join('\n    ');
}

/** A stack with the project's own frames (and the first frame, wherever it is). */
function ownFrames(stack: string): string {
  const [message, ...frames] = stack.split('\n');
  const own = frames.filter((frame, i) => i === 0 || !frame.includes('node_modules'));
  return [message, ...own.slice(0, 14)].join('\n');
}

const prototypeNames = () => Object.getOwnPropertyNames(Object.prototype).join(',');

/** Foreign-looking markers ("/<uuid>/") that some request carried: a stored echo of them is no leak. */
const echoed = new Set<string>();

/** The deterministic cases of a route, sent before the random ones (same count on every run). */
function sweep(route: Route): Case[] {
  const fieldPools = seeds.length > 0 ? pools() : { identifiers: ['x'], hints: {} };
  const root: Caller = { name: 'root', token: team?.keys.root, dataspace: 'acme' };
  const segments: Record<string, Segment> = {};
  for (const [, name] of route.path.matchAll(/\{([^}]+)\}/g)) {
    const value =
      name === 'uuid'
        ? (seeds.find((seed) => seed.collection === collectionOf(route.path) && seed.dataspace === 'acme')?.uuid ?? randomUUID())
        : (knownParams[name!]?.[0] ?? 'x');
    segments[name!] = { value, encoded: encodeURIComponent(value) };
  }
  const none = { text: '', pairs: [] as [string, string][] };
  const bodies = route.body ? sweepBodies(route.body, fieldPools) : [];
  const queries = route.query ? sweepQueries(Object.keys(route.query.shape)) : [];
  return [...bodies.map((body) => ({ caller: root, segments, query: none, body })), ...queries.map((query) => ({ caller: root, segments, query, body: undefined }))];
}

async function fuzzRoute(route: Route, seed: number): Promise<Violation[]> {
  const violations: Violation[] = [];
  const write = WRITE_METHODS.has(route.method);
  const prototypeBefore = prototypeNames();

  const run = async (c: Case) => {
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => c.segments[name]!.encoded) + (c.query.text ? `?${c.query.text}` : '');
    // The route the gateway will really serve: "..", "%2e%2e" and the like move a request elsewhere.
    const served = matchRoute(route.method, new URL(path, 'http://fuzz.local').pathname)?.route.operationId === route.operationId;
    const headers: Record<string, string> = {};
    if (c.caller.authorization !== undefined) headers.authorization = c.caller.authorization;
    if (c.body?.contentType !== undefined) headers['content-type'] = c.body.contentType;
    // What the writes before this one made is not this request's doing.
    if (write) await watch.changes();
    const sentText = `${path}\n${c.body?.text ?? ''}`.toLowerCase();
    for (const other of seeds) if (sentText.includes(`/${other.uuid}/`)) echoed.add(other.uuid);
    const loggedBefore = logged.length;
    const consoleBefore = consoleErrors.length;
    let response: Awaited<ReturnType<typeof api.call>>;
    sent += 1;
    try {
      response = await api.call(route.method, path, {
        ...(c.caller.token !== undefined ? { token: c.caller.token } : {}),
        headers,
        ...(c.body?.text !== undefined ? { body: c.body.text } : {}),
      });
    } catch (error) {
      violations.push({ property: 'the gateway answers', request: describeCase(route, c, path), answer: `no answer: ${String(error)}` });
      return;
    }
    const { status, text, json } = response;
    const request = describeCase(route, c, path);
    const answer = `${status} ${clip(text, 500)}`;
    const fail = (property: string, details?: string) => violations.push({ property, request, answer, ...(details ? { details } : {}) });
    const stacks = () =>
      [
        ...logged.slice(loggedBefore).map((args) => {
          const error = (args[1] as { error?: Error } | undefined)?.error;
          return error?.stack ? ownFrames(error.stack) : JSON.stringify(args);
        }),
        ...consoleErrors.slice(consoleBefore).map((args) => args.map((a) => (a instanceof Error && a.stack ? ownFrames(a.stack) : String(a))).join(' ')),
      ].join('\n');

    if (!((status >= 200 && status < 300) || (status >= 400 && status < 500))) {
      // Whether the failed request wrote anything, for whoever fixes it.
      let written = '';
      if (write) {
        const changes = await watch.changes();
        written = changes.length === 0 ? '\n(the table is unchanged)' : `\n(the request wrote ${changes.length} items)\n${describeChanges(changes)}`;
      }
      fail('every answer is a 2xx or a 4xx', `${stacks()}${written}`);
    }
    if (status >= 400 && status < 500) {
      const problem = errorFormatProblem(route, json);
      if (problem) fail('a 4xx has the API error format', problem);
    }
    const readsBody = served && route.body !== undefined;
    if (readsBody && c.body?.kind === 'too large' && ![413, 401, 403, 404].includes(status)) {
      fail('a body over 1 MB is refused with 413 (or 401/403/404 before the body is read)');
    }
    if (readsBody && c.body?.contentType !== undefined && c.body.text && ![415, 401, 403, 404].includes(status)) {
      fail('a body that is not JSON is refused with 415 (or 401/403/404 before the body is read)');
    }
    if (c.caller.dataspace !== undefined && status < 300) {
      const foreign = seeds.filter((seed) => seed.dataspace !== c.caller.dataspace);
      for (const [name, segment] of Object.entries(c.segments)) {
        const other = foreign.find((seed) => seed.uuid === segment.value);
        if (other && served) fail("another dataspace's object is never served", `{${name}} is ${other.collection} ${other.uuid} of dataspace ${other.dataspace}`);
      }
      const answered = text.toLowerCase();
      for (const other of foreign) {
        if (answered.includes(`/${other.uuid}/`) && !echoed.has(other.uuid)) {
          fail("another dataspace's objects never appear in an answer", `the answer names ${other.collection} ${other.uuid} of dataspace ${other.dataspace}`);
        }
      }
      const strangers = dataspacesIn(json).filter((d) => d !== c.caller.dataspace);
      if (strangers.length > 0) fail('every "dataspace" in an answer is the caller\'s', `found ${JSON.stringify(strangers)}`);
    }
    if (write) {
      if (status >= 400 && status < 500) {
        const changes = await watch.changes();
        if (changes.length > 0) fail('a refused write changes nothing', `the request wrote ${changes.length} items\n${describeChanges(changes)}`);
      }
    }
    if (prototypeNames() !== prototypeBefore || ({} as Record<string, unknown>).polluted !== undefined) {
      fail('Object.prototype is never polluted', prototypeNames());
    }
  };

  for (const c of sweep(route)) await run(c);
  await fc.assert(fc.asyncProperty(cases(route), run), { numRuns: RUNS, seed, endOnFailure: true });
  return violations;
}

function report(route: Route, seed: number, violations: readonly Violation[]): string {
  const shown = violations.slice(0, 12);
  return [
    `${violations.length} violation(s) on ${route.method} ${route.path} (fast-check seed ${seed}, FUZZ_SEED=${SEED}):`,
    ...shown.map((v, i) =>
      [`#${i + 1} ${v.property}`, `  request: ${v.request}`, `  answer: ${v.answer}`, ...(v.details ? [`  ${v.details.split('\n').join('\n  ')}`] : [])].join('\n'),
    ),
    violations.length > shown.length ? `… and ${violations.length - shown.length} more` : '',
  ].join('\n');
}

/** Deletions last, so that every other route still finds the seeded objects. */
const ORDERED = [...ROUTES.filter((route) => !(route.method === 'DELETE' && !route.body)), ...ROUTES.filter((route) => route.method === 'DELETE' && !route.body)];

/**
 * Registers the fuzz of one part of the routes (every `parts`-th, from `part`), so that the parts run
 * in files of their own, side by side on the workers: the seeds and the order (deletes last) are those
 * of the whole list, whatever the split.
 */
export function fuzzRoutes(part: number, parts: number): void {
  const mine = ORDERED.map((route, index) => ({ route, seed: SEED + index })).filter((_, index) => index % parts === part);
  const swept = mine.reduce((total, { route }) => total + sweep(route).length, 0);
  const total = mine.length * RUNS + swept;
  describe(`hostile input on ${mine.length} of the ${ROUTES.length} routes (part ${part + 1} of ${parts}): ${swept} fixed + ${mine.length} × ${RUNS} random = ${total} requests`, () => {
    for (const { route, seed } of mine) {
      it(`${route.method} ${route.path}`, async () => {
        const violations = await fuzzRoute(route, seed);
        expect(violations.length, report(route, seed, violations)).toBe(0);
      }, 30_000 + RUNS * 500);
    }

    it(`sent all ${total} requests`, () => {
      expect(sent).toBe(total);
    });
  });
}
