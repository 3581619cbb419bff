/**
 * Named API keys with scopes: what a key may do, when it stops working, who may manage it. Pure: the
 * clock is passed in, and nothing here knows where keys are stored.
 */
import type { Caller } from './caller.ts';

/** `read`: GET and HEAD only; `write`: everything the user may do. */
export const API_KEY_SCOPES = ['read', 'write'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Keys one user may hold at once (the admin CLI's `default` key counts). */
export const MAX_API_KEYS_PER_USER = 20;
export const MAX_API_KEY_NAME_LENGTH = 100;
/** The name of the key the admin CLI and the load file issue, and of a key written before keys were named. */
export const DEFAULT_API_KEY_NAME = 'default';
/** `last_used_at` is written at most this often per key: steady traffic costs one write a minute a key. */
export const LAST_USE_RESOLUTION_MS = 60_000;

/** The methods a read key may use: those that change nothing (HEAD is GET without the body). */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** True when a key of `scope` may make a request with `method`; a read key is refused every other method. */
export function mayUseMethod(scope: ApiKeyScope, method: string): boolean {
  return scope === 'write' || READ_METHODS.has(method.toUpperCase());
}

/** The answer to a read key that tried to change something (403). */
export const READ_SCOPE_REFUSAL = 'This API key has the read scope: it may only use GET and HEAD.';

/** A key's scope as stored; a key written before keys had scopes (none stored) is a write key. */
export function scopeOf(stored: unknown): ApiKeyScope {
  return stored === 'read' ? 'read' : 'write';
}

/** True when a key with this expiry (ISO 8601; none: never) no longer works at `now`: from its expiry on. */
export function isExpired(expiresAt: string | undefined, now: Date): boolean {
  if (expiresAt === undefined) return false;
  const at = Date.parse(expiresAt);
  // An expiry that does not parse is not a key anyone can trust: refused, as expired.
  return Number.isNaN(at) || now.getTime() >= at;
}

/** True when a use at `now` should be recorded: never recorded, or last recorded a minute or more ago. */
export function isLastUseDue(lastUsedAt: string | undefined, now: Date): boolean {
  if (lastUsedAt === undefined) return true;
  const at = Date.parse(lastUsedAt);
  return Number.isNaN(at) || now.getTime() - at >= LAST_USE_RESOLUTION_MS;
}

/**
 * Whether `caller` may see and manage a key of `owner` (a user of `dataspace`): a superuser every key of
 * their dataspace, anyone else their own. A key the caller may not manage is one they cannot see (404),
 * so the uuids of others' keys cannot be probed.
 */
export function mayManageKeysOf(caller: Pick<Caller, 'username' | 'dataspace' | 'isSuperuser'>, owner: { username: string; dataspace: string }): boolean {
  if (owner.dataspace !== caller.dataspace) return false;
  return caller.isSuperuser || owner.username === caller.username;
}
