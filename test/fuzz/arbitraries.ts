/**
 * fast-check generators for the route fuzz test (route-fuzz.ts): bodies derived from each route's
 * zod body schema (through its JSON Schema), hostile JSON values, malformed JSON text, path segments
 * and query strings. Nothing here knows a route by name: everything comes from the route table.
 */
import * as fc from 'fast-check';
import * as z from 'zod';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonSchema = Record<string, unknown>;

export const KB = 1024;
/** Over the API's 1 MB body limit (MAX_BODY_BYTES), well under API Gateway's 10 MB. */
export const TOO_LARGE_BYTES = 1024 * 1024 + 64 * 1024;

/** Nested `levels` deep, as arrays ([[[…]]]) or objects ({"a":{"a":…}}). */
export function deep(levels: number, shape: 'array' | 'object', leaf: Json = 1): Json {
  let value: Json = leaf;
  for (let i = 0; i < levels; i++) value = shape === 'array' ? [value] : { a: value };
  return value;
}

/** JSON values with keys named like Object.prototype members, as own keys (JSON.parse makes them own). */
const PROTOTYPE_VALUES: Json[] = [
  JSON.parse('{"__proto__": {"isSuperuser": true, "polluted": "yes"}}') as Json,
  JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}') as Json,
  JSON.parse('{"__proto__": null}') as Json,
  JSON.parse('{"toString": "x", "valueOf": 1, "hasOwnProperty": null}') as Json,
  JSON.parse('{"toString": {}, "valueOf": {}}') as Json,
];

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf'];

/** Strings that have broken parsers, key builders, URL builders and filters before. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '  padded  ',
  '\t',
  '\n',
  '\u0000',
  'a\u0001b',
  '\u001f',
  '\u007f',
  '#',
  'a#b',
  '#!/x',
  '?',
  '&',
  '=',
  '%',
  '%00',
  '%zz',
  '+',
  '/',
  '\\',
  '..',
  '../../etc/passwd',
  '\uFEFFbom',
  '\u202Eevil',
  '\u200B',
  'Ж',
  'ЖЖЖ',
  '中文',
  '😀',
  '👩‍👩‍👧‍👦',
  'é', // NFD
  '\ud800', // an unpaired surrogate (sent as the JSON escape \ud800)
  '\udfff',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '0x10',
  '99999999999999999999999',
  "' OR '1'='1",
  '"; DROP TABLE x; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  'PK',
  'SK',
  'DATASPACE#beta',
  'beta',
  'acme',
  '2024-02-30T25:61:00Z',
  '0000-00-00',
  '9999-12-31T23:59:59+99:00',
  'https://127.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://[::1]/',
  'https://[::ffff:10.0.0.1]/',
  'https://localhost/x',
  'https://user:pw@localhost/',
  'http://0/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'pkg:',
  'pkg:npm/',
  'pkg:npm/%00@1',
  'pkg:npm/a@1?x=%zz#sub/../..',
];

/** Long strings: 100 KB of ASCII, of three-byte and of four-byte characters, and shorter runs. */
export const LONG_STRINGS: readonly string[] = [
  'x'.repeat(100 * KB),
  '中'.repeat(34 * KB),
  '😀'.repeat(25 * KB),
  'a'.repeat(3000),
  'Ж'.repeat(1025),
  '\u0001'.repeat(300),
];

/** The API's 1 MB limit plus a little, as one string field. */
export function tooLargeText(): string {
  return JSON.stringify({ name: 'x'.repeat(TOO_LARGE_BYTES), text: 'y' });
}

/** Malformed JSON text (and text that is JSON to some parsers but not to JSON.parse). */
export const MALFORMED_JSON: readonly string[] = [
  '{',
  '}',
  '{"a":}',
  '{"a" 1}',
  "{'name': 'x'}",
  '{"name": "x",}',
  '[1,]',
  '{"name": "x"} trailing',
  '{"name": "\\x41"}',
  '{"name": "\\u12"}',
  '{"name": "unterminated}',
  'NaN',
  'Infinity',
  '-',
  '01',
  '.5',
  'undefined',
  'nul',
  'tru',
  '\u0000',
  '\uFEFF{"name": "bom"}',
  '{"name": "x"}\u0000',
  '{"a": 1e999999}',
  '[' .repeat(5000),
  '{"a":'.repeat(3000),
  '<xml/>',
  'name=x&version=y',
  '--boundary\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--boundary--',
];

