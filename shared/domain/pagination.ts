/**
 * DRF's page-number pagination: `page` and `page_size` query parameters, `count`, `next` and
 * `previous` as absolute URLs that keep the other query parameters. Pure.
 */
import { NotFoundError } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  readonly page: number;
  readonly pageSize: number;
}

/** Reads page and page_size as DRF does: a bad page is 404 "Invalid page.", a bad page_size the default. */
export function pageRequest(query: Readonly<Record<string, string | undefined>>): PageRequest {
  const pageText = query.page ?? '1';
  const page = pageText === 'last' ? Number.POSITIVE_INFINITY : /^\d{1,9}$/.test(pageText) ? Number(pageText) : NaN;
  if (!(page >= 1)) throw new NotFoundError('Invalid page.');
  const sizeText = query.page_size;
  const size = sizeText !== undefined && /^\d{1,9}$/.test(sizeText) ? Number(sizeText) : NaN;
  const pageSize = size >= 1 ? Math.min(size, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
  return { page, pageSize };
}

/** The page number to serve once the count is known; past the end is 404, as DRF answers. */
export function resolvePage(request: PageRequest, count: number): number {
  const pages = Math.max(1, Math.ceil(count / request.pageSize));
  const page = request.page === Number.POSITIVE_INFINITY ? pages : request.page;
  if (page > pages) throw new NotFoundError('Invalid page.');
  return page;
}

export interface Page<T> {
  readonly count: number;
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: T[];
}

/** next/previous for `page` of `count` items; `url` is the absolute URL of the list with its query. */
export function pageLinks(url: URL, page: number, pageSize: number, count: number): { next: string | null; previous: string | null } {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  const withPage = (target: number) => {
    const link = new URL(url);
    if (target === 1) link.searchParams.delete('page');
    else link.searchParams.set('page', String(target));
    return link.toString();
  };
  return {
    next: page < pages ? withPage(page + 1) : null,
    previous: page > 1 ? withPage(page - 1) : null,
  };
}
