/**
 * The signed-in session: the API key lives in sessionStorage (this tab, until it closes or the user
 * signs out), never in a URL, a cookie or a log line.
 */
import { ApiClient, ApiError } from './lib/api-client.ts';

const STORAGE_KEY = 'compliance-console.api-key';

export interface Session {
  readonly api: ApiClient;
  /** Superusers manage policy rules, webhooks and run the bulk action; found by asking the API. */
  readonly isSuperuser: boolean;
}

/** Fired when the API stops accepting a signed-in key (replaced, or its user deactivated). */
export const KEY_REFUSED_EVENT = 'compliance-console:key-refused';

function clientFor(key: string, signedIn: boolean): ApiClient {
  return new ApiClient(key, async (input, init) => {
    const response = await fetch(input, { ...init, credentials: 'omit', cache: 'no-store' });
    if (signedIn && response.status === 401) {
      sessionStorage.removeItem(STORAGE_KEY);
      window.dispatchEvent(new Event(KEY_REFUSED_EVENT));
    }
    return response;
  });
}

/**
 * Checks a key against the API and learns whether its user is a superuser, in one call (a refused key
 * is the 401 of that call), and keeps the key for the tab.
 */
export async function signIn(key: string): Promise<Session> {
  const isSuperuser = await probeSuperuser(clientFor(key.trim(), false));
  const session = { api: clientFor(key.trim(), true), isSuperuser };
  sessionStorage.setItem(STORAGE_KEY, key.trim());
  return session;
}

/** Superusers may read the policy rules; anyone else with a valid key gets 403. */
async function probeSuperuser(api: ApiClient): Promise<boolean> {
  try {
    await api.get('/api/v2/policy_rules/');
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return false;
    throw error;
  }
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
