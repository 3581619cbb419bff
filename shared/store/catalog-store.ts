/**
 * Persistence of the catalog: usage policies, licenses, packages and vulnerabilities. Each is one item
 * keyed by uuid, listed through GSI1 in the order of its unique value (label, key, purl, vulnerability
 * id), whose uniqueness in the dataspace is a reservation item written in the same transaction.
 * A vulnerability's links live on the packages it affects too, so one read of a package tells its
 * vulnerabilities and scores; its own list of them is one item per link, so it may affect any number. A reservation also counts the objects that name its value (a license's
 * packages, a usage policy's licenses and packages), in the transactions that start or stop naming it,
 * so a license or policy in use cannot be deleted or renamed: no read-then-write decides it.
 */
import {
  GetCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { osvCoordinates, osvPackageKey } from '../domain/osv-packages.ts';
import { catalogSortKey, keys, type CatalogLookup, type CatalogType, type CountedCollection } from '../keys.ts';
import { compareCodePoints } from '../domain/text.ts';
import { DATASPACE_MARKS, markIn, markSeen } from './dataspace-marks.ts';
import { counterChanges, counterSeedItems, counterTotals, counterUpdates, filterCounter, listCounterSpace, readCounters } from './counters.ts';
import { ConflictError, InUseError } from '../domain/errors.ts';
import {
  inUseMessage,
  VULNERABILITY_SOURCES,
  vulnerabilityLinks,
  type AffectedPackage,
  type License,
  type Package,
  type UsagePolicy,
  type Vulnerability,
  type VulnerabilitySource,
} from '../domain/catalog.ts';
import { mappingMatchKey, type LicenseMapping } from '../domain/license-mapping.ts';
import { licenseSearchFields, searchFold, searchTextOf, type LicenseCriteria } from '../domain/license-search.ts';
import type { LicenseCategory } from '../domain/reference-license.ts';
import {
  batchGet,
  failedLabels,
  imageItem,
  isTransactionConflict,
  labelled,
  partitionQueryInput,
  queryAll,
  queryCount,
  queryOffset,
  revisionCondition,
  transact,
  type Item,
  type LabelledItem,
  type StreamImage,
  type TransactItem,
} from './dynamo.ts';
import { SEARCH_FIELDS } from '../domain/search.ts';
import { UNKNOWN_LICENSE_KEY } from '../domain/license-resolution.ts';
import { addSearch, searchAttributes } from './search-filter.ts';

export type Stored = {
  readonly uuid: string;
  readonly dataspace: string;
  readonly rev: number;
  /** Store metadata, not the domain's: the item's references were counted when it was written. */
  readonly refsCounted?: true;
  /** Store metadata: the object was counted in its list's counters when it was written. */
  readonly listCounted?: true;
};

/** Package updates per transaction when a vulnerability changes its links (a transaction holds 100 items). */
const LINKS_PER_TRANSACTION = 90;

/** The object changed since it was read: read it again and retry. */
export class StaleObjectError extends Error {
  constructor(type: string, uuid: string) {
    super(`${type} ${uuid} changed concurrently`);
  }
}

export const isCatalogRace = (error: unknown) => error instanceof StaleObjectError || isTransactionConflict(error);

/** The counters on a unique-value reservation of how many objects name it, by kind of object. */
export type UseCounter = 'usedByPackages' | 'usedByLicenses';

/** A unique value of another collection that an object names: a package's license keys and policy, a license's policy. */
export interface Reference {
  readonly type: CatalogType;
  readonly value: string;
  readonly counter: UseCounter;
}

/** No object names the reservation: every counter is absent or zero. */
const UNUSED = {
  ConditionExpression: '(attribute_not_exists(#usedByPackages) OR #usedByPackages <= :zero) AND (attribute_not_exists(#usedByLicenses) OR #usedByLicenses <= :zero)',
  ExpressionAttributeNames: { '#usedByPackages': 'usedByPackages', '#usedByLicenses': 'usedByLicenses' },
  ExpressionAttributeValues: { ':zero': 0 },
};

/**
 * What each item of a catalog write is (its label in the transaction), so a failed condition says
 * what happened: the object moved (stale), its unique value is taken, it is still in use, or a value
 * it names is gone.
 */
export type ItemKind = 'object' | 'reserve' | 'release' | 'unused' | 'use' | 'unuse' | 'counter';

/** A catalog write's item, labelled with its kind. */
interface CatalogItem extends LabelledItem {
  readonly label: ItemKind;
}

export interface CollectionSpec<T extends Stored> {
  readonly type: CatalogType;
  readonly entity: string;
  /** What the API calls it, when other objects may name it (then it cannot go while they do). */
  readonly noun?: 'license' | 'usage policy';
  /** The unique values of other collections the object names; counted on their reservations. */
  readonly references?: (object: T) => readonly Reference[];
  /** True when an update, keeping the unique value, would still break what names it (a policy's content type). */
  readonly breaksUses?: (before: T, after: T) => boolean;
  /** The value unique in the dataspace, and the field errors name when it is taken. */
  readonly unique: (object: T) => string;
  readonly uniqueField: string;
  readonly uniqueMessage: string;
  readonly toAttributes: (object: T) => Item;
  readonly fromItem: (item: Item) => T;
  /** The attributes (of toAttributes) that `?search=` looks in: the item stores their folded copy. */
  readonly searchFields?: readonly string[];
  /**
   * The list counters the object adds one to besides `all`: one per documented equality filter of the
   * list (filterCounter names them), so a page filtered on one of them knows its count without reading.
   */
  readonly filterCounters?: (object: T) => readonly string[];
  /**
   * A field many objects may share that the list filters on often, and its value for an object (none:
   * not looked up): each object carries a keys-only lookup entry for it (keys.catalogLookup), so the
   * filter reads its matches, not the dataspace (CatalogStore.lookup).
   */
  readonly lookup?: { readonly kind: CatalogLookup; readonly value: (object: T) => string | undefined };
  /**
   * The OSV package key of the object (packages whose purl names an ecosystem an advisory database
   * covers: advisory-matching.ts), under which it carries a keys-only entry (keys.packageOfAdvisoryKey):
   * a new or changed advisory finds the packages it may affect, in every dataspace, by that key.
   */
  readonly advisoryKey?: (object: T) => string | undefined;
}

export interface ListOptions {
  /**
   * The list counters (shared/store/counters.ts) whose sum is the count of what the other options
   * select, when the caller knows them; without, the count reads the selection.
   */
  readonly counted?: readonly string[];
  /** Exact values of attributes, applied as a filter. */
  readonly equal?: Readonly<Record<string, string>>;
  /** `?search=`'s folded terms, each contained in one of the collection's searchFields. */
  readonly search?: readonly string[];
  /** A filter of the collection's own (licenseFilter), ANDed with `equal`. */
  readonly where?: FilterClause;
  /** List attributes that must (true) or must not (false) hold an element, applied as a filter. */
  readonly holds?: readonly { readonly attribute: string; readonly element: string; readonly present: boolean }[];
}

/**
 * A FilterExpression fragment with its names and values; placeholders start with #w and :w. It is
 * ANDed as it is, so any OR in it is inside parentheses (and nothing is parenthesized twice, which
 * DynamoDB refuses as redundant).
 */
export interface FilterClause {
  readonly expression: string;
  readonly names: Readonly<Record<string, string>>;
  readonly values: Readonly<Record<string, unknown>>;
}

/** The object's item, with its dataspace index keys, at the revision a write gives it. */
export function objectItem<T extends Stored>(spec: CollectionSpec<T>, object: T): Item {
  const attributes = spec.toAttributes(object);
  return {
    ...keys.catalogObject(spec.type, object.uuid),
    ...keys.catalogInDataspace(spec.type, object.dataspace, spec.unique(object), object.uuid),
    entity: spec.entity,
    uuid: object.uuid,
    dataspace: object.dataspace,
    ...attributes,
    ...(spec.searchFields ? searchAttributes(spec.searchFields, attributes) : {}),
    ...lookupAttributes(spec, object),
    ...advisoryKeyAttributes(spec, object),
    rev: object.rev + 1,
    // Its references are counted from this write on (see useItems); objects written before counting began lack it.
    ...(spec.references ? { refsCounted: true } : {}),
    // And it is in its list's counters (listCounterChanges); objects written before list counters lack it.
    listCounted: true,
  };
}

/** The object's entry under its OSV package key (CollectionSpec.advisoryKey), if it has one; `osvKey` holds the key itself. */
export function advisoryKeyAttributes<T extends Stored>(spec: CollectionSpec<T>, object: T): Item {
  const packageKey = spec.advisoryKey?.(object);
  return packageKey ? { ...keys.packageOfAdvisoryKey(packageKey, object.dataspace, object.uuid), osvKey: packageKey } : {};
}

/** The object's lookup entry (CollectionSpec.lookup), if it has a value: sorted as the list is. */
export function lookupAttributes<T extends Stored>(spec: CollectionSpec<T>, object: T): Item {
  const value = spec.lookup?.value(object);
  if (!spec.lookup || !value) return {};
  return keys.catalogLookup(object.dataspace, spec.lookup.kind, value, spec.unique(object), object.uuid);
}

/** The mark of a dataspace's item that says every package and license of it carries its lookup entry. */
export const CATALOG_LOOKUPS_INDEXED = DATASPACE_MARKS.catalogLookupsIndexed;

/** The list a collection's counters count. */
const COUNTED: Record<CatalogType, CountedCollection> = {
  USAGEPOLICY: 'USAGEPOLICIES',
  LICENSE: 'LICENSES',
  LICENSEMAPPING: 'LICENSEMAPPINGS',
  PACKAGE: 'PACKAGES',
  VULNERABILITY: 'VULNERABILITIES',
};

export function catalogCounterSpace(type: CatalogType, dataspace: string) {
  return listCounterSpace(dataspace, COUNTED[type]);
}

/** The list counters the object adds one to: `all` and its filters'. */
function listCountersOf<T extends Stored>(spec: CollectionSpec<T>): (object: T) => Map<string, { total: number }> {
  return (object) => new Map(['all', ...(spec.filterCounters?.(object) ?? [])].map((counter) => [counter, { total: 1 }]));
}

/**
 * What writing `after` over `before` moves in the list counters. An object written before list
 * counters began was never counted: it counts down nothing, and is counted as new (objectItem marks it).
 */
export function listCounterChanges<T extends Stored>(spec: CollectionSpec<T>, before: T | undefined, after: T | undefined) {
  return counterChanges(listCountersOf(spec), before?.listCounted ? before : undefined, after);
}

/** The list counter items of a bulk load's objects (benchmark seeding), for catalogSeedItems' objects. */
export function catalogCountSeedItems<T extends Stored>(spec: CollectionSpec<T>, dataspace: string, objects: readonly T[]): Item[] {
  return counterSeedItems(catalogCounterSpace(spec.type, dataspace), counterTotals(listCountersOf(spec), objects));
}

/** The reservation of a unique value (label, key, purl, id) in the object's dataspace. */
export function uniqueItem<T extends Stored>(spec: CollectionSpec<T>, object: T, value: string): Item {
  return { ...keys.catalogUnique(spec.type, object.dataspace, value), entity: 'CatalogUnique', uuid: object.uuid };
}

/**
 * The items creating `object` stores (the object and its unique reservation), for bulk loads that
 * bypass the transactions (benchmark seeding), as productSeedItems does for products.
 */
export function catalogSeedItems<T extends Stored>(spec: CollectionSpec<T>, object: T, options: { listCounted?: boolean } = {}): Item[] {
  // Seeding counts no references, so the object is not marked as counted: a later write counts them.
  // Nor is it in its list's counters unless the loader writes them too (catalogCountSeedItems) and says so.
  const { refsCounted: _uncounted, listCounted: _listed, ...item } = objectItem(spec, object);
  // A vulnerability's affected packages are items of their own.
  const links = spec.entity === 'Vulnerability' ? vulnerabilityLinkWrites('', undefined, object as unknown as Vulnerability).map((write) => write.Put!.Item!) : [];
  return [{ ...item, ...(options.listCounted ? { listCounted: true } : {}) }, uniqueItem(spec, object, spec.unique(object)), ...links];
}

/** One catalog collection: get, list, and create / update / delete under a revision check. */
export class Collection<T extends Stored> {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly spec: CollectionSpec<T>,
  ) {}

  async get(uuid: string): Promise<T | undefined> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.catalogObject(this.spec.type, uuid), ConsistentRead: true }),
    );
    return result.Item ? this.spec.fromItem(result.Item) : undefined;
  }

  /**
   * Objects by unique value (label, key, purl, id); those that do not exist are missing from the map.
   * `consistent` reads what was committed last (the evaluator's reads).
   */
  async getByUnique(dataspace: string, values: readonly string[], consistent = false): Promise<Map<string, T>> {
    const reservations = await batchGet(
      this.doc,
      this.tableName,
      [...new Set(values)].map((value) => keys.catalogUnique(this.spec.type, dataspace, value)),
      consistent,
    );
    const objects = await batchGet(
      this.doc,
      this.tableName,
      reservations.map((item) => keys.catalogObject(this.spec.type, String(item.uuid))),
      consistent,
    );
    return new Map(objects.map((item) => this.spec.fromItem(item)).map((object) => [this.spec.unique(object), object]));
  }

  async getMany(uuids: readonly string[], consistent = false): Promise<T[]> {
    const items = await batchGet(this.doc, this.tableName, uuids.map((uuid) => keys.catalogObject(this.spec.type, uuid)), consistent);
    return items.map(this.spec.fromItem);
  }

  /**
   * Whether every object of the dataspace carries its lookup entry (new dataspaces do; older ones once
   * the migration reached them, shared/store/catalog-lookups.ts): one GetItem until it is seen marked.
   */
  async lookupReady(dataspace: string): Promise<boolean> {
    if (markSeen(this.tableName, dataspace, CATALOG_LOOKUPS_INDEXED)) return true;
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.dataspace(dataspace), ConsistentRead: true }));
    return markIn(this.tableName, dataspace, CATALOG_LOOKUPS_INDEXED, Item);
  }

  /**
   * Every object whose lookup value (CollectionSpec.lookup) is `value`, in the list's order
   * (catalogSortKey): one keys-only Query of its lookup entries, then the objects by key. Reads the
   * matches only, whatever the dataspace holds. For a dataspace whose objects all carry their entries
   * (catalogLookupsIndexed, shared/store/catalog-lookups.ts).
   */
  async lookup(dataspace: string, value: string): Promise<T[]> {
    if (!this.spec.lookup) throw new Error(`${this.spec.entity} has no lookup`);
    const entries = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.catalogLookupOf(dataspace, this.spec.lookup.kind, value)));
    const objects = await this.getMany(entries.map((entry) => String(entry.PK).slice(this.spec.type.length + 1)));
    const order = (object: T) => catalogSortKey(this.spec.unique(object), object.uuid);
    // An entry read before its object changed (the index lags a rename) no longer matches.
    return objects
      .filter((object) => this.spec.lookup!.value(object) === value)
      .sort((a, b) => compareCodePoints(order(a), order(b)));
  }

  /** A page of the dataspace's objects in unique-value order, with the count. */
  async list(dataspace: string, offset: number, limit: number, options: ListOptions = {}): Promise<{ count: number; items: T[] }> {
    const input: QueryCommandInput = partitionQueryInput(this.tableName, keys.catalogOfDataspace(this.spec.type, dataspace));
    const conditions = Object.entries(options.equal ?? {}).map(([attribute, value], i) => {
      input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, [`#f${i}`]: attribute };
      input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, [`:f${i}`]: value };
      return `#f${i} = :f${i}`;
    });
    if (options.where) {
      input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, ...options.where.names };
      input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ...options.where.values };
      conditions.push(options.where.expression);
    }
    (options.holds ?? []).forEach(({ attribute, element, present }, i) => {
      input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, [`#h${i}`]: attribute };
      input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, [`:h${i}`]: element };
      // contains() on a list compares whole elements; an item without the attribute holds nothing.
      conditions.push(present ? `contains(#h${i}, :h${i})` : `NOT contains(#h${i}, :h${i})`);
    });
    if (conditions.length > 0) input.FilterExpression = conditions.join(' AND ');
    const search = options.search ?? [];
    if (search.length > 0 && !this.spec.searchFields) throw new Error(`${this.spec.entity} has no search fields`);
    const recheck = addSearch(input, this.spec.searchFields ?? [], search);
    const count = options.counted ? await this.counted(dataspace, options.counted) : await queryCount(this.doc, input, recheck);
    // Known to hold `count`, the page stops reading once it has the last of them (a filter reads on otherwise).
    const items = offset < count ? await queryOffset(this.doc, input, offset, Math.min(limit, count - offset), recheck) : [];
    return { count, items: items.map(this.spec.fromItem) };
  }

  /** The sum of list counters (each counts objects no other of them counts). */
  private async counted(dataspace: string, counters: readonly string[]): Promise<number> {
    const totals = await readCounters(this.doc, this.tableName, catalogCounterSpace(this.spec.type, dataspace), counters, ['total']);
    return [...totals.values()].reduce((sum, { total }) => sum + total, 0);
  }

  /** Every object of the dataspace, in unique-value order (its licenses, to resolve expressions with): a paged Query of the index. */
  async all(dataspace: string): Promise<T[]> {
    const items = await queryAll(this.doc, partitionQueryInput(this.tableName, keys.catalogOfDataspace(this.spec.type, dataspace)));
    return items.map(this.spec.fromItem);
  }

  /** The transaction items, labelled, that write `after` over `before` (create: no before; delete: no after). */
  writeItems(before: T | undefined, after: T | undefined): CatalogItem[] {
    return this.ownItems(before, after);
  }

  /**
   * The object and its reservation. A value others name (spec.noun) is released only while unused,
   * and a change that would break what names it (breaksUses) checks the same: in use is a 409.
   */
  private ownItems(before: T | undefined, after: T | undefined): CatalogItem[] {
    const { type } = this.spec;
    const items: CatalogItem[] = [];
    const object = (after ?? before)!;
    const revision = revisionCondition(before);
    if (after) {
      items.push({ label: 'object', item: { Put: { TableName: this.tableName, Item: objectItem(this.spec, after), ...revision } } });
    } else {
      items.push({ label: 'object', item: { Delete: { TableName: this.tableName, Key: keys.catalogObject(type, object.uuid), ...revision } } });
    }
    const oldUnique = before && this.spec.unique(before);
    const newUnique = after && this.spec.unique(after);
    const guarded = this.spec.noun !== undefined ? UNUSED : {};
    if (oldUnique !== newUnique) {
      if (oldUnique !== undefined) {
        items.push({ label: 'release', item: { Delete: { TableName: this.tableName, Key: keys.catalogUnique(type, object.dataspace, oldUnique), ...guarded } } });
      }
      if (newUnique !== undefined) {
        items.push({ label: 'reserve', item: { Put: { TableName: this.tableName, Item: uniqueItem(this.spec, object, newUnique), ConditionExpression: 'attribute_not_exists(PK)' } } });
      }
    } else if (before && after && this.spec.breaksUses?.(before, after)) {
      items.push({ label: 'unused', item: { ConditionCheck: { TableName: this.tableName, Key: keys.catalogUnique(type, object.dataspace, oldUnique!), ...UNUSED } } });
    }
    items.push(...(counterUpdates(this.tableName, catalogCounterSpace(type, object.dataspace), listCounterChanges(this.spec, before, after)) as CatalogItem[]));
    return items;
  }

  /**
   * The counter updates of the values the object starts or stops naming. A new one must still exist
   * (a value deleted meanwhile fails the write, which is read again and refused). One it stops naming
   * is counted down only if its reservation exists: references written before they were counted may
   * name a value that is gone, and must not bring it back as a bare counter.
   */
  private async useItems(before: T | undefined, after: T | undefined): Promise<CatalogItem[]> {
    const references = (object: T | undefined) => new Map((object ? (this.spec.references?.(object) ?? []) : []).map((r) => [`${r.type}\u0000${r.value}\u0000${r.counter}`, r]));
    // An object written before references were counted counted none: it counts down nothing, and its
    // references are counted up as new by this write, which marks it counted (objectItem).
    const [old, now] = [before && isCounted(before) ? references(before) : new Map<string, Reference>(), references(after)];
    const dataspace = (after ?? before)!.dataspace;
    const added = [...now].filter(([id]) => !old.has(id)).map(([, r]) => r);
    let removed = [...old].filter(([id]) => !now.has(id)).map(([, r]) => r);
    if (removed.length > 0) {
      const present = await batchGet(this.doc, this.tableName, removed.map((r) => keys.catalogUnique(r.type, dataspace, r.value)), true);
      const held = new Set(present.map((item) => String(item.PK)));
      removed = removed.filter((r) => held.has(keys.catalogUnique(r.type, dataspace, r.value).PK));
    }
    const update = (r: Reference, delta: number): TransactItem => ({
      Update: {
        TableName: this.tableName,
        Key: keys.catalogUnique(r.type, dataspace, r.value),
        UpdateExpression: 'ADD #counter :delta',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#counter': r.counter },
        ExpressionAttributeValues: { ':delta': delta },
      },
    });
    return [...added.map((r): CatalogItem => ({ label: 'use', item: update(r, 1) })), ...removed.map((r): CatalogItem => ({ label: 'unuse', item: update(r, -1) }))];
  }

  /**
   * Writes `after` over `before` (plus `extra`) as one transaction, with the use counters of what it
   * names, turning failed conditions into domain errors.
   */
  async write(before: T | undefined, after: T | undefined, extra: readonly TransactItem[] = []): Promise<void> {
    const items = [...this.ownItems(before, after), ...(await this.useItems(before, after)), ...labelled('extra', extra)];
    try {
      await transact(this.doc, items);
    } catch (error) {
      await this.rethrow(error, before, after);
    }
  }

  /** The domain error of a failed write (one of whose items writeItems or write labelled), by the kinds of its failed items. */
  async rethrow(error: unknown, before: T | undefined, after: T | undefined): Promise<never> {
    const object = (after ?? before)!;
    const failed = failedLabels(error);
    if (failed.has('object') && !failed.has('reserve')) throw new StaleObjectError(this.spec.entity, object.uuid);
    if (failed.has('reserve')) throw this.taken();
    // Only an object that was there releases or checks its value.
    if (failed.has('release') || failed.has('unused')) throw await this.inUse(before!);
    // A value it names went away, or one it stops naming: read again, and the validation says which.
    if (failed.has('use') || failed.has('unuse')) throw new StaleObjectError(this.spec.entity, object.uuid);
    throw error;
  }

  /** How many objects still name the value of `object` (as read): a 409, or a race to run again if none now. */
  private async inUse(object: T): Promise<Error> {
    const result = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.catalogUnique(this.spec.type, object.dataspace, this.spec.unique(object)), ConsistentRead: true }),
    );
    const uses = { packages: Math.max(0, Number(result.Item?.usedByPackages ?? 0)), licenses: Math.max(0, Number(result.Item?.usedByLicenses ?? 0)) };
    if (uses.packages + uses.licenses === 0) return new StaleObjectError(this.spec.entity, object.uuid);
    return new InUseError(inUseMessage(this.spec.noun!, uses));
  }

  private taken(): ConflictError {
    return new ConflictError(this.spec.uniqueField, this.spec.uniqueMessage);
  }
}

