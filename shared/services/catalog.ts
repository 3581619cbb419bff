/**
 * The catalog service: usage policies, licenses, packages and vulnerabilities of a dataspace, read by
 * all its users and written by its superusers. Each write checks its references (a license's policy,
 * a package's expression and policy, a vulnerability's packages) and reports every problem at once.
 */
import { PackageURL } from 'packageurl-js';
import type { Caller } from '../domain/caller.ts';
import {
  NO_PACKAGE_DETAILS,
  catalogAccess,
  packageRiskScore,
  type AffectedPackage,
  type License,
  type Package,
  type UsagePolicy,
  type Vulnerability,
} from '../domain/catalog.ts';
import { ForbiddenError, NotFoundError, ValidationError, type FieldErrors } from '../domain/errors.ts';
import { isUuid, uuidOf } from '../domain/identifiers.ts';
import { invisibleCharacter, invisibleMessage } from '../domain/text.ts';
import { SEARCH_FIELDS, objectMatches, searchTerms } from '../domain/search.ts';
import { parseLicenseExpression } from '../domain/license-expression.ts';
import { checkMapping, mappingKeys, type LicenseMapping } from '../domain/license-mapping.ts';
import { namedLicenseCount, resolveLicenseExpression, UNKNOWN_LICENSE_KEY, type Resolution, type ResolvedExpression } from '../domain/license-resolution.ts';
import type { Page } from '../domain/pagination.ts';
import { retryOnConflict } from '../store/dynamo.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';
import { isCatalogRace, licenseFilter, type CatalogStore, type Collection } from '../store/catalog-store.ts';
import { licenseMatches, searchFold, searchWords, type LicenseCriteria } from '../domain/license-search.ts';
import { filterReferenceLicenses, type LicenseCategory, type ReferenceLibrary, type ReferenceLicense } from '../domain/reference-license.ts';
import { spdxRefForKey } from '../domain/license-resolution.ts';
import { scancodeLibrary } from '../reference/scancode-licensedb.ts';
import { scancodeTexts, type LicenseTexts } from '../reference/scancode-texts.ts';
import type { ProductPackageStore } from '../store/product-package-store.ts';
import { isoWithOffset } from '../domain/time.ts';
import { paginate } from './paginate.ts';
import { filterCounter } from '../store/counters.ts';
import { LicenseIndexes } from './license-indexes.ts';
import type { AdvisorySources, AdvisorySourceState } from '../store/advisory-sources.ts';

export interface CatalogServiceDeps {
  readonly catalog: CatalogStore;
  readonly productPackages: ProductPackageStore;
  readonly now: () => Date;
  readonly newUuid: () => string;
  /** The reference license library; the one the service ships (read on first use) by default. */
  readonly references?: ReferenceLibrary;
  /** How expressions are resolved and rendered; by default over `catalog` and the shipped reference library. */
  readonly licenseIndexes?: LicenseIndexes;
  /** The published advisories' load state, by ecosystem (GET /api/v2/advisory_sources/). */
  readonly advisorySources?: Pick<AdvisorySources, 'list'>;
  /** The reference licenses' full texts; the shipped ones (the file beside the bundle, read on first use) by default. */
  readonly licenseTexts?: () => Pick<LicenseTexts, 'text'>;
}

type Body = Record<string, unknown>;
type Stored = { uuid: string; dataspace: string; rev: number };

export const catalogUrl = (baseUrl: string, collection: string, uuid: string) => `${baseUrl}/api/v2/${collection}/${uuid}/`;

/** A catalog object's entity tag: its revision (a package's also moves when a vulnerability link changes). */
const catalogTag = (object: { readonly rev: number }) => entityTag(object.rev);

/** An object as just saved: the store wrote it at the next revision. */
const savedTag = (object: { readonly rev: number }) => entityTag(object.rev + 1);

export function usagePolicyView(policy: UsagePolicy, baseUrl: string) {
  return {
    uuid: policy.uuid,
    api_url: catalogUrl(baseUrl, 'usage_policies', policy.uuid),
    label: policy.label,
    content_type: policy.contentType,
    compliance_alert: policy.complianceAlert,
    description: policy.description,
  };
}

export function licenseView(license: License, baseUrl: string) {
  return {
    uuid: license.uuid,
    api_url: catalogUrl(baseUrl, 'licenses', license.uuid),
    key: license.key,
    name: license.name,
    short_name: license.shortName,
    spdx_license_key: license.spdxLicenseKey,
    license_expression_spdx: license.spdxLicenseKey || spdxRefForKey(license.key),
    category: license.category,
    is_exception: license.isException,
    usage_policy: license.usagePolicy,
  };
}

export function advisorySourceView(source: AdvisorySourceState) {
  return {
    ecosystem: source.ecosystem,
    records: source.records,
    last_loaded_date: source.lastLoadedAt,
    last_synced_date: source.lastSyncedAt,
    synced_until: source.syncedUntil,
  };
}

export function referenceLicenseView(license: ReferenceLicense) {
  return {
    key: license.key,
    short_name: license.shortName,
    name: license.name,
    category: license.category,
    spdx_license_key: license.spdxLicenseKey,
    other_spdx_license_keys: license.otherSpdxLicenseKeys,
    is_exception: license.isException,
    is_deprecated: license.isDeprecated,
  };
}

/** No license key, SPDX key or search is longer than this (keys 50, SPDX keys 100 characters of up to 4 bytes). */
const MAX_FILTER_BYTES = 400;

