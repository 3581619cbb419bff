/**
 * Named API keys: a user lists, creates and revokes their own; a superuser those of every user of their
 * dataspace. A key's secret is answered once, by its creation, and stored only as a hash. Whether a key
 * may write is not decided here: the API stack refuses a read key's writes before any handler runs.
 */
import { generateApiKey, parseApiKey } from '../auth/api-key.ts';
import type { Caller } from '../domain/caller.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { MAX_API_KEYS_PER_USER, mayManageKeysOf, type ApiKeyScope } from '../domain/api-keys.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';
import { isUuid } from '../domain/identifiers.ts';
import { isoWithOffset } from '../domain/time.ts';
import type { User } from '../domain/identity.ts';
import type { ApiKeyStore, NamedApiKey } from '../store/api-key-store.ts';
import { paginate } from './paginate.ts';

export interface ApiKeyServiceDeps {
  readonly store: Pick<ApiKeyStore, 'create' | 'delete' | 'getByUuid' | 'list'>;
  readonly users: { getUser(username: string): Promise<User | undefined> };
  readonly now: () => Date;
  readonly newUuid: () => string;
  /** generateApiKey unless given. */
  readonly generateKey?: () => string;
}

export interface ApiKeyCreateBody {
  readonly name: string;
  readonly scope: ApiKeyScope;
  readonly expires_at: string | null;
  readonly user?: string | undefined;
}

/** A key's fields never change once made: its entity tag is its first and only revision. */
const KEY_TAG = entityTag(1);

/** Tries of a create whose random key id is taken (72 random bits: one in 2^72 each). */
const KEY_ID_TRIES = 3;

export function apiKeyView(key: NamedApiKey, baseUrl: string, secret?: string) {
  return {
    uuid: key.uuid,
    api_url: `${baseUrl}/api/v2/api_keys/${key.uuid}/`,
    name: key.name,
    scope: key.scope,
    user: key.username,
    expires_at: key.expiresAt === undefined ? null : key.expiresAt,
    created_date: key.createdDate,
    last_used_at: key.lastUsedAt === undefined ? null : key.lastUsedAt,
    ...(secret === undefined ? {} : { secret }),
  };
}

export class ApiKeyService {
  constructor(private readonly deps: ApiKeyServiceDeps) {}

  /** The key with this uuid if the caller may manage it; 404 otherwise, as if it did not exist. */
  private async find(caller: Caller, uuid: string): Promise<NamedApiKey> {
    const key = isUuid(uuid) ? await this.deps.store.getByUuid(uuid.toLowerCase()) : undefined;
    if (!key || !mayManageKeysOf(caller, { username: key.username, dataspace: key.dataspace })) throw new NotFoundError();
    return key;
  }

  /** A superuser's list is the dataspace's (narrowed by `user`); anyone else's, their own. */
  async list(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const wanted = query.user;
    if (!caller.isSuperuser && wanted !== undefined && wanted !== caller.username) {
      // Another user's keys are not the caller's to see: an empty list, as for a user who has none.
      return paginate(query, url, async () => ({ count: 0, items: [] as NamedApiKey[] }), (key) => apiKeyView(key, baseUrl));
    }
    const username = caller.isSuperuser ? wanted : caller.username;
    return paginate(query, url, (offset, limit) => this.deps.store.list(caller.dataspace, username, offset, limit), (key) => apiKeyView(key, baseUrl));
  }

  async retrieve(caller: Caller, uuid: string, baseUrl: string) {
    return tagged(apiKeyView(await this.find(caller, uuid), baseUrl), KEY_TAG);
  }

  async create(caller: Caller, readBody: () => ApiKeyCreateBody, baseUrl: string) {
    const body = readBody();
    const owner = await this.owner(caller, body.user);
    const now = this.deps.now();
    let expiresAt: string | undefined;
    if (body.expires_at !== null) {
      const at = new Date(body.expires_at);
      if (at.getTime() <= now.getTime()) throw new ValidationError({ expires_at: ['Ensure this date/time is in the future.'] });
      expiresAt = isoWithOffset(at);
    }
    for (let attempt = 1; ; attempt++) {
      const secret = (this.deps.generateKey ?? generateApiKey)();
      const parsed = parseApiKey(secret)!;
      const key: NamedApiKey = {
        keyId: parsed.keyId,
        keyHash: parsed.hash,
        uuid: this.deps.newUuid(),
        username: owner,
        dataspace: caller.dataspace,
        name: body.name,
        scope: body.scope,
        createdDate: isoWithOffset(now),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      };
      const outcome = await this.deps.store.create(key);
      switch (outcome) {
        case 'created':
          return tagged(apiKeyView(key, baseUrl, secret), KEY_TAG);
        case 'name-taken':
          throw new ValidationError({ name: [owner === caller.username ? 'You already have an API key with this name.' : `User "${owner}" already has an API key with this name.`] });
        case 'limit-reached':
          throw new ValidationError({ non_field_errors: [`A user may hold at most ${MAX_API_KEYS_PER_USER} API keys: revoke one first.`] });
        case 'no-such-user':
          throw new ValidationError({ user: [unknownUser(owner)] });
        case 'key-id-taken':
          if (attempt >= KEY_ID_TRIES) throw new Error('API key ids kept colliding: the key generator is broken');
      }
    }
  }

  async delete(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    const key = await this.find(caller, uuid);
    requireMatch(ifMatch, KEY_TAG);
    // Revoked by a concurrent request meanwhile: gone all the same, but not by this one.
    if (!(await this.deps.store.delete(key))) throw new NotFoundError();
  }

  /**
   * Whose key a create makes: the caller's own, or, for a superuser naming `user`, that user of their
   * dataspace. Anyone else naming another user is refused (403). A user of another dataspace is named
   * exactly as one that does not exist.
   */
  private async owner(caller: Caller, user: string | undefined): Promise<string> {
    if (user === undefined || user === caller.username) return caller.username;
    if (!caller.isSuperuser) throw new ForbiddenError('Only a superuser may create an API key for another user.');
    const found = await this.deps.users.getUser(user);
    if (!found || found.dataspace !== caller.dataspace) throw new ValidationError({ user: [unknownUser(user)] });
    return found.username;
  }
}

const unknownUser = (username: string) => `User "${username.length > 150 ? `${username.slice(0, 150)}…` : username}" does not exist in this dataspace.`;
