import { describe, expect, it } from 'vitest';
import {
  canSee,
  canUpdate,
  checkAnswers,
  counterDeltas,
  equalityPrefix,
  formDataLayout,
  parseOrdering,
  sortKey,
  sortValue,
  type Question,
  type RequestRecord,
} from '../../shared/domain/request.ts';
import type { Caller } from '../../shared/domain/caller.ts';

const questions: Question[] = [
  { label: 'Justification', inputType: 'TextField', isRequired: true },
  { label: 'Deadline', inputType: 'DateField', isRequired: false },
  { label: 'Commercial use', inputType: 'BooleanField', isRequired: false },
  { label: 'Code', inputType: 'CharField', isRequired: false },
];

const aRequest = (overrides: Partial<RequestRecord> = {}): RequestRecord => ({
  uuid: 'r1',
  dataspace: 'acme',
  title: 'Review',
  templateUuid: 't1',
  templateName: 'Package Review',
  contentType: 'product',
  status: 'open',
  priority: null,
  assignee: null,
  requester: 'alice',
  productContext: null,
  contentObject: null,
  notes: '',
  serializedData: {},
  isPrivate: false,
  ccEmails: [],
  lastModifiedBy: 'alice',
  createdDate: '2026-01-01T00:00:00.000+00:00',
  lastModifiedDate: '2026-01-01T00:00:00.000+00:00',
  rev: 1,
  ...overrides,
});

const caller = (overrides: Partial<Caller> = {}): Caller => ({
  username: 'bob',
  email: '',
  dataspace: 'acme',
  isSuperuser: false,
  groups: [],
  ...overrides,
});

describe('answers', () => {
  it('describes each question in order', () => {
    expect(formDataLayout(questions)).toEqual({
      Justification: 'string, required',
      Deadline: 'date (YYYY-MM-DD)',
      'Commercial use': 'boolean (true or false)',
      Code: 'string',
    });
  });

  it.each([
    [{ Justification: 'x' }, { ok: true, data: { Justification: 'x' } }],
    [{ Justification: 'x', Deadline: '2024-02-29', 'Commercial use': false }, { ok: true, data: { Justification: 'x', Deadline: '2024-02-29', 'Commercial use': false } }],
    [{ Justification: 'x', Deadline: null, Code: '' }, { ok: true, data: { Justification: 'x' } }],
    [{}, { ok: false, errors: ['"Justification" is required.'] }],
    [{ Justification: '' }, { ok: false, errors: ['"Justification" is required.'] }],
    [{ Justification: 'x', Deadline: '2023-02-29' }, { ok: false, errors: ['"Deadline" must be a date as YYYY-MM-DD.'] }],
    [{ Justification: 'x', Deadline: '2023-2-1' }, { ok: false, errors: ['"Deadline" must be a date as YYYY-MM-DD.'] }],
    [{ Justification: 'x', 'Commercial use': 'true' }, { ok: false, errors: ['"Commercial use" must be true or false.'] }],
    [{ Justification: ['x'] }, { ok: false, errors: ['"Justification" must be a string.'] }],
    [{ Justification: 'x', Other: 1 }, { ok: false, errors: ['"Other" is not a question of this template.'] }],
    [[], { ok: false, errors: ['Expected a JSON object keyed by question label.'] }],
  ])('%j → %j', (answers, expected) => {
    expect(checkAnswers(questions, answers)).toEqual(expected);
  });
});

describe('visibility', () => {
  it.each([
    ['a public request, to anyone of the dataspace', aRequest(), caller(), true, false],
    ['a public request, to its requester', aRequest(), caller({ username: 'alice' }), true, true],
    ['a private request, to a stranger', aRequest({ isPrivate: true }), caller(), false, false],
    ['a private request, to its assignee', aRequest({ isPrivate: true, assignee: 'bob' }), caller(), true, true],
    ['a private request, to a superuser', aRequest({ isPrivate: true }), caller({ isSuperuser: true }), true, true],
    ['any request, to another dataspace superuser', aRequest(), caller({ isSuperuser: true, dataspace: 'beta' }), false, false],
  ])('%s: sees %s, updates %s', (_, request, who, sees, updates) => {
    expect(canSee(who, request)).toBe(sees);
    expect(canUpdate(who, request)).toBe(updates);
  });
});

