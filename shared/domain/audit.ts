/**
 * The audit trail's domain: from one change of the table (the entity's item before and after, as the
 * stream's images hold them) the audit record of that change, or none. Pure: the caller passes the
 * record's id, date and actor (the stream consumer derives them from the stream record and the item).
 *
 * Only the fields each object type lists below ever reach `changes`: an allow-list, so that secrets
 * (a webhook's secret, a key's hash and id) and bookkeeping (rev, index keys, counters, search copies,
 * a key's lastUsedAt, correlation ids) never do, including any attribute added to an item later. An
 * update that changes none of them is no audit record (a key's use, a product's revision bump).
 */

export const AUDIT_ACTIONS = ['create', 'update', 'delete'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change: the username, and the name of the API key used (when it had one); when, if known. */
export interface Actor {
  readonly user: string | null;
  readonly apiKey: string | null;
  /** ISO 8601, UTC: when the API sent the write (absent for a write made outside the API). */
  readonly at?: string | undefined;
  /** The job the write was part of (`sbom_import:<uuid>`), recorded once as itself, not write by write. */
  readonly via?: string | undefined;
}

export interface AuditRecord {
  readonly uuid: string;
  readonly dataspace: string;
  /** ISO 8601, UTC. */
  readonly date: string;
  readonly action: AuditAction;
  readonly objectType: string;
  /** The object's uuid (a rule configuration: its dataspace's name; a permission: its product's uuid). */
  readonly object: string;
  readonly objectRepr: string;
  readonly user: string | null;
  readonly apiKey: string | null;
  /** `{field: [old, new]}`: null for a field the object did not have (a create's old, a delete's new). */
  readonly changes: Readonly<Record<string, readonly [unknown, unknown]>>;
}

type Item = Readonly<Record<string, unknown>>;

/** The kinds of objects a record may name by reference. */
export const REF_KINDS = ['product', 'package', 'request'] as const;
export type RefKind = (typeof REF_KINDS)[number];
/** A related object's name, or its uuid when it is not known (deleted, or never there). */
export type Namer = (kind: RefKind, uuid: string) => string;
/** The names an audit writer found, by `<kind>:<uuid>` (refKey). */
export type Names = ReadonlyMap<string, string>;
export const refKey = (kind: RefKind, uuid: string) => `${kind}:${uuid}`;

interface AuditedType {
  readonly objectType: string;
  /** Item attribute → the field name the record uses (the API's). */
  readonly fields: Readonly<Record<string, string>>;
  readonly object: (item: Item) => string;
  /** How the record names its object; `name` gives a related object's name (its uuid when unknown). */
  readonly repr: (item: Item, name: Namer) => string;
  /**
   * Item attributes that hold other objects' uuids (one, or a list), by the kind of object: the record
   * shows them by name (a product's name and version, a package's purl, a request's title).
   */
  readonly refs?: Readonly<Record<string, RefKind>>;
  /**
   * For an object only some of whose changes are audited events (an import: its completion), the action
   * a change records, or undefined for none. Without it, every change of an audited field is one.
   */
  readonly recorded?: (before: Item | undefined, after: Item | undefined) => AuditAction | undefined;
  /** The record's changes made from the item as it is now, instead of field by field. */
  readonly changesOf?: (item: Item) => Record<string, readonly [unknown, unknown]>;
  /** Who the record names when the item says it better than the write's actor (an import: who asked for it). */
  readonly actorOf?: (item: Item) => Pick<Actor, 'user' | 'apiKey'>;
}

/** Purls an import's audit record lists of each kind (added, removed, updated): the import resource lists up to 1,000. */
export const AUDITED_IMPORT_PURLS = 50;

/** An import's record: what it was asked for and what it did, its purl lists cut at AUDITED_IMPORT_PURLS (the counts stay exact). */
function importChanges(item: Item): Record<string, readonly [unknown, unknown]> {
  const summary = (item.summary ?? {}) as Record<string, unknown>;
  const count = (name: string) => (typeof summary[name] === 'number' ? summary[name] : 0);
  const purls = (name: string) => (Array.isArray(summary[name]) ? (summary[name] as unknown[]).slice(0, AUDITED_IMPORT_PURLS) : []);
  const errors = Array.isArray(item.errors) ? (item.errors as unknown[]).slice(0, 10) : [];
  const now: Record<string, unknown> = {
    product: str(item.productName) || str(item.productUuid),
    status: str(item.status),
    mode: str(item.mode),
    format: `${str(item.format)} ${str(item.specVersion)}`.trim(),
    components: count('components'),
    added: count('added'),
    removed: count('removed'),
    unchanged: count('unchanged'),
    packages_created: count('packagesCreated'),
    packages_updated: count('packagesUpdated'),
    vulnerabilities: count('vulnerabilities'),
    analyses: count('analyses'),
    added_purls: purls('addedPurls'),
    removed_purls: purls('removedPurls'),
    updated_purls: purls('updatedPurls'),
    ...(errors.length > 0 ? { errors } : {}),
  };
  return Object.fromEntries(Object.entries(now).map(([field, value]) => [field, [null, value] as const]));
}

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const uuidOf = (item: Item) => str(item.uuid);

/**
 * The audited entities (the `entity` attribute of their items) and how each is recorded; the stream
 * router's filter takes its entities from here (shared/resources.ts).
 */
export const AUDITED_TYPES = {
  Product: { objectType: 'product', fields: { name: 'name', version: 'version' }, object: uuidOf, repr: (i) => `${str(i.name)} ${str(i.version)}`.trim() },
  ProductGrant: {
    objectType: 'product_permission',
    fields: { principalType: 'principal_type', principal: 'principal', permissions: 'permissions' },
    object: (i) => str(i.productUuid),
    repr: (i, name) => `${str(i.principalType)} ${str(i.principal)} on ${name('product', str(i.productUuid))}`,
  },
  Request: {
    objectType: 'request',
    fields: {
      title: 'title',
      templateName: 'request_template',
      status: 'status',
      priority: 'priority',
      assignee: 'assignee',
      requester: 'requester',
      productContext: 'product_context',
      contentObject: 'content_object',
      notes: 'notes',
      serializedData: 'serialized_data',
      isPrivate: 'is_private',
      ccEmails: 'cc_emails',
    },
    refs: { productContext: 'product' },
    object: uuidOf,
    repr: (i) => str(i.title),
  },
  RequestComment: {
    objectType: 'request_comment',
    fields: { text: 'text', requestUuid: 'request' },
    refs: { requestUuid: 'request' },
    object: uuidOf,
    repr: (i, name) => `comment on request “${name('request', str(i.requestUuid))}”`,
  },
  UsagePolicy: {
    objectType: 'usage_policy',
    fields: { label: 'label', contentType: 'content_type', complianceAlert: 'compliance_alert', description: 'description' },
    object: uuidOf,
    repr: (i) => str(i.label),
  },
  License: {
    objectType: 'license',
    fields: { key: 'key', name: 'name', shortName: 'short_name', spdxLicenseKey: 'spdx_license_key', category: 'category', isException: 'is_exception', usagePolicy: 'usage_policy' },
    object: uuidOf,
    repr: (i) => str(i.key),
  },
  LicenseMapping: {
    objectType: 'license_mapping',
    fields: { text: 'text', licenseExpression: 'license_expression' },
    object: uuidOf,
    repr: (i) => `${str(i.text)} → ${str(i.licenseExpression)}`,
  },
  Package: {
    objectType: 'package',
    fields: {
      type: 'type',
      namespace: 'namespace',
      name: 'name',
      version: 'version',
      qualifiers: 'qualifiers',
      subpath: 'subpath',
      purl: 'purl',
      filename: 'filename',
      downloadUrl: 'download_url',
      md5: 'md5',
      sha1: 'sha1',
      sha256: 'sha256',
      sha512: 'sha512',
      description: 'description',
      homepageUrl: 'homepage_url',
      copyright: 'copyright',
      supplier: 'supplier',
      licenseExpression: 'license_expression',
      declaredLicenseExpression: 'declared_license_expression',
      usagePolicy: 'usage_policy',
    },
    object: uuidOf,
    repr: (i) => str(i.purl),
  },
  Vulnerability: {
    objectType: 'vulnerability',
    fields: { vulnerabilityId: 'vulnerability_id', aliases: 'aliases', summary: 'summary', riskScore: 'risk_score' },
    object: uuidOf,
    repr: (i) => str(i.vulnerabilityId),
  },
  ProductPackage: {
    objectType: 'product_package',
    fields: {
      productUuid: 'product',
      packageUuid: 'package',
      licenseExpression: 'license_expression',
      isDeployed: 'is_deployed',
      isModified: 'is_modified',
      dependsOn: 'depends_on',
    },
    refs: { productUuid: 'product', packageUuid: 'package', dependsOn: 'package' },
    object: uuidOf,
    repr: (i, name) => `${name('package', str(i.packageUuid))} in ${name('product', str(i.productUuid))}`,
  },
  Analysis: {
    objectType: 'vulnerability_analysis',
    fields: { vulnerabilityId: 'vulnerability_id', state: 'state', justification: 'justification', responses: 'responses', detail: 'detail' },
    object: uuidOf,
    repr: (i, name) => `${str(i.vulnerabilityId)} in ${name('package', str(i.packageUuid))} in ${name('product', str(i.productUuid))}`,
  },
  // A revoke and an expiry are updates (revoked_date, expired_date): the item stays a week for its events.
  PolicyWaiver: {
    objectType: 'policy_waiver',
    fields: {
      productUuid: 'product',
      ruleType: 'rule_type',
      packagePurl: 'package',
      reason: 'reason',
      expiresDate: 'expires_at',
      revokedDate: 'revoked_date',
      expiredDate: 'expired_date',
    },
    refs: { productUuid: 'product' },
    object: uuidOf,
    repr: (i, name) => `${str(i.ruleType)} waiver${i.packagePurl ? ` of ${str(i.packagePurl)}` : ''} on ${name('product', str(i.productUuid))}`,
  },
  PolicyConfig: { objectType: 'policy_rules', fields: { rules: 'rules' }, object: (i) => str(i.dataspace), repr: (i) => `policy rules of ${str(i.dataspace)}` },
  // One record per import, when it completes or fails; the objects it writes are not audited one by one
  // (their writes carry the import as `via`: shared/services/audit.ts).
  SbomImport: {
    objectType: 'sbom_import',
    fields: {},
    object: uuidOf,
    repr: (i) => `SBOM import into ${str(i.productName) || `product ${str(i.productUuid)}`}`,
    recorded: (before, after) =>
      after !== undefined && (after.status === 'completed' || after.status === 'failed') && before?.status !== after.status ? 'create' : undefined,
    changesOf: importChanges,
    // An upload's import completes in the import function, whose writes name no one: who asked for it did it.
    actorOf: (i) => ({ user: str(i.createdBy) || null, apiKey: typeof i.createdWithKey === 'string' ? i.createdWithKey : null }),
  },
  // Never `secret`, nor `failingSince` (the deliveries' bookkeeping).
  Webhook: {
    objectType: 'webhook',
    fields: { targetUrl: 'target_url', events: 'events', isActive: 'is_active', description: 'description' },
    object: uuidOf,
    repr: (i) => str(i.targetUrl),
  },
  // Never `keyHash` nor `keyId` (half of the token), nor `lastUsedAt`.
  ApiKey: {
    objectType: 'api_key',
    fields: { name: 'name', username: 'user', scope: 'scope', keyExpiresAt: 'expires_at' },
    object: uuidOf,
    repr: (i) => `${str(i.username)}/${str(i.name)}`,
  },
} as const satisfies Record<string, AuditedType>;

export type AuditedEntity = keyof typeof AUDITED_TYPES;

/** The object types of the records (their `object_type`). */
export const AUDITED_OBJECT_TYPES = [...new Set(Object.values(AUDITED_TYPES).map((type) => type.objectType))] as [string, ...string[]];

/** The entities whose changes are audited: the audit writer's stream filter. */
export const AUDITED_ENTITIES = Object.keys(AUDITED_TYPES) as AuditedEntity[];

export function isAuditedEntity(entity: unknown): entity is AuditedEntity {
  return typeof entity === 'string' && Object.hasOwn(AUDITED_TYPES, entity);
}

/** One change of an item, as the stream consumer decodes it (plain attribute values). */
export interface AuditedChange {
  /** Absent for a create. */
  readonly before?: Item | undefined;
  /** Absent for a delete. */
  readonly after?: Item | undefined;
}

export interface AuditContext {
  /** Deterministic per change (the stream record's), so a retried batch writes the same record. */
  readonly uuid: string;
  readonly date: string;
  readonly actor: Actor;
  /** When the item names none (a comment: its request's). */
  readonly dataspace?: string | undefined;
  /** Names of the objects the item refers to (referencesOf), found by the writer; a uuid stays when missing. */
  readonly names?: Names | undefined;
}

/** The name an item gives its object when another record refers to it (a product, a package, a request), or undefined. */
export function nameOfItem(item: Item | undefined): { kind: RefKind; uuid: string; name: string } | undefined {
  if (!item || typeof item.uuid !== 'string') return undefined;
  if (item.entity === 'Product') return { kind: 'product', uuid: item.uuid, name: `${str(item.name)} ${str(item.version)}`.trim() };
  if (item.entity === 'Package') return { kind: 'package', uuid: item.uuid, name: str(item.purl) };
  if (item.entity === 'Request') return { kind: 'request', uuid: item.uuid, name: str(item.title) };
  return undefined;
}

/** The objects an item of an audited type refers to, by kind and uuid: what the writer looks up to name them. */
export function referencesOf(item: Item | undefined): { kind: RefKind; uuid: string }[] {
  if (!item || !isAuditedEntity(item.entity)) return [];
  const type: AuditedType = AUDITED_TYPES[item.entity];
  const found: { kind: RefKind; uuid: string }[] = [];
  for (const [attribute, kind] of Object.entries(type.refs ?? {})) {
    const value = item[attribute];
    for (const uuid of Array.isArray(value) ? value : value instanceof Set ? [...value] : [value]) if (typeof uuid === 'string' && uuid !== '') found.push({ kind, uuid });
  }
  // The repr's own references that are no change field (an analysis names its package and product).
  if (item.entity === 'Analysis') {
    if (typeof item.packageUuid === 'string') found.push({ kind: 'package', uuid: item.packageUuid });
    if (typeof item.productUuid === 'string') found.push({ kind: 'product', uuid: item.productUuid });
  }
  return found;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(normalized(a)) === JSON.stringify(normalized(b));

/** Sets (lists whose order carries no meaning to the audit) and maps compared by content. */
function normalized(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Set) return [...value].map(normalized).sort();
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, normalized(v)]));
  }
  return value;
}

