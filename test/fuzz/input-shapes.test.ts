/**
 * The input shapes that once answered 5xx or were stored wrongly, property-based with fast-check
 * over every route of the route table: JSON nested at random depths (the whole body, one field, or
 * inside a serialized_data string), keys named like Object.prototype members at random places of a
 * body and as purl qualifiers, malformed Host headers, bodies with bytes that are not UTF-8, HEAD
 * on every route, and paths with dot segments or encoded slashes in any case.
 *
 * Properties of every answer: never a 5xx; a 4xx has the API's error format; a refused write leaves
 * the table as it was; a HEAD answer has no body and the status GET gives; a malformed Host is 400
 * and a dot-segment path 404. Each route gets one fixed case of every shape, then RUNS random ones
 * (FUZZ_SHAPE_RUNS); runs are seeded (FUZZ_SEED) so a failure replays.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { useHttpTeam } from '../support/http-team.ts';
import { load } from '../support/factories.ts';
import { rawRequest, type RawResponse } from '../support/raw-request.ts';
import { ROUTES, type Route } from '../../shared/routes/index.ts';
import { MAX_JSON_DEPTH } from '../../shared/schemas/json-input.ts';
import { PROTOTYPE_KEYS, bodyJsonSchema, minimal, type Pools } from './arbitraries.ts';

const RUNS = Number(process.env.FUZZ_SHAPE_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Seeded objects by collection (the path segment before {uuid}), so that write routes read their body. */
const seeded: Record<string, string> = {};
let pools: Pools = { identifiers: ['x'], hints: {} };

beforeAll(async () => {
  await load(http.env, {
    request_templates: [{ name: 'Shapes', dataspace: 'acme', content_type: 'product', questions: [{ label: 'Reason', input_type: 'TextField', is_required: false }] }],
  });
  const make = async (path: string, body: unknown) => {
    const response = await http.call('root', 'POST', path, body);
    if (response.status !== 201) throw new Error(`seeding ${path}: ${response.status} ${response.text}`);
    return response.json as { uuid: string };
  };
  seeded.usage_policies = (await make('/api/v2/usage_policies/', { label: 'Shapes policy', content_type: 'package', compliance_alert: 'warning' })).uuid;
  seeded.licenses = (await make('/api/v2/licenses/', { key: 'shapes-license', name: 'Shapes license' })).uuid;
  seeded.packages = (await make('/api/v2/packages/', { purl: 'pkg:npm/shapes@1.0.0' })).uuid;
  seeded.products = (await make('/api/v2/products/', { name: 'Shapes product' })).uuid;
  seeded.requests = (await make('/api/v2/requests/', { title: 'Shapes request', request_template: 'Shapes', product_context: seeded.products })).uuid;
  pools = {
    identifiers: Object.values(seeded),
    hints: { request_template: ['Shapes'], product: [seeded.products], product_context: [seeded.products], package: [seeded.packages], user: ['root'], permissions: ['view_product'] },
  };
});

/**
 * The path of a route: a seeded object where the route reads a body (so the body is judged), a fresh
 * uuid elsewhere (so that DELETE, evaluate or ping find nothing and change nothing).
 */
function pathOf(route: Route): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'rule_type') return 'license_policy';
    const collection = /\/([^/]+)\/\{uuid\}/.exec(route.path)?.[1];
    return name === 'uuid' && route.body && collection && seeded[collection] ? seeded[collection] : randomUUID();
  });
}