/** Numbers, among them some no store keeps exactly (DynamoDB holds 38 digits, magnitudes 1e-130 to 1e126). */
const ATOMS: readonly Json[] = [null, true, false, 0, -1, 1.5, -0.0001, 1e308, -1e308, 1e200, 5e-324, 1e-200, 2 ** 53 + 1, 10.05, 1e-7, 123456789012345678901234567890];

/** An object JavaScript cannot turn into a string: its toString and valueOf are not functions. */
export const UNSTRINGABLE: Json = JSON.parse('{"toString": "x", "valueOf": 1}') as Json;

/** Any hostile JSON value: atoms, odd and long strings, identifiers, arrays, objects, deep nesting. */
export function hostileValue(identifiers: readonly string[]): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ATOMS) },
    { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom(...LONG_STRINGS) },
    { weight: 3, arbitrary: fc.constantFrom(...identifiers) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
    { weight: 1, arbitrary: fc.constantFrom<Json>([], [null], [[]], {}, [''], Array.from({ length: 1000 }, () => 0)) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_VALUES) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Json>(deep(1000, 'array'), deep(1000, 'object'), deep(40, 'object', 'leaf'), deep(33, 'array', 'x')),
    },
  );
}

const jsonTypeOf = (value: Json): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;

/** Values of a type the schema does not allow. */
function wrongTypeValue(schema: JsonSchema, root: JsonSchema): fc.Arbitrary<Json> | undefined {
  const allowed = allowedTypes(resolve(schema, root), root);
  if (allowed === 'any') return undefined;
  const candidates: Json[] = [null, 0, 7, 1.5, -1, true, false, '', 'text', '0', 'true', [], ['text'], [1, 2], {}, { a: 1 }, deep(1000, 'array')].filter((value) => {
    const type = jsonTypeOf(value);
    if (allowed.has(type)) return false;
    return !(type === 'integer' && allowed.has('number'));
  });
  return candidates.length > 0 ? fc.constantFrom(...candidates) : undefined;
}

function allowedTypes(schema: JsonSchema, root: JsonSchema): Set<string> | 'any' {
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) {
    const types = new Set<string>();
    for (const option of union) {
      const inner = allowedTypes(resolve(option, root), root);
      if (inner === 'any') return 'any';
      for (const type of inner) types.add(type);
    }
    return types;
  }
  if ('const' in schema) return new Set([jsonTypeOf(schema.const as Json)]);
  if (Array.isArray(schema.enum)) return new Set((schema.enum as Json[]).map(jsonTypeOf));
  const type = schema.type;
  if (typeof type === 'string') return new Set(type === 'number' ? ['number', 'integer'] : [type]);
  if (Array.isArray(type)) return new Set(type as string[]);
  return 'any';
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const path = ref.replace(/^#\//, '').split('/');
  let target: unknown = root;
  for (const part of path) target = (target as Record<string, unknown> | undefined)?.[part];
  if (!target || typeof target !== 'object') throw new Error(`Unresolvable $ref ${ref}`);
  return resolve(target as JsonSchema, root);
}