describe('ordering', () => {
  it.each([
    [undefined, { field: 'last_modified_date', descending: true }],
    ['title', { field: 'title', descending: false }],
    ['-priority', { field: 'priority', descending: true }],
    ['colour', { field: 'last_modified_date', descending: true }],
    ['-title,status', { field: 'title', descending: true }],
  ])('%j → %j', (value, expected) => {
    expect(parseOrdering(value)).toEqual(expected);
  });

  it('sorts text case-insensitively and a missing priority or assignee last', () => {
    const titles = ['banana', 'Apple', 'apple', 'cherry'].map((title, i) => aRequest({ title, uuid: `u${i}` }));
    expect(titles.sort((a, b) => (sortKey('title', a) < sortKey('title', b) ? -1 : 1)).map((r) => r.title)).toEqual(['Apple', 'apple', 'banana', 'cherry']);
    const priorities = [null, 'low', 'High'].map((priority, i) => aRequest({ priority, uuid: `u${i}` }));
    expect(priorities.sort((a, b) => (sortKey('priority', a) < sortKey('priority', b) ? -1 : 1)).map((r) => r.priority)).toEqual(['High', 'low', null]);
  });

  it.each([
    ['status', 'open', 'closed'],
    ['requester', 'alice', 'alicia'],
    ['requester', 'alice', 'Alice'],
    ['assignee', 'bob', 'bo'],
    ['priority', 'High', 'Higher'],
  ] as const)('an equality on %s is exactly a prefix of its index: %s vs %s', (field, value, other) => {
    const key = field === 'status' ? 'status' : field;
    const matching = aRequest({ [key]: value });
    const notMatching = aRequest({ [key]: other });
    expect(sortValue(field, matching).concat('\u0001r1').startsWith(equalityPrefix(field, value))).toBe(true);
    expect(sortKey(field, notMatching).startsWith(equalityPrefix(field, value))).toBe(false);
  });
});

describe('counters', () => {
  it('counts a new public request in all, its status, requester, template and content type', () => {
    expect(Object.fromEntries(counterDeltas(undefined, aRequest()))).toEqual({
      all: { total: 1, public: 1 },
      'status=open': { total: 1, public: 1 },
      'requester=alice': { total: 1, public: 1 },
      'template=t1': { total: 1, public: 1 },
      'content_type=product': { total: 1, public: 1 },
    });
  });

  it('moves a request between status counters and leaves the others alone', () => {
    const deltas = Object.fromEntries(counterDeltas(aRequest(), aRequest({ status: 'closed' })));
    expect(deltas).toEqual({ 'status=open': { total: -1, public: -1 }, 'status=closed': { total: 1, public: 1 } });
  });

  it('counts a private request for its requester and assignee only, never as public', () => {
    const deltas = counterDeltas(undefined, aRequest({ isPrivate: true, assignee: 'bob' }));
    expect(deltas.get('all')).toEqual({ total: 1, public: 0 });
    expect(deltas.get('private#alice#all')).toEqual({ total: 1, public: 0 });
    expect(deltas.get('private#bob#status=open')).toEqual({ total: 1, public: 0 });
    expect([...deltas.keys()].filter((key) => key.startsWith('private#carol'))).toEqual([]);
  });

  it('turning a request private moves it from public to the private counters', () => {
    const deltas = Object.fromEntries(counterDeltas(aRequest(), aRequest({ isPrivate: true })));
    expect(deltas.all).toEqual({ total: 0, public: -1 });
    expect(deltas['private#alice#all']).toEqual({ total: 1, public: 0 });
  });
});