/** The filters of a license list's query (validated by its schema); empty ones do not filter, as in django-filter. */
function licenseQuery(query: Readonly<Record<string, string | undefined>>): { criteria: LicenseCriteria; words: string[] } {
  const given = (name: string) => (query[name] !== undefined && query[name] !== '' ? query[name] : undefined);
  const words = searchWords(given('search') ?? '');
  const exception = given('is_exception')?.toLowerCase();
  const criteria: { -readonly [K in keyof LicenseCriteria]: LicenseCriteria[K] } = {};
  if (given('key') !== undefined) criteria.key = given('key')!.normalize('NFC');
  if (given('spdx_license_key') !== undefined) criteria.spdxLicenseKey = given('spdx_license_key')!;
  if (given('category') !== undefined) criteria.category = given('category')!;
  if (exception !== undefined) criteria.isException = exception === 'true' || exception === '1';
  if (words.length > 0) criteria.terms = words.map(searchFold);
  return { criteria, words };
}

/** Renders a canonical expression in SPDX form (LicenseIndexes.spdxRenderer: one read per page). */
export type SpdxRenderer = (expression: string) => string;

/** How each license recognised by name, URL, text or mapping was resolved, as answered (`resolved_from`). */
export function resolvedFromView(resolutions: readonly Resolution[]) {
  return resolutions.map((r) => ({ written: r.written, license_expression: r.expression, by: r.by, rule: r.rule }));
}

export function packageView(pkg: Package, baseUrl: string, spdx: SpdxRenderer) {
  return {
    uuid: pkg.uuid,
    api_url: catalogUrl(baseUrl, 'packages', pkg.uuid),
    type: pkg.type,
    namespace: pkg.namespace,
    name: pkg.name,
    version: pkg.version,
    purl: pkg.purl,
    filename: pkg.filename,
    download_url: pkg.downloadUrl,
    md5: pkg.md5,
    sha1: pkg.sha1,
    sha256: pkg.sha256,
    sha512: pkg.sha512,
    description: pkg.description,
    homepage_url: pkg.homepageUrl,
    copyright: pkg.copyright,
    supplier: pkg.supplier,
    license_expression: pkg.licenseExpression,
    declared_license_expression: pkg.declaredLicenseExpression,
    license_expression_spdx: spdx(pkg.licenseExpression),
    unknown_licenses: pkg.unknownLicenses,
    resolved_from: resolvedFromView(pkg.resolvedFrom ?? []),
    usage_policy: pkg.usagePolicy,
    risk_score: packageRiskScore(pkg),
    affected_by_vulnerabilities: Object.keys(pkg.vulnerabilities).sort(),
    vulnerabilities: Object.entries(pkg.vulnerabilities)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, link]) => ({ vulnerability_id: id, risk_score: link.riskScore, linked_date: link.linkedDate, fixed_versions: link.fixedVersions ?? [] })),
  };
}

export function vulnerabilityView(vulnerability: Vulnerability, purls: ReadonlyMap<string, string>, baseUrl: string) {
  return {
    uuid: vulnerability.uuid,
    api_url: catalogUrl(baseUrl, 'vulnerabilities', vulnerability.uuid),
    vulnerability_id: vulnerability.vulnerabilityId,
    aliases: vulnerability.aliases,
    summary: vulnerability.summary,
    risk_score: vulnerability.riskScore,
    source: vulnerability.source ?? 'manual',
    affected_packages: vulnerability.affectedPackages.map((affected) => ({
      package: catalogUrl(baseUrl, 'packages', affected.packageUuid),
      purl: purls.get(affected.packageUuid) ?? '',
      linked_date: affected.linkedDate,
      fixed_versions: affected.fixedVersions ?? [],
      matched_by: affected.matchedBy ?? null,
    })),
  };
}

const fail = (errors: FieldErrors) => {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
};

/** A license text item's text at most: under DynamoDB's 400 KB item, with its keys. */
const MAX_TEXT_BYTES = 350_000;

export class CatalogService {
  private readonly indexes: LicenseIndexes;

  constructor(private readonly deps: CatalogServiceDeps) {
    this.indexes = deps.licenseIndexes ?? new LicenseIndexes(deps.catalog);
  }

  private get store() {
    return this.deps.catalog;
  }

  /** The answers of packages of one dataspace: their SPDX forms with one read of the licenses they name. */
  async packageViews(dataspace: string, packages: readonly Package[], baseUrl: string) {
    const spdx = await this.indexes.spdxRenderer(dataspace, packages);
    return packages.map((pkg) => packageView(pkg, baseUrl, spdx));
  }

  /** The object of the caller's dataspace, for reading or (superusers) writing; 404 / 403 otherwise. */
  private async find<T extends Stored>(collection: Collection<T>, caller: Caller, uuid: string, write: boolean): Promise<T> {
    const object = isUuid(uuid) ? await collection.get(uuid.toLowerCase()) : undefined;
    if (!object) throw new NotFoundError();
    const access = catalogAccess(caller, object, write);
    if (access === 'not-found') throw new NotFoundError();
    if (access === 'forbidden') throw new ForbiddenError();
    return object;
  }

  private get references(): ReferenceLibrary {
    return this.deps.references ?? scancodeLibrary();
  }

  private requireSuperuser(caller: Caller): void {
    if (!caller.isSuperuser) throw new ForbiddenError();
  }

  private newStored(caller: Caller): Stored {
    return { uuid: this.deps.newUuid(), dataspace: caller.dataspace, rev: 0 };
  }

  // --- usage policies ------------------------------------------------------------------------

  async listUsagePolicies(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    return paginate(query, url, (offset, limit) => this.store.usagePolicies.list(caller.dataspace, offset, limit, { counted: ['all'] }), (p) => usagePolicyView(p, baseUrl));
  }

  async retrieveUsagePolicy(caller: Caller, uuid: string, baseUrl: string) {
    const object = await this.find(this.store.usagePolicies, caller, uuid, false);
    return tagged(usagePolicyView(object, baseUrl), catalogTag(object));
  }

