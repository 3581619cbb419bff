import { describe, expect, it } from 'vitest';
import { COUNTER_SHARDS, counterChanges, counterTotals, counterUpdates, filterCounter, groupedCounterSeedItems, groupedCounterUpdates, listCounterSpace } from '../../shared/store/counters.ts';
import { requestCounterSpace, requestCounterUpdates } from '../../shared/store/request-counters.ts';
import { counterDeltas, counterGroup, counterKeyFromLegacy, legacyCounterKey, privateCounterKey, type RequestRecord } from '../../shared/domain/request.ts';

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
    expect(listCounterSpace('acme', 'PRODUCTS').key('all', 0)).toEqual({ PK: 'DS#acme#COUNT#PRODUCTS', SK: 'all' });
    expect(listCounterSpace('acme', 'PRODUCTS').key('all', 3)).toEqual({ PK: 'DS#acme#COUNT#PRODUCTS#3', SK: 'all' });
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

describe('grouped counters', () => {
  const space = { key: (group: string, shard: number) => ({ PK: `C#${shard}`, SK: group }), groupOf: (counter: string) => (counter.startsWith('user=') ? counter : 'shared'), entity: 'RequestCounters' as const };

  it('updates one item per group, each counter an attribute of it, and leaves out what does not move', () => {
    const deltas = new Map<string, Record<string, number>>([
      ['all', { total: 1, private: 0 }],
      ['kind=a', { total: 1, private: 1 }],
      ['user=bob', { total: -1 }],
    ]);
    const items = groupedCounterUpdates('table', space, deltas, 7).map(({ item }) => item.Update!);
    expect(items.map((update) => update.Key)).toEqual([{ PK: 'C#7', SK: 'shared' }, { PK: 'C#7', SK: 'user=bob' }]);
    expect(items[0]).toMatchObject({
      UpdateExpression: 'SET entity = :entity ADD #a0 :a0, #a1 :a1, #a2 :a2',
      ExpressionAttributeNames: { '#a0': 'total|all', '#a1': 'total|kind=a', '#a2': 'private|kind=a' },
      ExpressionAttributeValues: { ':entity': 'RequestCounters', ':a0': 1, ':a1': 1, ':a2': 1 },
    });
  });

  it('seeds one item per group in shard 0', () => {
    expect(groupedCounterSeedItems(space, new Map<string, Record<string, number>>([['all', { total: 3, private: 0 }], ['user=bob', { total: 2 }]]))).toEqual([
      { PK: 'C#0', SK: 'shared', entity: 'RequestCounters', 'total|all': 3 },
      { PK: 'C#0', SK: 'user=bob', entity: 'RequestCounters', 'total|user=bob': 2 },
    ]);
  });
});

describe('request counter groups', () => {
  const request = (overrides: Partial<RequestRecord>): RequestRecord => ({
    uuid: 'u1', dataspace: 'acme', title: 'T', templateUuid: 't1', templateName: 'Review', contentType: 'product', status: 'open',
    priority: 'High', assignee: 'bob', requester: 'alice', productContext: null, contentObject: null, notes: '', serializedData: {},
    isPrivate: false, ccEmails: [], lastModifiedBy: 'alice', createdDate: '2026-01-01T00:00:00+00:00', lastModifiedDate: '2026-01-01T00:00:00+00:00', rev: 0,
    ...overrides,
  });
  const groupsOf = (r: RequestRecord) => requestCounterUpdates('t', 'acme', counterDeltas(undefined, r), 0).map(({ item }) => item.Update!.Key!.SK);

  it('a create updates the dataspace group, the requester and the assignee: three items, however many counters', () => {
    expect(groupsOf(request({}))).toEqual(['DS', 'USER#alice', 'USER#bob']);
    expect(groupsOf(request({ assignee: 'alice' }))).toEqual(['DS', 'USER#alice']);
    // A private request's counters of its viewers go to those viewers' groups.
    expect(groupsOf(request({ isPrivate: true }))).toEqual(['DS', 'USER#alice', 'USER#bob']);
  });

  it('a public request moves only totals; a private one also its private part', () => {
    const names = (r: RequestRecord) => requestCounterUpdates('t', 'acme', counterDeltas(undefined, r), 0).flatMap(({ item }) => Object.values(item.Update!.ExpressionAttributeNames!));
    expect(names(request({})).filter((name) => name.startsWith('private|'))).toEqual([]);
    expect(names(request({ isPrivate: true }))).toContain('private|all');
    expect(names(request({ isPrivate: true }))).toContain(`total|${privateCounterKey('bob', 'status=open')}`);
  });

  it('names the user of a private counter even when the username holds colons or equals signs', () => {
    expect(counterGroup(privateCounterKey('a:requester=b', 'all'))).toBe('USER#a:requester=b');
    expect(counterGroup('requester=a:b')).toBe('USER#a:b');
    expect(counterGroup('template=t1')).toBe('DS');
    expect(requestCounterSpace('acme').key('DS', 2)).toEqual({ PK: 'DS#acme#REQCOUNTERS#2', SK: 'DS' });
  });

  it('reads the counter names of the layout before grouping, and writes them', () => {
    expect(counterKeyFromLegacy('status=open')).toBe('status=open');
    expect(counterKeyFromLegacy('private:bob:status=open')).toBe(privateCounterKey('bob', 'status=open'));
    expect(counterKeyFromLegacy('private:a:b:all')).toBe(privateCounterKey('a:b', 'all'));
    // Ambiguous (usernames may hold ':' and '='): the split that names a user of the dataspace.
    expect(counterKeyFromLegacy('private:a:status=b:all')).toBe(privateCounterKey('a', 'status=b:all'));
    expect(counterKeyFromLegacy('private:a:status=b:all', new Set(['a:status=b']))).toBe(privateCounterKey('a:status=b', 'all'));
    for (const key of ['all', 'requester=x:y', privateCounterKey('a:b=c', 'template=t1'), privateCounterKey('bob', 'all')]) {
      expect(counterKeyFromLegacy(legacyCounterKey(key), new Set(['a:b=c', 'bob']))).toBe(key);
    }
  });
});
