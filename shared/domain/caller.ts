/** The authenticated caller, as every API handler receives it. */
import type { ApiKeyScope } from './api-keys.ts';

export interface Caller {
  readonly username: string;
  readonly email: string;
  readonly dataspace: string;
  readonly isSuperuser: boolean;
  /** Names of the caller's groups, all in the caller's dataspace. */
  readonly groups: readonly string[];
  /**
   * The API key the request was authenticated with (what an audit records as `api_key`). Absent for a
   * caller that did not come through the API: the admin CLI's load file, a service driven directly.
   */
  readonly apiKey?: CallerKey;
}

/** The key of an authenticated request. */
export interface CallerKey {
  readonly scope: ApiKeyScope;
  /**
   * Its uuid and name; both absent on a key written before keys were named, until the data migration
   * names it (`default`).
   */
  readonly uuid?: string;
  readonly name?: string;
}

/** A caller the API authenticated: it always has its key. */
export interface AuthenticatedCaller extends Caller {
  readonly apiKey: CallerKey;
}