  async saveUsagePolicy(caller: Caller, uuid: string | undefined, readBody: () => Body, baseUrl: string, ifMatch?: IfMatch) {
    if (!uuid) this.requireSuperuser(caller);
    const saved = await retryOnConflict(async () => {
      const before = uuid ? await this.find(this.store.usagePolicies, caller, uuid, true) : undefined;
      if (before) requireMatch(ifMatch, catalogTag(before));
      const body = readBody();
      const after: UsagePolicy = {
        ...(before ?? this.newStored(caller)),
        label: (body.label as string | undefined) ?? before!.label,
        contentType: (body.content_type as UsagePolicy['contentType'] | undefined) ?? before!.contentType,
        complianceAlert: (body.compliance_alert as UsagePolicy['complianceAlert'] | undefined) ?? before!.complianceAlert,
        description: (body.description as string | undefined) ?? before!.description,
      };
      await this.store.usagePolicies.write(before, after);
      return after;
    }, isCatalogRace);
    return tagged(usagePolicyView(saved, baseUrl), savedTag(saved));
  }

  async deleteUsagePolicy(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const policy = await this.find(this.store.usagePolicies, caller, uuid, true);
      requireMatch(ifMatch, catalogTag(policy));
      await this.store.usagePolicies.write(policy, undefined);
    }, isCatalogRace);
  }

  /** Which of these usage policy labels the dataspace holds (strongly consistent: a create reads them first). */
  async existingUsagePolicyLabels(dataspace: string, labels: readonly string[]): Promise<Set<string>> {
    return new Set((await this.store.usagePolicies.getByUnique(dataspace, labels, true)).keys());
  }

  /** The policy of this label and content type, or a field error under `field`. */
  private async policy(dataspace: string, label: string | null, contentType: UsagePolicy['contentType'], errors: FieldErrors): Promise<void> {
    if (label === null) return;
    const policy = (await this.store.usagePolicies.getByUnique(dataspace, [label])).get(label);
    if (!policy || policy.contentType !== contentType) {
      errors.usage_policy = [`No ${contentType} usage policy "${label}" in this dataspace.`];
    }
  }

  // --- licenses ------------------------------------------------------------------------------

  async listLicenses(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const { criteria, words } = licenseQuery(query);
    const { key, ...rest } = criteria;
    if (key !== undefined) {
      // A key is unique: one reservation lookup, then the other filters on the one license found.
      const found = Buffer.byteLength(key) <= MAX_FILTER_BYTES ? (await this.store.licenses.getByUnique(caller.dataspace, [key])).get(key) : undefined;
      const matches = found && licenseMatches(found, rest) ? [found] : [];
      return paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), (l) => licenseView(l, baseUrl));
    }
    if (rest.spdxLicenseKey !== undefined && Buffer.byteLength(rest.spdxLicenseKey) > MAX_FILTER_BYTES) {
      return paginate(query, url, async () => ({ count: 0, items: [] }), (l: License) => licenseView(l, baseUrl));
    }
    if (rest.spdxLicenseKey !== undefined && (await this.store.licenses.lookupReady(caller.dataspace))) {
      // The licenses of one SPDX key are few: read them by its lookup entries, not the dataspace.
      const matches = (await this.store.licenses.lookup(caller.dataspace, searchFold(rest.spdxLicenseKey))).filter((found) => licenseMatches(found, rest));
      return paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), (l) => licenseView(l, baseUrl));
    }
    const where = licenseFilter({ criteria: rest, legacy: { spdxLicenseKeys: this.spdxSpellings(rest.spdxLicenseKey), words } });
    const counted = licenseCounters(rest);
    return paginate(
      query,
      url,
      (offset, limit) => this.store.licenses.list(caller.dataspace, offset, limit, { ...(where ? { where } : {}), ...(counted ? { counted } : {}) }),
      (l) => licenseView(l, baseUrl),
    );
  }

  /** How the SPDX list spells an SPDX id given in any case (`apache-2.0` → `Apache-2.0`), for items stored before folding. */
  private spdxSpellings(id: string | undefined): string[] {
    if (id === undefined) return [];
    const reference = this.references.bySpdxId(id);
    return reference ? [reference.spdxLicenseKey, ...reference.otherSpdxLicenseKeys].filter((spelling) => searchFold(spelling) === searchFold(id)) : [];
  }

  async retrieveLicense(caller: Caller, uuid: string, baseUrl: string) {
    const object = await this.find(this.store.licenses, caller, uuid, false);
    return tagged({ ...licenseView(object, baseUrl), text: await this.licenseText(object) }, catalogTag(object));
  }

  /**
   * A license's full text: its own once it was given one, else its reference license's (an adopted
   * license starts with it, and follows the reference library until it is given its own), else ''.
   */
  private async licenseText(license: License, own?: string): Promise<string> {
    return own ?? (await this.store.licenseText(license.uuid)) ?? ((this.deps.licenseTexts ?? scancodeTexts)().text(license.key) ?? '');
  }

  /**
   * Creates or changes a license. A create whose key is a reference license's (any letter case) adopts
   * it: the reference's key is stored, and its name, short name, SPDX key, category and exception flag
   * fill what the body does not give. With `dryRun`, answers what the license would become, writing
   * nothing (the admin load's change check).
   */
  async saveLicense(
    caller: Caller,
    uuid: string | undefined,
    readBody: () => Body,
    baseUrl: string,
    { dryRun = false, ifMatch }: { dryRun?: boolean; ifMatch?: IfMatch | undefined } = {},
  ) {
    if (!uuid) this.requireSuperuser(caller);
    const saved = await retryOnConflict(async () => {
      const before = uuid ? await this.find(this.store.licenses, caller, uuid, true) : undefined;
      if (before) requireMatch(ifMatch, catalogTag(before));
      const body = readBody();
      const given = <T>(field: string) => body[field] as T | undefined;
      const reference = before ? undefined : this.references.byKey(given<string>('key')!);
      const key = reference?.key ?? given<string>('key') ?? before!.key;
      const name = given<string>('name') ?? reference?.name ?? before?.name;
      const errors: FieldErrors = {};
      if (name === undefined) errors.name = [`This field is required: "${key}" is not a reference license key to adopt.`];
      const after: License = {
        ...(before ?? this.newStored(caller)),
        key,
        name: name ?? '',
        shortName: given<string>('short_name') ?? reference?.shortName ?? before?.shortName ?? '',
        spdxLicenseKey: given<string>('spdx_license_key') ?? reference?.spdxLicenseKey ?? before?.spdxLicenseKey ?? '',
        category: given<LicenseCategory>('category') ?? reference?.category ?? before?.category ?? '',
        isException: given<boolean>('is_exception') ?? reference?.isException ?? before?.isException ?? false,
        usagePolicy: body.usage_policy !== undefined ? (body.usage_policy as string | null) : (before?.usagePolicy ?? null),
      };
      await this.policy(caller.dataspace, after.usagePolicy, 'license', errors);
      const text = given<string>('text');
      if (text !== undefined && Buffer.byteLength(text) > MAX_TEXT_BYTES) errors.text = [`Ensure this field has no more than ${MAX_TEXT_BYTES.toLocaleString('en-US')} bytes in UTF-8.`];
      fail(errors);
      // The text is an item of its own, written in the same transaction only when the body gives one.
      if (!dryRun) await this.store.licenses.write(before, after, text !== undefined ? [this.store.licenseTextWrite(after, text)] : []);
      return { license: after, text };
    }, isCatalogRace);
    const view = { ...licenseView(saved.license, baseUrl), text: await this.licenseText(saved.license, saved.text) };
    return dryRun ? view : tagged(view, savedTag(saved.license));
  }

  // --- license mappings ----------------------------------------------------------------------

  async listLicenseMappings(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const page = await paginate(query, url, (offset, limit) => this.store.licenseMappings.list(caller.dataspace, offset, limit, { counted: ['all'] }), (m) => m);
    return { ...page, results: await this.licenseMappingViews(caller.dataspace, page.results, baseUrl) };
  }

  async retrieveLicenseMapping(caller: Caller, uuid: string, baseUrl: string) {
    const object = await this.find(this.store.licenseMappings, caller, uuid, false);
    return tagged((await this.licenseMappingViews(caller.dataspace, [object], baseUrl))[0]!, catalogTag(object));
  }

  /**
   * Creates or changes a mapping (superusers). The expression is read against the dataspace's licenses
   * and the reference library, keys and SPDX ids only, and stored over keys. Later writes and imports
   * read it (LicenseIndexes, the SBOM import); the packages already there are re-resolved in the
   * background: the mapping's change on the table's stream queues it (functions/license-reresolver.ts).
   */
  async saveLicenseMapping(caller: Caller, uuid: string | undefined, readBody: () => Body, baseUrl: string, ifMatch?: IfMatch) {
    if (!uuid) this.requireSuperuser(caller);
    const saved = await retryOnConflict(async () => {
      const before = uuid ? await this.find(this.store.licenseMappings, caller, uuid, true) : undefined;
      if (before) requireMatch(ifMatch, catalogTag(before));
      const body = readBody();
      const text = (body.text as string | undefined) ?? before!.text;
      const checked = checkMapping(text, (body.license_expression as string | undefined) ?? before!.licenseExpression, await this.indexes.keysOf(caller.dataspace));
      if ('errors' in checked) throw new ValidationError(checked.errors);
      const after: LicenseMapping = { ...(before ?? this.newStored(caller)), text, licenseExpression: checked.expression };
      await this.store.licenseMappings.write(before, after);
      return after;
    }, isCatalogRace);
    return tagged((await this.licenseMappingViews(caller.dataspace, [saved], baseUrl))[0]!, savedTag(saved));
  }

  /** Deletes a mapping (superusers). The packages it resolved stay as they are: their expressions are the catalog's now. */
  async deleteLicenseMapping(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const mapping = await this.find(this.store.licenseMappings, caller, uuid, true);
      requireMatch(ifMatch, catalogTag(mapping));
      await this.store.licenseMappings.write(mapping, undefined);
    }, isCatalogRace);
  }

  private async licenseMappingViews(dataspace: string, mappings: readonly LicenseMapping[], baseUrl: string) {
    const spdx = await this.indexes.spdxRenderer(dataspace, mappings.map((m) => ({ licenseKeys: mappingKeys(m) })));
    return mappings.map((m) => ({
      uuid: m.uuid,
      api_url: catalogUrl(baseUrl, 'license_mappings', m.uuid),
      text: m.text,
      license_expression: m.licenseExpression,
      license_expression_spdx: spdx(m.licenseExpression),
    }));
  }

  // --- reference licenses --------------------------------------------------------------------

  /** The reference library, filtered and paged in memory: the same for every caller of every dataspace. */
  async listReferenceLicenses(query: Record<string, string | undefined>, url: URL) {
    const matches = filterReferenceLicenses(this.references, licenseQuery(query).criteria);
    return paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), referenceLicenseView);
  }

  /** The published advisories held, by ecosystem: a short list (one Query), paged as every list. */
  async listAdvisorySources(query: Record<string, string | undefined>, url: URL) {
    // In the sort key's order: by ecosystem name (AdvisorySources.list).
    const sources = (await this.deps.advisorySources?.list()) ?? [];
    return paginate(query, url, async (offset, limit) => ({ count: sources.length, items: sources.slice(offset, offset + limit) }), advisorySourceView);
  }

  /** One reference license by key, any letter case. */
  retrieveReferenceLicense(key: string) {
    const license = this.references.byKey(key);
    if (!license) throw new NotFoundError();
    // The text only here, not in lists: one text is up to 90 KB (esri), all of them 13 MB.
    return { ...referenceLicenseView(license), text: (this.deps.licenseTexts ?? scancodeTexts)().text(license.key) ?? '' };
  }

  async deleteLicense(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const license = await this.find(this.store.licenses, caller, uuid, true);
      requireMatch(ifMatch, catalogTag(license));
      // Its text goes with it (a delete of an item that is not there is no failure).
      await this.store.licenses.write(license, undefined, [this.store.licenseTextWrite(license, undefined)]);
    }, isCatalogRace);
  }

  // --- packages ------------------------------------------------------------------------------

  async listPackages(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string): Promise<Page<ReturnType<typeof packageView>>> {
    const equal: Record<string, string> = {};
    for (const field of ['name', 'version', 'type'] as const) if (query[field]) equal[field] = query[field]!;
    const search = searchTerms(query);
    const holds = unknownLicenseFilters(query);
    let page: Page<Package>;
    if (query.purl) {
      // A purl is unique: one reservation lookup, in its canonical form.
      const canonical = canonicalPurl(query.purl);
      const found = canonical ? (await this.store.packages.getByUnique(caller.dataspace, [canonical])).get(canonical) : undefined;
      const matches = found && packageMatches(found, equal, search, holds) ? [found] : [];
      page = await paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), (p) => p);
    } else if (equal.name !== undefined && (await this.store.packages.lookupReady(caller.dataspace))) {
      // A name's packages (its versions) are few: read them by its lookup entries, not the dataspace.
      const named = Buffer.byteLength(equal.name) <= MAX_NAME_BYTES ? await this.store.packages.lookup(caller.dataspace, equal.name) : [];
      const matches = named.filter((found) => packageMatches(found, equal, search, holds));
      page = await paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), (p) => p);
    } else {
      const counted = packageCounters(equal, search, holds);
      page = await paginate(query, url, (offset, limit) => this.store.packages.list(caller.dataspace, offset, limit, { equal, search, holds, ...(counted ? { counted } : {}) }), (p) => p);
    }
    return { ...page, results: await this.packageViews(caller.dataspace, page.results, baseUrl) };
  }

  async retrievePackage(caller: Caller, uuid: string, baseUrl: string) {
    const object = await this.find(this.store.packages, caller, uuid, false);
    const [view] = await this.packageViews(caller.dataspace, [object], baseUrl);
    return tagged(view!, catalogTag(object));
  }

  async savePackage(caller: Caller, uuid: string | undefined, readBody: () => Body, baseUrl: string, ifMatch?: IfMatch) {
    if (!uuid) this.requireSuperuser(caller);
    const saved = await retryOnConflict(async () => {
      const before = uuid ? await this.find(this.store.packages, caller, uuid, true) : undefined;
      if (before) requireMatch(ifMatch, catalogTag(before));
      const body = readBody();
      const errors: FieldErrors = {};
      const identity = packageIdentity(before, body, errors);
      let license: PackageLicense = before ?? NO_LICENSE;
      const input = licenseInput(body);
      if (input) {
        const resolved = resolveLicenseExpression(input.text, await this.indexes.forDataspace(caller.dataspace));
        if (namedLicenseCount(resolved) > MAX_LICENSE_KEYS) {
          errors[input.field] = [`Ensure this expression names no more than ${MAX_LICENSE_KEYS} licenses.`];
        } else {
          license = packageLicense(resolved, input, before);
        }
      }
      const usagePolicy = body.usage_policy !== undefined ? (body.usage_policy as string | null) : (before?.usagePolicy ?? null);
      await this.policy(caller.dataspace, usagePolicy, 'package', errors);
      fail(errors);
      const given = (field: string, kept: string | undefined) => (body[field] as string | undefined) ?? kept ?? '';
      const after: Package = {
        ...(before ?? { ...this.newStored(caller), ...NO_PACKAGE_DETAILS, vulnerabilities: {} }),
        ...identity!,
        filename: given('filename', before?.filename),
        downloadUrl: given('download_url', before?.downloadUrl),
        md5: given('md5', before?.md5),
        sha1: given('sha1', before?.sha1),
        sha256: given('sha256', before?.sha256),
        sha512: given('sha512', before?.sha512),
        description: given('description', before?.description),
        homepageUrl: given('homepage_url', before?.homepageUrl),
        copyright: given('copyright', before?.copyright),
        supplier: given('supplier', before?.supplier),
        licenseExpression: license.licenseExpression,
        licenseKeys: license.licenseKeys,
        countedLicenseKeys: license.countedLicenseKeys,
        declaredLicenseExpression: license.declaredLicenseExpression,
        unknownLicenses: license.unknownLicenses,
        resolvedFrom: license.resolvedFrom ?? [],
        usagePolicy,
      };
      await this.store.packages.write(before, after);
      return after;
    }, isCatalogRace);
    const [view] = await this.packageViews(caller.dataspace, [saved], baseUrl);
    return tagged(view!, savedTag(saved));
  }

  async deletePackage(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const pkg = await this.find(this.store.packages, caller, uuid, true);
      requireMatch(ifMatch, catalogTag(pkg));
      const products = await this.deps.productPackages.productsHolding(pkg.uuid);
      const errors: string[] = [];
      if (products.length > 0) errors.push(`This package is in ${products.length} product(s); remove it from them first.`);
      const linked = Object.keys(pkg.vulnerabilities);
      if (linked.length > 0) errors.push(`Vulnerabilities affect this package (${linked.sort().join(', ')}); unlink them first.`);
      if (errors.length > 0) throw new ValidationError({ non_field_errors: errors });
      await this.store.packages.write(pkg, undefined);
    }, isCatalogRace);
  }

  // --- vulnerabilities -------------------------------------------------------------------------

  private async vulnerabilityViews(vulnerabilities: Vulnerability[], baseUrl: string) {
    const packages = await this.store.packages.getMany([...new Set(vulnerabilities.flatMap((v) => v.affectedPackages.map((a) => a.packageUuid)))]);
    const purls = new Map(packages.map((pkg) => [pkg.uuid, pkg.purl]));
    return vulnerabilities.map((vulnerability) => vulnerabilityView(vulnerability, purls, baseUrl));
  }

  async listVulnerabilities(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    if (query.vulnerability_id) {
      // An id is unique: one reservation lookup (how a package's affected_by_vulnerabilities are followed).
      const matches = [...(await this.store.vulnerabilities.getByUnique(caller.dataspace, [query.vulnerability_id], true)).values()];
      const found = await paginate(query, url, async (offset, limit) => ({ count: matches.length, items: matches.slice(offset, offset + limit) }), (v) => v);
      return { ...found, results: await this.vulnerabilityViews(found.results, baseUrl) };
    }
    const page = await paginate(query, url, (offset, limit) => this.store.vulnerabilities.list(caller.dataspace, offset, limit, { counted: ['all'] }), (v) => v);
    return { ...page, results: await this.vulnerabilityViews(page.results, baseUrl) };
  }

  async retrieveVulnerability(caller: Caller, uuid: string, baseUrl: string) {
    const vulnerability = await this.find(this.store.vulnerabilities, caller, uuid, false);
    const [view] = await this.vulnerabilityViews([vulnerability], baseUrl);
    return tagged(view!, catalogTag(vulnerability));
  }

  /** With `dryRun`, answers what the vulnerability would become, writing nothing (the admin load's change check). */
  async saveVulnerability(
    caller: Caller,
    uuid: string | undefined,
    readBody: () => Body,
    baseUrl: string,
    { dryRun = false, ifMatch }: { dryRun?: boolean; ifMatch?: IfMatch | undefined } = {},
  ) {
    if (!uuid) this.requireSuperuser(caller);
    const saved = await retryOnConflict(async () => {
      const before = uuid ? await this.find(this.store.vulnerabilities, caller, uuid, true) : undefined;
      if (before) requireMatch(ifMatch, catalogTag(before));
      const body = readBody();
      const errors: FieldErrors = {};
      let affectedPackages = before?.affectedPackages ?? [];
      if (Array.isArray(body.affected_packages)) {
        affectedPackages = await this.affectedPackages(caller.dataspace, body.affected_packages as { package: string; linked_date?: string }[], before, errors);
      }
      fail(errors);
      const after: Vulnerability = {
        ...(before ?? { ...this.newStored(caller), source: 'manual' as const }),
        vulnerabilityId: (body.vulnerability_id as string | undefined) ?? before!.vulnerabilityId,
        aliases: (body.aliases as string[] | undefined) ?? before!.aliases,
        summary: (body.summary as string | undefined) ?? before!.summary,
        riskScore: body.risk_score !== undefined ? (body.risk_score as number | null) : before!.riskScore,
        affectedPackages,
      };
      if (before && after.vulnerabilityId !== before.vulnerabilityId && before.affectedPackages.length > 0) {
        throw new ValidationError({ vulnerability_id: ['The id of a vulnerability that affects packages cannot be changed.'] });
      }
      if (!dryRun) await this.store.writeVulnerability(before, after);
      return after;
    }, isCatalogRace);
    if (dryRun) return (await this.vulnerabilityViews([saved], baseUrl))[0]!;
    return this.retrieveVulnerability(caller, saved.uuid, baseUrl);
  }

  async deleteVulnerability(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const vulnerability = await this.find(this.store.vulnerabilities, caller, uuid, true);
      requireMatch(ifMatch, catalogTag(vulnerability));
      await this.store.writeVulnerability(vulnerability, undefined);
    }, isCatalogRace);
  }

  /** Resolves each affected package (uuid or purl) in the dataspace; a package linked before keeps its linked date. */
  private async affectedPackages(
    dataspace: string,
    given: readonly { package: string; linked_date?: string }[],
    before: Vulnerability | undefined,
    errors: FieldErrors,
  ) {
    // A package by uuid, by its API URL (as GET answers it), or by purl.
    const uuidIn = (reference: string) => uuidOf(reference, 'packages');
    const byUuid = await this.store.packages.getMany(given.map((g) => uuidIn(g.package)).filter((uuid) => uuid !== undefined));
    const purls = given.filter((g) => !uuidIn(g.package)).map((g) => canonicalPurl(g.package) ?? g.package);
    const byPurl = await this.store.packages.getByUnique(dataspace, purls);
    const known = new Map(byUuid.filter((p) => p.dataspace === dataspace).map((p) => [p.uuid, p]));
    const linkedBefore = new Map((before?.affectedPackages ?? []).map((a) => [a.packageUuid, a]));
    const problems: string[] = [];
    const seen = new Set<string>();
    const resolved: AffectedPackage[] = [];
    given.forEach((entry, i) => {
      const uuid = uuidIn(entry.package);
      const pkg = uuid ? known.get(uuid) : byPurl.get(canonicalPurl(entry.package) ?? entry.package);
      if (!pkg) return problems.push(`[${i}]: no package "${entry.package}" in this dataspace.`);
      if (seen.has(pkg.uuid)) return problems.push(`[${i}]: package "${entry.package}" is listed twice.`);
      seen.add(pkg.uuid);
      const was = linkedBefore.get(pkg.uuid);
      const linkedDate = entry.linked_date ? isoWithOffset(new Date(entry.linked_date)) : (was?.linkedDate ?? isoWithOffset(this.deps.now()));
      // A link that matching made keeps what it says (the fixing versions, the advisory) when the list is sent back.
      resolved.push({ ...was, packageUuid: pkg.uuid, linkedDate });
    });
    if (problems.length > 0) errors.affected_packages = problems;
    return resolved;
  }
}