/** The route's body schema as JSON Schema (the input side of its zod schema). */
export function bodyJsonSchema(body: z.ZodType): JsonSchema {
  return z.toJSONSchema(body, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** The top-level properties of an object body schema, with their schemas. */
export function topLevelProperties(root: JsonSchema): [string, JsonSchema][] {
  const schema = resolve(root, root);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
}

const URLS = ['https://example.com/x', 'http://127.0.0.1:1/', 'https://[::1]/', 'ftp://example.com/', 'https://169.254.169.254/', 'not a url', ''];

/**
 * Values that the schema accepts (as JSON Schema sees it: refinements such as "no control characters"
 * or references that must exist are not in it), built from strings the fuzz test knows: identifiers of
 * what it seeded (its own and other dataspaces'), odd strings and strings at the length limits.
 */
export interface Pools {
  /** Every identifier the test seeded. */
  readonly identifiers: readonly string[];
  /** Likely values by field name (a field named like a collection: its identifiers). */
  readonly hints: Readonly<Record<string, readonly string[]>>;
}

export function conforming(schema: JsonSchema, root: JsonSchema, pools: Pools, depth = 0, field = ''): fc.Arbitrary<Json> {
  const s = resolve(schema, root);
  if ('const' in s) return fc.constant(s.const as Json);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as Json[]));
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (union) return fc.oneof(...union.map((option) => conforming(option, root, pools, depth + 1, field)));
  const example = s.example ?? (Array.isArray(s.examples) ? s.examples[0] : undefined);
  const generated = byType(s, root, pools, depth, field);
  return example === undefined ? generated : fc.oneof({ weight: 2, arbitrary: fc.constant(example as Json) }, { weight: 1, arbitrary: generated });
}

function byType(s: JsonSchema, root: JsonSchema, pools: Pools, depth: number, field: string): fc.Arbitrary<Json> {
  const identifiers = pools.identifiers;
  const type = Array.isArray(s.type) ? (s.type[0] as string) : (s.type as string | undefined);
  switch (type) {
    case 'string':
      return stringFor(s, pools, field);
    case 'number':
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : -1e6;
      const max = typeof s.maximum === 'number' ? s.maximum : 1e6;
      return fc.oneof(
        fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
        ...(type === 'number' ? [fc.double({ min, max, noNaN: true, noDefaultInfinity: true })] : []),
        fc.constantFrom(min, max),
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = s.items ? conforming(s.items as JsonSchema, root, pools, depth + 1, field) : (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>);
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxItems = typeof s.maxItems === 'number' ? s.maxItems : 200;
      const small = fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(3, maxItems)) });
      // At the limit: the same item maxItems times (duplicates), or maxItems + 1.
      const full = fc.tuple(items, fc.constantFrom(maxItems, maxItems + 1)).map(([item, n]) => Array.from({ length: n }, () => item));
      return fc.oneof({ weight: 6, arbitrary: small }, { weight: 1, arbitrary: full });
    }
    case 'object':
    default: {
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s.required ?? []) as string[]);
      if (Object.keys(properties).length === 0) {
        if (depth > 3) return fc.constant({});
        const values = s.additionalProperties && typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length > 0
          ? conforming(s.additionalProperties as JsonSchema, root, pools, depth + 1)
          : (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>);
        if (type !== 'object') return fc.oneof(values, fc.constantFrom(...identifiers));
        return fc.dictionary(fc.oneof(fc.constantFrom(...identifiers), fc.string({ maxLength: 12 })), values, { maxKeys: 4 }) as fc.Arbitrary<Json>;
      }
      // Fields of any type ({}) are the read-only fields of a representation, which are dropped:
      // left out here, so that the mutations below land on fields that are read.
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (Object.keys(property).length > 0 || required.has(name)) record[name] = conforming(property, root, pools, depth + 1, name);
      }
      const requiredKeys = [...required].filter((name) => name in record);
      const optional = Object.keys(record).filter((name) => !required.has(name));
      const only = (names: readonly string[]) => fc.record(Object.fromEntries(names.map((name) => [name, record[name]!])));
      // Any subset of the optional fields, or the required ones and a single optional one: the
      // fewer fields, the likelier the body passes validation and reaches the service.
      return fc.oneof(
        fc.record(record, { requiredKeys }),
        optional.length > 0 ? fc.constantFrom(...optional).chain((name) => only([...requiredKeys, name])) : only(requiredKeys),
      ).map((value) => value as Json);
    }
  }
}

