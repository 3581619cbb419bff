/**
 * The requests service: request templates, requests and their comments, and the request list with
 * its orderings, filters and exact counts. The list is planned like a query: one sorted index per
 * ordering, equality filters as index prefixes, counters for the count, and a small range read into
 * memory only when that is cheaper than walking the ordering.
 */
import { canonicalName } from '../domain/text.ts';
import { searchTerms } from '../domain/search.ts';
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError, NotFoundError, ValidationError, type FieldErrors } from '../domain/errors.ts';
import {
  COMMENTS_SHOWN,
  CONTENT_TYPES,
  REQUEST_STATUSES,
  canSee,
  canUpdate,
  checkAnswers,
  compareEntries,
  counterKey,
  equalityPrefix,
  formDataLayout,
  parseOrdering,
  privateCounterKey,
  type CountedFilter,
  type OrderingField,
  type RequestComment,
  type IndexedRequest,
  type RequestEntry,
  type RequestFilter,
  type RequestRecord,
  type RequestStatus,
  type RequestTemplate,
} from '../domain/request.ts';
import { pageLinks, pageRequest, resolvePage, type Page, type PageRequest } from '../domain/pagination.ts';
import { isUuid, uuidOf } from '../domain/identifiers.ts';
import { paginate } from './paginate.ts';
import { retryOnConflict, isTransactionConflict } from '../store/dynamo.ts';
import { StaleRequestError, type IndexRange, type RequestStore } from '../store/request-store.ts';
import type { IdentityStore } from '../store/identity-store.ts';
import type { ProductService } from './products.ts';
import { isoWithOffset } from '../domain/time.ts';
import { productUrl } from './products.ts';
import type { RequestWrite } from '../schemas/request.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';

/**
 * How the list is served when it could be either way: 'cost' picks the cheaper of walking the
 * ordering's index and reading the filter's range; tests force one or the other.
 */
export type ListPlan = 'cost' | 'walk' | 'read';

/**
 * With a date filter and equality filters, an equality range of at most this many requests is read
 * rather than the date range, whose size no counter knows.
 */
const SMALL_RANGE = 2_000;

export interface RequestServiceDeps {
  readonly requests: RequestStore;
  readonly identity: IdentityStore;
  readonly products: ProductService;
  readonly now: () => Date;
  readonly newUuid: () => string;
  /** @default 'cost' */
  readonly listPlan?: ListPlan;
}

export const templateUrl = (baseUrl: string, uuid: string) => `${baseUrl}/api/v2/request_templates/${uuid}/`;
export const requestUrl = (baseUrl: string, uuid: string) => `${baseUrl}/api/v2/requests/${uuid}/`;

export function templateView(template: RequestTemplate, baseUrl: string) {
  return {
    uuid: template.uuid,
    api_url: templateUrl(baseUrl, template.uuid),
    name: template.name,
    description: template.description,
    content_type: template.contentType,
    is_active: template.isActive,
    questions: template.questions.map((q) => ({ label: q.label, input_type: q.inputType, is_required: q.isRequired })),
    form_data_layout: formDataLayout(template.questions),
  };
}

export function commentView(comment: RequestComment) {
  return { uuid: comment.uuid, username: comment.username, text: comment.text, created_date: comment.createdDate };
}

/** Whether the caller may see the product of this uuid; events, for their superuser-run subscriptions, see all. */
export type ProductVisibility = (productUuid: string) => boolean;

const ALL_PRODUCTS: ProductVisibility = () => true;

export const commentsUrl = (baseUrl: string, uuid: string) => `${baseUrl}/api/v2/requests/${uuid}/comments/`;

/**
 * The request's own fields as the API shows them (a list entry). Its product (product_context,
 * content_object) is shown only to a caller who may view that product, and is null to others who see
 * the request.
 */
export function requestFields(request: RequestRecord, baseUrl: string, canViewProduct: ProductVisibility = ALL_PRODUCTS) {
  const productLink = (uuid: string | null) => (uuid !== null && canViewProduct(uuid) ? productUrl(baseUrl, uuid) : null);
  return {
    uuid: request.uuid,
    api_url: requestUrl(baseUrl, request.uuid),
    title: request.title,
    request_template: templateUrl(baseUrl, request.templateUuid),
    request_template_name: request.templateName,
    status: request.status,
    priority: request.priority,
    assignee: request.assignee,
    requester: request.requester,
    product_context: productLink(request.productContext),
    content_object: productLink(request.contentObject),
    content_type: request.contentType,
    notes: request.notes,
    serialized_data: request.serializedData,
    is_private: request.isPrivate,
    cc_emails: request.ccEmails,
    last_modified_by: request.lastModifiedBy,
    created_date: request.createdDate,
    last_modified_date: request.lastModifiedDate,
  };
}

