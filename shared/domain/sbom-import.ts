/**
 * SBOM imports: what an import is (a resource with a status and a summary), and the plan that turns an
 * Inventory into the writes that make a product's inventory the SBOM's. Pure: the current state, the
 * license index, the clock's reading and the uuid source are passed in, and a plan computed twice from
 * the same state is the same plan — which is why importing a document again writes nothing.
 *
 * Semantics (README, "Loading an SBOM"):
 * - packages are upserted by canonical purl in the dataspace (a component without a purl comes with a
 *   `pkg:generic/…` one from the reader, so purl matching covers type, namespace, name and version);
 *   an existing package is matched and left as it is, unless `updateExistingPackages`, which fills its
 *   empty fields only (DejaCode's rule);
 * - each component's declared license goes to a new package (resolved: canonical expression, the text as
 *   written, the unknown symbols), its concluded license to the product package;
 * - `replace` makes the product's packages exactly the SBOM's (the others go, with their analyses);
 *   `merge` only adds and updates;
 * - dependencies become each product package's `dependsOn` (package uuids);
 * - vulnerabilities are upserted by id (new aliases added, empty summary and score filled), linked to
 *   the affected packages, and each analysis recorded as the product's triage of it;
 * - a VEX-only document records analyses (and the vulnerabilities they need) and leaves the product's
 *   packages alone.
 */