function stringFor(s: JsonSchema, pools: Pools, field: string): fc.Arbitrary<string> {
  const identifiers = pools.identifiers;
  const max = typeof s.maxLength === 'number' ? s.maxLength : 300;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const fits = (value: string) => value.length >= min && value.length <= max;
  const options: fc.Arbitrary<string>[] = [
    fc.string({ minLength: Math.min(min, 20), maxLength: Math.min(max, 20) }),
    fc.constantFrom(...identifiers.filter(fits).concat(['x'.repeat(Math.max(min, 1))].filter(fits))),
    // At the length limit, in one-, three- and four-byte characters.
    fc.constantFrom('x', 'ж', '中', '😀').map((ch) => ch.repeat(Math.max(1, Math.floor(max / ch.length)))),
  ];
  if (typeof s.pattern === 'string') {
    const pattern = new RegExp(s.pattern as string);
    options.push(fc.stringMatching(pattern).map((value) => value.slice(0, max)).filter((value) => value.length > 0 && pattern.test(value)));
  }
  if (s.format === 'uri') options.push(fc.constantFrom(...URLS));
  if (s.format === 'email') options.push(fc.emailAddress());
  const hinted = (pools.hints[field] ?? []).filter(fits);
  if (hinted.length > 0) return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: fc.oneof(...options) });
  return fc.oneof(...options);
}

/** Every path into a JSON value (object keys and array indexes), up to `maxDepth` levels. */
function pathsOf(value: Json, maxDepth = 4, prefix: (string | number)[] = []): (string | number)[][] {
  if (maxDepth === 0 || value === null || typeof value !== 'object') return [];
  const children: [string | number, Json][] = Array.isArray(value) ? value.slice(0, 5).map((v, i) => [i, v]) : Object.entries(value);
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, maxDepth - 1, [...prefix, key])]);
}

function replaceAt(value: Json, path: readonly (string | number)[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((child, i) => (i === head ? replaceAt(child, rest, replacement) : child));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value)) copy[key] = key === head ? replaceAt(child, rest, replacement) : child;
    return copy;
  }
  return value;
}

export interface BodyCase {
  readonly kind: string;
  /** What was sent: JSON text (or not), or nothing. */
  readonly text?: string;
  /** Content-Type header; application/json when absent. */
  readonly contentType?: string;
}