/** The objects of each catalog collection. */
interface CatalogObjects {
  readonly usagePolicies: UsagePolicy;
  readonly licenses: License;
  readonly licenseMappings: LicenseMapping;
  readonly packages: Package;
  readonly vulnerabilities: Vulnerability;
}

export type CatalogObject<K extends keyof CatalogObjects> = CatalogObjects[K];

/** How each catalog collection is stored: its key type, unique value and attributes. */
export const CATALOG_SPECS: { readonly [K in keyof CatalogObjects]: CollectionSpec<CatalogObjects[K]> } = {
  usagePolicies: {
    type: 'USAGEPOLICY',
    entity: 'UsagePolicy',
    unique: (policy) => policy.label,
    uniqueField: 'label',
    uniqueMessage: 'Usage policy with this label already exists.',
    noun: 'usage policy',
    // Licenses and packages name a policy of their own content type.
    breaksUses: (before, after) => before.contentType !== after.contentType,
    toAttributes: (p) => ({ label: p.label, contentType: p.contentType, complianceAlert: p.complianceAlert, description: p.description }),
    fromItem: (item) => ({
      ...stored(item),
      label: String(item.label),
      contentType: item.contentType as UsagePolicy['contentType'],
      complianceAlert: (item.complianceAlert ?? '') as UsagePolicy['complianceAlert'],
      description: String(item.description ?? ''),
    }),
  },
  licenseMappings: {
    type: 'LICENSEMAPPING',
    entity: 'LicenseMapping',
    // Unique as it is matched: `Apache License, Version 2.0` and `apache license 2.0` are one mapping.
    unique: (mapping) => mappingMatchKey(mapping.text),
    uniqueField: 'text',
    uniqueMessage: 'A license mapping of this text (compared as names are: case, punctuation, version spellings aside) already exists.',
    toAttributes: (m) => ({ text: m.text, licenseExpression: m.licenseExpression }),
    fromItem: (item) => ({ ...stored(item), text: String(item.text), licenseExpression: String(item.licenseExpression) }),
  },
  licenses: {
    type: 'LICENSE',
    entity: 'License',
    unique: (license) => license.key,
    uniqueField: 'key',
    uniqueMessage: 'License with this key already exists.',
    noun: 'license',
    references: (l) => (l.usagePolicy === null ? [] : [{ type: 'USAGEPOLICY', value: l.usagePolicy, counter: 'usedByLicenses' }]),
    lookup: { kind: 'LICENSESPDX', value: (l) => (l.spdxLicenseKey === '' ? undefined : searchFold(l.spdxLicenseKey)) },
    filterCounters: (l) => [
      filterCounter('spdx_license_key', searchFold(l.spdxLicenseKey)),
      filterCounter('category', l.category),
      filterCounter('is_exception', String(l.isException)),
    ],
    toAttributes: (l) => ({
      key: l.key,
      name: l.name,
      shortName: l.shortName,
      spdxLicenseKey: l.spdxLicenseKey,
      category: l.category,
      isException: l.isException,
      usagePolicy: l.usagePolicy,
      // Folded copies for the list's filters (licenseFilter): DynamoDB compares case-sensitively.
      [SPDX_FOLDED]: searchFold(l.spdxLicenseKey),
      [SEARCH_TEXT]: searchTextOf(licenseSearchFields(l)),
    }),
    fromItem: (item) => ({
      ...stored(item),
      key: String(item.key),
      name: String(item.name),
      shortName: String(item.shortName ?? ''),
      spdxLicenseKey: String(item.spdxLicenseKey ?? ''),
      // Written before licenses had them: no category, not an exception. What was written is one of the
      // categories: the body schemas (API and load file) admit no other.
      category: String(item.category ?? '') as LicenseCategory,
      isException: item.isException === true,
      usagePolicy: (item.usagePolicy as string | null | undefined) ?? null,
    }),
  },
  packages: {
    type: 'PACKAGE',
    entity: 'Package',
    unique: (pkg) => pkg.purl,
    uniqueField: 'purl',
    uniqueMessage: 'Package with this purl already exists.',
    searchFields: SEARCH_FIELDS.packages,
    // Only the dataspace licenses the expression named when written: reference keys and the unknown key have no license to count on.
    references: (p) => [
      ...p.countedLicenseKeys.map((key): Reference => ({ type: 'LICENSE', value: key, counter: 'usedByPackages' })),
      ...(p.usagePolicy === null ? [] : [{ type: 'USAGEPOLICY' as const, value: p.usagePolicy, counter: 'usedByPackages' as const }]),
    ],
    // Not `unknown_license`: one counter per unknown license (up to MAX_LICENSE_KEYS, before and after)
    // would not fit beside the license use counters in the write's transaction of 100 items. Nor `name`
    // and `version`: their values are nearly one per package, so an SBOM import's transactions would
    // carry a counter item for almost every package they write (about half again as many transactions).
    filterCounters: (p) => [filterCounter('type', p.type), filterCounter('has_unknown_license', String(p.licenseKeys.includes(UNKNOWN_LICENSE_KEY)))],
    // `name` is looked up instead: a name's packages (its versions) are few, and the entry is one
    // keys-only index write, where a counter would be a counter item in the import's transactions.
    lookup: { kind: 'PACKAGENAME', value: (p) => p.name },
    advisoryKey: (p) => {
      const coordinates = osvCoordinates(p);
      return coordinates.ok ? osvPackageKey(coordinates.ecosystem, coordinates.name) : undefined;
    },
    toAttributes: (p) => ({
      type: p.type,
      namespace: p.namespace,
      name: p.name,
      version: p.version,
      // A list of [key, value] pairs, not a map: the DynamoDB marshaller drops a "__proto__" key and
      // cannot marshal a map with a "constructor" key, and a purl may have either qualifier.
      qualifiers: Object.entries(p.qualifiers),
      subpath: p.subpath,
      purl: p.purl,
      filename: p.filename,
      downloadUrl: p.downloadUrl,
      md5: p.md5,
      sha1: p.sha1,
      sha256: p.sha256,
      sha512: p.sha512,
      description: p.description,
      homepageUrl: p.homepageUrl,
      copyright: p.copyright,
      supplier: p.supplier,
      licenseExpression: p.licenseExpression,
      licenseKeys: [...p.licenseKeys],
      countedLicenseKeys: [...p.countedLicenseKeys],
      declaredLicenseExpression: p.declaredLicenseExpression,
      unknownLicenses: [...p.unknownLicenses],
      // Only when something was recognised: most packages name their licenses by SPDX id.
      ...(p.resolvedFrom && p.resolvedFrom.length > 0 ? { resolvedFrom: p.resolvedFrom.map((r) => ({ ...r })) } : {}),
      usagePolicy: p.usagePolicy,
      vulnerabilities: p.vulnerabilities,
    }),
    fromItem: (item) => ({
      ...stored(item),
      type: String(item.type),
      namespace: String(item.namespace ?? ''),
      name: String(item.name),
      version: String(item.version ?? ''),
      qualifiers: qualifiersOf(item.qualifiers),
      subpath: String(item.subpath ?? ''),
      purl: String(item.purl),
      filename: String(item.filename ?? ''),
      downloadUrl: String(item.downloadUrl ?? ''),
      // Written before these fields existed: ''.
      md5: String(item.md5 ?? ''),
      sha1: String(item.sha1 ?? ''),
      sha256: String(item.sha256 ?? ''),
      sha512: String(item.sha512 ?? ''),
      description: String(item.description ?? ''),
      homepageUrl: String(item.homepageUrl ?? ''),
      copyright: String(item.copyright ?? ''),
      supplier: String(item.supplier ?? ''),
      licenseExpression: String(item.licenseExpression ?? ''),
      licenseKeys: (item.licenseKeys as string[] | undefined) ?? [],
      // Written before expressions could name reference licenses, every key was the dataspace's, counted
      // (or not, by refsCounted), and the text as written was the expression.
      countedLicenseKeys: (item.countedLicenseKeys as string[] | undefined) ?? (item.licenseKeys as string[] | undefined) ?? [],
      declaredLicenseExpression: String(item.declaredLicenseExpression ?? item.licenseExpression ?? ''),
      unknownLicenses: (item.unknownLicenses as string[] | undefined) ?? [],
      resolvedFrom: (item.resolvedFrom as Package['resolvedFrom']) ?? [],
      usagePolicy: (item.usagePolicy as string | null | undefined) ?? null,
      vulnerabilities: (item.vulnerabilities as Package['vulnerabilities'] | undefined) ?? {},
    }),
  },
  vulnerabilities: {
    type: 'VULNERABILITY',
    entity: 'Vulnerability',
    unique: (v) => v.vulnerabilityId,
    uniqueField: 'vulnerability_id',
    uniqueMessage: 'Vulnerability with this vulnerability_id already exists.',
    toAttributes: (v) => ({
      vulnerabilityId: v.vulnerabilityId,
      aliases: [...v.aliases],
      summary: v.summary,
      riskScore: v.riskScore,
      ...(v.source ? { source: v.source } : {}),
      // The affected packages are items of their own (vulnerabilityLinkWrites).
    }),
    fromItem: (item) => ({
      ...stored(item),
      vulnerabilityId: String(item.vulnerabilityId),
      aliases: (item.aliases as string[] | undefined) ?? [],
      summary: String(item.summary ?? ''),
      riskScore: item.riskScore === null || item.riskScore === undefined ? null : Number(item.riskScore),
      // Only on items written before the links were items of their own; VulnerabilityCollection reads the links.
      affectedPackages: ((item.affectedPackages as Item[] | undefined) ?? []).map(affectedOf),
      ...(VULNERABILITY_SOURCES.includes(item.source as VulnerabilitySource) ? { source: item.source as VulnerabilitySource } : {}),
    }),
  },
};

