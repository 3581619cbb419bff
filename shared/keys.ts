/**
 * Every key of the single table is built here, and only here.
 *
 * Entities and the access patterns they serve (docs/data-model.md has the full table):
 *   Dataspace    PK=DATASPACES            SK=DS#<name>          list dataspaces; get one
 *   User         PK=USER#<username>       SK=USER               get a user (auth, admin)
 *                GSI1PK=DS#<ds>#USERS     GSI1SK=USER#<username> list the users of a dataspace
 *   Group        PK=DS#<ds>               SK=GROUP#<name>       get a group; list groups of a dataspace
 *   Membership   PK=GROUP#<ds>#<name>     SK=MEMBER#<username>  list the members of a group
 *   API key      PK=APIKEY#<keyId>        SK=APIKEY             authenticate a request (one GetItem); its last use
 *                GSI1PK=DS#<ds>#APIKEYS   GSI1SK=<username>␁<name>   list a dataspace's keys by user, then name
 *                                                              (superusers); a user's own: the prefix <username>␁
 *   API key ref  PK=APIKEYREF#<uuid>      SK=APIKEYREF          find a key by its uuid (GET, DELETE), strongly consistent
 *   API key name PK=USER#<username>       SK=APIKEYNAME#<name>  names unique per user (conditional put); a user's keys,
 *                                                              strongly consistent (the admin CLI replaces them all);
 *                                                              the user item's apiKeyCount, in the same transactions,
 *                                                              holds a user to MAX_API_KEYS_PER_USER
 *   Product      PK=PRODUCT#<uuid>        SK=PRODUCT            get a product (with the caller's grants: one BatchGetItem)
 *                GSI1PK=DS#<ds>#PRODUCTS  GSI1SK=<sort key>     list a dataspace's products by name, version (superusers)
 *                GSI10PK=DS#<ds>#GATE#<fail|warn|pass|none>  GSI10SK=<sort key>   the products of a gate, in list order
 *                                                              (?gate=; `gate` is the last evaluation's policy status, written
 *                                                              in its commit; none: never evaluated; keys only, then read by key)
 *   Product name PK=DS#<ds>#PRODUCTNAME#<name>␁<version>  SK=UNIQUE   name + version unique in a dataspace
 *   Product count PK=DS#<ds>              SK=COUNT#PRODUCTS     the dataspace's product count (page 1 without counting)
 *   Grant        PK=PRODUCT#<uuid>        SK=GRANT#USER#<name> | GRANT#GROUP#<name>
 *                                                              a product's grants (permissions listing, access checks)
 *                GSI1PK=DS#<ds>#VIEWER#USER#<name> | DS#<ds>#VIEWER#GROUP#<name>   GSI1SK=<sort key>
 *                                                              the products a user or group may view, in list order
 *                                                              (set only while the grant holds view_product)
 *   Template     PK=RTEMPLATE#<uuid>      SK=RTEMPLATE          get a request template
 *                GSI1PK=DS#<ds>#RTEMPLATES GSI1SK=<name>␁<uuid> list a dataspace's templates by name
 *   Template name PK=DS#<ds>#RTEMPLATENAME#<name>  SK=UNIQUE    find a template by name; names unique per dataspace
 *   Priority     PK=DS#<ds>               SK=PRIORITY#<label>   get / list a dataspace's priorities (GET /api/v2/request_priorities/)
 *   Request      PK=REQUEST#<uuid>        SK=REQUEST            get a request and, in the same Query, its comments
 *                GSI2..GSI9 PK=DS#<ds>#REQUESTS, SK=<ordering value>␁<uuid>
 *                                                              one sorted index per ordering of the request list;
 *                                                              an equality filter on a field is a prefix of its index
 *   Comment      PK=REQUEST#<uuid>        SK=COMMENT#<created>#<uuid>  a request's comments, oldest first (a page of
 *                                                              them; the latest few with the request, in one Query
 *                                                              read newest first)
 *   Comment count PK=REQUEST#<uuid>       SK=COMMENTCOUNT       how many comments, and the last one's date: exact
 *                                                              counts without reading them (sorts between them and
 *                                                              the request); its condition numbers each comment
 *   Request counters PK=DS#<ds>#REQCOUNTERS[#<shard>]  SK=DS | USER#<username>   exact list counts, a counter an
 *                                                              attribute (total|status=open, private|requester=bob...)
 *                                                              of its group's item (shared/store/request-counters.ts)
 *   Request count (earlier layout) PK=DS#<ds>#REQCOUNT[#<shard>]  SK=<counter key>   folded into the groups by the migration
 *   Catalog object (usage policy, license, license mapping, package, vulnerability)
 *                PK=<TYPE>#<uuid>         SK=<TYPE>             get one
 *                GSI1PK=DS#<ds>#<TYPE>S   GSI1SK=<unique value, ≤ 900 bytes>␁<uuid>   list a dataspace's, in order
 *                                                              (all its licenses: to resolve license expressions)
 *                GSI10PK=DS#<ds>#PACKAGENAME#<name> | DS#<ds>#LICENSESPDX#<folded SPDX key>   GSI10SK=<unique value>␁<uuid>
 *                                                              the packages of a name, the licenses of an SPDX key, in
 *                                                              list order: ?name= and ?spdx_license_key= read their
 *                                                              matches only (a dataspace marked catalogLookupsIndexed)
 *   License text PK=LICENSE#<uuid>     SK=TEXT               a license's own full text (GET /api/v2/licenses/{uuid}/
 *                                                              only; absent: its reference license's), apart from the
 *                                                              license item that every expression's index reads
 *   Vulnerability link PK=VULNERABILITY#<uuid>  SK=AFFECTS#<package uuid>   the packages a vulnerability affects, one
 *                                                              item each (read with a Query, in their `position`):
 *                                                              no item limit on how many (vulnerabilities written
 *                                                              before hold them in their own item: affectedPackages)
 *   Unique value PK=DS#<ds>#<TYPE>#<unique value>  SK=UNIQUE   label / key / purl / vulnerability id / a mapping's
 *                                                              normalised text → uuid
 *                                                              (a license's and a policy's also count who names them:
 *                                                              usedByPackages, usedByLicenses)
 *   Product package PK=PRODUCT#<uuid>     SK=PACKAGE#<package uuid>      a product's packages (unique per product)
 *                GSI1PK=DS#<ds>#PRODUCTPACKAGES  GSI1SK=<created>␁<uuid>  list a dataspace's
 *                GSI10PK=PACKAGE#<package uuid>#PRODUCTS  GSI10SK=<product uuid>   the products holding a package
 *                                                              (re-evaluation fan-out; GET product_packages/?package=:
 *                                                              its product packages then read by key)
 *   Analysis     PK=PRODUCT#<uuid>        SK=ANALYSIS#<package uuid>#<vulnerability id>  (unique per product package
 *                                                              and vulnerability; read with the product's packages)
 *                GSI1PK=DS#<ds>#ANALYSES  GSI1SK=<created>␁<uuid>  list a dataspace's
 *   Pointer      PK=PRODUCTPACKAGE#<uuid> | ANALYSIS#<uuid>  SK=POINTER   find a product package or analysis by uuid
 *   Policy config PK=DS#<ds>              SK=POLICYCONFIG       the dataspace's policy rule configuration
 *   Violation    PK=PRODUCT#<uuid>        SK=VIOLATION#<rule type>   one per product and rule (read with the product)
 *   Policy state PK=PRODUCT#<uuid>        SK=POLICYSTATE        the product's evaluation version and time
 *   Violation packages PK=PRODUCT#<uuid>  SK=VIOLATIONPKG#<rule type>#<list id>#<first index>
 *                                                              the packages behind a violation as one evaluation found them
 *                                                              (its list id: state version and a random part), in chunks of at most 32 KB
 *                                                              (the drill-down's pages); after every other item of the
 *                                                              partition but the waivers ('P' > '#'), so partition reads can
 *                                                              stop before them
 *   Violation day PK=DS#<ds>#VIOLATIONDAYS  SK=DAY#<yyyy-mm-dd> | TOTAL   per UTC day the violations detected, resolved and
 *                                                              the net change of the active ones; TOTAL: active now, and per rule
 *                                                              (active#<rule type>) the products in active violation. Kept by the
 *                                                              stream router from the violation items' records (ADD: any order);
 *                                                              the portfolio reads the days of its window and TOTAL in one Query
 *   Stream marker PK=STREAMREC#<event id>  SK=<consumer>        a stream record a consumer has counted (written in the same
 *                                                              transaction as its counts: a record delivered twice counts once; TTL 2 days)
 *   Policy waiver PK=PRODUCT#<uuid>       SK=WAIVER#<uuid>      a product's waivers (listed with it, read by its evaluation:
 *                                                              one Query of the prefix); get / revoke one by product and uuid
 *                                                              (GET /api/v2/policy_waivers/: that Query for each product the caller may view)
 *                GSI10PK=WAIVEREXPIRY     GSI10SK=<expires_at, UTC>␁<product uuid>␁<uuid>
 *                                                              the waivers whose expiry has passed and that are not yet marked
 *                                                              expired (sparse: removed when marked expired or revoked), oldest
 *                                                              first: the expiry job's one Query a minute
 *   Advisory     PK=ADVISORY#<id>         SK=ADVISORY           a published advisory (an OSV record, checked and bounded:
 *                                                              shared/domain/advisories.ts), once per deployment, not a
 *                                                              dataspace's; with its content hash and the package keys it names
 *   Advisory package PK=ADVPKG#<ecosystem>#<package>  SK=ADVISORY#<id>   the advisories naming a package (its OSV ecosystem
 *                                                              and name as the ecosystem compares names: advisory-matching.ts
 *                                                              osvPackageKey), each with what matching and linking need (its
 *                                                              entries for that package, aliases, summary, score, withdrawn):
 *                                                              one Query a package
 *                GSI11PK=OSVPKG#<ecosystem>#<package>  GSI11SK=<ds>␁<package uuid>   on a package item: the packages
 *                                                              of every dataspace that an advisory's package key names (keys only)
 *                                                              (a new or changed advisory is matched against these, not the catalog)
 *                GSI11PK=ADVISORIES#<ecosystem>#<shard 0-3>  GSI11SK=<id>   on a record item: the records of an
 *                                                              ecosystem (its first affected entry's), keys only, counted
 *                                                              (Select COUNT) after each load; four shards, so that a whole
 *                                                              ecosystem's load is not held to one index partition's writes
 *   Advisory source PK=ADVISORYSOURCES    SK=<ecosystem>        an ecosystem's load and sync state (when, how many, the
 *                                                              last `modified` synced): one Query lists them all
 *   Outbox event PK=OUTBOX#<event id>     SK=EVENT              an event to publish: the stream carries it to the bus
 *   Webhook      PK=WEBHOOK#<uuid>        SK=WEBHOOK            a subscription
 *                GSI1PK=DS#<ds>#WEBHOOKS  GSI1SK=<created>␁<uuid>   list a dataspace's subscriptions
 *   Delivery     PK=WEBHOOK#<uuid>        SK=DELIVERY#<delivery id>   an event to deliver to it: attempts, delivered (TTL 30 days)
 *   Webhook event PK=WEBHOOKEVENT#<event id> SK=WEBHOOKEVENT     an event's envelope, once for all its deliveries (for
 *                                                              retries and redelivery), and the fan-out's claim on it (TTL 30 days)
 *   Attempt      PK=WEBHOOK#<uuid>        SK=ATTEMPT#<time>#<id>      its delivery log, newest first (TTL 30 days)
 *   SBOM import  PK=SBOMIMPORT#<uuid>     SK=SBOMIMPORT         an import (GET /api/v2/sbom_imports/{uuid}/; the upload's S3 key names it)
 *   List count   PK=DS#<ds>#COUNT#<collection>[#<shard>]  SK=<counter key>   exact counts of a catalog list
 *                                                              and of each of its documented equality filters
 *                                                              (shared/store/counters.ts: a write adds to one random shard,
 *                                                              a count reads every shard of its counter in one BatchGetItem)
 *   Audit record PK=DS#<ds>#AUDIT         SK=<date>#<uuid>      a dataspace's audit trail, newest first (since/until: a key range);
 *                                                              one partition a dataspace: its writes are the dataspace's own
 *                                                              API writes, throttled per dataspace, far below a partition's 1,000 a second
 *                GSI10PK=DS#<ds>#AUDITOBJ#<object uuid>  GSI10SK=<date>#<uuid>  an object's history (?object=; keys only, then read by key)
 *                GSI9PK=DS#<ds>#AUDITUSER#<username>     GSI9SK=<date>#<uuid>   a user's changes (?user=; keys only on an INCLUDE table, then read by key)
 *                                                              (TTL: expiresAt, AUDIT_RETENTION_DAYS after its date)
 *   Deletion marker PK=DELETEDBY#<PK of the deleted item>  SK=<its SK>   who deletes an audited item: written just before the
 *                                                              delete, read by the audit writer on the REMOVE (TTL 2 days)
 *   Rate limit   PK=RATE#<keyId>          SK=RATE               an API key's throttling state (GCRA `tat`, TTL a minute past it)
 *   Dataspace quota PK=RATE#DS#<ds>       SK=RATE               a dataspace's throttling state, across its keys (GCRA `tat`, TTL; key ids and names hold no '#')
 *   Auth failures PK=AUTHFAIL#<source>    SK=AUTHFAIL           a source address's failed-authentication throttling state (GCRA `tat`, TTL)
 *
 * Usernames are global, as in DejaCode (one user belongs to exactly one dataspace); group names are
 * unique within their dataspace. Names never contain '#': the load file and the services reject it.
 */