/** Serializes an object, then appends entries as text: keys such as "__proto__" stay own keys on the wire. */
function withEntries(value: Json, entries: readonly [string, Json][]): string {
  const text = JSON.stringify(value);
  if (entries.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  const extra = entries.map(([key, v]) => `${JSON.stringify(key)}:${JSON.stringify(v)}`).join(',');
  return text === '{}' ? `{${extra}}` : `${text.slice(0, -1)},${extra}}`;
}

/** Junk that may be sent to any route that takes a body, or none. */
function junkBodies(identifiers: readonly string[]): fc.Arbitrary<BodyCase>[] {
  return [
    fc.oneof(hostileValue(identifiers), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).map((value) => ({ kind: 'non-object JSON', text: JSON.stringify(value) })),
    fc.constantFrom(...MALFORMED_JSON).map((text) => ({ kind: 'malformed JSON', text })),
    fc.string({ minLength: 1, maxLength: 60, unit: 'binary' }).map((text) => ({ kind: 'random text', text })),
    fc.constantFrom<BodyCase>(
      { kind: 'deep nesting (1,000 arrays)', text: JSON.stringify(deep(1000, 'array')) },
      { kind: 'deep nesting (1,000 objects)', text: JSON.stringify(deep(1000, 'object')) },
    ),
    fc.constant<BodyCase>({ kind: 'too large', text: tooLargeText() }),
  ];
}

/** Bodies for a route: derived from its body schema when it has one, junk otherwise. */
export function bodyCases(body: z.ZodType | undefined, pools: Pools): fc.Arbitrary<BodyCase | undefined> {
  const identifiers = pools.identifiers;
  const junk = junkBodies(identifiers);
  if (!body) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      ...junk.map((arbitrary) => ({ weight: 1, arbitrary: arbitrary as fc.Arbitrary<BodyCase | undefined> })),
    );
  }
  const root = bodyJsonSchema(body);
  const valid = conforming(root, root, pools);
  const properties = topLevelProperties(root);
  const wrongTyped = properties.flatMap(([name, schema]) => {
    const wrong = wrongTypeValue(schema, root);
    return wrong ? [wrong.map((value) => [name, value] as const)] : [];
  });
  const hostile = hostileValue(identifiers);
  const unknownKey = fc.oneof(
    fc.constantFrom(...PROTOTYPE_KEYS, 'is_superuser', 'isSuperuser', 'dataspace', 'created_by', 'PK', 'SK', 'entity', '', ' ', 'Name', 'x'.repeat(1000), '\u0000', '#'),
    fc.string({ maxLength: 20 }),
  );
  const cases: { weight: number; arbitrary: fc.Arbitrary<BodyCase | undefined> }[] = [
    { weight: 4, arbitrary: valid.map((value) => ({ kind: 'schema-shaped', text: JSON.stringify(value) })) },
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.nat(), hostile).map(([value, n, replacement]) => {
        const paths = pathsOf(value);
        const path = paths.length > 0 ? paths[n % paths.length]! : [];
        return { kind: `hostile value at ${path.length > 0 ? path.join('.') : '(root)'}`, text: JSON.stringify(replaceAt(value, path, replacement)) };
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, fc.array(fc.tuple(unknownKey, hostile), { minLength: 1, maxLength: 3 })).map(([value, entries]) => ({
        kind: `unknown fields ${entries.map(([key]) => JSON.stringify(key.slice(0, 20))).join(', ')}`,
        text: withEntries(value, entries),
      })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'empty body', text: '' }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/jsonx', 'json'))
        .map(([value, contentType]) => ({ kind: `content type "${contentType}"`, text: JSON.stringify(value), contentType })),
    },
    ...junk.map((arbitrary) => ({ weight: 1, arbitrary: arbitrary as fc.Arbitrary<BodyCase | undefined> })),
  ];
  if (wrongTyped.length > 0) {
    cases.push({
      weight: 4,
      arbitrary: fc.tuple(valid, fc.oneof(...wrongTyped)).map(([value, [name, wrong]]) => ({
        kind: `wrong type for ${name}`,
        text: withEntries(Object.fromEntries(Object.entries(value as Record<string, Json>).filter(([key]) => key !== name)), [[name, wrong]]),
      })),
    });
  }
  return fc.oneof(...cases);
}

export interface Segment {
  /** The value the route should see, for the report. */
  readonly value: string;
  /** As it goes in the URL. */
  readonly encoded: string;
}

const asIs = (value: string): Segment => ({ value, encoded: value });
const encoded = (value: string): Segment => ({ value, encoded: safeEncode(value) });

/** encodeURIComponent, or the raw UTF-8 bytes of a lone surrogate, which it refuses. */
function safeEncode(value: string): string {
  if (value.isWellFormed()) return encodeURIComponent(value);
  return [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Path segments no route should take: bad uuids, odd strings, encodings the gateway must survive. */
export function junkSegment(known: readonly string[]): fc.Arbitrary<Segment> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS.filter((value) => value !== '' && !/^[./]+$/.test(value))).map(encoded) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '%ED%A0%80', '%C0%AF', '%2F', '%2e%2e', '..', '.', '%20', '%23', '%3F').map(asIs) },
    { weight: 3, arbitrary: fc.uuid().map(encoded) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...known), fc.constantFrom('upper', 'suffix', 'prefix', 'truncate', 'space', 'braces', 'nul')).map(([value, how]) =>
        encoded(
          how === 'upper'
            ? value.toUpperCase()
            : how === 'suffix'
              ? `${value}x`
              : how === 'prefix'
                ? `0${value}`
                : how === 'truncate'
                  ? value.slice(0, -1)
                  : how === 'space'
                    ? ` ${value} `
                    : how === 'braces'
                      ? `{${value}}`
                      : `${value}\u0000`,
        ),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'x'.repeat(3000), '中'.repeat(300)).map(encoded) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).map(encoded) },
  );
}

export const knownSegment = (values: readonly string[]): fc.Arbitrary<Segment> => fc.constantFrom(...values).map(encoded);

