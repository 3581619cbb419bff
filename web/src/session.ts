/**
 * The signed-in session: the API key lives in sessionStorage (this tab, until it closes or the user
 * signs out), never in a URL, a cookie or a log line.
 */
import { ApiClient, ApiError } from './lib/api-client.ts';

const STORAGE_KEY = 'compliance-console.api-key';

export interface Session {
  readonly api: ApiClient;
  /** Superusers manage policy rules, webhooks and run the bulk action; GET /api/v2/users/me/ says who is. */
  readonly isSuperuser: boolean;
  /** Who is signed in, and in which dataspace (the header shows both). */
  readonly username: string;
  readonly dataspace: string;
  readonly groups: readonly string[];
}

/** GET /api/v2/users/me/. */
interface CurrentUser {
  readonly username: string;
  readonly dataspace: string;
  readonly is_superuser: boolean;
  readonly groups: readonly string[];
}

/** Fired when the API stops accepting a signed-in key (replaced, or its user deactivated). */
export const KEY_REFUSED_EVENT = 'compliance-console:key-refused';

function clientFor(key: string, signedIn: boolean): ApiClient {
  return new ApiClient(key, async (input, init) => {
    const response = await fetch(input, { ...init, credentials: 'omit', cache: 'no-store' });
    // Only while this key is the tab's: a late 401 to a call of a key signed out of (replaced) must not
    // sign out the key that replaced it.
    if (signedIn && response.status === 401 && sessionStorage.getItem(STORAGE_KEY) === key) {
      sessionStorage.removeItem(STORAGE_KEY);
      window.dispatchEvent(new Event(KEY_REFUSED_EVENT));
    }
    return response;
  });
}

/**
 * Checks a key against the API and learns who its user is (GET /api/v2/users/me/: a refused key is the
 * 401 of that call), and keeps the key for the tab.
 */
export async function signIn(key: string): Promise<Session> {
  const me = await clientFor(key.trim(), false).get<CurrentUser>('/api/v2/users/me/');
  const session: Session = {
    api: clientFor(key.trim(), true),
    isSuperuser: me.is_superuser,
    username: me.username,
    dataspace: me.dataspace,
    groups: me.groups,
  };
  sessionStorage.setItem(STORAGE_KEY, key.trim());
  return session;
}

/**
 * The session kept by this tab: none without a key or when the API refuses it (the key is then
 * forgotten), or the error when the API could not say (busy, throttled, unreachable), to retry.
 */
export async function resume(): Promise<Session | ApiError | undefined> {
  const key = sessionStorage.getItem(STORAGE_KEY);
  if (!key) return undefined;
  try {
    return await signIn(key);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      sessionStorage.removeItem(STORAGE_KEY);
      return undefined;
    }
    return error instanceof ApiError ? error : new ApiError(0, { detail: String(error) });
  }
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
