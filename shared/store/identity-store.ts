/**
 * Persistence of dataspaces, users, groups and memberships in the single table, and authentication
 * (API keys themselves: shared/store/api-key-store.ts). Invariants (a key id belongs to one user, a user
 * is created once) are conditional writes.
 */
import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { DATASPACE_MARKS } from './dataspace-marks.ts';
import { keys } from '../keys.ts';
import type { Dataspace, Group, User } from '../domain/identity.ts';
import { hashesMatch, parseApiKey } from '../auth/api-key.ts';
import { ConflictError } from '../domain/errors.ts';
import { isExpired, isLastUseDue, LAST_USE_RESOLUTION_MS } from '../domain/api-keys.ts';
import type { CallerKey } from '../domain/caller.ts';
import { isoWithOffset } from '../domain/time.ts';
import { logger } from '../observability/logger.ts';
import { batchGet, partitionQueryInput, queryAll, type Item, type PartitionQuery } from './dynamo.ts';
import { ApiKeyStore } from './api-key-store.ts';


export type AuthenticationResult =
  | { readonly outcome: 'authenticated'; readonly user: User; readonly key: CallerKey }
  | { readonly outcome: 'invalid' }
  | { readonly outcome: 'expired' }
  | { readonly outcome: 'inactive' };

/** A new dataspace has nothing of an earlier layout: every migration is done for it. */
const NEW_DATASPACE_MARKS = Object.fromEntries(Object.values(DATASPACE_MARKS).map((mark) => [mark, true]));