/**
 * The licenses one expression may name (namedLicenseCount: each unknown symbol counts as one): each
 * dataspace license is counted on its license in the package's write transaction (the keys it stops
 * naming too), which holds at most 100 items.
 */
export const MAX_LICENSE_KEYS = 40;

/** What a package or product package stores of its license. */
export type PackageLicense = Pick<Package, 'licenseExpression' | 'licenseKeys' | 'countedLicenseKeys' | 'declaredLicenseExpression' | 'unknownLicenses' | 'resolvedFrom'>;

const NO_LICENSE: PackageLicense = { licenseExpression: '', licenseKeys: [], countedLicenseKeys: [], declaredLicenseExpression: '', unknownLicenses: [], resolvedFrom: [] };

/**
 * The license text a write gives, if it gives one: `license_expression` unless it is blank, else
 * `declared_license_expression` (given alone, the declared text is resolved into the expression). A
 * `declared_license_expression` given beside a non-blank `license_expression` is kept as it is.
 */
export function licenseInput(body: Body): { text: string; field: 'license_expression' | 'declared_license_expression'; declared: string | undefined; expressionGiven: boolean } | undefined {
  const expression = typeof body.license_expression === 'string' ? body.license_expression : undefined;
  const declared = typeof body.declared_license_expression === 'string' ? body.declared_license_expression : undefined;
  if (expression === undefined && declared === undefined) return undefined;
  if (expression !== undefined && expression.trim() !== '') return { text: expression, field: 'license_expression', declared, expressionGiven: true };
  return { text: declared ?? '', field: 'declared_license_expression', declared, expressionGiven: expression !== undefined };
}

