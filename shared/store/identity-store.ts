/**
 * Persistence of dataspaces, users, groups, memberships and API keys in the single table.
 * Invariants (a key id belongs to one user, a user is created once) are conditional writes.
 */
import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { REQUEST_COUNTERS_GROUPED } from './request-counters.ts';
import { CATALOG_LOOKUPS_INDEXED } from './catalog-store.ts';
import { keys } from '../keys.ts';
import type { Dataspace, Group, User } from '../domain/identity.ts';
import { hashesMatch, parseApiKey } from '../auth/api-key.ts';
import { ConflictError } from '../domain/errors.ts';
import { batchGet, partitionQueryInput, queryAll, type Item, type PartitionQuery } from './dynamo.ts';


export type AuthenticationResult =
  | { readonly outcome: 'authenticated'; readonly user: User }
  | { readonly outcome: 'invalid' }
  | { readonly outcome: 'inactive' };

export class IdentityStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Two GetItems: the key by its id, then its user. Both must exist and the hash must match. */
  async authenticate(apiKey: string): Promise<AuthenticationResult> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return { outcome: 'invalid' };
    const keyItem = await this.get(keys.apiKey(parsed.keyId));
    if (!keyItem || !hashesMatch(String(keyItem.keyHash), parsed.hash)) return { outcome: 'invalid' };
    const user = await this.getUser(String(keyItem.username));
    if (!user || user.isActive === false) return { outcome: 'inactive' };
    return { outcome: 'authenticated', user };
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
    return this.putIfAbsent({ ...keys.dataspace(name), entity: 'Dataspace', name, createdDate: now.toISOString(), [REQUEST_COUNTERS_GROUPED]: true, [CATALOG_LOOKUPS_INDEXED]: true });
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
    const item = await this.get(keys.apiKey(keyId));
    return item ? String(item.username) : undefined;
  }

  /** The id of the user's current key, if any. */
  async currentKeyId(username: string): Promise<string | undefined> {
    const item = await this.get(keys.user(username));
    return typeof item?.apiKeyId === 'string' ? item.apiKeyId : undefined;
  }

  /**
   * Makes `apiKey` the user's only key: the old key item goes, the new one is written (its id must
   * be free), and the user points at it, in one transaction.
   */
  async replaceApiKey(username: string, apiKey: string, now: Date): Promise<void> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) throw new ConflictError('api_key', 'API key is malformed.');
    const oldKeyId = await this.currentKeyId(username);
    if (oldKeyId === parsed.keyId) {
      const existing = await this.get(keys.apiKey(parsed.keyId));
      if (existing && hashesMatch(String(existing.keyHash), parsed.hash)) return;
    }
    const transactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [];
    if (oldKeyId !== undefined) {
      transactItems.push({ Delete: { TableName: this.tableName, Key: keys.apiKey(oldKeyId) } });
    }
    transactItems.push(
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.apiKey(parsed.keyId),
            entity: 'ApiKey',
            keyId: parsed.keyId,
            keyHash: parsed.hash,
            username,
            createdDate: now.toISOString(),
          },
          // A key id that is taken (by another user, or by the old key in a race) is refused.
          ConditionExpression: oldKeyId === parsed.keyId ? undefined : 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: keys.user(username),
          UpdateExpression: 'SET apiKeyId = :keyId',
          ConditionExpression:
            oldKeyId === undefined ? 'attribute_exists(PK) AND attribute_not_exists(apiKeyId)' : 'apiKeyId = :oldKeyId',
          ExpressionAttributeValues:
            oldKeyId === undefined ? { ':keyId': parsed.keyId } : { ':keyId': parsed.keyId, ':oldKeyId': oldKeyId },
        },
      },
    );
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: transactItems }));
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        throw new ConflictError('api_key', 'This API key cannot be used; generate a new one.');
      }
      throw error;
    }
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