/** What a request's detail shows of its comments: the latest (at most COMMENTS_SHOWN), oldest first, and how many there are. */
export interface ShownComments {
  readonly shown: readonly RequestComment[];
  readonly count: number;
}

/**
 * The request as its detail shows it: its fields, its number of comments, the link to all of them,
 * and its latest comments, oldest first.
 */
export function requestView(request: RequestRecord, comments: ShownComments, baseUrl: string, canViewProduct: ProductVisibility = ALL_PRODUCTS) {
  return {
    ...requestFields(request, baseUrl, canViewProduct),
    comment_count: comments.count,
    comments_url: commentsUrl(baseUrl, request.uuid),
    comments: comments.shown.map(commentView),
  };
}

/** A summary of a request's comments as of a change: how many, and the latest. */
export interface CommentSummary {
  readonly count: number;
  readonly latest: RequestComment | null;
}

/**
 * The request as its events show it: its fields (every product shown: the events' subscriptions are
 * their dataspace's superusers'), its number of comments, the latest and the link to them all. Bounded
 * whatever the number of comments.
 */
export function requestSummary(request: RequestRecord, comments: CommentSummary, baseUrl: string) {
  return {
    ...requestFields(request, baseUrl),
    comment_count: comments.count,
    latest_comment: comments.latest && commentView(comments.latest),
    comments_url: commentsUrl(baseUrl, request.uuid),
  };
}

/** A request as a list shows it: without its comments. */
export type RequestListItem = ReturnType<typeof requestFields>;

/**
 * A request's entity tag: its revision and its number of comments, the two things its answer is
 * made of (comments are never edited or deleted, so their count tells when they changed).
 */
export const requestTag = (request: RequestRecord, commentCount: number) => entityTag(request.rev, commentCount);

/** The view of one request with its latest comments, carrying its entity tag. */
function taggedRequestView(request: RequestRecord, comments: ShownComments, baseUrl: string, canViewProduct: ProductVisibility) {
  return tagged(requestView(request, comments, baseUrl, canViewProduct), requestTag(request, comments.count));
}

type EqualityFilter = {
  readonly counted: CountedFilter;
  /** The value as counted and stored (a template by uuid). */
  readonly value: string;
  /** The ordering index on which this filter is a prefix, if any. */
  readonly index?: { field: OrderingField; prefix: string };
};

const isRace = (error: unknown) => error instanceof StaleRequestError || isTransactionConflict(error);

/** What writes of one request queue on in this process (retryOnConflict's key). */
const requestKey = (uuid: string) => `request#${uuid.toLowerCase()}`;

export class RequestService {
  private readonly plan: ListPlan;

  constructor(private readonly deps: RequestServiceDeps) {
    this.plan = deps.listPlan ?? 'cost';
  }

  /**
   * Whether to walk the ordering's index with an equality filter of `matches` out of `total`
   * requests rather than read those matches whole: a walk reads about (offset + size) · total /
   * matches entries, a range read reads `matches` entries.
   */
  private prefersWalk(matches: number, total: number, wanted: number): boolean {
    if (this.plan !== 'cost') return this.plan === 'walk';
    return matches * matches > wanted * total;
  }

  // --- templates -----------------------------------------------------------------------------

  async listTemplates(caller: Caller, query: Record<string, string | undefined>, listUrl: URL, baseUrl: string) {
    return paginate(
      query,
      listUrl,
      async (offset, limit) => {
        const { count, templates } = await this.deps.requests.listTemplates(caller.dataspace, offset, limit);
        return { count, items: templates };
      },
      (template) => templateView(template, baseUrl),
    );
  }

  async retrieveTemplate(caller: Caller, uuid: string, baseUrl: string) {
    const template = isUuid(uuid) ? await this.deps.requests.getTemplate(uuid.toLowerCase()) : undefined;
    if (!template || template.dataspace !== caller.dataspace) throw new NotFoundError();
    return templateView(template, baseUrl);
  }

