import { describe, expect, it } from 'vitest';
import { matchesEventPattern, validateEventPattern } from '../../bin/local/event-pattern.ts';
import { EVENT_RULES, EVENT_SOURCES } from '../../shared/resources.ts';

type Pattern = Record<string, unknown>;
type Event = Record<string, unknown>;

interface MatchCase {
  readonly name: string;
  readonly pattern: Pattern;
  readonly event: Event;
  readonly matches: boolean;
}

/** Cases for one field, `detail.value`, so each row reads as "operator, value, expected". */
function field(name: string, matcher: unknown[], value: unknown, matches: boolean): MatchCase {
  return { name, pattern: { detail: { value: matcher } }, event: { detail: value === undefined ? {} : { value } }, matches };
}

const operatorCases: MatchCase[] = [
  // exact values
  field('exact string', ['active'], 'active', true),
  field('exact string, other value', ['active'], 'inactive', false),
  field('exact string is case sensitive', ['active'], 'Active', false),
  field('exact number', [42], 42, true),
  field('exact number equal in value', [300], 3.0e2, true),
  field('exact number, other value', [42], 43, false),
  field('a number does not equal its string', [42], '42', false),
  field('a string does not equal its number', ['42'], 42, false),
  field('exact true', [true], true, true),
  field('exact true, got false', [true], false, false),
  field('exact null', [null], null, true),
  field('exact null, got a string', [null], 'null', false),
  field('null does not match a missing field', [null], undefined, false),
  field('empty string', [''], '', true),
  field('empty string, got text', [''], 'x', false),
  field('list of values is an OR', ['a', 'b'], 'b', true),
  field('list of values, none equal', ['a', 'b'], 'c', false),
  field('mixed list of operator and value', ['a', { prefix: 'z' }], 'zed', true),

  // prefix
  field('prefix', [{ prefix: 'policy.' }], 'policy.violation_detected', true),
  field('prefix, no', [{ prefix: 'policy.' }], 'product.created', false),
  field('prefix is case sensitive', [{ prefix: 'policy.' }], 'Policy.x', false),
  field('prefix only applies to strings', [{ prefix: '4' }], 42, false),

  // anything-but
  field('anything-but prefix', [{ 'anything-but': { prefix: 'us-' } }], 'eu-west-1', true),
  field('anything-but prefix, excluded', [{ 'anything-but': { prefix: 'us-' } }], 'us-east-1', false),
  field('anything-but prefix holds for a non-string', [{ 'anything-but': { prefix: 'us-' } }], 7, true),
  field('anything-but needs the field', [{ 'anything-but': { prefix: 'init' } }], undefined, false),
  field('anything-but values', [{ 'anything-but': ['RATE', 'AUTHFAIL'] }], 'PRODUCT', true),
  field('anything-but values, excluded', [{ 'anything-but': ['RATE', 'AUTHFAIL'] }], 'AUTHFAIL', false),
  field('anything-but values are whole values, not prefixes', [{ 'anything-but': ['RATE'] }], 'RATE#x', true),
  field('anything-but one value', [{ 'anything-but': 'RATE' }], 'RATE', false),
  field('anything-but values hold for another type', [{ 'anything-but': ['7'] }], 7, true),
  field('anything-but values need the field', [{ 'anything-but': ['RATE'] }], undefined, false),

];

describe('matchesEventPattern: operators', () => {
  it.each(operatorCases)('$name → $matches', ({ pattern, event, matches }) => {
    expect(validateEventPattern(pattern)).toEqual([]);
    expect(matchesEventPattern(pattern, event)).toBe(matches);
  });
});

