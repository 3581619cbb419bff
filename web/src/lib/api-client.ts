/**
 * The console's only way to the service: the public REST API v2 on the page's own origin, with the
 * user's API key in the Authorization header (never in a URL). DOM-free, so it is unit-tested in Node.
 */

/** A DRF-style error body, flattened to what a form shows: messages by field, and the rest. */
export interface ErrorReport {
  /** Messages not tied to a field: `detail`, `non_field_errors`, or a status line. */
  readonly general: readonly string[];
  /** Messages by field (or key path, as the policy rules answer `vulnerability_stale.parameters.max_days`). */
  readonly fields: Readonly<Record<string, readonly string[]>>;
}

export class ApiError extends Error {
  readonly report: ErrorReport;
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const report = errorReport(status, body);
    super([...report.general, ...Object.entries(report.fields).map(([field, messages]) => `${field}: ${messages.join(' ')}`)].join(' '));
    this.name = 'ApiError';
    this.report = report;
  }
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request was not valid.',
  401: 'Your API key was not accepted.',
  403: 'You do not have permission to perform this action.',
  404: 'Not found.',
  429: 'Too many requests: wait a moment and try again.',
  500: 'The service failed to answer. Try again.',
  503: 'The service is busy. Try again in a moment.',
};

function messages(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(messages);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, inner]) => messages(inner).map((m) => `${key}: ${m}`));
  return value === undefined || value === null ? [] : [String(value)];
}

/** Reads the API's error bodies: `{"detail"}`, `{"field": [...]}`, `{"errors": {...}}`, `{"non_field_errors"}`. */
export function errorReport(status: number, body: unknown): ErrorReport {
  const general: string[] = [];
  const fields: Record<string, string[]> = {};
  const source =
    typeof body === 'object' && body !== null && !Array.isArray(body) && 'errors' in body && typeof body.errors === 'object' && body.errors !== null
      ? (body.errors as Record<string, unknown>)
      : body;
  if (typeof source === 'object' && source !== null && !Array.isArray(source)) {
    for (const [key, value] of Object.entries(source)) {
      // `message` is what API Gateway itself answers (its 429, a function error), not a field.
      if (key === 'detail' || key === 'non_field_errors' || key === 'message') general.push(...messages(value));
      else fields[key] = messages(value);
    }
  } else {
    general.push(...messages(source));
  }
  if (general.length === 0 && Object.keys(fields).length === 0) general.push(STATUS_TEXT[status] ?? `The service answered ${status}.`);
  return { general, fields };
}

/** A page of a list, as the API answers it. */
export interface Page<T> {
  readonly count: number;
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: readonly T[];
}

/**
 * The API's links (`api_url`, `next`, a product URL) are absolute; the console follows them on its own
 * origin, by path, so it never sends the key anywhere else, whatever host the API named.
 */
export function apiPath(url: string): string {
  const parsed = new URL(url, 'http://console.invalid');
  if (!parsed.pathname.startsWith('/api/')) throw new Error(`Not an API link: ${url}`);
  return `${parsed.pathname}${parsed.search}`;
}

/** The page number a `next`/`previous` link points at (DRF leaves `page` out for page 1). */
export function pageOf(link: string | null): number | undefined {
  if (link === null) return undefined;
  const page = new URL(link, 'http://console.invalid').searchParams.get('page');
  return page === null ? 1 : Number(page);
}

/** The uuid at the end of an API link such as `.../products/<uuid>/`. */
export function uuidOf(link: string): string {
  const parts = new URL(link, 'http://console.invalid').pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] ?? '');
}

export type Query = Readonly<Record<string, string | number | undefined>>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export type Fetch = (input: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

/** How often a GET answered 503 is sent again, and the longest Retry-After it waits for. */
export const GET_RETRIES = 2;
const LONGEST_RETRY_WAIT_MS = 5_000;

export class ApiClient {
  constructor(
    private readonly key: string,
    private readonly fetcher: Fetch,
    private readonly base = '',
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((done) => setTimeout(done, ms)),
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Token ${this.key}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Awaited<ReturnType<Fetch>>;
    for (let attempt = 0; ; attempt++) {
      try {
        response = await this.fetcher(`${this.base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      } catch {
        throw new ApiError(0, { detail: 'The service cannot be reached. Check your connection and try again.' });
      }
      // A busy service (503, with Retry-After) is asked again for a read, as the SDKs do: a page would
      // otherwise stay on "The service is busy" until the user reloads it. A write is not sent twice.
      if (response.status !== 503 || method !== 'GET' || attempt >= GET_RETRIES) break;
      const after = Number(response.headers.get('retry-after'));
      await response.text().catch(() => undefined);
      await this.wait(Math.min(LONGEST_RETRY_WAIT_MS, Number.isFinite(after) && after > 0 ? after * 1000 : 1000));
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (response.status >= 400) {
      const retry = response.headers.get('retry-after');
      const error = new ApiError(response.status, parsed ?? {});
      if (response.status === 429 && retry && !error.report.general.some((m) => m.includes('second'))) {
        throw new ApiError(429, { detail: `Too many requests: try again in ${retry} seconds.` });
      }
      throw error;
    }
    return parsed as T;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', withQuery(path, query));
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }
  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }
  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }
  delete<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('DELETE', path, body);
  }

  /** POSTs a document as it is (an SBOM), with its own media type; the JSON answer, or an ApiError. */
  async postDocument<T>(path: string, document: string, contentType: string): Promise<T> {
    const response = await this.raw('POST', path, { 'Content-Type': contentType }, document);
    const text = await response.text();
    const parsed = parseJson(text);
    if (response.status >= 400) throw new ApiError(response.status, parsed ?? {});
    return parsed as T;
  }

  /** GETs a document (an SBOM export) as text, with its Content-Type and Content-Disposition; an ApiError on 4xx/5xx. */
  async getDocument(path: string): Promise<{ text: string; contentType: string | null; disposition: string | null }> {
    const response = await this.raw('GET', path, { Accept: '*/*' });
    const text = await response.text();
    if (response.status >= 400) throw new ApiError(response.status, parseJson(text) ?? {});
    return { text, contentType: response.headers.get('content-type'), disposition: response.headers.get('content-disposition') };
  }

  private async raw(method: string, path: string, headers: Record<string, string>, body?: string) {
    try {
      return await this.fetcher(`${this.base}${path}`, { method, headers: { Authorization: `Token ${this.key}`, ...headers }, ...(body !== undefined ? { body } : {}) });
    } catch {
      throw new ApiError(0, { detail: 'The service cannot be reached. Check your connection and try again.' });
    }
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