/**
 * What a package stores of a resolved expression. Sending back the canonical expression a GET
 * answered (a DRF client's GET, change, PUT) changes nothing: the same canonical expression keeps
 * the declared text and the unknown licenses it stood for.
 */
export function packageLicense(resolved: ResolvedExpression, input: NonNullable<ReturnType<typeof licenseInput>>, before: PackageLicense | undefined): PackageLicense {
  const same = before !== undefined && input.field === 'license_expression' && resolved.expression === before.licenseExpression;
  return {
    licenseExpression: resolved.expression,
    licenseKeys: resolved.keys,
    countedLicenseKeys: resolved.dataspaceKeys,
    declaredLicenseExpression: input.declared ?? (same ? before.declaredLicenseExpression : resolved.declared),
    unknownLicenses: same ? before.unknownLicenses : resolved.unknown,
    resolvedFrom: same ? (before.resolvedFrom ?? []) : resolved.resolvedFrom,
  };
}

/**
 * What a package stores of an expression resolved elsewhere (the SBOM import's upserts): the
 * canonical expression and its keys, the dataspace keys it counts, the unknown licenses, and as
 * declared text `declared` if given (SPDX licenseDeclared beside licenseConcluded), else the text resolved.
 */
export function licenseFields(resolved: ResolvedExpression, declared?: string): PackageLicense {
  return packageLicense(resolved, { text: resolved.declared, field: 'license_expression', declared, expressionGiven: true }, undefined);
}