import { clipUtf8 } from './domain/text.ts';

export type Key = { PK: string; SK: string };

/**
 * A catalog object's place in its dataspace's list: its unique value, clipped so the sort key stays
 * under DynamoDB's 1,024 bytes (a purl may have 1,500), then its uuid. Objects equal on the clipped
 * bytes sort by uuid; filters compare the objects' own fields.
 */
export function catalogSortKey(unique: string, uuid: string): string {
  return `${clipUtf8(unique, CATALOG_SORT_BYTES)}\u0001${uuid}`;
}
const CATALOG_SORT_BYTES = 900;

/** The lists whose counts are kept in list count items (requests keep theirs in request count items). */
export type CountedCollection = 'PRODUCTS' | 'USAGEPOLICIES' | 'LICENSES' | 'LICENSEMAPPINGS' | 'PACKAGES' | 'VULNERABILITIES' | 'PRODUCTPACKAGES';

/** Counter items are sharded; shard 0 keeps the unsuffixed key, so counts written before sharding still count. */
const shardSuffix = (shard: number) => (shard === 0 ? '' : `#${shard}`);

/** The index shards an ecosystem's advisory records are spread over (keys.advisoryInEcosystem). */
export const ADVISORY_SHARDS = 4;
/** A record's shard: a 31-polynomial of its id's characters, stable across processes (no hashing module here). */
function advisoryShard(id: string): number {
  let sum = 0;
  for (let i = 0; i < id.length; i++) sum = (sum * 31 + id.charCodeAt(i)) >>> 0;
  return sum % ADVISORY_SHARDS;
}