/** An affected package as its link item (or, written before those, the vulnerability's item) holds it. */
function affectedOf(item: Item): AffectedPackage {
  return {
    packageUuid: String(item.packageUuid),
    linkedDate: String(item.linkedDate),
    ...(Array.isArray(item.fixedVersions) ? { fixedVersions: item.fixedVersions as string[] } : {}),
    ...(typeof item.matchedBy === 'string' ? { matchedBy: item.matchedBy } : {}),
  };
}

/**
 * Vulnerabilities read from items written before their links were items of their own: their links
 * are in the vulnerability's item, and no link item exists yet (the next write writes them all).
 */
const linksInItem = new WeakSet<Vulnerability>();

/**
 * The transaction items that bring a vulnerability's link items (one per affected package, with its
 * linked date and its position in the list) from `before` to `after`: a Put for each link that is new
 * or moved or re-dated, a Delete for each it no longer has. Read whole, they are the vulnerability's
 * affected packages in their order, however many there are (one item held them before, up to 400 KB).
 */
export function vulnerabilityLinkWrites(tableName: string, before: Vulnerability | undefined, after: Vulnerability | undefined): TransactItem[] {
  const stored = before && !linksInItem.has(before) ? before.affectedPackages : [];
  const content = (link: AffectedPackage, position: number) => JSON.stringify([link.linkedDate, position, link.fixedVersions ?? null, link.matchedBy ?? null]);
  const was = new Map(stored.map((link, position) => [link.packageUuid, content(link, position)]));
  const writes: TransactItem[] = [];
  const vulnerability = (after ?? before)!;
  (after?.affectedPackages ?? []).forEach((link, position) => {
    if (was.get(link.packageUuid) === content(link, position)) return;
    writes.push({
      Put: {
        TableName: tableName,
        Item: {
          ...keys.vulnerabilityLink(vulnerability.uuid, link.packageUuid),
          entity: 'VulnerabilityLink',
          vulnerabilityUuid: vulnerability.uuid,
          packageUuid: link.packageUuid,
          linkedDate: link.linkedDate,
          position,
          ...(link.fixedVersions ? { fixedVersions: [...link.fixedVersions] } : {}),
          ...(link.matchedBy ? { matchedBy: link.matchedBy } : {}),
        },
      },
    });
  });
  const kept = new Set((after?.affectedPackages ?? []).map((link) => link.packageUuid));
  for (const packageUuid of was.keys()) {
    if (!kept.has(packageUuid)) writes.push({ Delete: { TableName: tableName, Key: keys.vulnerabilityLink(vulnerability.uuid, packageUuid) } });
  }
  return writes;
}

