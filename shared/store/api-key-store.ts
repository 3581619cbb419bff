/**
 * Persistence of named API keys. A key is three items written and removed together: the key itself
 * (APIKEY#<keyId>, what authentication reads, listed per dataspace through GSI1), a reference by uuid
 * (APIKEYREF#<uuid>) and its name's reservation in its user's partition (USER#<username> /
 * APIKEYNAME#<name>). Names unique per user and at most MAX_API_KEYS_PER_USER keys a user are
 * conditions of the same transaction (the count lives on the user item, `apiKeyCount`): nothing is
 * read first, so concurrent creates cannot overshoot either rule.
 */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { DEFAULT_API_KEY_NAME, MAX_API_KEYS_PER_USER, scopeOf, type ApiKeyScope } from '../domain/api-keys.ts';
import { ConflictError } from '../domain/errors.ts';
import { isoWithOffset } from '../domain/time.ts';
import {
  cancelledBecause,
  failedLabels,
  isConditionFailure,
  isTransactionConflict,
  labelled,
  partitionQueryInput,
  queryAll,
  queryCount,
  queryOffset,
  retryOnConflict,
  transact,
  type Item,
  type LabelledItem,
} from './dynamo.ts';

/** A key as stored. Written before keys were named, a key has no uuid, name, dataspace or dates yet. */
export interface StoredApiKey {
  readonly keyId: string;
  readonly keyHash: string;
  readonly username: string;
  readonly scope: ApiKeyScope;
  readonly uuid?: string;
  readonly name?: string;
  readonly dataspace?: string;
  /** ISO 8601; absent: never expires. */
  readonly expiresAt?: string;
  readonly createdDate?: string;
  readonly lastUsedAt?: string;
}

/** A key as listed and managed: one written (or migrated) since keys were named. */
export type NamedApiKey = StoredApiKey & { readonly uuid: string; readonly name: string; readonly dataspace: string; readonly createdDate: string };

export interface NewApiKey {
  readonly keyId: string;
  readonly keyHash: string;
  readonly uuid: string;
  readonly username: string;
  readonly dataspace: string;
  readonly name: string;
  readonly scope: ApiKeyScope;
  readonly expiresAt?: string;
  /** ISO 8601 with offset (isoWithOffset). */
  readonly createdDate: string;
}

/** What a create came to: written, or refused by one of its conditions (nothing written). */
export type CreateOutcome = 'created' | 'name-taken' | 'limit-reached' | 'no-such-user' | 'key-id-taken';

/** A name reservation: the user's key of that name. */
interface KeyName {
  readonly name: string;
  readonly keyId: string;
  readonly uuid: string;
}

/**
 * The key's expiry attribute. Not `expiresAt`: that is the table's TTL attribute (shared/table.ts), and
 * DynamoDB would delete an expired key's item by itself, leaving its reference, its name and its count.
 */
const EXPIRY = 'keyExpiresAt';

