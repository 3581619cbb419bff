import { describe, expect, it } from 'vitest';
import { COUNTER_SHARDS, counterChanges, counterTotals, counterUpdates, filterCounter, listCounterSpace, requestCounterSpace } from '../../shared/store/counters.ts';

type Thing = { kind: string; colour: string; hidden?: boolean };
const countersOf = (thing: Thing) =>
  new Map([
    ['all', { total: 1, public: thing.hidden ? 0 : 1 }],
    [`kind=${thing.kind}`, { total: 1, public: thing.hidden ? 0 : 1 }],
    [`colour=${thing.colour}`, { total: 1, public: thing.hidden ? 0 : 1 }],
  ]);

describe('counterChanges', () => {
  it.each([
    ['a create adds one to each of its counters', undefined, { kind: 'a', colour: 'red' }, { all: { total: 1, public: 1 }, 'kind=a': { total: 1, public: 1 }, 'colour=red': { total: 1, public: 1 } }],
    ['a delete takes one from each', { kind: 'a', colour: 'red' }, undefined, { all: { total: -1, public: -1 }, 'kind=a': { total: -1, public: -1 }, 'colour=red': { total: -1, public: -1 } }],
    ['an update moves only what changed', { kind: 'a', colour: 'red' }, { kind: 'a', colour: 'blue' }, { 'colour=red': { total: -1, public: -1 }, 'colour=blue': { total: 1, public: 1 } }],
    ['an update that changes nothing counted moves nothing', { kind: 'a', colour: 'red' }, { kind: 'a', colour: 'red' }, {}],
    ['an attribute that moves alone is kept', { kind: 'a', colour: 'red' }, { kind: 'a', colour: 'red', hidden: true }, { all: { total: 0, public: -1 }, 'kind=a': { total: 0, public: -1 }, 'colour=red': { total: 0, public: -1 } }],
  ] as [string, Thing | undefined, Thing | undefined, Record<string, Record<string, number>>][])('%s', (_, before, after, expected) => {
    expect(Object.fromEntries(counterChanges(countersOf, before, after))).toEqual(expected);
  });
});

describe('counterTotals', () => {
  it('sums the counters of many objects', () => {
    const totals = counterTotals(countersOf, [
      { kind: 'a', colour: 'red' },
      { kind: 'b', colour: 'red', hidden: true },
      { kind: 'a', colour: 'blue' },
    ]);
    expect(Object.fromEntries(totals)).toEqual({
      all: { total: 3, public: 2 },
      'kind=a': { total: 2, public: 2 },
      'kind=b': { total: 1, public: 0 },
      'colour=red': { total: 2, public: 1 },
      'colour=blue': { total: 1, public: 1 },
    });
  });
});

describe('counterUpdates', () => {
  it('writes every counter of one write to the same shard, each attribute added', () => {
    const deltas = new Map<string, Record<string, number>>([
      ['all', { total: 1 }],
      ['kind=a', { total: -1, public: 2 }],
    ]);
    const items = counterUpdates('table', listCounterSpace('acme', 'PACKAGES'), deltas, 5);
    expect(items.map(({ item }) => item.Update!.Key)).toEqual([
      { PK: 'DS#acme#COUNT#PACKAGES#5', SK: 'all' },
      { PK: 'DS#acme#COUNT#PACKAGES#5', SK: 'kind=a' },
    ]);
    expect(items[1]!.item.Update).toMatchObject({
      UpdateExpression: 'SET entity = :entity ADD #a0 :a0, #a1 :a1',
      ExpressionAttributeNames: { '#a0': 'total', '#a1': 'public' },
      ExpressionAttributeValues: { ':entity': 'ListCount', ':a0': -1, ':a1': 2 },
    });
  });

  it('keeps shard 0 on the key written before sharding, and picks shards at random within range', () => {
    expect(requestCounterSpace('acme').key('all', 0)).toEqual({ PK: 'DS#acme#REQCOUNT', SK: 'all' });
    expect(requestCounterSpace('acme').key('all', 3)).toEqual({ PK: 'DS#acme#REQCOUNT#3', SK: 'all' });
    const shards = new Set(Array.from({ length: 2_000 }, () => String(counterUpdates('t', listCounterSpace('a', 'LICENSES'), new Map([['all', { total: 1 }]]))[0]!.item.Update!.Key!.PK)));
    expect(shards.size).toBe(COUNTER_SHARDS);
    expect([...shards].every((pk) => /^DS#a#COUNT#LICENSES(#([1-9]|1[0-5]))?$/.test(pk))).toBe(true);
  });
});

describe('filterCounter', () => {
  it('names a value as written while it is short, and by its SHA-256 when it is long', () => {
    expect(filterCounter('name', 'left-pad')).toBe('name=left-pad');
    const long = 'x'.repeat(300);
    expect(filterCounter('name', long)).toMatch(/^name#sha256=[0-9a-f]{64}$/);
    expect(filterCounter('name', long)).not.toBe(filterCounter('name', `${long}y`));
    // 256 bytes, not characters: a counter's key stays within DynamoDB's 1,024-byte sort key.
    expect(filterCounter('name', 'é'.repeat(200))).toMatch(/^name#sha256=/);
  });
});
