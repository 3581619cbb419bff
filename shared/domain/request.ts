/**
 * Requests made from request templates: their rules, in domain words and without I/O. Which questions
 * a template asks and how answers are checked, who sees and may change a request, how the list is
 * ordered, and which counters a request counts in.
 */
import type { Caller } from './caller.ts';
import { clipUtf8, compareCodePoints } from './text.ts';
import { SEARCH_FIELDS, objectMatches } from './search.ts';

export const REQUEST_STATUSES = ['open', 'closed', 'draft'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const INPUT_TYPES = ['CharField', 'TextField', 'BooleanField', 'DateField'] as const;
export type InputType = (typeof INPUT_TYPES)[number];

/** Object types a template's requests can be about; each is an API resource. */
export const CONTENT_TYPES = ['product'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export interface Question {
  readonly label: string;
  readonly inputType: InputType;
  readonly isRequired: boolean;
}

export interface RequestTemplate {
  readonly uuid: string;
  readonly dataspace: string;
  readonly name: string;
  readonly description: string;
  readonly contentType: ContentType;
  readonly isActive: boolean;
  readonly questions: readonly Question[];
}

export interface Priority {
  readonly dataspace: string;
  readonly label: string;
}

export interface RequestRecord {
  readonly uuid: string;
  readonly dataspace: string;
  readonly title: string;
  readonly templateUuid: string;
  readonly templateName: string;
  readonly contentType: ContentType;
  readonly status: RequestStatus;
  readonly priority: string | null;
  readonly assignee: string | null;
  readonly requester: string;
  /** uuid of a product, or null. */
  readonly productContext: string | null;
  /** uuid of an object of the template's content type, or null. */
  readonly contentObject: string | null;
  readonly notes: string;
  readonly serializedData: Readonly<Record<string, string | boolean>>;
  readonly isPrivate: boolean;
  readonly ccEmails: readonly string[];
  readonly lastModifiedBy: string;
  readonly createdDate: string;
  readonly lastModifiedDate: string;
  /** Bumped by every write: the optimistic-concurrency token. */
  readonly rev: number;
}

export interface RequestComment {
  readonly uuid: string;
  readonly username: string;
  readonly text: string;
  readonly createdDate: string;
  /**
   * Its number among the request's comments, 1 for the first: how many comments the request had once
   * it was added. Absent on comments written before comments were counted.
   */
  readonly seq?: number;
}

/**
 * How many comments a request's detail shows: its latest, oldest first. The detail stays bounded
 * (a comment holds at most 10,000 characters, about 30 KB, so 100 of them about 3 MB, inside
 * Lambda's 6 MB answer); GET /api/v2/requests/{uuid}/comments/ pages through all of them.
 */
export const COMMENTS_SHOWN = 100;

/** What the store keeps of a request's comments: how many, and when the last one was made. */
export interface CommentCounter {
  readonly count: number;
  readonly lastCreated: string | null;
}

/**
 * When the next comment is made: `now`, or a millisecond after the last comment when the clock says
 * otherwise (clocks of two functions differ): comments then sort by date in the order they were counted.
 */
export function nextCommentDate(now: Date, lastCreated: string | null): Date {
  if (lastCreated === null) return now;
  const after = new Date(Date.parse(lastCreated) + 1);
  return now.getTime() >= after.getTime() ? now : after;
}

// ---------------------------------------------------------------------------------------------
// Templates and answers

const EXPECTED: Record<InputType, string> = {
  CharField: 'string',
  TextField: 'string',
  BooleanField: 'boolean (true or false)',
  DateField: 'date (YYYY-MM-DD)',
};

/** One key per question, in question order; the value says what answer is expected. */
export function formDataLayout(questions: readonly Question[]): Record<string, string> {
  return Object.fromEntries(
    questions.map((question) => [question.label, `${EXPECTED[question.inputType]}${question.isRequired ? ', required' : ''}`]),
  );
}

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export type AnswerCheck =
  | { readonly ok: true; readonly data: Record<string, string | boolean> }
  | { readonly ok: false; readonly errors: string[] };

/**
 * Checks answers against the template's questions: every label must be a question, every required
 * question answered, and each answer of its question's type. Every problem names its label.
 */
export function checkAnswers(questions: readonly Question[], answers: unknown): AnswerCheck {
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) {
    return { ok: false, errors: ['Expected a JSON object keyed by question label.'] };
  }
  const errors: string[] = [];
  const byLabel = new Map(questions.map((question) => [question.label, question]));
  const data: Record<string, string | boolean> = {};
  for (const [label, value] of Object.entries(answers)) {
    const question = byLabel.get(label);
    if (!question) {
      errors.push(`"${label}" is not a question of this template.`);
      continue;
    }
    if (value === null || value === '') continue;
    switch (question.inputType) {
      case 'BooleanField':
        if (typeof value !== 'boolean') errors.push(`"${label}" must be true or false.`);
        else data[label] = value;
        break;
      case 'DateField':
        if (typeof value !== 'string' || !isCalendarDate(value)) errors.push(`"${label}" must be a date as YYYY-MM-DD.`);
        else data[label] = value;
        break;
      case 'CharField':
      case 'TextField':
        if (typeof value !== 'string') errors.push(`"${label}" must be a string.`);
        else data[label] = value;
        break;
    }
  }
  for (const question of questions) {
    if (question.isRequired && data[question.label] === undefined && !errors.some((e) => e.startsWith(`"${question.label}"`))) {
      errors.push(`"${question.label}" is required.`);
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, data };
}

// ---------------------------------------------------------------------------------------------
// Who sees and changes what

/** Requests are visible to their dataspace, except private ones: requester, assignee and superusers only. */
export function canSee(caller: Caller, request: Pick<RequestRecord, 'dataspace' | 'isPrivate' | 'requester' | 'assignee'>): boolean {
  if (request.dataspace !== caller.dataspace) return false;
  return caller.isSuperuser || !request.isPrivate || request.requester === caller.username || request.assignee === caller.username;
}

export function canUpdate(caller: Caller, request: RequestRecord): boolean {
  return canSee(caller, request) && (caller.isSuperuser || request.requester === caller.username || request.assignee === caller.username);
}

// ---------------------------------------------------------------------------------------------
// Ordering

export const ORDERING_FIELDS = [
  'title',
  'request_template',
  'status',
  'priority',
  'assignee',
  'requester',
  'created_date',
  'last_modified_date',
] as const;
export type OrderingField = (typeof ORDERING_FIELDS)[number];

export interface Ordering {
  readonly field: OrderingField;
  readonly descending: boolean;
}

export const DEFAULT_ORDERING: Ordering = { field: 'last_modified_date', descending: true };

/** `ordering=-title` → title, descending. An unknown field is ignored, as DRF's OrderingFilter does. */
export function parseOrdering(value: string | undefined): Ordering {
  const first = value?.split(',')[0]?.trim() ?? '';
  const descending = first.startsWith('-');
  const field = descending ? first.slice(1) : first;
  return (ORDERING_FIELDS as readonly string[]).includes(field)
    ? { field: field as OrderingField, descending }
    : DEFAULT_ORDERING;
}

const SEPARATOR = '\u0001';
/** Sorts after every value: a missing priority or assignee comes last ascending, first descending. */
const NONE = '\u0002';

/**
 * Text sorts case-insensitively, then by its exact form, so equal texts still have one order. Each
 * part is clipped to 200 bytes so a sort key stays far below DynamoDB's 1,024 bytes whatever the
 * script: texts equal on their first 200 bytes sort by uuid, and equality filters check the field.
 */
const SORT_TEXT_BYTES = 200;
const text = (value: string) => `${clipUtf8(value.toLowerCase(), SORT_TEXT_BYTES)}${SEPARATOR}${clipUtf8(value, SORT_TEXT_BYTES)}`;
const optionalText = (value: string | null) => (value === null ? NONE : `${SEPARATOR}${text(value)}`);

/** The fields the orderings sort by. */
type SortedFields = Pick<RequestRecord, 'title' | 'templateName' | 'status' | 'priority' | 'assignee' | 'requester' | 'createdDate' | 'lastModifiedDate'>;

/**
 * The value a request sorts by for one ordering, as stored in that ordering's index (with the uuid
 * appended as the tie-breaker). Two requests equal on `field` share exactly equalityPrefix(field, value).
 */
export function sortValue(field: OrderingField, request: SortedFields): string {
  switch (field) {
    case 'title':
      return text(request.title);
    case 'request_template':
      return text(request.templateName);
    case 'status':
      return request.status;
    case 'priority':
      return optionalText(request.priority);
    case 'assignee':
      return optionalText(request.assignee);
    case 'requester':
      return text(request.requester);
    case 'created_date':
      return request.createdDate;
    case 'last_modified_date':
      return request.lastModifiedDate;
  }
}

export function sortKey(field: OrderingField, request: SortedFields & Pick<RequestRecord, 'uuid'>): string {
  return `${sortValue(field, request)}${SEPARATOR}${request.uuid}`;
}

/**
 * The sort-key prefix shared by the requests whose `field` equals `value` (a template by name), and
 * by any whose value agrees with it on the clipped bytes: callers still filter on the field itself.
 */
export function equalityPrefix(field: 'request_template' | 'status' | 'priority' | 'assignee' | 'requester', value: string): string {
  switch (field) {
    case 'status':
      return `${value}${SEPARATOR}`;
    case 'request_template':
    case 'requester':
      return `${text(value)}${SEPARATOR}`;
    case 'priority':
    case 'assignee':
      return `${SEPARATOR}${text(value)}${SEPARATOR}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Counters: exact counts for the list without reading it

/** The equality filters of the list and the counter each has. */
export type CountedFilter = 'status' | 'requester' | 'assignee' | 'priority' | 'template' | 'content_type';

export function counterKey(filter: CountedFilter | 'all', value?: string): string {
  return filter === 'all' ? 'all' : `${filter}=${value}`;
}

/**
 * The counter of private requests that `username` may see (as requester or assignee) among those
 * counted by `key`: with the public part of `key`, what a non-superuser's list counts.
 */
export function privateCounterKey(username: string, key: string): string {
  return `private#${username}#${key}`;
}

/**
 * The group a counter is stored in (shared/store/counters.ts): the counters of one user (their
 * requests as requester and as assignee, and the private requests they may see) together, and every
 * other counter (all, status, content type, priority, template: few per dataspace) in the dataspace's
 * group. A create then updates two or three counter items, not seven to twenty-one. Usernames hold no
 * '#' (NAME_PATTERN), so the user of a private counter is unambiguous.
 */
export function counterGroup(key: string): string {
  if (key.startsWith('private#')) return `USER#${key.slice('private#'.length, key.indexOf('#', 'private#'.length))}`;
  const user = /^(?:requester|assignee)=(.*)$/s.exec(key);
  return user ? `USER#${user[1]}` : 'DS';
}

/** The base counters: `all`, or an equality filter's. */
const BASE_COUNTER = /^(?:all|(?:status|requester|assignee|priority|template|content_type)=.*)$/s;

/**
 * A counter's name in the layout before counters were grouped (one item per counter), where a private
 * counter was `private:<user>:<key>`; the migration reads such names back with counterKeyFromLegacy.
 */
export function legacyCounterKey(key: string): string {
  if (!key.startsWith('private#')) return key;
  const user = key.slice('private#'.length, key.indexOf('#', 'private#'.length));
  return `private:${user}:${key.slice('private#'.length + user.length + 1)}`;
}

/**
 * The counter an earlier layout's name stands for. A username may hold ':' and '=', so
 * `private:a:status=b:all` could be user `a` or user `a:status=b`: the split that names one of the
 * dataspace's `usernames` wins, else the shortest username.
 */
export function counterKeyFromLegacy(legacy: string, usernames: ReadonlySet<string> = new Set()): string {
  if (!legacy.startsWith('private:')) return legacy;
  const rest = legacy.slice('private:'.length);
  const splits: [string, string][] = [];
  for (let i = rest.indexOf(':'); i > 0; i = rest.indexOf(':', i + 1)) {
    if (BASE_COUNTER.test(rest.slice(i + 1))) splits.push([rest.slice(0, i), rest.slice(i + 1)]);
  }
  const [user, key] = splits.find(([name]) => usernames.has(name)) ?? splits[0] ?? [];
  return user !== undefined && key !== undefined ? privateCounterKey(user, key) : legacy;
}

/** The counters a request counts in. */
export function counterKeys(request: RequestRecord): string[] {
  const keys = baseCounterKeys(request);
  if (!request.isPrivate) return keys;
  const viewers = new Set([request.requester, ...(request.assignee !== null ? [request.assignee] : [])]);
  return [...keys, ...[...viewers].flatMap((viewer) => keys.map((key) => privateCounterKey(viewer, key)))];
}

function baseCounterKeys(request: RequestRecord): string[] {
  return [
    counterKey('all'),
    counterKey('status', request.status),
    counterKey('requester', request.requester),
    counterKey('template', request.templateUuid),
    counterKey('content_type', request.contentType),
    ...(request.assignee !== null ? [counterKey('assignee', request.assignee)] : []),
    ...(request.priority !== null ? [counterKey('priority', request.priority)] : []),
  ];
}

export type CounterDelta = {
  readonly total: number;
  /** Requests that are not private: what every user of the dataspace sees. */
  readonly public: number;
};

const isPrivateCounter = (key: string) => key.startsWith('private#');

/** What a write (create: no `before`; update: both) changes in each counter; unchanged ones are left out. */
export function counterDeltas(before: RequestRecord | undefined, after: RequestRecord): Map<string, CounterDelta> {
  const deltas = new Map<string, { total: number; public: number }>();
  const add = (request: RequestRecord, sign: 1 | -1) => {
    for (const key of counterKeys(request)) {
      const delta = deltas.get(key) ?? { total: 0, public: 0 };
      delta.total += sign;
      if (!request.isPrivate && !isPrivateCounter(key)) delta.public += sign;
      deltas.set(key, delta);
    }
  };
  if (before) add(before, -1);
  add(after, 1);
  for (const [key, delta] of deltas) if (delta.total === 0 && delta.public === 0) deltas.delete(key);
  return deltas;
}

// ---------------------------------------------------------------------------------------------
// List filters

/** The list's filters once resolved (a template by uuid, a date as an instant), plus who is looking. */
export interface RequestFilter {
  readonly status?: RequestStatus;
  readonly requester?: string;
  readonly assignee?: string;
  readonly priority?: string;
  readonly templateUuid?: string;
  readonly contentType?: string;
  /** ISO 8601 instant: last modified on or after. */
  readonly modifiedSince?: string;
  /** A non-superuser: private requests only if they are its requester or assignee. */
  readonly visibleTo?: string;
  /** `?search=`'s folded terms (shared/domain/search.ts), each contained in the title. */
  readonly search?: readonly string[];
}

/**
 * A request as an ordering index carries it (shared/table.ts REQUEST_INDEX_ATTRIBUTES): the fields the
 * list filters and sorts on, and its sort key in every ordering. A page reads its requests by key.
 */
export type IndexedRequest = SortedFields &
  Pick<RequestRecord, 'uuid' | 'templateUuid' | 'contentType' | 'isPrivate'> & { readonly sortKeys: Readonly<Record<OrderingField, string>> };

/** A request of a list page: the record and its sort key in every ordering. */
export type RequestEntry = RequestRecord & IndexedRequest;

export function matchesFilter(entry: IndexedRequest, filter: RequestFilter): boolean {
  return (
    (filter.status === undefined || entry.status === filter.status) &&
    (filter.requester === undefined || entry.requester === filter.requester) &&
    (filter.assignee === undefined || entry.assignee === filter.assignee) &&
    (filter.priority === undefined || entry.priority === filter.priority) &&
    (filter.templateUuid === undefined || entry.templateUuid === filter.templateUuid) &&
    (filter.contentType === undefined || entry.contentType === filter.contentType) &&
    (filter.modifiedSince === undefined || entry.lastModifiedDate >= filter.modifiedSince) &&
    (filter.visibleTo === undefined ||
      !entry.isPrivate ||
      entry.requester === filter.visibleTo ||
      entry.assignee === filter.visibleTo) &&
    (filter.search === undefined || objectMatches(entry, SEARCH_FIELDS.requests, filter.search))
  );
}

export function compareEntries(ordering: Ordering): (a: IndexedRequest, b: IndexedRequest) => number {
  const direction = ordering.descending ? -1 : 1;
  // In DynamoDB's order, so a page read from memory continues a page walked from the index.
  return (a, b) => direction * compareCodePoints(a.sortKeys[ordering.field], b.sortKeys[ordering.field]);
}