/** The vulnerabilities collection: each object read with its link items (its affected packages). */
class VulnerabilityCollection extends Collection<Vulnerability> {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    super(db, table, CATALOG_SPECS.vulnerabilities);
  }

  override async get(uuid: string): Promise<Vulnerability | undefined> {
    const found = await super.get(uuid);
    return found && (await this.withLinks([found], true))[0];
  }

  override async getByUnique(dataspace: string, values: readonly string[], consistent = false): Promise<Map<string, Vulnerability>> {
    const found = [...(await super.getByUnique(dataspace, values, consistent)).values()];
    return new Map((await this.withLinks(found, consistent)).map((v) => [v.vulnerabilityId, v]));
  }

  override async getMany(uuids: readonly string[], consistent = false): Promise<Vulnerability[]> {
    return this.withLinks(await super.getMany(uuids, consistent), consistent);
  }

  override async list(dataspace: string, offset: number, limit: number, options: ListOptions = {}): Promise<{ count: number; items: Vulnerability[] }> {
    const page = await super.list(dataspace, offset, limit, options);
    return { count: page.count, items: await this.withLinks(page.items, false) };
  }

  override async all(dataspace: string): Promise<Vulnerability[]> {
    return this.withLinks(await super.all(dataspace), false);
  }

  /** Each vulnerability with its links read from their items, in their order; one written before keeps those of its item. */
  private withLinks(vulnerabilities: Vulnerability[], consistent: boolean): Promise<Vulnerability[]> {
    return Promise.all(
      vulnerabilities.map(async (vulnerability) => {
        if (vulnerability.affectedPackages.length > 0) {
          linksInItem.add(vulnerability);
          return vulnerability;
        }
        const items = await queryAll(this.db, {
          ...partitionQueryInput(this.table, keys.linksOfVulnerability(vulnerability.uuid)),
          ...(consistent ? { ConsistentRead: true } : {}),
        });
        const affectedPackages = items
          .sort((a, b) => Number(a.position) - Number(b.position))
          .map(affectedOf);
        return { ...vulnerability, affectedPackages };
      }),
    );
  }
}