/** A small body the route's schema takes (or an empty object), to put shapes into. */
function baseBody(route: Route): Json {
  if (!route.body) return {};
  const root = bodyJsonSchema(route.body);
  const value = minimal(root, root, pools) as Json;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

const nestedText = (depth: number, shape: 'array' | 'object') =>
  shape === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Depths around the limit, far past it, and up to what 1 MB holds. */
const depth = fc.oneof(
  fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
  fc.integer({ min: MAX_JSON_DEPTH + 3, max: 5_000 }),
  fc.constantFrom(100_000, 300_000),
);

/** Puts `text` (JSON) at a random place of `base`: the whole body, a top-level field, or one level down. */
function placeText(base: Json, text: string, where: number): string {
  const record = base as Record<string, Json>;
  const fields = Object.keys(record);
  if (where % 3 === 0 || fields.length === 0) return text;
  const field = fields[where % fields.length]!;
  const entries = Object.entries(record).map(([k, v]) => [k, JSON.stringify(v)] as const);
  if (where % 3 === 1) return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${k === field ? text : v}`).join(',')}}`;
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${k === field ? `{"inner":${text}}` : v}`).join(',')}}`;
}

/** A JSON object text with `key` at a random place: top level, inside a field's object, or in a nested list. */
function withKeyAt(base: Json, key: string, value: Json, where: number): string {
  const record = base as Record<string, Json>;
  const own = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  const entries = Object.entries(record).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const fields = Object.keys(record);
  if (where % 3 === 0 || fields.length === 0) return `{${[...entries, own].join(',')}}`;
  const field = fields[where % fields.length]!;
  const nested = where % 3 === 1 ? `{${own}}` : `[{${own}}]`;
  return `{${Object.entries(record).map(([k, v]) => `${JSON.stringify(k)}:${k === field ? nested : JSON.stringify(v)}`).join(',')}}`;
}

const BAD_HOSTS = ['bad host', 'example.com:99999', '[::1', 'a@b', 'a/b', 'a?b', 'exa_mple.com', '', '-x.com', 'a..b', 'x:1:2', 'é.example'];
const INVALID_UTF8: readonly number[][] = [[0xff], [0xfe, 0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe9], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xe2, 0x82]];
const DOT_SEGMENTS = ['%2e%2e', '%2E%2E', '%2e.', '.%2E', '..', '%2e', '.', 'a%2fb', 'a%2Fb', '%2F'];

interface Shape {
  /** One of GROUPS: the sweep sends one shape of each. */
  readonly group: string;
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer | string;
  /** The status this shape must get, when it is decided before the route runs. */
  readonly expect?: (status: number) => boolean;
}

function shapes(route: Route): fc.Arbitrary<Shape> {
  const base = baseBody(route);
  const path = pathOf(route);
  const method = route.method;
  const reads = route.method !== 'GET';
  const all: fc.Arbitrary<Shape>[] = [
    fc.tuple(depth, fc.constantFrom<'array' | 'object'>('array', 'object'), fc.nat()).map(([d, shape, where]) => ({
      group: 'nesting',
      kind: `${d} nested ${shape}s`,
      method: reads ? method : 'POST',
      path,
      body: placeText(base, nestedText(d, shape), where),
    })),
    fc.tuple(depth, fc.constantFrom<'array' | 'object'>('array', 'object')).map(([d, shape]) => ({
      group: 'serialized_data',
      kind: `serialized_data holding ${d} nested ${shape}s`,
      method: reads ? method : 'POST',
      path,
      body: JSON.stringify({ ...(base as object), serialized_data: shape === 'object' ? `{"Reason": ${nestedText(d, 'object')}}` : nestedText(d, 'array') }),
    })),
    fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom<Json>('x', 1, true, null, {}, { is_active: true }), fc.nat()).map(([key, value, where]) => ({
      group: 'prototype key',
      kind: `key ${key} at place ${where % 3}`,
      method: reads ? method : 'POST',
      path,
      body: withKeyAt(base, key, value, where),
    })),
    fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' })).map(([key, value]) => ({
      group: 'purl qualifier',
      kind: `purl qualifier ${key}`,
      method: reads ? method : 'POST',
      path,
      body: JSON.stringify({ ...(base as object), purl: `pkg:npm/q-${randomUUID().slice(0, 8)}@1.0.0?${key}=${encodeURIComponent(value)}` }),
    })),
    fc.constantFrom(...BAD_HOSTS).map((host) => ({
      group: 'Host',
      kind: `Host ${JSON.stringify(host)}`,
      method,
      path,
      headers: { host },
      ...(reads ? { body: JSON.stringify(base) } : {}),
      expect: (status: number) => status === 400,
    })),
    fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([bytes, at]) => {
      const text = Buffer.from(JSON.stringify({ ...(base as object), name: 'bytes here' }));
      const cut = text.indexOf('bytes here') + (at % 10);
      return {
        group: 'not UTF-8',
        kind: `bytes ${bytes.map((b) => b.toString(16)).join(' ')} in a string`,
        method: reads ? method : 'POST',
        path,
        body: Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]),
      };
    }),
    fc.tuple(fc.constantFrom(...DOT_SEGMENTS), fc.nat(), fc.constantFrom('GET', 'HEAD', method)).map(([segment, at, verb]) => {
      const parts = path.split('/');
      const i = 3 + (at % Math.max(1, parts.length - 4));
      const dotted = [...parts.slice(0, i), segment, ...parts.slice(i)].join('/');
      return { group: 'dot segment', kind: `segment ${segment}`, method: verb, path: dotted, expect: (status: number) => status === 404 };
    }),
  ];
  if (route.method === 'GET') all.push(fc.constant({ group: 'HEAD', kind: 'HEAD', method: 'HEAD', path }));
  return fc.oneof(...all);
}

