/**
 * The rate limiters' items (RATE#<keyId> and AUTHFAIL#<source>, written on nearly every API request) never
 * reach a table-stream consumer: every table-stream mapping's filter criteria exclude them, on AWS (the
 * synthesized AWS::Lambda::EventSourceMapping) and locally (the same patterns, through the event-pattern
 * matcher the local stream poller uses).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { matchesEventPattern, validateEventPattern } from '../../bin/local/event-pattern.ts';
import { keys } from '../../shared/keys.ts';
import { EVENT_SOURCES, LIMITER_SORT_KEYS, withoutLimiterItems, type EventSourceDefinition } from '../../shared/resources.ts';
import { logicalId, synthesize, type Synthesized } from './helpers.ts';

type StreamSource = Extract<EventSourceDefinition, { kind: 'table-stream' }>;
const streamSources = EVENT_SOURCES.filter((source): source is StreamSource => source.kind === 'table-stream');
const EXCLUSION = { Keys: { SK: { S: [{ 'anything-but': ['RATE', 'AUTHFAIL'] }] } } };

type Image = Record<string, { S: string } | { N: string }>;

/** A stream record as Lambda filters it (only `dynamodb` and `eventName` matter here). */
function aRecord(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', key: { PK: string; SK: string }, attributes: Image = {}) {
  const image: Image = { PK: { S: key.PK }, SK: { S: key.SK }, ...attributes };
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { PK: { S: key.PK }, SK: { S: key.SK } },
      ...(eventName !== 'REMOVE' ? { NewImage: image } : {}),
      ...(eventName !== 'INSERT' ? { OldImage: image } : {}),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

const limiterRecords = [
  // As the limiter writes them (entity set by the first write), then the TTL's removal.
  ...(['INSERT', 'MODIFY', 'REMOVE'] as const).map((name) => aRecord(name, keys.rateLimit('key-1'), { entity: { S: 'RateLimit' }, tat: { N: '1' } })),
  ...(['INSERT', 'MODIFY', 'REMOVE'] as const).map((name) => aRecord(name, keys.authFailures('192.0.2.1'), { entity: { S: 'AuthFailures' }, tat: { N: '1' } })),
  // Even one that claimed an entity a consumer wants: the key decides.
  aRecord('INSERT', keys.rateLimit('key-2'), { entity: { S: 'OutboxEvent' } }),
  aRecord('MODIFY', keys.authFailures('2001:db8:0:0::/64'), { entity: { S: 'Product' } }),
];

const reaches = (patterns: readonly Record<string, unknown>[], record: Record<string, unknown>) =>
  patterns.some((pattern) => matchesEventPattern(pattern, record));

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
});

