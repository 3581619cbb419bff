/**
 * Who the caller is, the users of their dataspace and its request priorities: what the console shows
 * in its header and offers as choices (a request's assignee and priority). Nothing here writes.
 */
import type { Caller } from '../domain/caller.ts';
import { listedUsers, type User } from '../domain/identity.ts';
import { objectMatches, searchTerms } from '../domain/search.ts';
import type { IdentityStore } from '../store/identity-store.ts';
import type { RequestStore } from '../store/request-store.ts';
import { paginate } from './paginate.ts';

export interface UserServiceDeps {
  readonly identity: Pick<IdentityStore, 'listUsers'>;
  readonly requests: Pick<RequestStore, 'listPriorities'>;
}

export function currentUserView(caller: Caller) {
  return {
    username: caller.username,
    email: caller.email,
    dataspace: caller.dataspace,
    is_superuser: caller.isSuperuser,
    groups: [...caller.groups],
    ...(caller.apiKey ? { api_key: { name: caller.apiKey.name ?? null, scope: caller.apiKey.scope } } : {}),
  };
}

export function userView(user: User) {
  return { username: user.username, email: user.email, dataspace: user.dataspace, is_superuser: user.isSuperuser };
}

/** What ?search= looks in. */
export const USER_SEARCH_FIELDS = ['username', 'email'] as const;

export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  me(caller: Caller) {
    return currentUserView(caller);
  }

  /** The active users of the caller's dataspace (its GSI1 partition: never another dataspace's), by username. */
  async list(caller: Caller, query: Record<string, string | undefined>, listUrl: URL) {
    const terms = searchTerms(query);
    const users = listedUsers(await this.deps.identity.listUsers(caller.dataspace), {
      username: query.username,
      matches: (user) => objectMatches(user, USER_SEARCH_FIELDS, terms),
    });
    return paginate(query, listUrl, async (offset, limit) => ({ count: users.length, items: users.slice(offset, offset + limit) }), userView);
  }

  /** The dataspace's request priorities, by label. */
  async priorities(caller: Caller, query: Record<string, string | undefined>, listUrl: URL) {
    const priorities = await this.deps.requests.listPriorities(caller.dataspace);
    return paginate(query, listUrl, async (offset, limit) => ({ count: priorities.length, items: priorities.slice(offset, offset + limit) }), (p) => ({
      label: p.label,
    }));
  }
}