/** A query string: the route's own parameters, pagination and ordering, unknown ones, odd values. */
export function queryCases(names: readonly string[], identifiers: readonly string[]): fc.Arbitrary<{ text: string; pairs: [string, string][] }> {
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...new Set([...names, 'page', 'page_size', 'ordering'])) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, 'format', 'limit', 'offset', 'search', '', 'PAGE', 'page[]', 'a#b', '\u0001') },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('1', '2', '0', '-1', 'last', 'first', '1.5', '1e3', '0x10', ' 1', '1 ', '+1', '01', '99999999', '1e309', '9007199254740993', '100', '101', '10000') },
    { weight: 2, arbitrary: fc.constantFrom('title', '-title', 'name', '-created_date', 'title,-status', '--title', '-', ',', 'uuid', 'PK', 'dataspace', 'last_modified_date') },
    { weight: 2, arbitrary: fc.constantFrom('2024-01-01', '2024-13-45', '2024-02-30T25:61:00Z', '1970-01-01T00:00:00+00:00', '9999-12-31', 'yesterday', 'true', 'false') },
    { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(2500), '中'.repeat(300), '😀'.repeat(200), '#'.repeat(200), '\u0001'.repeat(100)) },
    { weight: 3, arbitrary: fc.constantFrom(...identifiers) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30, unit: 'binary' }) },
  );
  return fc.array(fc.tuple(name, value, fc.boolean()), { maxLength: 4 }).map((pairs) => ({
    pairs: pairs.map(([n, v]) => [n, v]),
    // Mostly encoded; sometimes raw, as a careless client sends it ('#' then ends the query).
    text: pairs.map(([n, v, raw]) => (raw && v.isWellFormed() ? `${n}=${v}` : `${safeEncode(n)}=${safeEncode(v)}`)).join('&'),
  }));
}

/**
 * A small valid-looking value, the same every time: enums take their first value, strings the first
 * hint for their field (an identifier the test seeded) or a fresh name, numbers their minimum, arrays
 * their minimum length, objects their required fields (or their documented example).
 */
export function minimal(schema: JsonSchema, root: JsonSchema, pools: Pools, field = '', depth = 0): Json {
  const s = resolve(schema, root);
  if ('const' in s) return s.const as Json;
  if (Array.isArray(s.enum)) return (s.enum as Json[]).find((value) => value !== '') ?? (s.enum as Json[])[0] ?? null;
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (union?.[0]) return minimal(union[0], root, pools, field, depth + 1);
  const example = s.example ?? (Array.isArray(s.examples) ? s.examples[0] : undefined);
  if (example !== undefined) return example as Json;
  const type = Array.isArray(s.type) ? (s.type[0] as string) : (s.type as string | undefined);
  switch (type) {
    case 'string': {
      const max = typeof s.maxLength === 'number' ? s.maxLength : 300;
      const hint = (pools.hints[field] ?? []).find((value) => value.length <= max);
      if (hint !== undefined) return hint;
      if (s.format === 'email') return 'someone@example.com';
      if (s.format === 'uri') return 'https://example.com/x';
      return `fuzz${(freshNames += 1)}`.slice(0, Math.max(1, max));
    }
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, () => (s.items ? minimal(s.items as JsonSchema, root, pools, field, depth + 1) : null));
    }
    default: {
      if (depth > 4) return {};
      const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((s.required ?? []) as string[]);
      const value: Record<string, Json> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (required.has(name)) value[name] = minimal(property, root, pools, name, depth + 1);
      }
      return value;
    }
  }
}

let freshNames = 0;

/** Paths to the leaves of a value that are numbers. */
function numberPaths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'number') return [prefix];
  if (value === null || typeof value !== 'object') return [];
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return children.flatMap(([key, child]) => numberPaths(child, [...prefix, key]));
}

const EXTREME_NUMBERS: readonly number[] = [5e-324, 1e300];