/** The audit record of a change, or undefined when it is none (not audited, or no audited field changed). */
export function auditRecordOf(change: AuditedChange, context: AuditContext): AuditRecord | undefined {
  const current = change.after ?? change.before;
  if (!current || !isAuditedEntity(current.entity)) return undefined;
  // An item that became another entity under the same key (never today) is not one object's change.
  if (change.before && change.after && change.before.entity !== change.after.entity) return undefined;
  const type: AuditedType = AUDITED_TYPES[current.entity];
  const action: AuditAction | undefined = type.recorded
    ? type.recorded(change.before, change.after)
    : !change.before
      ? 'create'
      : !change.after
        ? 'delete'
        : 'update';
  if (action === undefined) return undefined;
  const names = context.names ?? new Map<string, string>();
  const name: Namer = (kind, uuid) => names.get(refKey(kind, uuid)) ?? uuid;
  // A reference's value shown by name: one uuid, or a list of them (sorted by name).
  const named = (attribute: string, value: unknown): unknown => {
    const kind = type.refs?.[attribute];
    if (kind === undefined || value === null || value === undefined) return value;
    if (Array.isArray(value) || value instanceof Set) return [...value].map((uuid) => name(kind, String(uuid))).sort();
    return name(kind, String(value));
  };
  const changes: Record<string, readonly [unknown, unknown]> = type.changesOf ? type.changesOf(current) : {};
  for (const [attribute, field] of Object.entries(type.fields)) {
    const [old, now] = [change.before?.[attribute], change.after?.[attribute]];
    if (action === 'update' && same(old, now)) continue;
    if (action !== 'update' && (old ?? now) === undefined) continue;
    changes[field] = [normalized(named(attribute, old)), normalized(named(attribute, now))];
  }
  if (action === 'update' && Object.keys(changes).length === 0) return undefined;
  const dataspace = str(current.dataspace) || context.dataspace;
  if (!dataspace) return undefined;
  return {
    uuid: context.uuid,
    dataspace,
    date: context.date,
    action,
    objectType: type.objectType,
    object: type.object(current),
    objectRepr: type.repr(current, name),
    ...(type.actorOf ? type.actorOf(current) : { user: context.actor.user, apiKey: context.actor.apiKey }),
    changes,
  };
}