/** The catalog's object types, as they appear in keys. */
export type CatalogType = 'USAGEPOLICY' | 'LICENSE' | 'LICENSEMAPPING' | 'PACKAGE' | 'VULNERABILITY';
/** The catalog lookups by a field that is not unique: packages by name, licenses by SPDX key. */
export type CatalogLookup = 'PACKAGENAME' | 'LICENSESPDX';

export const keys = {
  dataspace: (name: string): Key => ({ PK: 'DATASPACES', SK: `DS#${name}` }),
  dataspacesPartition: 'DATASPACES',

  user: (username: string): Key => ({ PK: `USER#${username}`, SK: 'USER' }),
  userInDataspace: (dataspace: string, username: string) => ({
    GSI1PK: `DS#${dataspace}#USERS`,
    GSI1SK: `USER#${username}`,
  }),
  usersOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#USERS` }),

  group: (dataspace: string, name: string): Key => ({ PK: `DS#${dataspace}`, SK: `GROUP#${name}` }),
  groupsOfDataspace: (dataspace: string) => ({ PK: `DS#${dataspace}`, skPrefix: 'GROUP#' }),

  membership: (dataspace: string, group: string, username: string): Key => ({
    PK: `GROUP#${dataspace}#${group}`,
    SK: `MEMBER#${username}`,
  }),
  membersOfGroup: (dataspace: string, group: string) => ({ PK: `GROUP#${dataspace}#${group}`, skPrefix: 'MEMBER#' }),

  apiKey: (keyId: string): Key => ({ PK: `APIKEY#${keyId}`, SK: 'APIKEY' }),
  /** A key in its dataspace's list: by user, then name (␁ sorts below every character either may hold). */
  apiKeyInDataspace: (dataspace: string, username: string, name: string) => ({
    GSI1PK: `DS#${dataspace}#APIKEYS`,
    GSI1SK: `${username}\u0001${name}`,
  }),
  /** A dataspace's keys; with `username`, that user's only. */
  apiKeysOfDataspace: (dataspace: string, username?: string) => ({
    index: 'GSI1' as const,
    indexPK: `DS#${dataspace}#APIKEYS`,
    ...(username === undefined ? {} : { skPrefix: `${username}\u0001` }),
  }),
  apiKeyRef: (uuid: string): Key => ({ PK: `APIKEYREF#${uuid}`, SK: 'APIKEYREF' }),
  /** In the user's own partition, beside the user item: the name's reservation, pointing at its key. */
  apiKeyName: (username: string, name: string): Key => ({ PK: `USER#${username}`, SK: `APIKEYNAME#${name}` }),
  apiKeyNamesOfUser: (username: string) => ({ PK: `USER#${username}`, skPrefix: 'APIKEYNAME#' }),
  rateLimit: (keyId: string): Key => ({ PK: `RATE#${keyId}`, SK: 'RATE' }),
  dataspaceRateLimit: (dataspace: string): Key => ({ PK: `RATE#DS#${dataspace}`, SK: 'RATE' }),
  /** `source`: an IPv4 address or an IPv6 /64 (shared/http/auth-failures.ts). */
  authFailures: (source: string): Key => ({ PK: `AUTHFAIL#${source}`, SK: 'AUTHFAIL' }),

  product: (uuid: string): Key => ({ PK: `PRODUCT#${uuid}`, SK: 'PRODUCT' }),
  /** List order: name, then version, then uuid; ␁ sorts below every character a name may hold. */
  productSortKey: (name: string, version: string, uuid: string) => `${name}\u0001${version}\u0001${uuid}`,
  productInDataspace: (dataspace: string, sortKey: string) => ({ GSI1PK: `DS#${dataspace}#PRODUCTS`, GSI1SK: sortKey }),
  productsOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#PRODUCTS` }),
  /** Prefix of the sort keys of products with this name (and version, when given). */
  productSortPrefix: (name: string, version?: string) =>
    version === undefined ? `${name}\u0001` : `${name}\u0001${version}\u0001`,
  productName: (dataspace: string, name: string, version: string): Key => ({
    PK: `DS#${dataspace}#PRODUCTNAME#${name}\u0001${version}`,
    SK: 'UNIQUE',
  }),
  productCount: (dataspace: string): Key => ({ PK: `DS#${dataspace}`, SK: 'COUNT#PRODUCTS' }),
  /** The product's entry in its gate's list (`none` until its first evaluation), in list order. */
  productInGate: (dataspace: string, gate: string, sortKey: string) => ({ GSI10PK: `DS#${dataspace}#GATE#${gate}`, GSI10SK: sortKey }),
  productsOfGate: (dataspace: string, gate: string) => ({ index: 'GSI10' as const, indexPK: `DS#${dataspace}#GATE#${gate}` }),

  grant: (productUuid: string, principal: { type: 'user' | 'group'; name: string }): Key => ({
    PK: `PRODUCT#${productUuid}`,
    SK: `GRANT#${principal.type.toUpperCase()}#${principal.name}`,
  }),
  grantsOfProduct: (productUuid: string) => ({ PK: `PRODUCT#${productUuid}`, skPrefix: 'GRANT#' }),
  viewer: (dataspace: string, principal: { type: 'user' | 'group'; name: string }, sortKey: string) => ({
    GSI1PK: `DS#${dataspace}#VIEWER#${principal.type.toUpperCase()}#${principal.name}`,
    GSI1SK: sortKey,
  }),
  template: (uuid: string): Key => ({ PK: `RTEMPLATE#${uuid}`, SK: 'RTEMPLATE' }),
  templateInDataspace: (dataspace: string, name: string, uuid: string) => ({
    GSI1PK: `DS#${dataspace}#RTEMPLATES`,
    GSI1SK: `${name}\u0001${uuid}`,
  }),
  templatesOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#RTEMPLATES` }),
  templateName: (dataspace: string, name: string): Key => ({ PK: `DS#${dataspace}#RTEMPLATENAME#${name}`, SK: 'UNIQUE' }),

  priority: (dataspace: string, label: string): Key => ({ PK: `DS#${dataspace}`, SK: `PRIORITY#${label}` }),
  prioritiesOfDataspace: (dataspace: string) => ({ PK: `DS#${dataspace}`, skPrefix: 'PRIORITY#' }),

  request: (uuid: string): Key => ({ PK: `REQUEST#${uuid}`, SK: 'REQUEST' }),
  /** The request item and its comments: one partition. */
  requestPartition: (uuid: string) => ({ PK: `REQUEST#${uuid}` }),
  comment: (requestUuid: string, createdDate: string, uuid: string): Key => ({
    PK: `REQUEST#${requestUuid}`,
    SK: `COMMENT#${createdDate}#${uuid}`,
  }),
  /** A request's comments, oldest first (the comment count sorts after them: its SK does not start with COMMENT#). */
  commentsOfRequest: (requestUuid: string) => ({ PK: `REQUEST#${requestUuid}`, skPrefix: 'COMMENT#' }),
  commentCount: (requestUuid: string): Key => ({ PK: `REQUEST#${requestUuid}`, SK: 'COMMENTCOUNT' }),
  /** The sort-key range of a request's comments made at or before `until` (an event's view of the request). */
  commentsUntil: (requestUuid: string, until: string) => ({ PK: `REQUEST#${requestUuid}`, from: 'COMMENT#', to: `COMMENT#${until}#\uffff` }),
  /** The index of each ordering of the request list. */
  requestOrderingIndex: {
    title: 'GSI2',
    request_template: 'GSI3',
    status: 'GSI4',
    priority: 'GSI5',
    assignee: 'GSI6',
    requester: 'GSI7',
    created_date: 'GSI8',
    last_modified_date: 'GSI9',
  } as const,
  requestsPartition: (dataspace: string) => `DS#${dataspace}#REQUESTS`,
  /** A request counter before counters were grouped: one item per counter and shard (read by the migration only). */
  requestCount: (dataspace: string, counter: string, shard = 0): Key => ({ PK: `DS#${dataspace}#REQCOUNT${shardSuffix(shard)}`, SK: counter }),
  legacyRequestCounts: (dataspace: string, shard: number) => ({ PK: `DS#${dataspace}#REQCOUNT${shardSuffix(shard)}` }),
  /** One shard of a group of request counters (shared/domain/request.ts counterGroup): `DS` or `USER#<username>`. */
  requestCounterGroup: (dataspace: string, group: string, shard = 0): Key => ({ PK: `DS#${dataspace}#REQCOUNTERS${shardSuffix(shard)}`, SK: group }),
  listCount: (dataspace: string, collection: CountedCollection, counter: string, shard = 0): Key => ({
    PK: `DS#${dataspace}#COUNT#${collection}${shardSuffix(shard)}`,
    SK: counter,
  }),

  catalogObject: (type: CatalogType, uuid: string): Key => ({ PK: `${type}#${uuid}`, SK: type }),
  catalogInDataspace: (type: CatalogType, dataspace: string, unique: string, uuid: string) => ({
    GSI1PK: `DS#${dataspace}#${type}S`,
    GSI1SK: catalogSortKey(unique, uuid),
  }),
  catalogOfDataspace: (type: CatalogType, dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#${type}S` }),
  /** The lookup entry of a package by name, or of a license by SPDX key (folded): a sparse, keys-only GSI10 entry. */
  catalogLookup: (dataspace: string, lookup: CatalogLookup, value: string, unique: string, uuid: string) => ({
    GSI10PK: `DS#${dataspace}#${lookup}#${value}`,
    GSI10SK: catalogSortKey(unique, uuid),
  }),
  catalogLookupOf: (dataspace: string, lookup: CatalogLookup, value: string) => ({ index: 'GSI10' as const, indexPK: `DS#${dataspace}#${lookup}#${value}` }),
  /** A license's own full text, apart from the license so that the license reads (every expression's index) do not carry it. */
  licenseText: (licenseUuid: string): Key => ({ PK: `LICENSE#${licenseUuid}`, SK: 'TEXT' }),
  catalogUnique: (type: CatalogType, dataspace: string, unique: string): Key => ({ PK: `DS#${dataspace}#${type}#${unique}`, SK: 'UNIQUE' }),
  vulnerabilityLink: (vulnerabilityUuid: string, packageUuid: string): Key => ({ PK: `VULNERABILITY#${vulnerabilityUuid}`, SK: `AFFECTS#${packageUuid}` }),
  linksOfVulnerability: (vulnerabilityUuid: string) => ({ PK: `VULNERABILITY#${vulnerabilityUuid}`, skPrefix: 'AFFECTS#' }),

  productPackage: (productUuid: string, packageUuid: string): Key => ({ PK: `PRODUCT#${productUuid}`, SK: `PACKAGE#${packageUuid}` }),
  packagesOfProduct: (productUuid: string) => ({ PK: `PRODUCT#${productUuid}`, skPrefix: 'PACKAGE#' }),
  productPackageInDataspace: (dataspace: string, createdDate: string, uuid: string) => ({
    GSI1PK: `DS#${dataspace}#PRODUCTPACKAGES`,
    GSI1SK: `${createdDate}\u0001${uuid}`,
  }),
  productPackagesOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#PRODUCTPACKAGES` }),
  productHoldingPackage: (packageUuid: string, productUuid: string) => ({ GSI10PK: `PACKAGE#${packageUuid}#PRODUCTS`, GSI10SK: productUuid }),
  productsHoldingPackage: (packageUuid: string) => ({ index: 'GSI10' as const, indexPK: `PACKAGE#${packageUuid}#PRODUCTS` }),
  analysis: (productUuid: string, packageUuid: string, vulnerabilityId: string): Key => ({
    PK: `PRODUCT#${productUuid}`,
    SK: `ANALYSIS#${packageUuid}#${vulnerabilityId}`,
  }),
  analysesOfProduct: (productUuid: string) => ({ PK: `PRODUCT#${productUuid}`, skPrefix: 'ANALYSIS#' }),
  analysisInDataspace: (dataspace: string, createdDate: string, uuid: string) => ({
    GSI1PK: `DS#${dataspace}#ANALYSES`,
    GSI1SK: `${createdDate}\u0001${uuid}`,
  }),
  analysesOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#ANALYSES` }),
  pointer: (type: 'PRODUCTPACKAGE' | 'ANALYSIS', uuid: string): Key => ({ PK: `${type}#${uuid}`, SK: 'POINTER' }),
  /** Everything a product holds: itself, its grants, packages and analyses, in one partition. */
  productPartition: (productUuid: string) => ({ PK: `PRODUCT#${productUuid}` }),

  policyConfig: (dataspace: string): Key => ({ PK: `DS#${dataspace}`, SK: 'POLICYCONFIG' }),
  violation: (productUuid: string, ruleType: string): Key => ({ PK: `PRODUCT#${productUuid}`, SK: `VIOLATION#${ruleType}` }),
  policyState: (productUuid: string): Key => ({ PK: `PRODUCT#${productUuid}`, SK: 'POLICYSTATE' }),
  violationPackages: (productUuid: string, ruleType: string, listId: string, first: number): Key => ({
    PK: `PRODUCT#${productUuid}`,
    SK: `VIOLATIONPKG#${ruleType}#${listId}#${String(first).padStart(9, '0')}`,
  }),
  violationPackagesOf: (productUuid: string, ruleType: string, listId: string) => ({
    PK: `PRODUCT#${productUuid}`,
    skPrefix: `VIOLATIONPKG#${ruleType}#${listId}#`,
  }),
  violationDay: (dataspace: string, date: string): Key => ({ PK: `DS#${dataspace}#VIOLATIONDAYS`, SK: `DAY#${date}` }),
  violationTotals: (dataspace: string): Key => ({ PK: `DS#${dataspace}#VIOLATIONDAYS`, SK: 'TOTAL' }),
  /** The days from `from` on and, sorting after them, TOTAL: one Query. */
  violationDaysFrom: (dataspace: string, from: string) => ({ PK: `DS#${dataspace}#VIOLATIONDAYS`, from: `DAY#${from}`, to: 'TOTAL' }),
  streamMarker: (eventId: string, consumer: string): Key => ({ PK: `STREAMREC#${eventId}`, SK: consumer }),
  /** The sort keys of a product's partition below this one are everything but its violation package lists. */
  violationPackagesStart: 'VIOLATIONPKG#',
  waiver: (productUuid: string, uuid: string): Key => ({ PK: `PRODUCT#${productUuid}`, SK: `WAIVER#${uuid}` }),
  waiversOfProduct: (productUuid: string) => ({ PK: `PRODUCT#${productUuid}`, skPrefix: 'WAIVER#' }),
  /** A waiver's entry in the expiry index while it is neither expired (marked) nor revoked; `expiresDate` in UTC, so entries sort by time. */
  waiverExpiry: (expiresDate: string, productUuid: string, uuid: string) => ({
    GSI10PK: 'WAIVEREXPIRY',
    GSI10SK: `${expiresDate}\u0001${productUuid}\u0001${uuid}`,
  }),
  /** The entries of waivers expiring at or before `until` (UTC, as the entries hold it): below the bound. */
  waiversExpiringBy: (until: string) => ({ index: 'GSI10' as const, indexPK: 'WAIVEREXPIRY', below: `${until}\u0002` }),
  outboxEvent: (eventId: string): Key => ({ PK: `OUTBOX#${eventId}`, SK: 'EVENT' }),

  advisory: (id: string): Key => ({ PK: `ADVISORY#${id}`, SK: 'ADVISORY' }),
  /** `packageKey`: advisory-matching.ts osvPackageKey (`<ecosystem>#<name>`). */
  advisoryOfPackage: (packageKey: string, id: string): Key => ({ PK: `ADVPKG#${packageKey}`, SK: `ADVISORY#${id}` }),
  advisoriesOfPackage: (packageKey: string) => ({ PK: `ADVPKG#${packageKey}`, skPrefix: 'ADVISORY#' }),
  /** A package's entry under its OSV package key (set on the package item when its purl names one). */
  packageOfAdvisoryKey: (packageKey: string, dataspace: string, uuid: string) => ({ GSI11PK: `OSVPKG#${packageKey}`, GSI11SK: `${dataspace}\u0001${uuid}` }),
  packagesOfAdvisoryKey: (packageKey: string) => ({ index: 'GSI11' as const, indexPK: `OSVPKG#${packageKey}` }),
  /** A record's entry among its ecosystem's records (counted, never listed): the shard from its id. */
  advisoryInEcosystem: (ecosystem: string, id: string) => ({ GSI11PK: `ADVISORIES#${ecosystem}#${advisoryShard(id)}`, GSI11SK: id }),
  advisoriesOfEcosystem: (ecosystem: string, shard: number) => ({ index: 'GSI11' as const, indexPK: `ADVISORIES#${ecosystem}#${shard}` }),
  advisorySource: (ecosystem: string): Key => ({ PK: 'ADVISORYSOURCES', SK: ecosystem }),
  advisorySources: { PK: 'ADVISORYSOURCES' },

  webhook: (uuid: string): Key => ({ PK: `WEBHOOK#${uuid}`, SK: 'WEBHOOK' }),
  webhookInDataspace: (dataspace: string, createdDate: string, uuid: string) => ({
    GSI1PK: `DS#${dataspace}#WEBHOOKS`,
    GSI1SK: `${createdDate}\u0001${uuid}`,
  }),
  webhooksOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, indexPK: `DS#${dataspace}#WEBHOOKS` }),
  delivery: (webhookUuid: string, deliveryId: string): Key => ({ PK: `WEBHOOK#${webhookUuid}`, SK: `DELIVERY#${deliveryId}` }),
  attempt: (webhookUuid: string, at: string, id: string): Key => ({ PK: `WEBHOOK#${webhookUuid}`, SK: `ATTEMPT#${at}#${id}` }),
  attemptsOf: (webhookUuid: string) => ({ PK: `WEBHOOK#${webhookUuid}`, skPrefix: 'ATTEMPT#' }),
  webhookEvent: (eventId: string): Key => ({ PK: `WEBHOOKEVENT#${eventId}`, SK: 'WEBHOOKEVENT' }),

  sbomImport: (uuid: string): Key => ({ PK: `SBOMIMPORT#${uuid}`, SK: 'SBOMIMPORT' }),

  auditRecord: (dataspace: string, date: string, uuid: string): Key => ({ PK: `DS#${dataspace}#AUDIT`, SK: `${date}#${uuid}` }),
  // Both index entries hold keys only (GSI10 is KEYS_ONLY; GSI9 projects request attributes, which no
  // audit record has): an entry costs one write unit however large its record, where a copy in GSI1 (ALL)
  // cost as much as the record. A page reads its records by key.
  auditOfObject: (dataspace: string, object: string, date: string, uuid: string) => ({ GSI10PK: `DS#${dataspace}#AUDITOBJ#${object}`, GSI10SK: `${date}#${uuid}` }),
  auditOfUser: (dataspace: string, username: string, date: string, uuid: string) => ({ GSI9PK: `DS#${dataspace}#AUDITUSER#${username}`, GSI9SK: `${date}#${uuid}` }),
  /** The audit trail to list: the dataspace's, an object's or a user's; every one sorted by `<date>#<order>#<uuid>`. */
  auditTrail: (dataspace: string, by: { object?: string | undefined; user?: string | undefined }) =>
    by.object !== undefined
      ? { index: 'GSI10' as const, indexPK: `DS#${dataspace}#AUDITOBJ#${by.object}` }
      : by.user !== undefined
        ? { index: 'GSI9' as const, indexPK: `DS#${dataspace}#AUDITUSER#${by.user}` }
        : { PK: `DS#${dataspace}#AUDIT` },
  deletionMarker: (deleted: Key): Key => ({ PK: `DELETEDBY#${deleted.PK}`, SK: deleted.SK }),

  viewablePartition: (dataspace: string, principal: { type: 'user' | 'group'; name: string }) => ({
    index: 'GSI1' as const,
    indexPK: `DS#${dataspace}#VIEWER#${principal.type.toUpperCase()}#${principal.name}`,
  }),
} as const;