type Holds = NonNullable<import('../store/catalog-store.ts').ListOptions['holds']>[number];

/**
 * The list counters that count a license list (CATALOG_SPECS.licenses.filterCounters): the whole list,
 * or one documented filter on its own. Undefined when the filters combine or search: the count reads them.
 */
function licenseCounters(criteria: Omit<LicenseCriteria, 'key'>): string[] | undefined {
  const given = [
    criteria.spdxLicenseKey !== undefined ? filterCounter('spdx_license_key', searchFold(criteria.spdxLicenseKey)) : undefined,
    criteria.category !== undefined ? filterCounter('category', criteria.category) : undefined,
    criteria.isException !== undefined ? filterCounter('is_exception', String(criteria.isException)) : undefined,
  ].filter((counter) => counter !== undefined);
  if ((criteria.terms ?? []).length > 0 || given.length > 1) return undefined;
  return given.length === 1 ? given : ['all'];
}

/** The list counters that count a package list (CATALOG_SPECS.packages.filterCounters), as licenseCounters. */
function packageCounters(equal: Readonly<Record<string, string>>, search: readonly string[], holds: readonly Holds[]): string[] | undefined {
  const given = [
    ...Object.entries(equal).map(([field, value]) => (field === 'type' ? filterCounter(field, value) : undefined)),
    ...holds.map((h) => (h.attribute === 'licenseKeys' && h.element === UNKNOWN_LICENSE_KEY ? filterCounter('has_unknown_license', String(h.present)) : undefined)),
  ];
  if (search.length > 0 || given.length > 1 || given.includes(undefined)) return undefined;
  return given.length === 1 ? (given as string[]) : ['all'];
}

