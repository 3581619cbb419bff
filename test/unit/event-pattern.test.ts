import { describe, expect, it } from 'vitest';
import { matchesEventPattern, validateEventPattern } from '../../shared/events/event-pattern.ts';

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

  // prefix / suffix
  field('prefix', [{ prefix: 'policy.' }], 'policy.violation_detected', true),
  field('prefix, no', [{ prefix: 'policy.' }], 'product.created', false),
  field('prefix is case sensitive', [{ prefix: 'policy.' }], 'Policy.x', false),
  field('prefix only applies to strings', [{ prefix: '4' }], 42, false),
  field('prefix ignoring case', [{ prefix: { 'equals-ignore-case': 'EventB' } }], 'eventbridge', true),
  field('prefix ignoring case, no', [{ prefix: { 'equals-ignore-case': 'EventB' } }], 'lambda', false),
  field('suffix', [{ suffix: '.png' }], 'photo.png', true),
  field('suffix, no', [{ suffix: '.png' }], 'photo.jpg', false),
  field('suffix is case sensitive', [{ suffix: '.png' }], 'photo.PNG', false),
  field('suffix ignoring case', [{ suffix: { 'equals-ignore-case': '.png' } }], 'photo.PNG', true),
  field('suffix ignoring case, no', [{ suffix: { 'equals-ignore-case': '.png' } }], 'photo.gif', false),

  // equals-ignore-case
  field('equals-ignore-case', [{ 'equals-ignore-case': 'alice' }], 'ALICE', true),
  field('equals-ignore-case is not a prefix match', [{ 'equals-ignore-case': 'alice' }], 'alice2', false),
  field('equals-ignore-case only applies to strings', [{ 'equals-ignore-case': 'true' }], true, false),

  // anything-but
  field('anything-but value', [{ 'anything-but': 'initializing' }], 'running', true),
  field('anything-but value, excluded', [{ 'anything-but': 'initializing' }], 'initializing', false),
  field('anything-but number', [{ 'anything-but': 123 }], 124, true),
  field('anything-but number, excluded', [{ 'anything-but': 123 }], 123, false),
  field('anything-but list', [{ 'anything-but': ['stopped', 'overloaded'] }], 'running', true),
  field('anything-but list, excluded', [{ 'anything-but': ['stopped', 'overloaded'] }], 'overloaded', false),
  field('anything-but number list, excluded', [{ 'anything-but': [100, 200] }], 200, false),
  field('anything-but prefix', [{ 'anything-but': { prefix: 'us-' } }], 'eu-west-1', true),
  field('anything-but prefix, excluded', [{ 'anything-but': { prefix: 'us-' } }], 'us-east-1', false),
  field('anything-but suffix', [{ 'anything-but': { suffix: '.png' } }], 'a.jpg', true),
  field('anything-but suffix, excluded', [{ 'anything-but': { suffix: '.png' } }], 'a.png', false),
  field('anything-but ignoring case, excluded', [{ 'anything-but': { 'equals-ignore-case': ['Stopped'] } }], 'STOPPED', false),
  field('anything-but ignoring case', [{ 'anything-but': { 'equals-ignore-case': ['Stopped'] } }], 'running', true),
  field('anything-but wildcard', [{ 'anything-but': { wildcard: '*/lib/*' } }], 'src/bin/x', true),
  field('anything-but prefix holds for a non-string', [{ 'anything-but': { prefix: 'us-' } }], 7, true),
  field('anything-but wildcard, excluded', [{ 'anything-but': { wildcard: '*/lib/*' } }], 'src/lib/x', false),
  field('anything-but needs the field', [{ 'anything-but': 'initializing' }], undefined, false),

  // numeric
  field('numeric =', [{ numeric: ['=', 301.8] }], 301.8, true),
  field('numeric =, no', [{ numeric: ['=', 301.8] }], 301.9, false),
  field('numeric <', [{ numeric: ['<', 10] }], 9.99, true),
  field('numeric <, at the bound', [{ numeric: ['<', 10] }], 10, false),
  field('numeric <=, at the bound', [{ numeric: ['<=', 10] }], 10, true),
  field('numeric <=, above', [{ numeric: ['<=', 10] }], 10.01, false),
  field('numeric >', [{ numeric: ['>', 0] }], 0.5, true),
  field('numeric >, at the bound', [{ numeric: ['>', 0] }], 0, false),
  field('numeric >=, at the bound', [{ numeric: ['>=', 0] }], 0, true),
  field('numeric >=, below', [{ numeric: ['>=', 0] }], -1, false),
  field('numeric range, inside', [{ numeric: ['>', 0, '<=', 5] }], 5, true),
  field('numeric range, below', [{ numeric: ['>', 0, '<=', 5] }], 0, false),
  field('numeric range, above', [{ numeric: ['>', 0, '<=', 5] }], 5.5, false),
  field('numeric only applies to numbers', [{ numeric: ['>', 0] }], '7', false),

  // exists
  field('exists true, present', [{ exists: true }], 'x', true),
  field('exists true, present as null', [{ exists: true }], null, true),
  field('exists true, missing', [{ exists: true }], undefined, false),
  field('exists false, missing', [{ exists: false }], undefined, true),
  field('exists false, present', [{ exists: false }], 0, false),
  field('exists true does not see an object (leaves only)', [{ exists: true }], { nested: 1 }, false),
  field('exists false holds for an object (leaves only)', [{ exists: false }], { nested: 1 }, true),

  // wildcard
  field('wildcard', [{ wildcard: 'Simple*Service' }], 'SimpleQueueService', true),
  field('wildcard, star matches nothing', [{ wildcard: 'Simple*Service' }], 'SimpleService', true),
  field('wildcard, no', [{ wildcard: 'Simple*Service' }], 'SimpleQueue', false),
  field('wildcard is anchored', [{ wildcard: 'a*c' }], 'xabc', false),
  field('wildcard dots are literal', [{ wildcard: 'a.*' }], 'abc', false),
  field('wildcard escaped star is literal', [{ wildcard: 'a\\*c' }], 'a*c', true),
  field('wildcard escaped star, no', [{ wildcard: 'a\\*c' }], 'abc', false),

  // cidr
  field('cidr v4', [{ cidr: '10.0.0.0/24' }], '10.0.0.255', true),
  field('cidr v4, outside', [{ cidr: '10.0.0.0/24' }], '10.0.1.0', false),
  field('cidr v4 /32', [{ cidr: '192.168.1.7/32' }], '192.168.1.7', true),
  field('cidr v4, not an address', [{ cidr: '10.0.0.0/8' }], 'ten', false),
  field('cidr v6', [{ cidr: '2001:db8::/32' }], '2001:db8:1::5', true),
  field('cidr v6, outside', [{ cidr: '2001:db8::/32' }], '2001:db9::1', false),
  field('cidr v6 does not hold a v4 address', [{ cidr: '::/0' }], '10.0.0.1', false),
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
    pattern: { detail: { state: ['running'], size: { bytes: [{ numeric: ['>', 1024] }] } } },
    event: { detail: { state: 'running', size: { bytes: 2048 } } },
    matches: true,
  },
  {
    name: 'nested fields are ANDed: one fails',
    pattern: { detail: { state: ['running'], size: { bytes: [{ numeric: ['>', 1024] }] } } },
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
    name: 'exists false under a missing parent',
    pattern: { detail: { reason: [{ exists: false }] } },
    event: { source: 'x' },
    matches: true,
  },
  {
    name: 'a field name from Object.prototype is not found on a plain event',
    pattern: { constructor: [{ exists: true }] },
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
    pattern: { tags: [{ 'anything-but': 'blocked' }] },
    event: { tags: ['blocked', 'ok'] },
    matches: true,
  },
  {
    name: 'array field: anything-but fails when every element is excluded',
    pattern: { tags: [{ 'anything-but': 'blocked' }] },
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
    name: 'array field: empty array does not exist',
    pattern: { tags: [{ exists: true }] },
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

const orPattern: Pattern = {
  source: ['aws.cloudwatch'],
  $or: [{ metricName: ['CPUUtilization'] }, { namespace: ['AWS/EC2'], detail: { $or: [{ a: [1] }, { b: [2] }] } }],
};

const orCases: MatchCase[] = [
  { name: 'first alternative', pattern: orPattern, event: { source: 'aws.cloudwatch', metricName: 'CPUUtilization' }, matches: true },
  {
    name: 'second alternative with its nested $or',
    pattern: orPattern,
    event: { source: 'aws.cloudwatch', namespace: 'AWS/EC2', detail: { b: 2 } },
    matches: true,
  },
  {
    name: 'second alternative, nested $or fails',
    pattern: orPattern,
    event: { source: 'aws.cloudwatch', namespace: 'AWS/EC2', detail: { b: 3 } },
    matches: false,
  },
  { name: 'no alternative', pattern: orPattern, event: { source: 'aws.cloudwatch', metricName: 'Other' }, matches: false },
  {
    name: 'an alternative holds but a sibling field fails',
    pattern: orPattern,
    event: { source: 'aws.s3', metricName: 'CPUUtilization' },
    matches: false,
  },
];

describe('matchesEventPattern: $or', () => {
  it.each(orCases)('$name → $matches', ({ pattern, event, matches }) => {
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
    ['a valid pattern', { source: ['a'], detail: { n: [{ numeric: ['>=', 1, '<', 2] }] } }],
    ['every operator', {
      a: [{ prefix: 'x' }, { suffix: { 'equals-ignore-case': 'y' } }, { 'equals-ignore-case': 'z' }],
      b: [{ 'anything-but': [1, 2] }, { 'anything-but': { prefix: 'p' } }, { 'anything-but': { wildcard: ['*a', 'b*'] } }],
      c: [{ exists: false }, { cidr: '10.0.0.0/8' }, { cidr: 'fe80::/10' }, { wildcard: 'a\\*b\\\\c*' }, null, true, 0],
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
    ['exists not boolean', { a: [{ exists: 'yes' }] }, 'must be true or false'],
    ['numeric, odd length', { a: [{ numeric: ['>', 1, '<'] }] }, 'must be [operator, number]'],
    ['numeric, unknown operator', { a: [{ numeric: ['!=', 1] }] }, 'is not one of'],
    ['numeric, bound not a number', { a: [{ numeric: ['>', '1'] }] }, 'must be a number'],
    ['numeric, range upside down', { a: [{ numeric: ['>', 5, '<', 1] }] }, 'must be less than'],
    ['numeric, range in the wrong order', { a: [{ numeric: ['<', 5, '>', 1] }] }, 'lower bound'],
    ['anything-but, mixed list', { a: [{ 'anything-but': ['a', 1] }] }, 'only strings or only numbers'],
    ['anything-but, unsupported nested operator', { a: [{ 'anything-but': { numeric: ['>', 1] } }] }, 'does not support "numeric"'],
    ['wildcard, consecutive stars', { a: [{ wildcard: 'a**b' }] }, 'consecutive wildcard'],
    ['wildcard, bad escape', { a: [{ wildcard: 'a\\b' }] }, 'backslash'],
    ['cidr, malformed', { a: [{ cidr: '10.0.0.0' }] }, 'IPv4 or IPv6 block'],
    ['cidr, mask too long', { a: [{ cidr: '10.0.0.0/33' }] }, 'IPv4 or IPv6 block'],
    ['$or with one alternative', { $or: [{ a: ['x'] }] }, 'at least two patterns'],
    ['$or alternative not an object', { $or: [{ a: ['x'] }, ['b']] }, '"$or[1]" must be a pattern object'],
    ['a problem inside $or', { $or: [{ a: ['x'] }, { b: 'y' }] }, '"$or[1].b" must be an array'],
  ])('rejects %s', (_name, pattern, problem) => {
    const problems = validateEventPattern(pattern);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  it('reports every problem, not just the first', () => {
    expect(validateEventPattern({ a: 'x', b: [], c: [{ exists: 1 }] })).toHaveLength(3);
  });
});