/** The entity type stored on every item, so stream consumers can tell records apart without parsing keys. */
export type EntityType =
  | 'Dataspace'
  | 'User'
  | 'Group'
  | 'Membership'
  | 'ApiKey'
  | 'ApiKeyRef'
  | 'ApiKeyName'
  | 'Product'
  | 'ProductName'
  | 'ProductCount'
  | 'ProductGrant'
  | 'RequestTemplate'
  | 'RequestTemplateName'
  | 'Priority'
  | 'Request'
  | 'RequestComment'
  | 'RequestCommentCount'
  | 'RequestCount'
  | 'RequestCounters'
  | 'ListCount'
  | 'UsagePolicy'
  | 'License'
  | 'LicenseMapping'
  | 'LicenseText'
  | 'Package'
  | 'Vulnerability'
  | 'VulnerabilityLink'
  | 'CatalogUnique'
  | 'ProductPackage'
  | 'Analysis'
  | 'Pointer'
  | 'PolicyConfig'
  | 'Violation'
  | 'ViolationPackages'
  | 'PolicyState'
  | 'PolicyWaiver'
  | 'OutboxEvent'
  | 'Advisory'
  | 'AdvisoryPackage'
  | 'AdvisorySource'
  | 'Webhook'
  | 'WebhookDelivery'
  | 'WebhookAttempt'
  | 'WebhookEvent'
  | 'SbomImport'
  | 'RateLimit'
  | 'DataspaceRateLimit'
  | 'AuthFailures'
  | 'AuditRecord'
  | 'DeletionMarker'
  | 'ViolationDay'
  | 'StreamMarker';