const structureCases: MatchCase[] = [
  {
    name: 'nested fields are ANDed',
    pattern: { detail: { state: ['running'], size: { bytes: [2048] } } },
    event: { detail: { state: 'running', size: { bytes: 2048 } } },
    matches: true,
  },
  {
    name: 'nested fields are ANDed: one fails',
    pattern: { detail: { state: ['running'], size: { bytes: [2048] } } },
    event: { detail: { state: 'stopped', size: { bytes: 2048 } } },
    matches: false,
  },
  {
    name: 'fields the pattern does not name are ignored',
    pattern: { source: ['a'] },
    event: { source: 'a', detail: { anything: true } },
    matches: true,
  },
  {
    name: 'a missing field fails',
    pattern: { detail: { state: ['running'] } },
    event: { detail: {} },
    matches: false,
  },
  {
    name: 'a missing parent object fails',
    pattern: { detail: { state: ['running'] } },
    event: { source: 'x' },
    matches: false,
  },
  {
    name: 'a nested pattern does not match a scalar',
    pattern: { detail: { state: ['running'] } },
    event: { detail: 'running' },
    matches: false,
  },
  {
    name: 'a value list does not match an object',
    pattern: { detail: ['running'] },
    event: { detail: { state: 'running' } },
    matches: false,
  },
  {
    name: 'a field name from Object.prototype is not found on a plain event',
    pattern: { constructor: [{ 'anything-but': { prefix: 'x' } }] },
    event: { source: 'x' },
    matches: false,
  },
  {
    name: 'array field: any element matches',
    pattern: { resources: ['arn:2'] },
    event: { resources: ['arn:1', 'arn:2'] },
    matches: true,
  },
  {
    name: 'array field: no element matches',
    pattern: { resources: ['arn:3'] },
    event: { resources: ['arn:1', 'arn:2'] },
    matches: false,
  },
  {
    name: 'array field: operator on any element',
    pattern: { tags: [{ prefix: 'env:' }] },
    event: { tags: ['team:a', 'env:prod'] },
    matches: true,
  },
  {
    name: 'array field: anything-but matches when some element is not excluded',
    pattern: { tags: [{ 'anything-but': { prefix: 'blocked' } }] },
    event: { tags: ['blocked', 'ok'] },
    matches: true,
  },
  {
    name: 'array field: anything-but fails when every element is excluded',
    pattern: { tags: [{ 'anything-but': { prefix: 'blocked' } }] },
    event: { tags: ['blocked'] },
    matches: false,
  },
  {
    name: 'array field: nested arrays are flattened',
    pattern: { matrix: [4] },
    event: { matrix: [[1, 2], [3, [4]]] },
    matches: true,
  },
  {
    name: 'array field: an empty array has no value to match',
    pattern: { tags: [{ 'anything-but': { prefix: 'x' } }] },
    event: { tags: [] },
    matches: false,
  },
  {
    name: 'array of objects: a nested pattern looks into each element',
    pattern: { employees: { firstName: ['Anna'] } },
    event: { employees: [{ firstName: 'Anna' }, { firstName: 'John' }] },
    matches: true,
  },
  {
    name: 'array of objects: fields must match within one element',
    pattern: { employees: { firstName: ['Anna'], lastName: ['Jones'] } },
    event: {
      employees: [
        { firstName: 'Anna', lastName: 'Smith' },
        { lastName: 'Jones' },
      ],
    },
    matches: false,
  },
  {
    name: 'array of objects: both fields in one element',
    pattern: { employees: { firstName: ['Peter'], lastName: ['Jones'] } },
    event: {
      employees: [
        { firstName: 'Anna', lastName: 'Smith' },
        { firstName: 'Peter', lastName: 'Jones' },
      ],
    },
    matches: true,
  },
];

describe('matchesEventPattern: structure and arrays', () => {
  it.each(structureCases)('$name → $matches', ({ pattern, event, matches }) => {
    expect(validateEventPattern(pattern)).toEqual([]);
    expect(matchesEventPattern(pattern, event)).toBe(matches);
  });
});