  /** A template of the dataspace by URL, uuid or name. */
  private async findTemplate(dataspace: string, reference: string): Promise<RequestTemplate | undefined> {
    const uuid = uuidOf(reference, 'request_templates');
    const template = uuid
      ? await this.deps.requests.getTemplate(uuid)
      : await this.deps.requests.getTemplateByName(dataspace, canonicalName(reference));
    return template?.dataspace === dataspace ? template : undefined;
  }

  // --- requests ------------------------------------------------------------------------------

  async retrieve(caller: Caller, uuid: string, baseUrl: string) {
    const found = isUuid(uuid) ? await this.deps.requests.getWithLatestComments(uuid.toLowerCase(), COMMENTS_SHOWN) : undefined;
    if (!found || !canSee(caller, found.request)) throw new NotFoundError();
    const comments = { shown: found.comments, count: found.commentCount };
    return taggedRequestView(found.request, comments, baseUrl, await this.productVisibility(caller, [found.request]));
  }

  /** The request's comments, oldest first, a page at a time: to whoever may see the request. */
  async listComments(caller: Caller, uuid: string, query: Record<string, string | undefined>, listUrl: URL): Promise<Page<ReturnType<typeof commentView>>> {
    const request = isUuid(uuid) ? await this.deps.requests.get(uuid.toLowerCase()) : undefined;
    if (!request || !canSee(caller, request)) throw new NotFoundError();
    const count = await this.deps.requests.commentCount(request.uuid);
    // Comments are only ever added, after the others: a page once served keeps its comments.
    return paginate(
      query,
      listUrl,
      async (offset, limit) => ({ count, items: offset < count ? await this.deps.requests.comments(request.uuid, offset, limit) : [] }),
      commentView,
    );
  }

  /**
   * Which of the requests' products the caller may view: all for a superuser, otherwise each distinct
   * product checked once (directly or through a group), as the product routes check it.
   */
  private async productVisibility(caller: Caller, requests: readonly Pick<RequestRecord, 'productContext' | 'contentObject'>[]): Promise<ProductVisibility> {
    if (caller.isSuperuser) return ALL_PRODUCTS;
    const uuids = new Set(requests.flatMap((request) => [request.productContext, request.contentObject]).filter((uuid): uuid is string => uuid !== null));
    const visible = new Set<string>();
    await Promise.all([...uuids].map(async (uuid) => {
      if (await this.visibleProduct(caller, uuid)) visible.add(uuid);
    }));
    return (uuid) => visible.has(uuid);
  }

  async create(caller: Caller, input: Required<RequestWrite>, baseUrl: string) {
    const errors: FieldErrors = {};
    const template = await this.findTemplate(caller.dataspace, input.request_template);
    if (!template) errors.request_template = [`No request template "${input.request_template}" in this dataspace.`];
    else if (!template.isActive) errors.request_template = ['This request template is not active.'];
    // Answers are checked only against a template that can be used.
    const resolved = await this.resolveReferences(caller, input, errors.request_template ? undefined : template, errors);
    if (Object.keys(errors).length > 0 || !template) throw new ValidationError(errors);
    const now = isoWithOffset(this.deps.now());
    const request: RequestRecord = {
      uuid: this.deps.newUuid(),
      dataspace: caller.dataspace,
      title: input.title,
      templateUuid: template.uuid,
      templateName: template.name,
      contentType: template.contentType,
      status: input.status,
      notes: input.notes,
      isPrivate: input.is_private,
      ccEmails: input.cc_emails,
      requester: caller.username,
      lastModifiedBy: caller.username,
      createdDate: now,
      lastModifiedDate: now,
      rev: 0,
      ...resolved,
    } as RequestRecord;
    await retryOnConflict(() => this.deps.requests.create(request), isTransactionConflict);
    return taggedRequestView({ ...request, rev: 1 }, { shown: [], count: 0 }, baseUrl, await this.productVisibility(caller, [request]));
  }