/** License item attributes that only the list's filters read. */
const SPDX_FOLDED = 'spdxKeyFolded';
const SEARCH_TEXT = 'searchText';

/** What GET /api/v2/licenses/ filters on, besides `key` (one reservation lookup instead). */
export interface LicenseListFilter {
  readonly criteria: Omit<LicenseCriteria, 'key'>;
  /**
   * For license items written before the folded copies existed, which are compared as stored: the SPDX
   * key spellings to take (the one asked, and the SPDX list's own), and the search words as typed.
   */
  readonly legacy: { readonly spdxLicenseKeys: readonly string[]; readonly words: readonly string[] };
}

/**
 * The FilterExpression of a license list. An item carries `spdxKeyFolded` and `searchText` from its
 * first write by this version on; one written before lacks them and is compared on its own attributes
 * with the legacy spellings, so it is still found when written as asked, until its next write.
 */
export function licenseFilter({ criteria, legacy }: LicenseListFilter): FilterClause | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts: string[] = [];
  const value = (v: unknown) => {
    const placeholder = `:w${Object.keys(values).length}`;
    values[placeholder] = v;
    return placeholder;
  };
  const name = (attribute: string) => {
    names[`#w${attribute}`] = attribute;
    return `#w${attribute}`;
  };
  if (criteria.spdxLicenseKey !== undefined) {
    const spellings = [...new Set([criteria.spdxLicenseKey, ...legacy.spdxLicenseKeys])].map(value).join(', ');
    parts.push(`(${name(SPDX_FOLDED)} = ${value(searchFold(criteria.spdxLicenseKey))} OR (attribute_not_exists(${name(SPDX_FOLDED)}) AND ${name('spdxLicenseKey')} IN (${spellings})))`);
  }
  if (criteria.category !== undefined) parts.push(`${name('category')} = ${value(criteria.category)}`);
  if (criteria.isException === true) parts.push(`${name('isException')} = ${value(true)}`);
  if (criteria.isException === false) parts.push(`(attribute_not_exists(${name('isException')}) OR ${name('isException')} = ${value(false)})`);
  for (const [i, term] of (criteria.terms ?? []).entries()) {
    const folded = value(term);
    const typed = legacy.words[i] !== undefined && legacy.words[i] !== term ? [value(legacy.words[i])] : [];
    const stored = ['key', 'name', 'shortName', 'spdxLicenseKey'].flatMap((attribute) => [folded, ...typed].map((v) => `contains(${name(attribute)}, ${v})`));
    parts.push(`(contains(${name(SEARCH_TEXT)}, ${folded}) OR (attribute_not_exists(${name(SEARCH_TEXT)}) AND (${stored.join(' OR ')})))`);
  }
  return parts.length > 0 ? { expression: parts.join(' AND '), names, values } : undefined;
}