/** The filters `has_unknown_license` (true / false) and `unknown_license` (an unknown license as written, exactly). */
function unknownLicenseFilters(query: Record<string, string | undefined>): Holds[] {
  const holds: Holds[] = [];
  if (query.has_unknown_license !== undefined) holds.push({ attribute: 'licenseKeys', element: UNKNOWN_LICENSE_KEY, present: query.has_unknown_license === 'true' });
  if (query.unknown_license) holds.push({ attribute: 'unknownLicenses', element: query.unknown_license, present: true });
  return holds;
}

function holdsElement(pkg: Package, { attribute, element, present }: Holds): boolean {
  const list = attribute === 'licenseKeys' ? pkg.licenseKeys : pkg.unknownLicenses;
  return list.includes(element) === present;
}

/** Whether a package passes a list's filters other than the one it was found by. */
function packageMatches(pkg: Package, equal: Readonly<Record<string, string>>, search: readonly string[], holds: ReturnType<typeof unknownLicenseFilters>): boolean {
  return (
    Object.entries(equal).every(([field, value]) => pkg[field as 'name'] === value) &&
    objectMatches(pkg, SEARCH_FIELDS.packages, search) &&
    holds.every((h) => holdsElement(pkg, h))
  );
}

/** No package name is longer (255 characters of up to 4 bytes): a longer `?name=` matches nothing. */
const MAX_NAME_BYTES = 1_020;