/**
 * The keys of the items the audit trail records (shared/domain/audit.ts AUDITED_TYPES): a delete of one
 * writes its deletion marker first, since a REMOVE's old image cannot say who deleted it.
 */
const AUDITED_KEYS: readonly (readonly [pk: RegExp, sk: RegExp])[] = [
  [/^PRODUCT#[^#]+$/, /^(PRODUCT|GRANT#.*|PACKAGE#.*|ANALYSIS#.*|WAIVER#.*)$/],
  [/^REQUEST#[^#]+$/, /^(REQUEST|COMMENT#.*)$/],
  [/^(USAGEPOLICY|LICENSE|LICENSEMAPPING|PACKAGE|VULNERABILITY)#[^#]+$/, /^(USAGEPOLICY|LICENSE|LICENSEMAPPING|PACKAGE|VULNERABILITY)$/],
  [/^DS#[^#]+$/, /^POLICYCONFIG$/],
  [/^WEBHOOK#[^#]+$/, /^WEBHOOK$/],
  [/^APIKEY#[^#]+$/, /^APIKEY$/],
];

/** True when `key` may be an audited item's (see AUDITED_KEYS). */
export function isAuditedKey(key: { PK?: unknown; SK?: unknown } | undefined): boolean {
  const { PK, SK } = key ?? {};
  return typeof PK === 'string' && typeof SK === 'string' && AUDITED_KEYS.some(([pk, sk]) => pk.test(PK) && sk.test(SK));
}