import { packageLink, type Analysis, type Package, type PackageVulnerability, type ProductPackage, type Vulnerability } from './catalog.ts';
import { HASH_LENGTHS, NO_PACKAGE_DETAILS, PRODUCT_PACKAGE_DEFAULTS, normalizedHash, type HashField } from './catalog.ts';
import { parseBomLink } from './bom-link.ts';
import { isVersionless, versionlessCovers } from './purl-match.ts';
import { resolveLicenseExpression, type LicenseHints, type LicenseIndex, type Resolution, type ResolvedExpression } from './license-resolution.ts';
import type { Inventory, SbomAnalysis, SbomComponent, SbomFormat, SbomVulnerability, SkippedComponent } from '../sbom/inventory.ts';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export const IMPORT_MODES = ['replace', 'merge'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

export interface ImportSummary {
  /** Components read: packages_created + packages_matched + skipped. */
  readonly components: number;
  readonly packagesCreated: number;
  readonly packagesMatched: number;
  /** Of the matched, those whose empty fields were filled (update_existing_packages). */
  readonly packagesUpdated: number;
  /** Product packages added, removed (replace mode) and kept. */
  readonly added: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly skipped: readonly SkippedComponent[];
  /** Symbols and texts kept as unknown licenses, as written, sorted. */
  readonly unknownLicenses: readonly string[];
  /** Licenses as written that were recognised by name, URL, text or mapping, each once a rule (absent before recognition). */
  readonly resolvedLicenses?: readonly Resolution[];
  /** Vulnerabilities of the document imported (created, or found and linked), and analyses of the product's packages it states. */
  readonly vulnerabilities: number;
  readonly analyses: number;
  /**
   * The purls of the product packages added and removed, and of the catalog packages filled in, sorted,
   * each list cut at IMPORT_LIMITS.listedPurls (the counts above are exact). Absent on imports made
   * before they were kept.
   */
  readonly addedPurls?: readonly string[];
  readonly removedPurls?: readonly string[];
  readonly updatedPurls?: readonly string[];
}

export interface SbomImport {
  readonly uuid: string;
  readonly dataspace: string;
  readonly productUuid: string;
  /** The product's name and version when the import was asked for, for the audit trail (absent on older imports). */
  readonly productName?: string | undefined;
  readonly createdBy: string;
  /** The name of the API key the import was asked with: its writes are audited as the importer's (absent before keys had names). */
  readonly createdWithKey?: string | null | undefined;
  readonly status: ImportStatus;
  /** '' until the document is read (an upload not yet received). */
  readonly format: SbomFormat | '';
  readonly specVersion: string;
  readonly mode: ImportMode;
  readonly updateExistingPackages: boolean;
  /** Why the import failed, or what of the document could not be used. */
  readonly errors: readonly string[];
  readonly createdDate: string;
  readonly completedDate: string | null;
  readonly summary: ImportSummary | null;
  /** Uploads only: until when the presigned URL accepts the document. */
  readonly uploadExpiresAt: string | null;
}

/** What an import may hold, and what the synchronous call takes (decided in docs/data-model.md, measured by the bench). */
export const IMPORT_LIMITS = {
  /** Purls an import's summary lists of those it added, removed and updated, each (the import item holds them: 400 KB). */
  listedPurls: 1_000,
  /** A document imported within the call (POST load_sboms): bytes as sent, and components. */
  syncBytes: 4 * 1024 * 1024,
  syncComponents: 1_000,
  /** A document uploaded to S3 (POST sbom_uploads). */
  uploadBytes: 50 * 1024 * 1024,
  uploadComponents: 10_000,
} as const;

/** How long after its URL expired an upload that never came counts as failed. */
const UPLOAD_GRACE_MS = 60_000;

/** The status a client sees: a queued upload whose URL expired long ago failed (nothing will come). */
export function effectiveImport(record: SbomImport, now: Date): SbomImport {
  if (record.status !== 'queued' || record.uploadExpiresAt === null) return record;
  if (now.getTime() <= Date.parse(record.uploadExpiresAt) + UPLOAD_GRACE_MS) return record;
  return { ...record, status: 'failed', errors: [...record.errors, 'No document was uploaded before the upload URL expired.'] };
}

// --- the plan -------------------------------------------------------------------------------------

/** A component whose purl the service has made canonical (or undefined: it cannot be stored). */
export interface PreparedComponent {
  readonly component: SbomComponent;
  /** The canonical purl, as the catalog stores it; undefined with `problem` when unusable. */
  readonly purl: string | undefined;
  readonly problem?: string;
}

export interface CurrentState {
  readonly dataspace: string;
  readonly productUuid: string;
  readonly productPackages: readonly ProductPackage[];
  /** Package uuids of product packages that a crashed import marked for removal (they must be rewritten to stay). */
  readonly markedForRemoval: ReadonlySet<string>;
  readonly analyses: readonly Analysis[];
  /**
   * Set when `productPackages` are only those the document names (a merge, or a VEX, removes nothing and
   * reads no more): how many other product packages the product holds. They stay as they are.
   */
  readonly othersCount?: number;
  /** The dataspace's packages named by the document's purls (and, for a VEX, the product's packages), by canonical purl. */
  readonly packagesByPurl: ReadonlyMap<string, Package>;
  /** The dataspace's vulnerabilities named by the document, by id. */
  readonly vulnerabilitiesById: ReadonlyMap<string, Vulnerability>;
}

export interface PlanContext {
  readonly index: LicenseIndex;
  /** ISO 8601 with offset: created, linked and modified dates of what the plan creates. */
  readonly now: string;
  readonly newUuid: () => string;
  readonly mode: ImportMode;
  readonly updateExistingPackages: boolean;
  /** The catalog's canonical form of a purl (a VEX names packages by purl), or undefined when it is none. */
  readonly canonicalPurl?: (purl: string) => string | undefined;
}

export interface VulnerabilityWrite {
  readonly before: Vulnerability | undefined;
  readonly after: Vulnerability;
  /** The link each of these packages must carry (new, or re-scored). */
  readonly links: ReadonlyMap<string, PackageVulnerability>;
}

export interface ImportPlan {
  /** Creates (no before) and updates of catalog packages. */
  readonly packageWrites: readonly { readonly before: Package | undefined; readonly after: Package }[];
  /** Product packages to create (no before) or rewrite. */
  readonly productPackageWrites: readonly { readonly before: ProductPackage | undefined; readonly after: ProductPackage }[];
  /** Product packages to remove (replace mode), and the analyses that go with them. */
  readonly productPackageRemovals: readonly ProductPackage[];
  readonly analysisRemovals: readonly Analysis[];
  readonly vulnerabilityWrites: readonly VulnerabilityWrite[];
  readonly analysisWrites: readonly { readonly before: Analysis | undefined; readonly after: Analysis }[];
  readonly summary: ImportSummary;
  /** What of the document could not be used, beyond skipped components (vulnerabilities with an unusable id). */
  readonly warnings: readonly string[];
}

/** True when the plan writes nothing: the product already holds what the document says. */
export function isEmptyPlan(plan: ImportPlan): boolean {
  return (
    plan.packageWrites.length === 0 &&
    plan.productPackageWrites.length === 0 &&
    plan.productPackageRemovals.length === 0 &&
    plan.vulnerabilityWrites.length === 0 &&
    plan.analysisWrites.length === 0
  );
}

/** Field lengths the catalog's API accepts (shared/schemas/catalog.ts): longer SBOM values are cut there. */
export const TEXT_LIMITS = { description: 10_000, copyright: 10_000, supplier: 1_000, homepageUrl: 1_024, downloadUrl: 1_024, filename: 255, declared: 1_024, summary: 10_000 } as const;

const VULNERABILITY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

const cut = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
const httpOnly = (value: string, max: number) => (/^https?:\/\/\S+$/i.test(value) && value.length <= max ? value : '');
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/** The package a component describes, as the import would create it. */
function newPackage(
  component: SbomComponent,
  purl: string,
  declared: ResolvedExpression,
  base: { uuid: string; dataspace: string },
): Package {
  return {
    uuid: base.uuid,
    dataspace: base.dataspace,
    rev: 0,
    type: component.type,
    namespace: component.namespace,
    name: component.name,
    version: component.version,
    qualifiers: { ...component.qualifiers },
    subpath: component.subpath,
    purl,
    ...NO_PACKAGE_DETAILS,
    ...details(component),
    licenseExpression: declared.expression,
    declaredLicenseExpression: cut(declared.declared, TEXT_LIMITS.declared),
    unknownLicenses: [...declared.unknown],
    resolvedFrom: [...declared.resolvedFrom],
    licenseKeys: [...declared.keys],
    // Only the dataspace's own licenses are counted on (their use counters: see catalog-store.ts).
    countedLicenseKeys: [...declared.dataspaceKeys],
    usagePolicy: null,
    vulnerabilities: {},
  };
}

/** The descriptive fields of a component, cleaned as the API would accept them ('' when unusable). */
function details(component: SbomComponent) {
  const hashes = Object.fromEntries(
    (Object.keys(HASH_LENGTHS) as HashField[]).map((field) => [field, normalizedHash(field, component.hashes[field] ?? '') ?? '']),
  ) as Record<HashField, string>;
  return {
    filename: cut(component.filename.trim(), TEXT_LIMITS.filename),
    downloadUrl: httpOnly(component.downloadUrl.trim(), TEXT_LIMITS.downloadUrl),
    ...hashes,
    description: cut(component.description.trim(), TEXT_LIMITS.description),
    homepageUrl: httpOnly(component.homepageUrl.trim(), TEXT_LIMITS.homepageUrl),
    copyright: cut(component.copyright.trim(), TEXT_LIMITS.copyright),
    supplier: cut(component.supplier.trim(), TEXT_LIMITS.supplier),
  };
}

/** `before` with its empty fields filled from the component (DejaCode's update_existing_packages). */
function filled(before: Package, component: SbomComponent, declared: ResolvedExpression): Package {
  const given = details(component);
  const after: Record<string, unknown> = { ...before };
  for (const [field, value] of Object.entries(given)) {
    if ((before as unknown as Record<string, string>)[field] === '' && value !== '') after[field] = value;
  }
  if (before.licenseExpression === '' && declared.expression !== '') {
    Object.assign(after, {
      licenseExpression: declared.expression,
      declaredLicenseExpression: cut(declared.declared, TEXT_LIMITS.declared),
      unknownLicenses: [...declared.unknown],
      resolvedFrom: [...declared.resolvedFrom],
      licenseKeys: [...declared.keys],
      countedLicenseKeys: [...declared.dataspaceKeys],
    });
  }
  return after as unknown as Package;
}

/** A product package's concluded-license fields from its resolved expression. */
function concludedFields(resolved: ResolvedExpression) {
  return {
    licenseExpression: resolved.expression,
    licenseKeys: [...resolved.keys],
    declaredLicenseExpression: cut(resolved.declared, TEXT_LIMITS.declared),
    unknownLicenses: [...resolved.unknown],
  };
}

function samePackage(a: Package, b: Package): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function planImport(inventory: Inventory, prepared: readonly PreparedComponent[], state: CurrentState, context: PlanContext): ImportPlan {
  const unknown = new Set<string>();
  const recognised = new Map<string, Resolution>();
  const resolved = new Map<string, ResolvedExpression>();
  /** Each distinct text (with what the document says beside its licenses) is resolved once. */
  const resolve = (text: string, hints: LicenseHints | undefined) => {
    const cacheKey = hints && hints.size > 0 ? `${text}\u0000${JSON.stringify([...hints])}` : text;
    let result = resolved.get(cacheKey);
    if (!result) {
      result = resolveLicenseExpression(text, context.index, hints);
      resolved.set(cacheKey, result);
    }
    for (const symbol of result.unknown) unknown.add(symbol);
    for (const resolution of result.resolvedFrom) recognised.set(`${resolution.written}\u0000${resolution.expression}\u0000${resolution.rule}`, resolution);
    return result;
  };

  const skipped: SkippedComponent[] = [...inventory.skipped];
  const packageWrites: { before: Package | undefined; after: Package }[] = [];
  /** Package of each component ref, and the concluded expression each package takes in the product. */
  const packageOfRef = new Map<string, Package>();
  const inProduct = new Map<string, { pkg: Package; concluded: ResolvedExpression | undefined; refs: string[] }>();
  const byPurl = new Map(state.packagesByPurl);
  let created = 0;
  let matched = 0;
  let updated = 0;

  if (!inventory.vexOnly) {
    for (const { component, purl, problem } of prepared) {
      if (purl === undefined) {
        const label = component.ref || component.purl || component.name;
        const recognised = component.purl || [component.name, component.version].filter((part) => part !== '').join(' ');
        skipped.push({ component: label, ...(recognised !== '' && recognised !== label ? { name: recognised } : {}), reason: problem ?? 'The component has no usable package URL.' });
        continue;
      }
      const declared = resolve(component.declaredLicense, component.licenseHints);
      const concluded = component.concludedLicense.trim() === '' ? undefined : resolve(component.concludedLicense, component.licenseHints);
      let pkg = byPurl.get(purl);
      if (!pkg) {
        pkg = newPackage(component, purl, declared, { uuid: context.newUuid(), dataspace: state.dataspace });
        packageWrites.push({ before: undefined, after: pkg });
        byPurl.set(purl, pkg);
        created++;
      } else {
        matched++;
        // A package this import already wrote (a purl listed twice) takes nothing more from the second.
        const written = packageWrites.some((write) => write.after.uuid === pkg!.uuid);
        if (context.updateExistingPackages && !written) {
          const after = filled(pkg, component, declared);
          if (!samePackage(after, pkg)) {
            packageWrites.push({ before: pkg, after });
            updated++;
            byPurl.set(purl, after);
            pkg = after;
          }
        }
      }
      packageOfRef.set(component.ref, pkg);
      const entry = inProduct.get(pkg.uuid) ?? { pkg, concluded: undefined, refs: [] };
      entry.pkg = pkg;
      if ((entry.concluded === undefined || entry.concluded.expression === '') && concluded !== undefined) entry.concluded = concluded;
      entry.refs.push(component.ref);
      inProduct.set(pkg.uuid, entry);
    }
  }

  // --- product packages ---------------------------------------------------------------------------
  if (state.othersCount !== undefined && context.mode === 'replace' && !inventory.vexOnly) throw new Error('A replace needs every product package: it removes those the document does not name.');
  const current = new Map(state.productPackages.map((pp) => [pp.packageUuid, pp]));
  const productPackageWrites: { before: ProductPackage | undefined; after: ProductPackage }[] = [];
  const productPackageRemovals: ProductPackage[] = [];
  let added = 0;
  let kept = 0;
  if (!inventory.vexOnly) {
    const removing = context.mode === 'replace' ? state.productPackages.filter((pp) => !inProduct.has(pp.packageUuid)) : [];
    productPackageRemovals.push(...removing);
    const remainingSet = new Set([...current.keys(), ...inProduct.keys()].filter((uuid) => !removing.some((pp) => pp.packageUuid === uuid)));
    // Read in part, the product keeps every package it holds (nothing is removed): an edge to one of the
    // unread ones stays.
    const remaining = { has: (uuid: string) => state.othersCount !== undefined || remainingSet.has(uuid) };
    const documentHasDependencies = inventory.dependencies.size > 0;
    for (const [packageUuid, entry] of inProduct) {
      const before = current.get(packageUuid);
      const stated = entry.refs.filter((ref) => inventory.dependencies.has(ref));
      let dependsOn: string[];
      if (stated.length > 0) {
        const targets = stated.flatMap((ref) => inventory.dependencies.get(ref) ?? []).map((ref) => packageOfRef.get(ref)?.uuid);
        dependsOn = [...new Set(targets.filter((uuid): uuid is string => uuid !== undefined && uuid !== packageUuid))];
      } else {
        // The document says nothing of this one's dependencies: none in a replace by a document that
        // lists dependencies, what it had otherwise.
        dependsOn = context.mode === 'replace' && documentHasDependencies ? [] : [...(before?.dependsOn ?? [])];
      }
      dependsOn = dependsOn.filter((uuid) => remaining.has(uuid)).sort();
      // The concluded license the document states, as a product package keeps it (see product-packages.ts).
      const concluded = entry.concluded !== undefined && entry.concluded.expression !== '' ? concludedFields(entry.concluded) : undefined;
      // Where this document has it, for a BOM-Link VEX to name it by: only a CycloneDX document with a
      // serial number can be linked to, and a bom-ref that is the purl needs no record (the purl resolves).
      const bomRef = inventory.serial !== undefined ? entry.refs.find((ref) => ref !== entry.pkg.purl && context.canonicalPurl?.(ref) !== entry.pkg.purl) : undefined;
      const link = bomRef !== undefined ? { bomSerial: inventory.serial!, bomRef } : {};
      const after: ProductPackage = before
        ? { ...before, ...(concluded ?? {}), dependsOn, ...link }
        : {
            ...PRODUCT_PACKAGE_DEFAULTS,
            uuid: context.newUuid(),
            dataspace: state.dataspace,
            productUuid: state.productUuid,
            packageUuid,
            createdDate: context.now,
            ...(concluded ?? {}),
            dependsOn,
            ...link,
          };
      if (before) kept++;
      else added++;
      const changed =
        !before || after.licenseExpression !== before.licenseExpression || !sameList(after.dependsOn, before.dependsOn) || after.bomSerial !== before.bomSerial || after.bomRef !== before.bomRef;
      // A rewrite moves the product package's revision (its ETag), as an API change does.
      if (changed || state.markedForRemoval.has(packageUuid)) productPackageWrites.push({ before, after: before && changed ? { ...after, rev: before.rev + 1 } : after });
    }
    // Product packages the document does not name but that stay (merge): their edges to removed ones go.
    kept += state.othersCount ?? 0;
    for (const pp of state.productPackages) {
      if (inProduct.has(pp.packageUuid) || !remaining.has(pp.packageUuid)) continue;
      kept++;
      const dependsOn = pp.dependsOn.filter((uuid) => remaining.has(uuid));
      if (dependsOn.length !== pp.dependsOn.length || state.markedForRemoval.has(pp.packageUuid)) productPackageWrites.push({ before: pp, after: dependsOn.length !== pp.dependsOn.length ? { ...pp, dependsOn, rev: pp.rev + 1 } : pp });
    }
  }
  const removedPackages = new Set(productPackageRemovals.map((pp) => pp.packageUuid));
  const purlOfUuid = new Map([...state.packagesByPurl.values()].map((pkg) => [pkg.uuid, pkg.purl]));
  for (const write of packageWrites) purlOfUuid.set(write.after.uuid, write.after.purl);
  const listed = (purls: Iterable<string | undefined>) =>
    [...new Set([...purls].filter((purl): purl is string => purl !== undefined))].sort().slice(0, IMPORT_LIMITS.listedPurls);
  const analysisRemovals = state.analyses.filter((a) => removedPackages.has(a.packageUuid));

  // --- vulnerabilities and analyses ---------------------------------------------------------------
  const finalProductPackages = new Map<string, ProductPackage>();
  for (const pp of state.productPackages) if (!removedPackages.has(pp.packageUuid)) finalProductPackages.set(pp.packageUuid, pp);
  for (const { after } of productPackageWrites) finalProductPackages.set(after.packageUuid, after);
  const packagesNow = new Map<string, Package>([...byPurl.values()].map((pkg) => [pkg.uuid, pkg]));
  // The product's packages by the BOM they were last imported from and their bom-ref there.
  const byBomLink = new Map<string, string>();
  const linkedSerials = new Set<string>();
  for (const pp of finalProductPackages.values()) {
    if (pp.bomSerial === undefined || pp.bomRef === undefined) continue;
    byBomLink.set(`${pp.bomSerial}#${pp.bomRef}`, pp.packageUuid);
    linkedSerials.add(pp.bomSerial);
  }
  /** The product's packages a reference names (one, or every version a versionless purl names), or why none is. */
  const affectedPackages = (reference: string): Package[] | string => {
    const link = parseBomLink(reference);
    // A BOM-Link (urn:cdx:<serial>/<version>#<bom-ref>) names a component of a document by its bom-ref:
    // the package imported from that BOM with that bom-ref, else the package the bom-ref names as a purl.
    const ref = link?.ref ?? reference;
    const linked = link ? byBomLink.get(`${link.serial}#${link.ref}`) : undefined;
    const purl = context.canonicalPurl?.(ref) ?? ref;
    const pkg = (linked !== undefined ? packagesNow.get(linked) : undefined) ?? packageOfRef.get(ref) ?? byPurl.get(purl);
    // Only what the product holds: a VEX speaks of this product's packages.
    if (pkg && finalProductPackages.has(pkg.uuid)) return [pkg];
    if (!pkg && isVersionless(purl)) {
      const covered = [...finalProductPackages.keys()].map((uuid) => packagesNow.get(uuid)).filter((held): held is Package => held !== undefined && versionlessCovers(purl, held.purl));
      if (covered.length > 0) return covered;
    }
    if (!link) return `"${cut(reference, 200)}" is no package of this product`;
    return linkedSerials.has(link.serial)
      ? `"${cut(reference, 200)}": no package of this product has bom-ref "${cut(link.ref, 100)}" in BOM urn:uuid:${link.serial}`
      : `"${cut(reference, 200)}" names BOM urn:uuid:${link.serial}, which was not imported into this product (or was imported before BOM-Links were recorded: import it again)`;
  };
  const existingAnalyses = new Map(state.analyses.map((a) => [`${a.packageUuid}\u0000${a.vulnerabilityId}`, a]));
  const vulnerabilityWrites: VulnerabilityWrite[] = [];
  const analysisWrites: { before: Analysis | undefined; after: Analysis }[] = [];
  const warnings: string[] = [];
  let vulnerabilityCount = 0;
  let analysisCount = 0;
  // A document may name one vulnerability in several entries, each with its own analysis of its own
  // packages (OpenVEX statements do; so may a CycloneDX VEX): one vulnerability with every package they
  // name, and each entry's analysis for its packages (a later entry's for a package a former one named).
  const entriesById = new Map<string, SbomVulnerability[]>();
  for (const given of inventory.vulnerabilities) {
    const id = given.id.trim();
    if (id.length > 100 || !VULNERABILITY_ID.test(id)) {
      warnings.push(`Vulnerability "${cut(id, 100)}" was not imported: an id uses letters, digits and . _ : - only, at most 100 characters.`);
      continue;
    }
    const entries = entriesById.get(id);
    if (entries) entries.push(given);
    else entriesById.set(id, [given]);
  }
  for (const [id, entries] of entriesById) {
    const analysesOf = new Map<string, SbomAnalysis>();
    const affectedById = new Map<string, Package>();
    /** Purls (and other references) the entries name that no package of this product answers to. */
    const notHeld = new Set<string>();
    for (const given of entries) {
      const found = given.affects.map(affectedPackages);
      const packagesOfEntry = found.filter((p): p is Package[] => typeof p !== 'string').flat();
      for (const pkg of packagesOfEntry) {
        affectedById.set(pkg.uuid, pkg);
        if (given.analysis && !isBlank(given.analysis)) analysesOf.set(pkg.uuid, given.analysis);
      }
      // What a BOM-Link names and the product lacks is said with its reason; the other references, together below.
      const unlinked = found.filter((p, index): p is string => typeof p === 'string' && parseBomLink(given.affects[index]!) !== undefined);
      for (const reason of unlinked.slice(0, 20)) warnings.push(`Vulnerability "${id}" affects ${reason}: that part was not applied.`);
      if (unlinked.length > 20) warnings.push(`Vulnerability "${id}": ${unlinked.length - 20} more BOM-Links name no package of this product.`);
      given.affects.forEach((reference, index) => {
        if (typeof found[index] === 'string' && parseBomLink(reference) === undefined) notHeld.add(reference);
      });
    }
    const affected = [...affectedById.values()];
    const before = state.vulnerabilitiesById.get(id);
    if (!before && affected.length === 0) {
      warnings.push(`Vulnerability "${id}" was not imported: it affects no package of this product.`);
      continue;
    }
    // A VEX written for several products names packages this one may not hold: said, not an error.
    if (notHeld.size > 0) {
      const named = [...notHeld].slice(0, 5).map((reference) => cut(reference, 200));
      const what = notHeld.size === 1 ? 'a package this product does not hold (nothing applied to it)' : `${notHeld.size} packages this product does not hold (nothing applied to them)`;
      warnings.push(`Vulnerability "${id}" names ${what}: ${named.join(', ')}${notHeld.size > 5 ? ', …' : ''}.`);
    }
    const aliases = [...(before?.aliases ?? [])];
    for (const alias of entries.flatMap((given) => given.aliases).map((a) => a.trim()).filter((a) => a !== '' && a.length <= 100 && a !== id)) {
      if (!aliases.includes(alias) && aliases.length < 100) aliases.push(alias);
    }
    const scores = entries.map((given) => given.riskScore).filter((score): score is number => score !== null);
    const riskScore = before?.riskScore ?? (scores.length > 0 ? Math.max(...scores) : null);
    const summary = entries.map((given) => given.summary.trim()).find((text) => text !== '') ?? '';
    const linkedBefore = new Set((before?.affectedPackages ?? []).map((a) => a.packageUuid));
    const after: Vulnerability = {
      ...(before ?? { uuid: context.newUuid(), dataspace: state.dataspace, rev: 0, vulnerabilityId: id, source: 'sbom' as const }),
      aliases,
      summary: before?.summary || cut(summary, TEXT_LIMITS.summary),
      riskScore,
      affectedPackages: [
        ...(before?.affectedPackages ?? []),
        ...affected.filter((pkg) => !linkedBefore.has(pkg.uuid)).map((pkg) => ({ packageUuid: pkg.uuid, linkedDate: context.now })),
      ],
    };
    // Every affected package carries the link with the current score (as writeVulnerability keeps them):
    // a new link on this document's packages, and every package's link again when the score was filled.
    const rescored = before !== undefined && before.riskScore !== riskScore;
    const links = new Map<string, PackageVulnerability>();
    for (const link of after.affectedPackages) {
      const missing = affectedById.has(link.packageUuid) && !packagesNow.get(link.packageUuid)?.vulnerabilities[id];
      if (rescored || missing) links.set(link.packageUuid, packageLink(link, riskScore));
    }
    vulnerabilityCount++;
    const changed = !before || JSON.stringify({ ...before, rev: 0 }) !== JSON.stringify({ ...after, rev: 0 });
    if (changed || links.size > 0) vulnerabilityWrites.push({ before, after, links });

    for (const [packageUuid, given] of analysesOf) {
      analysisCount++;
      const pkg = affectedById.get(packageUuid)!;
      const pp = finalProductPackages.get(pkg.uuid)!;
      const key = `${pkg.uuid}\u0000${id}`;
      const existing = existingAnalyses.get(key);
      const content = { state: given.state, justification: given.justification, responses: [...new Set(given.responses)], detail: cut(given.detail.trim(), 100_000) };
      if (existing && existing.productPackageUuid === pp.uuid && sameAnalysis(existing, content)) continue;
      const analysis: Analysis = existing
        ? { ...existing, productPackageUuid: pp.uuid, ...content, lastModifiedDate: context.now }
        : {
            uuid: context.newUuid(),
            dataspace: state.dataspace,
            rev: 0,
            productUuid: state.productUuid,
            productPackageUuid: pp.uuid,
            packageUuid: pkg.uuid,
            vulnerabilityId: id,
            ...content,
            createdDate: context.now,
            lastModifiedDate: context.now,
          };
      analysisWrites.push({ before: existing, after: analysis });
      existingAnalyses.set(key, analysis);
    }
  }

  const summary: ImportSummary = {
    components: created + matched + skipped.length,
    packagesCreated: created,
    packagesMatched: matched,
    packagesUpdated: updated,
    added,
    removed: productPackageRemovals.length,
    unchanged: kept,
    skipped,
    unknownLicenses: [...unknown].sort(),
    resolvedLicenses: [...recognised.values()].sort((a, b) => a.written.localeCompare(b.written, 'en') || a.rule.localeCompare(b.rule, 'en')),
    vulnerabilities: vulnerabilityCount,
    analyses: analysisCount,
    addedPurls: listed(productPackageWrites.filter((write) => write.before === undefined).map((write) => purlOfUuid.get(write.after.packageUuid))),
    removedPurls: listed(productPackageRemovals.map((pp) => purlOfUuid.get(pp.packageUuid))),
    updatedPurls: listed(packageWrites.filter((write) => write.before !== undefined).map((write) => write.after.purl)),
  };
  return { packageWrites, productPackageWrites, productPackageRemovals, analysisRemovals, vulnerabilityWrites, analysisWrites, summary, warnings };
}

function isBlank(analysis: SbomAnalysis): boolean {
  return analysis.state === null && analysis.justification === null && analysis.responses.length === 0 && analysis.detail.trim() === '';
}

function sameAnalysis(a: Pick<Analysis, 'state' | 'justification' | 'responses' | 'detail'>, b: Pick<Analysis, 'state' | 'justification' | 'responses' | 'detail'>): boolean {
  return a.state === b.state && a.justification === b.justification && a.detail === b.detail && sameList([...a.responses].sort(), [...b.responses].sort());
}
