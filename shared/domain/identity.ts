/** Dataspaces, users and groups: the tenants and people of the service. Pure types and rules. */

export interface Dataspace {
  readonly name: string;
}

export interface User {
  readonly username: string;
  readonly email: string;
  readonly dataspace: string;
  readonly isSuperuser: boolean;
  readonly isActive: boolean;
  /** Group names, sorted, all in the user's dataspace. */
  readonly groups: readonly string[];
}

export interface Group {
  readonly dataspace: string;
  readonly name: string;
}

/** Names that end up inside keys: no '#', no control characters, no surrounding spaces. */
export const NAME_PATTERN = /^[^#\s\p{Cc}](?:[^#\p{Cc}]{0,148}[^#\s\p{Cc}])?$/u;
export const NAME_RULE = "must be 1 to 150 characters, without '#', control characters or surrounding spaces";

export function sameUser(a: User, b: User): boolean {
  return (
    a.username === b.username &&
    a.email === b.email &&
    a.dataspace === b.dataspace &&
    a.isSuperuser === b.isSuperuser &&
    a.isActive === b.isActive &&
    a.groups.length === b.groups.length &&
    a.groups.every((group, i) => group === b.groups[i])
  );
}

/**
 * The users a user list shows: the active ones, with this exact username when `username` is given,
 * and each search term (already split and folded: shared/domain/search.ts) in the username or the
 * email; in username order.
 */
export function listedUsers(
  users: readonly User[],
  filter: { readonly username?: string | undefined; readonly matches?: (user: User) => boolean },
): User[] {
  return users
    .filter((user) => user.isActive)
    .filter((user) => !filter.username || user.username === filter.username)
    .filter((user) => filter.matches?.(user) ?? true)
    .sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}