describe('the table-stream mappings', () => {
  it('are one per table-stream source, and every filter pattern of each excludes the limiter items by key', () => {
    const tableStream = { 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.table), 'StreamArn'] };
    const mappings = Object.values(synth.template.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (mapping) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(tableStream),
    );
    expect(streamSources.length).toBeGreaterThan(0);
    expect(mappings).toHaveLength(streamSources.length);
    for (const source of streamSources) {
      const functionId = logicalId(synth.stack, synth.stack.functions[source.function as keyof typeof synth.stack.functions].function);
      const mapping = mappings.find((m) => m.Properties.FunctionName.Ref === functionId);
      expect(mapping, source.function).toBeDefined();
      const patterns = (mapping!.Properties.FilterCriteria.Filters as { Pattern: string }[]).map((filter) => JSON.parse(filter.Pattern));
      expect(patterns.length, source.function).toBeGreaterThan(0);
      // Lambda allows five filters a mapping unless a quota increase says otherwise.
      expect(patterns.length, source.function).toBeLessThanOrEqual(5);
      for (const pattern of patterns) expect(pattern.dynamodb, source.function).toMatchObject(EXCLUSION);
      expect(patterns, source.function).toEqual(source.filterPatterns);
    }
  });

  it.each(streamSources.map((source) => [source.function, source] as const))(
    "%s's patterns let no limiter record through, and still let through what the consumer is for",
    (name, source) => {
      const patterns = source.filterPatterns ?? [];
      for (const record of limiterRecords) expect(reaches(patterns, record), `${name}: ${JSON.stringify(record.dynamodb.Keys)}`).toBe(false);
      const wanted =
        name === 'stream-router'
          ? aRecord('MODIFY', keys.product('p-1'), { entity: { S: 'Product' } })
          : aRecord('INSERT', keys.outboxEvent('e-1'), { entity: { S: 'OutboxEvent' } });
      expect(reaches(patterns, wanted), name).toBe(true);
      // The router also writes the audit trail: a webhook's change (audited, never evaluated) reaches it.
      if (name === 'stream-router') {
        expect(reaches(patterns, aRecord('MODIFY', keys.webhook('w-1'), { entity: { S: 'Webhook' } })), name).toBe(true);
        expect(reaches(patterns, aRecord('REMOVE', keys.apiKey('k-1'), { entity: { S: 'ApiKey' } })), name).toBe(true);
      }
    },
  );

  it('are two at most: DynamoDB Streams throttles a shard read by more than two consumers at once', () => {
    expect(streamSources.length).toBeLessThanOrEqual(2);
  });

  it('are valid patterns for the local stack, and use only operators the Lambda event-filtering docs list', () => {
    const operators = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (['anything-but', 'prefix', 'suffix', 'exists', 'numeric', 'equals-ignore-case', 'wildcard', 'cidr'].includes(key)) {
            operators.add(key === 'anything-but' && !Array.isArray(value) ? `anything-but ${JSON.stringify(value)}` : key);
          }
          walk(value);
        }
      }
    };
    for (const source of streamSources) {
      for (const pattern of source.filterPatterns ?? []) {
        expect(validateEventPattern(pattern), source.function).toEqual([]);
        walk(pattern);
      }
    }
    // `anything-but` with a list (Lambda's "Not"); never `anything-but` over `prefix`, `suffix` or `wildcard`.
    expect([...operators].every((operator) => ['anything-but', 'prefix', 'suffix', 'exists', 'numeric', 'equals-ignore-case'].includes(operator))).toBe(true);
    expect(operators).toContain('anything-but');
  });
});

describe('withoutLimiterItems', () => {
  it('is the only pattern of a consumer that filters nothing else, and lets every other key kind through', () => {
    const patterns = withoutLimiterItems();
    expect(patterns).toEqual([{ dynamodb: EXCLUSION }]);
    for (const record of limiterRecords) expect(reaches(patterns, record)).toBe(false);
    // Keys no consumer filters for today, and one that does not exist yet.
    for (const key of [keys.product('p-1'), keys.apiKey('k-1'), keys.outboxEvent('e-1'), { PK: 'NEWKIND#1', SK: 'NEWKIND' }]) {
      for (const name of ['INSERT', 'MODIFY', 'REMOVE'] as const) expect(reaches(patterns, aRecord(name, key)), `${name} ${key.PK}`).toBe(true);
    }
  });

  it('ANDs the exclusion into each pattern and refuses a pattern that already matches the sort key', () => {
    const own = { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['Product'] } } } };
    expect(withoutLimiterItems([own])).toEqual([{ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['Product'] } }, ...EXCLUSION } }]);
    expect(own).toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['Product'] } } } });
    expect(() => withoutLimiterItems([{ dynamodb: { Keys: { SK: { S: ['PRODUCT'] } } } }])).toThrow(/dynamodb\.Keys\.SK\.S/);
  });
});

describe('the limiter sort keys', () => {
  it("are the limiters' own, and no other key builder of shared/keys.ts makes either", () => {
    expect(LIMITER_SORT_KEYS).toEqual([keys.rateLimit('x').SK, keys.authFailures('x').SK]);
    const principal = { type: 'user' as const, name: 'bob' };
    const madeBy = new Map<string, string[]>();
    for (const [name, build] of Object.entries(keys)) {
      if (typeof build !== 'function') continue;
      // Every builder with sample arguments: strings, and a principal where one is wanted.
      const args = Array.from({ length: build.length }, (_, index) => (name.match(/grant|viewer|viewable/) && index === 1 ? principal : `s${index}`));
      const key = (build as (...a: unknown[]) => unknown)(...args);
      const sortKey = typeof key === 'object' && key !== null ? (key as { SK?: unknown }).SK : undefined;
      if (typeof sortKey === 'string' && LIMITER_SORT_KEYS.includes(sortKey)) madeBy.set(sortKey, [...(madeBy.get(sortKey) ?? []), name]);
    }
    expect(Object.fromEntries(madeBy)).toEqual({ RATE: ['rateLimit', 'dataspaceRateLimit'], AUTHFAIL: ['authFailures'] });
  });
});