export class CatalogStore {
  readonly usagePolicies: Collection<UsagePolicy>;
  readonly licenses: Collection<License>;
  readonly licenseMappings: Collection<LicenseMapping>;
  readonly packages: Collection<Package>;
  readonly vulnerabilities: VulnerabilityCollection;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.usagePolicies = new Collection(doc, tableName, CATALOG_SPECS.usagePolicies);
    this.licenses = new Collection(doc, tableName, CATALOG_SPECS.licenses);
    this.licenseMappings = new Collection(doc, tableName, CATALOG_SPECS.licenseMappings);
    this.packages = new Collection(doc, tableName, CATALOG_SPECS.packages);
    this.vulnerabilities = new VulnerabilityCollection(doc, tableName);
  }

  /** A license's own full text; undefined when it was never given one (strongly consistent: read with the license). */
  async licenseText(licenseUuid: string): Promise<string | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.licenseText(licenseUuid), ConsistentRead: true }));
    return Item ? String(Item.text ?? '') : undefined;
  }

  /** The own texts of these licenses, by license uuid (those never given one are absent): one BatchGetItem per 100. */
  async licenseTexts(licenseUuids: readonly string[]): Promise<Map<string, string>> {
    if (licenseUuids.length === 0) return new Map();
    const uuidOf = new Map(licenseUuids.map((uuid) => [keys.licenseText(uuid).PK, uuid]));
    const items = await batchGet(this.doc, this.tableName, licenseUuids.map((uuid) => keys.licenseText(uuid)));
    return new Map(items.flatMap((item) => (uuidOf.has(String(item.PK)) ? [[uuidOf.get(String(item.PK))!, String(item.text ?? '')] as const] : [])));
  }

  /** The transaction item that gives a license its own text (a string) or removes it (undefined), for Collection.write's `extra`. */
  licenseTextWrite(license: Pick<License, 'uuid' | 'dataspace'>, text: string | undefined): TransactItem {
    return text === undefined
      ? { Delete: { TableName: this.tableName, Key: keys.licenseText(license.uuid) } }
      : { Put: { TableName: this.tableName, Item: { ...keys.licenseText(license.uuid), entity: 'LicenseText', dataspace: license.dataspace, text } } };
  }

  /** The object of the collection a stream image is of; undefined for an image of anything else. */
  static fromImage<K extends keyof typeof CATALOG_SPECS>(collection: K, image: StreamImage | undefined): CatalogObject<K> | undefined {
    const spec: CollectionSpec<CatalogObject<K>> = CATALOG_SPECS[collection];
    const item = imageItem(image, spec.entity);
    return item && spec.fromItem(item);
  }

  /**
   * Writes a vulnerability and brings the packages it affects (before and after) in line: each
   * carries the link with the current score, or loses it. The packages are written first, in
   * transactions of at most 90, and the vulnerability last under its revision check, so a failure
   * part-way leaves the vulnerability as it was and a retry redoes every package.
   */
  async writeVulnerability(before: Vulnerability | undefined, after: Vulnerability | undefined): Promise<void> {
    const { set, remove } = vulnerabilityLinks(before, after);
    const id = (after ?? before)!.vulnerabilityId;
    const updates: TransactItem[] = [
      ...[...set].map(([packageUuid, link]): TransactItem => ({
        Update: {
          TableName: this.tableName,
          Key: keys.catalogObject('PACKAGE', packageUuid),
          // The package's revision moves too, so a package write that read the old links fails and retries.
          UpdateExpression: 'SET vulnerabilities.#id = :link, #rev = #rev + :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#id': id, '#rev': 'rev' },
          ExpressionAttributeValues: { ':link': link, ':one': 1 },
        },
      })),
      ...remove.map((packageUuid): TransactItem => ({
        Update: {
          TableName: this.tableName,
          Key: keys.catalogObject('PACKAGE', packageUuid),
          UpdateExpression: 'REMOVE vulnerabilities.#id SET #rev = #rev + :one',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#id': id, '#rev': 'rev' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      })),
    ];
    // The link items too: each package's link and the vulnerability's own list of them move together.
    updates.push(...vulnerabilityLinkWrites(this.tableName, before, after));
    while (updates.length > LINKS_PER_TRANSACTION) {
      await transact(this.doc, labelled('link', updates.splice(0, LINKS_PER_TRANSACTION)));
    }
    try {
      await transact(this.doc, [...this.vulnerabilities.writeItems(before, after), ...labelled('link', updates)]);
    } catch (error) {
      await this.vulnerabilities.rethrow(error, before, after);
    }
  }
}

function stored(item: Item): Stored {
  return {
    uuid: String(item.uuid),
    dataspace: String(item.dataspace),
    rev: Number(item.rev ?? 0),
    ...(item.refsCounted === true ? { refsCounted: true } : {}),
    ...(item.listCounted === true ? { listCounted: true } : {}),
  };
}

/** Whether the object, as read, was written with its references counted (objectItem marks it). */
export function isCounted(object: Stored): boolean {
  return object.refsCounted === true;
}

/**
 * Qualifiers as stored: [key, value] pairs, so one named `__proto__` is a key like any other (items
 * written before that hold a map).
 */
function qualifiersOf(stored: unknown): Record<string, string> {
  if (Array.isArray(stored)) return Object.fromEntries(stored as [string, string][]);
  return (stored as Record<string, string> | undefined) ?? {};
}
