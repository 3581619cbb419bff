/**
 * What a request's priority and assignee may be: the dataspace's priorities and active users, read from
 * GET /api/v2/request_priorities/ and GET /api/v2/users/ (every page, 100 at a time), for the selects
 * of the request forms and the list filters.
 */
import type { ApiClient, Page } from './api-client.ts';
import { apiPath } from './api-client.ts';

export interface RequestChoices {
  readonly priorities: readonly string[];
  readonly users: readonly string[];
}

/** Every item of a list, following `next` (at most `maxPages` pages). */
async function allOf<T>(api: ApiClient, path: string, maxPages = 20): Promise<T[]> {
  const items: T[] = [];
  let next: string | null = `${path}?page_size=100`;
  for (let page = 0; next !== null && page < maxPages; page += 1) {
    const answer: Page<T> = await api.get<Page<T>>(page === 0 ? next : apiPath(next));
    items.push(...answer.results);
    next = answer.next;
  }
  return items;
}

export async function loadRequestChoices(api: ApiClient): Promise<RequestChoices> {
  const [priorities, users] = await Promise.all([
    allOf<{ label: string }>(api, '/api/v2/request_priorities/'),
    allOf<{ username: string }>(api, '/api/v2/users/'),
  ]);
  return { priorities: priorities.map((p) => p.label), users: users.map((u) => u.username) };
}

/** The options of a choice select: the known values, plus `current` when it is not among them (a user since deactivated). */
export function choiceOptions(known: readonly string[], current: string | null | undefined): string[] {
  return current && !known.includes(current) ? [...known, current] : [...known];
}