/** Hostile values put in one field at a time, into the minimal body: each field's own checks and messages run. */
function perField(): readonly [string, (schema: JsonSchema, root: JsonSchema) => Json][] {
  return [
    ['an object that cannot become a string', () => UNSTRINGABLE],
    ['a list holding such an object', () => [UNSTRINGABLE]],
    ['a value of the wrong type', (schema, root) => {
      const allowed = allowedTypes(resolve(schema, root), root);
      if (allowed === 'any') return deep(40, 'array');
      if (!allowed.has('string')) return 'text';
      if (!allowed.has('array')) return ['text'];
      return allowed.has('boolean') ? { a: 1 } : true;
    }],
  ];
}

/** Hostile values put in every field at once. */
function everyField(): readonly [string, () => Json][] {
  return [
    ['an object with prototype-named keys', () => PROTOTYPE_VALUES[0]!],
    ['1,000 levels of nesting', () => deep(1000, 'object')],
    ['a 100 KB string', () => LONG_STRINGS[0]!],
    ['null', () => null],
  ];
}

/**
 * The same bodies on every run, sent before the random ones: every field at once set to each hostile
 * value; the minimal body with each number-holding field at an extreme; each bounded list full of one
 * repeated item; prototype-named fields; and the minimal body itself.
 */
export function sweepBodies(body: z.ZodType, pools: Pools): BodyCase[] {
  const root = bodyJsonSchema(body);
  const base = minimal(root, root, pools);
  const properties = topLevelProperties(root).filter(([, property]) => Object.keys(property).length > 0);
  const fields: [string, JsonSchema][] =
    properties.length > 0 ? properties : Object.keys(base !== null && typeof base === 'object' && !Array.isArray(base) ? base : {}).map((name) => [name, {}]);
  const cases: BodyCase[] = [{ kind: 'minimal', text: JSON.stringify(base) }];
  for (const [name, property] of fields) {
    for (const [label, make] of perField()) {
      cases.push({ kind: `minimal, ${name} = ${label}`, text: JSON.stringify(setAt(base, [name], make(property, root))) });
    }
  }
  for (const [label, make] of everyField()) {
    cases.push({ kind: `every field: ${label}`, text: withEntries({}, fields.map(([name]) => [name, make()])) });
  }
  const numeric: (string | number)[][] = numberPaths(base);
  for (const [name, property] of properties) {
    const allowed = allowedTypes(resolve(property, root), root);
    if (allowed !== 'any' && (allowed.has('number') || allowed.has('integer')) && !numeric.some((path) => path.length === 1 && path[0] === name)) numeric.push([name]);
  }
  for (const path of numeric) {
    for (const extreme of EXTREME_NUMBERS) {
      cases.push({ kind: `minimal, ${path.join('.')} = ${extreme}`, text: JSON.stringify(setAt(base, path, extreme)) });
    }
  }
  for (const [name, property] of properties) {
    const p = resolve(property, root);
    if (p.type === 'array' && typeof p.maxItems === 'number') {
      const item = p.items ? minimal(p.items as JsonSchema, root, pools, name) : null;
      cases.push({ kind: `minimal, ${name} = the same item ${p.maxItems} times`, text: JSON.stringify(setAt(base, [name], Array.from({ length: p.maxItems }, () => item))) });
    }
  }
  cases.push({ kind: 'minimal with prototype-named fields', text: withEntries(base, PROTOTYPE_KEYS.map((key) => [key, UNSTRINGABLE])) });
  return cases;
}

function setAt(value: Json, path: readonly (string | number)[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((child, i) => (i === head ? setAt(child, rest, replacement) : child));
  const record = value !== null && typeof value === 'object' ? value : {};
  return { ...record, [head as string]: setAt(record[head as string] ?? null, rest, replacement) };
}

/** Query strings sent before the random ones: every parameter of the route at once at an odd value. */
export function sweepQueries(names: readonly string[]): { text: string; pairs: [string, string][] }[] {
  const all = [...new Set([...names, 'page', 'page_size', 'ordering'])];
  return ['中'.repeat(100), '\u0001#%', '-1', '99999999999999999999', '__proto__', ''].map((value) => {
    const pairs = all.map((name): [string, string] => [name, value]);
    return { pairs, text: pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&') };
  });
}
