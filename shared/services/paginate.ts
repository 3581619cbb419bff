/** Serves one page of a list whose store answers (offset, limit) with the items and the total count. */
import { pageLinks, pageRequest, resolvePage, type Page } from '../domain/pagination.ts';

export async function paginate<T, V>(
  query: Readonly<Record<string, string | undefined>>,
  listUrl: URL,
  fetchPage: (offset: number, limit: number) => Promise<{ count: number; items: T[] }>,
  view: (item: T) => V,
): Promise<Page<V>> {
  const request = pageRequest(query);
  // The page is known before the count, unless it is "last" (or past the end, which resolvePage refuses).
  let result = await fetchPage(Number.isFinite(request.page) ? (request.page - 1) * request.pageSize : 0, request.pageSize);
  const page = resolvePage(request, result.count);
  if (!Number.isFinite(request.page) && page > 1) result = await fetchPage((page - 1) * request.pageSize, request.pageSize);
  return { count: result.count, ...pageLinks(listUrl, page, request.pageSize, result.count), results: result.items.map(view) };
}