const GROUPS = ['nesting', 'serialized_data', 'prototype key', 'purl qualifier', 'Host', 'not UTF-8', 'dot segment'];

/** One fixed case of every group of shapes (HEAD too on a GET route), sent before the random ones. */
function sweep(route: Route): Shape[] {
  const sample = fc.sample(shapes(route), { numRuns: 200, seed: SEED });
  const groups = route.method === 'GET' ? [...GROUPS, 'HEAD'] : GROUPS;
  return groups.map((group) => {
    const shape = sample.find((s) => s.group === group);
    if (!shape) throw new Error(`the sweep of ${route.method} ${route.path} has no ${group} shape`);
    return shape;
  });
}

function errorFormatProblem(route: Route, json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'the body is not a JSON object';
  const record = json as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === 'detail' && typeof record.detail === 'string') return undefined;
  const fields = route.wrapErrors && keys.length === 1 && keys[0] === 'errors' ? (record.errors as Record<string, unknown>) : record;
  const ok =
    typeof fields === 'object' &&
    fields !== null &&
    Object.keys(fields).length > 0 &&
    Object.values(fields).every((messages) => Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string'));
  return ok ? undefined : 'neither {"detail": "…"} nor {field: [messages]}';
}

let sent = 0;

async function check(route: Route, shape: Shape): Promise<string[]> {
  const problems: string[] = [];
  const write = WRITES.has(shape.method);
  const before = write ? await http.snapshot() : undefined;
  let response: RawResponse;
  sent += 1;
  try {
    response = await rawRequest(http.api.url, shape.method, shape.path, {
      token: http.team.keys.root,
      ...(shape.headers ? { headers: shape.headers } : {}),
      ...(shape.body !== undefined ? { body: shape.body } : {}),
    });
  } catch (error) {
    return [`no answer: ${String(error)}`];
  }
  const { status } = response;
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) problems.push(`answered ${status}`);
  if (shape.expect && !shape.expect(status)) problems.push(`answered ${status}, not what this shape must get`);
  if (shape.method === 'HEAD') {
    if (response.bytes !== 0) problems.push(`HEAD answered ${response.bytes} bytes of body`);
    if (!shape.expect) {
      const get = await rawRequest(http.api.url, 'GET', shape.path, { token: http.team.keys.root });
      if (get.status !== status) problems.push(`HEAD answered ${status} where GET answers ${get.status}`);
      if (response.headers['content-length'] !== String(get.bytes) && get.status === 200) problems.push('HEAD Content-Length is not the GET body length');
    }
  } else if (status >= 400 && status < 500) {
    const problem = errorFormatProblem(route, response.json);
    if (problem) problems.push(`a ${status} not in the error format: ${problem}`);
  }
  if (write && status >= 400 && (await http.snapshot()) !== before) problems.push('a refused write changed the table');
  return problems.map((p) => `${p}\n    ${shape.method} ${shape.path.slice(0, 200)} (${shape.kind})\n    answer: ${status} ${response.text.slice(0, 300)}`);
}

describe(`input shapes that once answered 5xx, on every route: ${ROUTES.length} routes × (one of each shape + ${RUNS} random)`, () => {
  ROUTES.forEach((route, index) => {
    it(`${route.method} ${route.path}`, async () => {
      const problems: string[] = [];
      for (const shape of sweep(route)) problems.push(...(await check(route, shape)));
      await fc.assert(
        fc.asyncProperty(shapes(route), async (shape) => {
          problems.push(...(await check(route, shape)));
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
      expect(problems.length, problems.slice(0, 8).join('\n')).toBe(0);
    }, 120_000);
  });

  const fixed = GROUPS.length * ROUTES.length + ROUTES.filter((route) => route.method === 'GET').length;
  it(`sent all ${fixed} fixed + ${ROUTES.length * RUNS} random = ${fixed + ROUTES.length * RUNS} requests`, () => {
    expect(sent).toBe(fixed + ROUTES.length * RUNS);
  });
});