export class IdentityStore {
  private readonly apiKeys: ApiKeyStore;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.apiKeys = new ApiKeyStore(doc, tableName);
  }

  /**
   * Two GetItems: the key by its id, then its user. Both must exist, the hash must match and the key
   * must not have expired at `now`. The key's last use is recorded at the same time as the user is read
   * (at most once a minute per key: a conditional update); that write failing never fails the request.
   */
  async authenticate(apiKey: string, now: Date): Promise<AuthenticationResult> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return { outcome: 'invalid' };
    const key = await this.apiKeys.getByKeyId(parsed.keyId);
    if (!key || !hashesMatch(key.keyHash, parsed.hash)) return { outcome: 'invalid' };
    if (isExpired(key.expiresAt, now)) return { outcome: 'expired' };
    const [user] = await Promise.all([this.getUser(key.username), isLastUseDue(key.lastUsedAt, now) ? this.recordUse(key.keyId, now) : undefined]);
    if (!user || user.isActive === false) return { outcome: 'inactive' };
    return {
      outcome: 'authenticated',
      user,
      key: { scope: key.scope, ...(key.uuid === undefined ? {} : { uuid: key.uuid }), ...(key.name === undefined ? {} : { name: key.name }) },
    };
  }

  /** `last_used_at` is bookkeeping: a failure to write it is logged, and the request goes on. */
  private async recordUse(keyId: string, now: Date): Promise<void> {
    try {
      await this.apiKeys.recordUse(keyId, now, LAST_USE_RESOLUTION_MS);
    } catch (error) {
      logger.warn('Could not record the last use of an API key; answering anyway', { keyId, error: error as Error });
    }
  }

  async getDataspace(name: string): Promise<Dataspace | undefined> {
    const item = await this.get(keys.dataspace(name));
    return item ? { name: String(item.name) } : undefined;
  }

  /**
   * Creates the dataspace; true when it was new. A new dataspace's request counters are grouped from the
   * start (shared/store/request-counters.ts): nothing of the earlier layout to read.
   */
  async createDataspace(name: string, now: Date): Promise<boolean> {
    return this.putIfAbsent({ ...keys.dataspace(name), entity: 'Dataspace', name, createdDate: now.toISOString(), ...NEW_DATASPACE_MARKS });
  }

  async listDataspaces(): Promise<Dataspace[]> {
    const items = await this.queryAll({ PK: keys.dataspacesPartition });
    return items.map((item) => ({ name: String(item.name) }));
  }

  async getGroup(dataspace: string, name: string): Promise<Group | undefined> {
    const item = await this.get(keys.group(dataspace, name));
    return item ? { dataspace, name } : undefined;
  }

  async createGroup(group: Group, now: Date): Promise<boolean> {
    return this.putIfAbsent({
      ...keys.group(group.dataspace, group.name),
      entity: 'Group',
      dataspace: group.dataspace,
      name: group.name,
      createdDate: now.toISOString(),
    });
  }

  async listGroups(dataspace: string): Promise<Group[]> {
    const { PK, skPrefix } = keys.groupsOfDataspace(dataspace);
    const items = await this.queryAll({ PK, skPrefix });
    return items.map((item) => ({ dataspace, name: String(item.name) }));
  }

  async listMembers(dataspace: string, group: string): Promise<string[]> {
    const { PK, skPrefix } = keys.membersOfGroup(dataspace, group);
    const items = await this.queryAll({ PK, skPrefix });
    return items.map((item) => String(item.username));
  }

  async getUser(username: string): Promise<User | undefined> {
    const item = await this.get(keys.user(username));
    return item ? toUser(item) : undefined;
  }

  /** The users that exist among these usernames, in one BatchGetItem per 100. */
  async getUsers(usernames: readonly string[]): Promise<User[]> {
    const items = await batchGet(this.doc, this.tableName, [...new Set(usernames)].map((username) => keys.user(username)));
    return items.map(toUser);
  }

  async listUsers(dataspace: string): Promise<User[]> {
    const items = await this.queryAll(keys.usersOfDataspace(dataspace));
    return items.map(toUser);
  }

  /**
   * Writes the user and brings its memberships in line with user.groups, in one transaction.
   * `previous` is the stored user this write replaces (undefined for a new user); the write fails
   * with a ConflictError if the stored user changed in the meantime.
   */
  async saveUser(user: User, previous: User | undefined, now: Date): Promise<void> {
    const before = new Set(previous?.groups ?? []);
    const after = new Set(user.groups);
    const userItem: Item = {
      ...keys.user(user.username),
      ...keys.userInDataspace(user.dataspace, user.username),
      entity: 'User',
      username: user.username,
      email: user.email,
      dataspace: user.dataspace,
      isSuperuser: user.isSuperuser,
      isActive: user.isActive,
      groups: [...user.groups],
      lastModifiedDate: now.toISOString(),
    };
    const transactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
      previous
        ? {
            Update: {
              TableName: this.tableName,
              Key: keys.user(user.username),
              UpdateExpression:
                'SET email = :email, isSuperuser = :su, isActive = :active, #groups = :groups, lastModifiedDate = :now',
              ConditionExpression: 'attribute_exists(PK) AND lastModifiedDate = :previousModified',
              ExpressionAttributeNames: { '#groups': 'groups' },
              ExpressionAttributeValues: {
                ':email': user.email,
                ':su': user.isSuperuser,
                ':active': user.isActive,
                ':groups': [...user.groups],
                ':now': now.toISOString(),
                ':previousModified': (previous as StoredUser).lastModifiedDate,
              },
            },
          }
        : {
            Put: {
              TableName: this.tableName,
              Item: { ...userItem, createdDate: now.toISOString() },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
    ];
    for (const group of after) {
      if (before.has(group)) continue;
      transactItems.push({
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.membership(user.dataspace, group, user.username),
            entity: 'Membership',
            dataspace: user.dataspace,
            group,
            username: user.username,
          },
        },
      });
    }
    for (const group of before) {
      if (after.has(group)) continue;
      transactItems.push({
        Delete: { TableName: this.tableName, Key: keys.membership(user.dataspace, group, user.username) },
      });
    }
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: transactItems }));
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        throw new ConflictError('username', `User ${user.username} was changed or created concurrently; try again.`);
      }
      throw error;
    }
  }

  /** The user holding the key with this id, if any. */
  async apiKeyOwner(keyId: string): Promise<string | undefined> {
    return (await this.apiKeys.getByKeyId(keyId))?.username;
  }

  /** How many API keys the user holds. */
  async apiKeyCount(username: string): Promise<number> {
    return this.apiKeys.countOf(username);
  }

  /**
   * Makes `apiKey` the user's only key, a write key named `default` (the admin CLI's create-api-key and
   * the load file): every other key of the user stops working at once. A key the user already holds is
   * left as it is, and so are their other keys (loading a file again changes nothing).
   */
  async replaceApiKey(username: string, apiKey: string, now: Date, newUuid: () => string = randomUUID): Promise<void> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) throw new ConflictError('api_key', 'API key is malformed.');
    const existing = await this.apiKeys.getByKeyId(parsed.keyId);
    if (existing && existing.username === username && hashesMatch(existing.keyHash, parsed.hash)) return;
    await this.apiKeys.replaceAll({ keyId: parsed.keyId, keyHash: parsed.hash, uuid: newUuid(), username, createdDate: isoWithOffset(now) });
  }

  /** Strongly consistent: a replaced key or a deactivated user stops on the very next request. */
  private async get(key: { PK: string; SK: string }): Promise<Item | undefined> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return result.Item;
  }

  private async putIfAbsent(item: Item): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private queryAll(query: PartitionQuery): Promise<Item[]> {
    return queryAll(this.doc, partitionQueryInput(this.tableName, query));
  }
}

interface StoredUser extends User {
  readonly lastModifiedDate: string;
}

function toUser(item: Item): StoredUser {
  return {
    username: String(item.username),
    email: String(item.email ?? ''),
    dataspace: String(item.dataspace),
    isSuperuser: item.isSuperuser === true,
    isActive: item.isActive !== false,
    groups: Array.isArray(item.groups) ? item.groups.map(String).sort() : [],
    lastModifiedDate: String(item.lastModifiedDate ?? ''),
  };
}