export class ApiKeyStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The key with this id (authentication), strongly consistent: a revoked key stops at once. */
  async getByKeyId(keyId: string): Promise<StoredApiKey | undefined> {
    const item = await this.get(keys.apiKey(keyId));
    return item ? toStored(item) : undefined;
  }

  /** The named key with this uuid: its reference, then the key, both strongly consistent. */
  async getByUuid(uuid: string): Promise<NamedApiKey | undefined> {
    const ref = await this.get(keys.apiKeyRef(uuid));
    if (!ref) return undefined;
    const item = await this.get(keys.apiKey(String(ref.keyId)));
    const key = item ? toStored(item) : undefined;
    return key && isNamed(key) && key.uuid === uuid ? key : undefined;
  }

  /** A page of a dataspace's keys (of one user, when given), by user then name, with their count. */
  async list(dataspace: string, username: string | undefined, offset: number, limit: number): Promise<{ count: number; items: NamedApiKey[] }> {
    const input = partitionQueryInput(this.tableName, keys.apiKeysOfDataspace(dataspace, username));
    const count = await queryCount(this.doc, input);
    const items = offset < count ? await queryOffset(this.doc, input, offset, limit) : [];
    return { count, items: items.map(toStored).filter(isNamed) };
  }

  /**
   * Writes a new key: its three items and its user's count, in one transaction whose conditions are the
   * rules (the key id and uuid are new, the name is free for the user, the user exists in the key's
   * dataspace and holds fewer than MAX_API_KEYS_PER_USER keys). A refusal says which rule refused it.
   */
  async create(key: NewApiKey): Promise<CreateOutcome> {
    const items = newKeyItems(key);
    const writes: LabelledItem[] = [
      ...labelled('key', [{ Put: { TableName: this.tableName, Item: items.key, ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ...labelled('ref', [{ Put: { TableName: this.tableName, Item: items.ref, ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ...labelled('name', [{ Put: { TableName: this.tableName, Item: items.name, ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ...labelled('user', [
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(key.username),
            UpdateExpression: 'SET apiKeyCount = if_not_exists(apiKeyCount, :zero) + :one',
            ConditionExpression: 'attribute_exists(PK) AND dataspace = :dataspace AND (attribute_not_exists(apiKeyCount) OR apiKeyCount < :max)',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':dataspace': key.dataspace, ':max': MAX_API_KEYS_PER_USER },
          },
        },
      ]),
    ];
    try {
      await retryOnConflict(() => transact(this.doc, writes), isTransactionConflict);
      return 'created';
    } catch (error) {
      const failed = failedLabels(error);
      if (failed.has('key')) return 'key-id-taken';
      if (failed.has('name')) return 'name-taken';
      if (failed.has('user')) {
        const user = await this.get(keys.user(key.username));
        return user && user.dataspace === key.dataspace ? 'limit-reached' : 'no-such-user';
      }
      throw error;
    }
  }

  /** Removes a named key (its three items, and one from its user's count); false when it was already gone. */
  async delete(key: NamedApiKey): Promise<boolean> {
    const writes: LabelledItem[] = [
      ...labelled('key', [
        {
          Delete: {
            TableName: this.tableName,
            Key: keys.apiKey(key.keyId),
            ConditionExpression: 'attribute_exists(PK) AND #uuid = :uuid',
            ExpressionAttributeNames: { '#uuid': 'uuid' },
            ExpressionAttributeValues: { ':uuid': key.uuid },
          },
        },
      ]),
      ...labelled('ref', [{ Delete: { TableName: this.tableName, Key: keys.apiKeyRef(key.uuid) } }]),
      ...labelled('name', [
        {
          Delete: {
            TableName: this.tableName,
            Key: keys.apiKeyName(key.username, key.name),
            // Never another key's reservation of the name.
            ConditionExpression: 'attribute_not_exists(PK) OR keyId = :keyId',
            ExpressionAttributeValues: { ':keyId': key.keyId },
          },
        },
      ]),
      ...labelled('user', [
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(key.username),
            UpdateExpression: 'SET apiKeyCount = if_not_exists(apiKeyCount, :one) - :one',
            // Users are never deleted; the condition keeps an update from making a user item of nothing.
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ]),
    ];
    try {
      await retryOnConflict(() => transact(this.doc, writes), isTransactionConflict);
      return true;
    } catch (error) {
      if (cancelledBecause(error, 'key')) return false;
      throw error;
    }
  }

  /**
   * Records a use of the key at `now`, unless one was recorded less than `resolutionMs` before: a
   * conditional update, so that concurrent requests of one key write once. Throws what DynamoDB throws;
   * a use already recorded is no error.
   */
  async recordUse(keyId: string, now: Date, resolutionMs: number): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.apiKey(keyId),
          UpdateExpression: 'SET lastUsedAt = :now',
          // Never on a key revoked meanwhile (that would make an item of nothing but its key).
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :cutoff)',
          ExpressionAttributeValues: { ':now': isoWithOffset(now), ':cutoff': isoWithOffset(new Date(now.getTime() - resolutionMs)) },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** How many keys the user holds: their count, or for a user whose only key predates named keys, 1. */
  async countOf(username: string): Promise<number> {
    const user = await this.get(keys.user(username));
    if (typeof user?.apiKeyCount === 'number') return user.apiKeyCount;
    return typeof user?.apiKeyId === 'string' ? 1 : 0;
  }

  /**
   * Makes `key` the user's only key (the admin CLI's create-api-key, the load file): every key the user
   * holds goes (named ones, and one written before keys were named), the new one is written, and the
   * user's count is 1, in one transaction conditioned on the user's count and keys as read. A user who
   * created or revoked a key meanwhile makes it read and try again. A key id that is taken by another
   * key is refused (ConflictError on `api_key`).
   */
  async replaceAll(key: Omit<NewApiKey, 'dataspace' | 'name' | 'scope'>): Promise<void> {
    const refused = () => new ConflictError('api_key', 'This API key cannot be used; generate a new one.');
    try {
      await retryOnConflict(
        async () => {
          const user = await this.get(keys.user(key.username));
          if (!user) throw refused();
          const names = await this.namesOf(key.username);
          const legacyKeyId = typeof user.apiKeyId === 'string' ? user.apiKeyId : undefined;
          const oldKeyIds = new Set([...names.map((name) => name.keyId), ...(legacyKeyId === undefined ? [] : [legacyKeyId])]);
          const fresh = newKeyItems({ ...key, dataspace: String(user.dataspace), name: DEFAULT_API_KEY_NAME, scope: 'write' });
          const writes: LabelledItem[] = [];
          // A transaction may not touch an item twice: what the new key's items overwrite is not deleted first.
          for (const keyId of oldKeyIds) {
            if (keyId !== key.keyId) writes.push(...labelled('old', [{ Delete: { TableName: this.tableName, Key: keys.apiKey(keyId) } }]));
          }
          for (const name of names) {
            writes.push(...labelled('old', [{ Delete: { TableName: this.tableName, Key: keys.apiKeyRef(name.uuid) } }]));
            if (name.name !== DEFAULT_API_KEY_NAME) writes.push(...labelled('old', [{ Delete: { TableName: this.tableName, Key: keys.apiKeyName(key.username, name.name) } }]));
          }
          writes.push(
            ...labelled('key', [
              {
                Put: {
                  TableName: this.tableName,
                  Item: fresh.key,
                  // Its id must be free, unless it is one of the user's own keys, which it replaces.
                  ...(oldKeyIds.has(key.keyId) ? {} : { ConditionExpression: 'attribute_not_exists(PK)' }),
                },
              },
            ]),
            ...labelled('ref', [{ Put: { TableName: this.tableName, Item: fresh.ref, ConditionExpression: 'attribute_not_exists(PK)' } }]),
            ...labelled('name', [{ Put: { TableName: this.tableName, Item: fresh.name } }]),
            ...labelled('user', [
              {
                Update: {
                  TableName: this.tableName,
                  Key: keys.user(key.username),
                  UpdateExpression: 'SET apiKeyCount = :one REMOVE apiKeyId',
                  ConditionExpression: [
                    'attribute_exists(PK)',
                    typeof user.apiKeyCount === 'number' ? 'apiKeyCount = :count' : 'attribute_not_exists(apiKeyCount)',
                    legacyKeyId === undefined ? 'attribute_not_exists(apiKeyId)' : 'apiKeyId = :legacy',
                  ].join(' AND '),
                  ExpressionAttributeValues: {
                    ':one': 1,
                    ...(typeof user.apiKeyCount === 'number' ? { ':count': user.apiKeyCount } : {}),
                    ...(legacyKeyId === undefined ? {} : { ':legacy': legacyKeyId }),
                  },
                },
              },
            ]),
          );
          await transact(this.doc, writes);
        },
        (error) => isTransactionConflict(error) || cancelledBecause(error, 'user'),
      );
    } catch (error) {
      if (cancelledBecause(error, 'key')) throw refused();
      throw error;
    }
  }

  /**
   * Names the keys of a dataspace's users that were written before keys were named (their user item
   * points at them with `apiKeyId`): each becomes a write key named `default` (or `default-2`... when
   * the user has a key of that name already), dated when it was made (else when its user was), with a
   * uuid, its reference and name items and its user's count, in one transaction per key. Idempotent:
   * the user item's pointer goes in the same transaction, and a key that has a uuid is left as it is.
   * Answers how many keys it named.
   */
  async nameLegacyKeys(dataspace: string, now: Date, newUuid: () => string): Promise<number> {
    const users = await queryAll(this.doc, {
      ...partitionQueryInput(this.tableName, keys.usersOfDataspace(dataspace)),
      FilterExpression: 'attribute_exists(apiKeyId)',
    });
    let named = 0;
    for (const user of users) if (await this.nameLegacyKey(user, now, newUuid)) named += 1;
    return named;
  }

  private async nameLegacyKey(user: Item, now: Date, newUuid: () => string): Promise<boolean> {
    const username = String(user.username);
    const keyId = String(user.apiKeyId);
    const dataspace = String(user.dataspace);
    const item = await this.get(keys.apiKey(keyId));
    if (!item || item.username !== username || typeof item.uuid === 'string') {
      // Nothing to name: the pointer is all that is left of the earlier layout.
      await this.dropPointer(username, keyId);
      return false;
    }
    const taken = new Set((await this.namesOf(username)).map((name) => name.name));
    let name = DEFAULT_API_KEY_NAME;
    for (let n = 2; taken.has(name); n++) name = `${DEFAULT_API_KEY_NAME}-${n}`;
    const uuid = newUuid();
    const made = [item.createdDate, user.createdDate].map((date) => (typeof date === 'string' ? Date.parse(date) : Number.NaN)).find((time) => !Number.isNaN(time));
    const createdDate = isoWithOffset(new Date(made ?? now.getTime()));
    const index = keys.apiKeyInDataspace(dataspace, username, name);
    const writes: LabelledItem[] = [
      ...labelled('key', [
        {
          Update: {
            TableName: this.tableName,
            Key: keys.apiKey(keyId),
            UpdateExpression: 'SET #uuid = :uuid, #name = :name, #scope = :scope, dataspace = :dataspace, createdDate = :created, GSI1PK = :gsi1pk, GSI1SK = :gsi1sk',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#uuid) AND username = :username',
            ExpressionAttributeNames: { '#uuid': 'uuid', '#name': 'name', '#scope': 'scope' },
            ExpressionAttributeValues: {
              ':uuid': uuid,
              ':name': name,
              ':scope': 'write',
              ':dataspace': dataspace,
              ':created': createdDate,
              ':gsi1pk': index.GSI1PK,
              ':gsi1sk': index.GSI1SK,
              ':username': username,
            },
          },
        },
      ]),
      ...labelled('ref', [{ Put: { TableName: this.tableName, Item: refItem({ uuid, keyId, username, dataspace }), ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ...labelled('name', [{ Put: { TableName: this.tableName, Item: nameItem({ username, name, keyId, uuid }), ConditionExpression: 'attribute_not_exists(PK)' } }]),
      ...labelled('user', [
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(username),
            UpdateExpression: 'SET apiKeyCount = if_not_exists(apiKeyCount, :zero) + :one REMOVE apiKeyId',
            ConditionExpression: 'apiKeyId = :keyId',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':keyId': keyId },
          },
        },
      ]),
    ];
    try {
      await retryOnConflict(() => transact(this.doc, writes), isTransactionConflict);
      return true;
    } catch (error) {
      // Another run, or a write of the user's keys, got there first: the next run sees what it did.
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async dropPointer(username: string, keyId: string): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(username),
          UpdateExpression: 'REMOVE apiKeyId',
          ConditionExpression: 'apiKeyId = :keyId',
          ExpressionAttributeValues: { ':keyId': keyId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The user's key names, strongly consistent (the user's own partition). */
  private async namesOf(username: string): Promise<KeyName[]> {
    const items = await queryAll(this.doc, { ...partitionQueryInput(this.tableName, keys.apiKeyNamesOfUser(username)), ConsistentRead: true });
    return items.map((item) => ({ name: String(item.name), keyId: String(item.keyId), uuid: String(item.uuid) }));
  }

  private async get(key: { PK: string; SK: string }): Promise<Item | undefined> {
    return (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
  }
}

/** The three items of a new key. */
function newKeyItems(key: NewApiKey): { key: Item; ref: Item; name: Item } {
  return {
    key: {
      ...keys.apiKey(key.keyId),
      ...keys.apiKeyInDataspace(key.dataspace, key.username, key.name),
      entity: 'ApiKey',
      keyId: key.keyId,
      keyHash: key.keyHash,
      uuid: key.uuid,
      username: key.username,
      dataspace: key.dataspace,
      name: key.name,
      scope: key.scope,
      createdDate: key.createdDate,
      ...(key.expiresAt === undefined ? {} : { [EXPIRY]: key.expiresAt }),
    },
    ref: refItem(key),
    name: nameItem(key),
  };
}

function refItem(key: Pick<NewApiKey, 'uuid' | 'keyId' | 'username' | 'dataspace'>): Item {
  return { ...keys.apiKeyRef(key.uuid), entity: 'ApiKeyRef', uuid: key.uuid, keyId: key.keyId, username: key.username, dataspace: key.dataspace };
}

function nameItem(key: Pick<NewApiKey, 'username' | 'name' | 'keyId' | 'uuid'>): Item {
  return { ...keys.apiKeyName(key.username, key.name), entity: 'ApiKeyName', username: key.username, name: key.name, keyId: key.keyId, uuid: key.uuid };
}

const optionalString = (value: unknown) => (typeof value === 'string' ? value : undefined);

function toStored(item: Item): StoredApiKey {
  const optional = {
    uuid: optionalString(item.uuid),
    name: optionalString(item.name),
    dataspace: optionalString(item.dataspace),
    expiresAt: optionalString(item[EXPIRY]),
    createdDate: optionalString(item.createdDate),
    lastUsedAt: optionalString(item.lastUsedAt),
  };
  return {
    keyId: String(item.keyId),
    keyHash: String(item.keyHash),
    username: String(item.username),
    scope: scopeOf(item.scope),
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

function isNamed(key: StoredApiKey): key is NamedApiKey {
  return key.uuid !== undefined && key.name !== undefined && key.dataspace !== undefined && key.createdDate !== undefined;
}