  /**
   * PUT and PATCH: 404 for who cannot see it, 403 for who may not change it, 412 when If-Match names
   * an ETag the request no longer has, then the body.
   */
  async update(caller: Caller, uuid: string, readInput: () => RequestWrite, baseUrl: string, ifMatch?: IfMatch) {
    const updated = await retryOnConflict(async () => {
      // The comments count only for the precondition (the ETag covers them); otherwise one Get.
      const before = isUuid(uuid) ? await this.deps.requests.get(uuid.toLowerCase()) : undefined;
      if (!before || !canSee(caller, before)) throw new NotFoundError();
      if (!canUpdate(caller, before)) throw new ForbiddenError();
      if (ifMatch && 'tags' in ifMatch) requireMatch(ifMatch, requestTag(before, await this.deps.requests.commentCount(before.uuid)));
      const input = readInput();
      const errors: FieldErrors = {};
      // Only answers are checked against the template: most writes need not read it.
      const template = input.serialized_data !== undefined ? await this.deps.requests.getTemplate(before.templateUuid) : undefined;
      if (input.request_template !== undefined) {
        const named = await this.findTemplate(caller.dataspace, input.request_template);
        if (named?.uuid !== before.templateUuid) errors.request_template = ['The request template cannot be changed.'];
      }
      const resolved = await this.resolveReferences(caller, input, template, errors, before);
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      const after: RequestRecord = {
        ...before,
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.status !== undefined ? { status: input.status as RequestStatus } : {}),
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        ...(input.is_private !== undefined ? { isPrivate: input.is_private } : {}),
        ...(input.cc_emails !== undefined ? { ccEmails: input.cc_emails } : {}),
        ...resolved,
        lastModifiedBy: caller.username,
        lastModifiedDate: isoWithOffset(this.deps.now()),
      };
      await this.deps.requests.update(before, after);
      return after;
    }, isRace, { key: requestKey(uuid) });
    // The answer is what this write stored (a concurrent write may already have replaced it), with the comments.
    const found = await this.deps.requests.getWithLatestComments(updated.uuid, COMMENTS_SHOWN);
    const shown = { ...updated, rev: updated.rev + 1 };
    const comments = { shown: found?.comments ?? [], count: found?.commentCount ?? 0 };
    return taggedRequestView(shown, comments, baseUrl, await this.productVisibility(caller, [shown]));
  }

  /**
   * Turns the given references (assignee, priority, product context, content object, answers) into
   * stored values, adding a field error for each that does not resolve. Fields not given are left out.
   */
  private async resolveReferences(
    caller: Caller,
    input: RequestWrite,
    template: RequestTemplate | undefined,
    errors: FieldErrors,
    before?: RequestRecord,
  ): Promise<Partial<RequestRecord>> {
    const resolved: { -readonly [K in keyof RequestRecord]?: RequestRecord[K] } = {};
    if (input.assignee !== undefined) {
      if (input.assignee === null) resolved.assignee = null;
      else {
        const user = await this.deps.identity.getUser(input.assignee);
        if (user?.dataspace === caller.dataspace) resolved.assignee = user.username;
        else errors.assignee = [`User "${input.assignee}" does not exist in this dataspace.`];
      }
    }
    if (input.priority !== undefined) {
      if (input.priority === null) resolved.priority = null;
      else if (await this.deps.requests.getPriority(caller.dataspace, input.priority)) resolved.priority = input.priority;
      else errors.priority = [`Priority "${input.priority}" does not exist in this dataspace.`];
    }
    for (const [field, key] of [
      ['product_context', 'productContext'],
      ['content_object', 'contentObject'],
    ] as const) {
      const reference = input[field];
      if (reference === undefined) continue;
      if (reference === null) {
        // The caller was shown null for a product they may not view (a GET body PUT back): that is
        // no change, not an order to drop a link they cannot see.
        const current = before?.[key] ?? null;
        if (current === null || (await this.visibleProduct(caller, current))) resolved[key] = null;
        continue;
      }
      const uuid = await this.visibleProduct(caller, reference);
      if (uuid) resolved[key] = uuid;
      else errors[field] = [`No product "${reference}" that you can see (give its URL or uuid).`];
    }
    if (input.serialized_data !== undefined && template) {
      const checked = checkAnswers(template.questions, input.serialized_data);
      if (checked.ok) resolved.serializedData = checked.data;
      else errors.serialized_data = checked.errors;
    }
    return resolved;
  }

  /** The uuid of a product the caller can see, given by URL or uuid. */
  private async visibleProduct(caller: Caller, reference: string): Promise<string | undefined> {
    const uuid = uuidOf(reference, 'products');
    if (!uuid) return undefined;
    try {
      return (await this.deps.products.authorize(caller, uuid, 'view')).uuid;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  // --- comments ------------------------------------------------------------------------------

  async addComment(caller: Caller, uuid: string, readText: () => string): Promise<void> {
    const request = isUuid(uuid) ? await this.deps.requests.get(uuid.toLowerCase()) : undefined;
    if (!request || !canSee(caller, request)) throw new NotFoundError();
    const text = readText();
    const draft = { uuid: this.deps.newUuid(), username: caller.username, text };
    // The request check conflicts with a concurrent update of the request, the count with a concurrent
    // comment: read the count again and retry.
    await retryOnConflict(() => this.deps.requests.addComment(request.uuid, draft, this.deps.now()), isRace, { key: requestKey(request.uuid) });
  }

  // --- the list ------------------------------------------------------------------------------

  async list(caller: Caller, query: Record<string, string | undefined>, listUrl: URL, baseUrl: string): Promise<Page<RequestListItem>> {
    const request = pageRequest(query);
    const ordering = parseOrdering(query.ordering);
    const { equalities, filter } = await this.resolveFilters(caller, query);
    const dataspace = caller.dataspace;
    const store = this.deps.requests;

    const offsetOf = (page: number) => (page - 1) * request.pageSize;
    let count: number;
    let fetch: (offset: number) => Promise<RequestEntry[]>;

    // One equality filter (or none) is counted exactly by a counter; anything more is counted by reading it.
    const single = equalities.length <= 1 && filter.modifiedSince === undefined ? equalities[0] : undefined;
    const own = single?.index?.field === ordering.field ? single : undefined;
    if (filter.search !== undefined) {
      // No counter counts a search. Walking the ordering's index (an equality on its own field as a
      // prefix, one on content_type filtered along) is counted by reading that range with the same
      // filter; any other filter has a smaller range to read whole, as below.
      if (own !== undefined || (filter.modifiedSince === undefined && equalities.every((equality) => !equality.index))) {
        const range: IndexRange = own ? { prefix: own.index!.prefix } : {};
        count = await store.countMatches(dataspace, ordering.field, range, filter);
        fetch = (offset) => store.page(dataspace, ordering.field, ordering.descending, range, filter, offset, request.pageSize);
      } else {
        const matching = (await this.smallestRange(dataspace, equalities, filter)).sort(compareEntries(ordering));
        count = matching.length;
        fetch = (offset) => store.requests(matching.slice(offset, offset + request.pageSize), filter);
      }
      return this.listPage(caller, request, listUrl, baseUrl, count, fetch);
    }
    const [counter, all] = await Promise.all([
      single ? store.count(dataspace, counterKey(single.counted, single.value)) : undefined,
      single?.index && single.index.field !== ordering.field ? store.count(dataspace, counterKey('all')) : undefined,
    ]);
    const wanted = (Number.isFinite(request.page) ? offsetOf(request.page) : 0) + request.pageSize;
    const walk =
      (equalities.length === 0 && filter.modifiedSince === undefined) ||
      (single !== undefined &&
        (single.index?.field === ordering.field || !single.index || this.prefersWalk(counter!.total, all!.total, wanted)));

    if (walk) {
      // Walk the ordering's index; an equality on the ordering's own field is a prefix of it.
      const key = single ? counterKey(single.counted, single.value) : counterKey('all');
      const totals = counter ?? (await store.count(dataspace, key));
      count =
        filter.visibleTo === undefined
          ? totals.total
          : totals.public + (await store.count(dataspace, privateCounterKey(filter.visibleTo, key))).total;
      const onOwnField = single?.index?.field === ordering.field;
      const range: IndexRange = onOwnField ? { prefix: single!.index!.prefix } : {};
      fetch = (offset) => store.page(dataspace, ordering.field, ordering.descending, range, filter, offset, request.pageSize);
    } else {
      // Read the smallest filtered range whole, finish filtering and sorting in memory.
      const matching = (await this.smallestRange(dataspace, equalities, filter)).sort(compareEntries(ordering));
      count = matching.length;
      fetch = (offset) => store.requests(matching.slice(offset, offset + request.pageSize), filter);
    }

    return this.listPage(caller, request, listUrl, baseUrl, count, fetch);
  }

  /** The page of the list that `request` asks for, once its count is known. */
  private async listPage(
    caller: Caller,
    request: PageRequest,
    listUrl: URL,
    baseUrl: string,
    count: number,
    fetch: (offset: number) => Promise<RequestEntry[]>,
  ): Promise<Page<RequestListItem>> {
    const page = resolvePage(request, count);
    const entries = await fetch((page - 1) * request.pageSize);
    const canViewProduct = await this.productVisibility(caller, entries);
    return {
      count,
      ...pageLinks(listUrl, page, request.pageSize, count),
      results: entries.map((entry) => requestFields(entry, baseUrl, canViewProduct)),
    };
  }

  private async smallestRange(dataspace: string, equalities: readonly EqualityFilter[], filter: RequestFilter): Promise<IndexedRequest[]> {
    const indexed = equalities.filter((equality) => equality.index);
    const sizes = await Promise.all(
      indexed.map((equality) => this.deps.requests.count(dataspace, counterKey(equality.counted, equality.value))),
    );
    let best: EqualityFilter | undefined;
    let bestSize = Number.POSITIVE_INFINITY;
    indexed.forEach((equality, i) => {
      if (sizes[i]!.total < bestSize) [best, bestSize] = [equality, sizes[i]!.total];
    });
    if (best && (filter.modifiedSince === undefined || this.plan === 'read' || bestSize <= SMALL_RANGE)) {
      return this.deps.requests.entries(dataspace, best.index!.field, { prefix: best.index!.prefix }, filter);
    }
    return this.deps.requests.entries(dataspace, 'last_modified_date', { from: filter.modifiedSince! }, filter);
  }

  /** Resolves the list's filters; a value that cannot match anything of the dataspace is a 400, as in DRF. */
  private async resolveFilters(caller: Caller, query: Record<string, string | undefined>) {
    const errors: FieldErrors = {};
    const equalities: EqualityFilter[] = [];
    const filter: { -readonly [K in keyof RequestFilter]: RequestFilter[K] } = {};
    const choice = (field: string, value: string) => {
      errors[field] = [`Select a valid choice. ${value} is not one of the available choices.`];
    };
    const given = (name: string) => (query[name] !== undefined && query[name] !== '' ? query[name] : undefined);
    // No name, label or username is this long (at most 150 characters of up to 4 bytes): refuse it
    // before it reaches a key.
    for (const name of ['request_template', 'requester', 'assignee', 'priority', 'content_type', 'status'] as const) {
      const value = given(name);
      if (value !== undefined && Buffer.byteLength(value) > 800) choice(name, `${value.slice(0, 20)}…`);
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const status = given('status');
    if (status !== undefined) {
      if ((REQUEST_STATUSES as readonly string[]).includes(status)) {
        filter.status = status as RequestStatus;
        equalities.push({ counted: 'status', value: status, index: { field: 'status', prefix: equalityPrefix('status', status) } });
      } else choice('status', status);
    }
    const template = given('request_template');
    if (template !== undefined) {
      const found = await this.findTemplate(caller.dataspace, template);
      if (found) {
        filter.templateUuid = found.uuid;
        equalities.push({
          counted: 'template',
          value: found.uuid,
          index: { field: 'request_template', prefix: equalityPrefix('request_template', found.name) },
        });
      } else choice('request_template', template);
    }
    for (const role of ['requester', 'assignee'] as const) {
      const username = given(role);
      if (username === undefined) continue;
      const user = await this.deps.identity.getUser(username);
      if (user?.dataspace === caller.dataspace) {
        filter[role] = username;
        equalities.push({ counted: role, value: username, index: { field: role, prefix: equalityPrefix(role, username) } });
      } else choice(role, username);
    }
    // Labels are stored in NFC (shared/domain/text.ts): a filter in another form finds them too.
    const priority = given('priority') && canonicalName(given('priority')!);
    if (priority !== undefined) {
      if (await this.deps.requests.getPriority(caller.dataspace, priority)) {
        filter.priority = priority;
        equalities.push({ counted: 'priority', value: priority, index: { field: 'priority', prefix: equalityPrefix('priority', priority) } });
      } else choice('priority', priority);
    }
    const contentType = given('content_type');
    if (contentType !== undefined) {
      if ((CONTENT_TYPES as readonly string[]).includes(contentType)) {
        filter.contentType = contentType;
        equalities.push({ counted: 'content_type', value: contentType });
      } else choice('content_type', contentType);
    }
    const modified = given('last_modified_date');
    if (modified !== undefined) {
      const instant = parseDateOrTime(modified);
      if (instant) filter.modifiedSince = isoWithOffset(instant);
      else errors.last_modified_date = ['Enter a valid date/time.'];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (!caller.isSuperuser) filter.visibleTo = caller.username;
    const search = searchTerms(query);
    if (search.length > 0) filter.search = search;
    return { equalities, filter: filter as RequestFilter };
  }
}

/** YYYY-MM-DD (the start of that day, UTC) or an ISO 8601 timestamp with a time zone. */
export function parseDateOrTime(value: string): Date | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? undefined : date;
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}