/** A canonical purl is a key of its reservation item: it must leave room under DynamoDB's 2,048 bytes. */
const MAX_PURL_BYTES = 1_500;

/** The canonical form of a purl, or undefined when it does not parse (or is too long to be one). */
/**
 * The package a body names (its uuid, API URL or purl) in `dataspace`, or undefined: a package of
 * another dataspace is as if it did not exist. Used wherever a body points at a package of the catalog.
 */
export async function packageInDataspace(catalog: Pick<CatalogStore, 'packages'>, dataspace: string, reference: string) {
  const uuid = uuidOf(reference, 'packages');
  if (uuid) {
    const pkg = await catalog.packages.get(uuid);
    return pkg?.dataspace === dataspace ? pkg : undefined;
  }
  const purl = canonicalPurl(reference);
  return purl ? (await catalog.packages.getByUnique(dataspace, [purl])).get(purl) : undefined;
}

export function canonicalPurl(purl: string): string | undefined {
  try {
    const canonical = nfcPurl(PackageURL.fromString(purl)).toString();
    return Buffer.byteLength(canonical) <= MAX_PURL_BYTES ? canonical : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The purl with every part in Unicode NFC, as names are stored (shared/domain/text.ts): a purl whose
 * name is "café" precomposed or decomposed (%C3%A9 or e%CC%81) is one package.
 */
function nfcPurl(purl: PackageURL): PackageURL {
  const nfc = (value: string | undefined | null) => (value ? value.normalize('NFC') : undefined);
  const qualifiers = purl.qualifiers
    ? Object.fromEntries(Object.entries(purl.qualifiers).map(([key, value]) => [key.normalize('NFC'), String(value).normalize('NFC')]))
    : undefined;
  return new PackageURL(purl.type.normalize('NFC'), nfc(purl.namespace), purl.name.normalize('NFC'), nfc(purl.version), qualifiers, nfc(purl.subpath));
}

/** The first invisible character in a purl's decoded parts (U+XXXX), if any. */
function invisibleInPurl(purl: PackageURL): string | undefined {
  const parts = [purl.type, purl.namespace, purl.name, purl.version, purl.subpath, ...Object.entries(purl.qualifiers ?? {}).flat()];
  for (const part of parts) {
    const found = typeof part === 'string' ? invisibleCharacter(part) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The parts and canonical purl of a package from a body: a `purl`, or its parts (type and name
 * required), or (on update) the package as it was with the parts given changed.
 */
function packageIdentity(before: Package | undefined, body: Body, errors: FieldErrors) {
  const given = (field: string) => (typeof body[field] === 'string' && body[field] !== '' ? (body[field] as string) : undefined);
  const parts = ['type', 'namespace', 'name', 'version'] as const;
  let purl: PackageURL;
  try {
    const text = given('purl');
    if (text !== undefined) {
      purl = nfcPurl(PackageURL.fromString(text));
      for (const part of parts) {
        const value = given(part);
        if (value !== undefined && value !== (purl[part] ?? '')) {
          errors[part] = [`Does not match the purl, whose ${part} is "${purl[part] ?? ''}".`];
        }
      }
    } else {
      const value = (part: (typeof parts)[number]) =>
        body[part] !== undefined ? ((body[part] as string) || undefined) : before ? before[part] || undefined : undefined;
      if (!value('type') || !value('name')) {
        errors.purl = ['Give a purl, or at least a type and a name.'];
        return undefined;
      }
      purl = nfcPurl(new PackageURL(value('type')!, value('namespace'), value('name')!, value('version'), before?.qualifiers ?? undefined, before?.subpath || undefined));
    }
  } catch (error) {
    errors.purl = [`Not a valid package URL: ${(error as Error).message.replace(/^Invalid purl: /, '')}.`];
    return undefined;
  }
  const invisible = invisibleInPurl(purl);
  if (invisible) {
    errors.purl = [invisibleMessage(invisible)];
    return undefined;
  }
  if (Buffer.byteLength(purl.toString()) > MAX_PURL_BYTES) {
    errors.purl = [`The package URL is longer than ${MAX_PURL_BYTES} bytes once encoded.`];
    return undefined;
  }
  return {
    type: purl.type,
    namespace: purl.namespace ?? '',
    name: purl.name,
    version: purl.version ?? '',
    // Own keys as they are ("__proto__" and "constructor" included): fromEntries defines, never assigns.
    qualifiers: Object.fromEntries(Object.entries(purl.qualifiers ?? {})) as Record<string, string>,
    subpath: purl.subpath ?? '',
    purl: purl.toString(),
  };
}