describe('matchesEventPattern: patterns this service uses', () => {
  const streamRecord = (entity: string, eventName = 'INSERT'): Event => ({
    eventID: '1',
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { PK: { S: 'PRODUCT#p1' }, SK: { S: 'PRODUCT#p1' } },
      NewImage: { PK: { S: 'PRODUCT#p1' }, entity: { S: entity }, version: { N: '3' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  });
  const productFilter: Pattern = {
    eventName: ['INSERT', 'MODIFY'],
    dynamodb: { NewImage: { entity: { S: ['Product'] } } },
  };

  it('a DynamoDB stream filter passes a product record', () => {
    expect(validateEventPattern(productFilter)).toEqual([]);
    expect(matchesEventPattern(productFilter, streamRecord('Product'))).toBe(true);
  });

  it('a DynamoDB stream filter drops another entity and a REMOVE (no NewImage)', () => {
    expect(matchesEventPattern(productFilter, streamRecord('Request'))).toBe(false);
    const removed = { ...streamRecord('Product', 'REMOVE'), dynamodb: { Keys: {} } };
    expect(matchesEventPattern(productFilter, removed)).toBe(false);
  });

  it('a stream filter on a key prefix passes the records whose key does not begin with it', () => {
    const notRateLimits: Pattern = { dynamodb: { Keys: { PK: { S: [{ 'anything-but': { prefix: 'RATE#' } }] } } } };
    const rateLimit = { ...streamRecord('RateLimit'), dynamodb: { Keys: { PK: { S: 'RATE#key1' }, SK: { S: 'RATE#key1' } } } };
    expect(validateEventPattern(notRateLimits)).toEqual([]);
    expect(matchesEventPattern(notRateLimits, streamRecord('Product'))).toBe(true);
    expect(matchesEventPattern(notRateLimits, rateLimit)).toBe(false);
  });

  it.each([
    ...EVENT_RULES.map((rule) => [`the bus rule ${rule.name}`, rule.pattern] as const),
    ...EVENT_SOURCES.flatMap((source) =>
      source.kind === 'table-stream' ? (source.filterPatterns ?? []).map((pattern, index) => [`filter ${index} of ${source.function}`, pattern] as const) : [],
    ),
  ])('%s, as the stack declares it, is one the local stack can evaluate', (_name, pattern) => {
    expect(validateEventPattern(pattern)).toEqual([]);
  });

  const envelopePattern: Pattern = { source: ['compliance-service'], 'detail-type': [{ prefix: 'policy.' }] };
  const busEvent = (source: string, detailType: string): Event => ({
    version: '0',
    id: 'e1',
    'detail-type': detailType,
    source,
    account: '000000000000',
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: { productId: 'p1' },
  });

  it.each([
    ['compliance-service', 'policy.violation_detected', true],
    ['compliance-service', 'product.created', false],
    ['other-service', 'policy.violation_detected', false],
  ] as const)('an EventBridge envelope pattern: %s / %s → %s', (source, detailType, expected) => {
    expect(validateEventPattern(envelopePattern)).toEqual([]);
    expect(matchesEventPattern(envelopePattern, busEvent(source, detailType))).toBe(expected);
  });
});

describe('validateEventPattern', () => {
  it.each([
    ['a valid pattern', { source: ['a'], detail: { n: [1, 2] } }],
    ['every operator', {
      a: [{ prefix: 'x' }, { 'anything-but': { prefix: 'p' } }, { 'anything-but': ['q', 'r'] }, { 'anything-but': 's' }],
      c: [null, true, 0, 'x'],
    }],
  ])('accepts %s', (_name, pattern) => {
    expect(validateEventPattern(pattern)).toEqual([]);
  });

  it.each([
    ['a non-object pattern', ['source'], 'must be a JSON object'],
    ['an empty pattern', {}, 'empty object'],
    ['an empty nested object', { detail: {} }, '"detail" is an empty object'],
    ['a bare scalar instead of an array', { source: 'compliance-service' }, '"source" must be an array'],
    ['an empty value list', { source: [] }, '"source" is an empty array'],
    ['a nested array value', { source: [['a']] }, '"source[0]" must be a string'],
    ['an unknown operator', { source: [{ contains: 'a' }] }, 'unknown operator "contains"'],
    ['two operators in one object', { source: [{ prefix: 'a', suffix: 'b' }] }, 'exactly one operator'],
    ['a non-string prefix', { source: [{ prefix: 1 }] }, '"source[0].prefix" must be a string'],
    ['anything-but, unsupported nested operator', { a: [{ 'anything-but': { numeric: ['>', 1] } }] }, 'does not support "numeric"'],
    ['an operator the local stack leaves out', { a: [{ numeric: ['>', 1] }] }, 'does not implement'],
    ['anything-but, values that are not strings', { a: [{ 'anything-but': ['a', 1] }] }, 'a non-empty list of strings'],
    ['anything-but, no values', { a: [{ 'anything-but': [] }] }, 'a non-empty list of strings'],
    ['anything-but, an empty prefix', { a: [{ 'anything-but': { prefix: '' } }] }, 'or { "prefix"'],
  ])('rejects %s', (_name, pattern, problem) => {
    const problems = validateEventPattern(pattern);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  it('reports every problem, not just the first', () => {
    expect(validateEventPattern({ a: 'x', b: [], c: [{ exists: 1 }] })).toHaveLength(3);
  });
});