/** The actor an item's `actor` attribute names (shared/observability/write-stamps.ts writes it); unknown when none. */
export function actorOf(value: unknown): Actor {
  if (!value || typeof value !== 'object') return { user: null, apiKey: null };
  const { user, key, at, via } = value as { user?: unknown; key?: unknown; at?: unknown; via?: unknown };
  const when = typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? new Date(Date.parse(at)).toISOString() : undefined;
  return {
    user: typeof user === 'string' ? user : null,
    apiKey: typeof key === 'string' ? key : null,
    ...(when === undefined ? {} : { at: when }),
    ...(typeof via === 'string' ? { via } : {}),
  };
}

/** The filters of the audit list. */
export interface AuditFilters {
  readonly object?: string | undefined;
  readonly user?: string | undefined;
  readonly action?: AuditAction | undefined;
  readonly objectType?: string | undefined;
  /** ISO 8601, UTC: records at or after. */
  readonly since?: string | undefined;
  /** ISO 8601, UTC: records at or before. */
  readonly until?: string | undefined;
}

/** When a record expires: its date plus the retention, in epoch seconds (the table's TTL attribute). */
export function auditExpiry(date: string, retentionDays: number): number {
  return Math.floor(Date.parse(date) / 1000) + retentionDays * 86_400;
}

/**
 * A position in the audit trail (a record's sort key, `<ISO date>#<order>#<uuid>`) and the way a page
 * reads from it: older records (next), or with `reverse` newer ones (previous).
 */
export interface AuditCursor {
  readonly position: string;
  readonly reverse: boolean;
}

const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#\d{1,40}#[0-9a-f-]{36}$/;

/** The opaque `cursor` query value of a position (base64url of a small JSON object, as DRF's cursors are opaque). */
export function encodeAuditCursor(cursor: AuditCursor): string {
  return Buffer.from(JSON.stringify({ p: cursor.position, ...(cursor.reverse ? { r: 1 } : {}) })).toString('base64url');
}

/** The cursor a `cursor` query value holds, or undefined when it holds none (DRF answers 404 "Invalid cursor"). */
export function decodeAuditCursor(text: string): AuditCursor | undefined {
  if (text.length > 400 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const { p, r, ...rest } = value as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || typeof p !== 'string' || !POSITION.test(p) || (r !== undefined && r !== 1)) return undefined;
    return { position: p, reverse: r === 1 };
  } catch {
    return undefined;
  }
}
