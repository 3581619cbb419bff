/**
 * SBOM imports: a document small enough is imported within the call (POST load_sboms: 200 with the
 * completed import); a larger one is uploaded to S3 (POST sbom_uploads: 201 with the queued import and
 * a presigned PUT URL) and imported by the import function when its upload event arrives. Either way
 * the import is a resource the caller can read back (GET sbom_imports/{uuid}).
 *
 * Who may: whoever may change the product imports into it, and that creates the catalog packages and
 * vulnerabilities its document names (which the catalog's own endpoints leave to superusers), as
 * DejaCode lets a product's changers load SBOMs. Existing packages are only matched, or, with
 * update_existing_packages, have their empty fields filled; an import never overwrites catalog data.
 * Whoever may view the product may read its imports.
 */
import type { Caller } from '../domain/caller.ts';
import { NotFoundError, PayloadTooLargeError, ServiceUnavailableError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import { isUuid } from '../domain/identifiers.ts';
import { shippedLicenseIndex } from '../reference/shipped-license-index.ts';
import type { ReferenceLibrary } from '../domain/reference-license.ts';
import type { LicenseKnowledge } from '../domain/license-knowledge.ts';
import { scancodeKnowledge } from '../reference/scancode-rules.ts';
import {
  IMPORT_LIMITS,
  effectiveImport,
  isEmptyPlan,
  planImport,
  type ImportMode,
  type ImportSummary,
  type PreparedComponent,
  type SbomImport,
} from '../domain/sbom-import.ts';
import type { Package } from '../domain/catalog.ts';
import type { Inventory } from '../sbom/inventory.ts';
import { ACCEPTED_MEDIA_TYPES, readSbom } from '../sbom/read-sbom.ts';
import { parseBomLink } from '../domain/bom-link.ts';
import { isVersionless } from '../domain/purl-match.ts';
import { ImportProductGoneError, isImportRace, type SbomImportStore } from '../store/sbom-import-store.ts';
import { UploadReplacedError, type SbomUploads } from '../aws/sbom-uploads.ts';
import { canonicalPurl, resolvedFromView } from './catalog.ts';
import { isoWithOffset } from '../domain/time.ts';
import { productUrl, type ProductService } from './products.ts';
import { tooLarge, type ImportOptions, type SbomRequest } from '../http/sbom-request.ts';
import { logger } from '../observability/logger.ts';
import type { Product } from '../domain/product.ts';
import { runAsPartOf } from '../observability/scope.ts';

export interface SbomImportDeps {
  readonly store: SbomImportStore;
  /**
   * Runs an upload's import as the user (and key) who asked for it, so that the audit trail names them
   * for its changes, as it names the caller of a synchronous import. Without it, the writes name no one.
   */
  readonly runAs?: <T>(actor: { readonly user: string; readonly key?: string | undefined }, work: () => Promise<T>) => Promise<T>;
  readonly products: ProductService;
  /** Resolved when first used: indexing the reference licenses is no part of a cold start. */
  readonly library: () => ReferenceLibrary;
  /** ScanCode's license rules (names, URLs, texts), read when first used; the shipped index unless given. */
  readonly knowledge?: () => LicenseKnowledge;
  /** Resolved when first used: the synchronous import and reading need no bucket. */
  readonly uploads: () => SbomUploads;
  readonly now: () => Date;
  readonly newUuid: () => string;
}

/** How long a presigned upload URL accepts the document. */
export const UPLOAD_URL_SECONDS = 15 * 60;

/**
 * How long an import keeps reading and planning again when a concurrent writer of its product (an
 * evaluation's commit checks the product; an API change bumps it) wins a transaction, before it
 * answers "busy": a time budget, not a count, so a loaded machine gets the same chance as an idle one.
 * Within API Gateway's 29 s, beside the 10 s a 1,000-component import takes.
 */
const RACE_BUDGET_MS = 15_000;
const RACE_BACKOFF = { baseMs: 25, capMs: 1_000 } as const;

/** Entries of the skipped list and of the unknown licenses kept on the record (a DynamoDB item holds 400 KB). */
const LISTED = 1_000;
/** The reader's notes on a document (what it repaired or left out) an import's `errors` lists. */
const READER_WARNINGS = 20;
/** What the import could not apply (vulnerabilities, BOM-Links, packages a VEX names) it lists. */
const IMPORT_WARNINGS = 200;

export function sbomImportUrl(baseUrl: string, uuid: string): string {
  return `${baseUrl}/api/v2/sbom_imports/${uuid}/`;
}

export function sbomImportView(record: SbomImport, baseUrl: string) {
  return {
    uuid: record.uuid,
    api_url: sbomImportUrl(baseUrl, record.uuid),
    product: record.productUuid,
    product_url: productUrl(baseUrl, record.productUuid),
    status: record.status,
    format: record.format === '' ? null : record.format,
    spec_version: record.specVersion === '' ? null : record.specVersion,
    mode: record.mode,
    update_existing_packages: record.updateExistingPackages,
    errors: record.errors,
    created_by: record.createdBy,
    created_date: record.createdDate,
    completed_date: record.completedDate,
    summary: record.summary && summaryView(record.summary),
  };
}

function summaryView(summary: ImportSummary) {
  return {
    components: summary.components,
    packages_created: summary.packagesCreated,
    packages_matched: summary.packagesMatched,
    packages_updated: summary.packagesUpdated,
    added: summary.added,
    removed: summary.removed,
    unchanged: summary.unchanged,
    skipped: summary.skipped.map((entry) => ({ component: entry.component, name: entry.name ?? entry.component, reason: entry.reason })),
    unknown_licenses: summary.unknownLicenses,
    resolved_licenses: resolvedFromView(summary.resolvedLicenses ?? []),
    vulnerabilities: summary.vulnerabilities,
    analyses: summary.analyses,
    added_purls: summary.addedPurls ?? [],
    removed_purls: summary.removedPurls ?? [],
    updated_purls: summary.updatedPurls ?? [],
  };
}

/** The outcome of running an import: its summary, what it could not use, and what it wrote. */
interface RunResult {
  readonly summary: ImportSummary;
  readonly warnings: readonly string[];
  readonly changed: boolean;
  readonly consumedWriteCapacity: number;
}

export class SbomImportService {
  constructor(private readonly deps: SbomImportDeps) {}

  /** POST load_sboms: reads the document and imports it within the call. Bad input changes nothing. */
  async load(caller: Caller, productUuid: string, request: () => SbomRequest, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'change');
    const { document, contentType, options } = request();
    const inventory = await this.read(document, contentType || undefined);
    const components = inventory.components.length + inventory.skipped.length;
    if (components > IMPORT_LIMITS.syncComponents) {
      throw tooLarge(product.uuid, `${components.toLocaleString('en-US')} components, more than the ${IMPORT_LIMITS.syncComponents.toLocaleString('en-US')}`);
    }
    const created = isoWithOffset(this.deps.now());
    const record: SbomImport = {
      ...this.newRecord(caller, product, options, created, null),
      status: 'running',
      format: inventory.format,
      specVersion: inventory.specVersion,
    };
    let result: RunResult;
    const progress = { writing: false };
    try {
      result = await this.partOf(record, () => this.run(record, inventory, progress));
    } catch (error) {
      // The product was deleted while the import wrote: as if the product had never been found.
      if (error instanceof ImportProductGoneError) throw new NotFoundError();
      if (progress.writing) {
        // Part of it may be written: recorded as failed, which asks for the product's evaluation.
        await this.deps.store.create({ ...record, status: 'failed', errors: ['The import failed part-way; send the document again to complete it.'], completedDate: isoWithOffset(this.deps.now()) }, { changed: true });
      }
      throw error;
    }
    const finished = this.completed(record, result, inventory);
    await this.deps.store.create(finished, { changed: result.changed, consumedWriteCapacity: result.consumedWriteCapacity });
    return sbomImportView(finished, baseUrl);
  }

  /** POST sbom_uploads: a queued import and where to PUT its document. */
  async createUpload(caller: Caller, productUuid: string, options: ImportOptions & { contentType: string; size: number }, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'change');
    const now = this.deps.now();
    const expires = new Date(now.getTime() + UPLOAD_URL_SECONDS * 1000);
    const record = this.newRecord(caller, product, options, isoWithOffset(now), isoWithOffset(expires));
    const upload = await this.deps.uploads().presignPut(record.uuid, options.contentType, options.size, UPLOAD_URL_SECONDS);
    await this.deps.store.create(record);
    return {
      ...sbomImportView(record, baseUrl),
      upload: { url: upload.url, method: 'PUT' as const, headers: upload.headers, expires_date: record.uploadExpiresAt!, max_bytes: IMPORT_LIMITS.uploadBytes },
    };
  }

  /** GET sbom_imports/{uuid}: for whoever may view its product; another dataspace's is not found. */
  async retrieve(caller: Caller, uuid: string, baseUrl: string) {
    const record = isUuid(uuid) ? await this.deps.store.get(uuid.toLowerCase()) : undefined;
    if (!record || record.dataspace !== caller.dataspace) throw new NotFoundError();
    await this.deps.products.authorize(caller, record.productUuid, 'view');
    return sbomImportView(effectiveImport(record, this.deps.now()), baseUrl);
  }

  /**
   * The import function's work, on an upload's object-created event: reads the document, imports it,
   * records the outcome, removes the object. Idempotent: a redelivered event resumes a running import
   * (the writes already made are found, not made again) and ignores a finished one. `lastAttempt`:
   * a failure is recorded on the import instead of being left for another delivery.
   *
   * An upload URL is good for one document: the import takes the first upload's (its `eTag`). A later
   * PUT to the same URL (S3 takes it until the URL expires) is ignored: once the import has ended, or for
   * an import that does not exist, its object is removed at once; while the import runs, the import
   * removes the key as it ends, and a document replaced before the import read it fails the import.
   */
  async runUpload(importUuid: string, key: string, size: number, eTag: string, lastAttempt: boolean): Promise<void> {
    const record = await this.deps.store.start(importUuid, eTag);
    if (!record) {
      const current = await this.deps.store.get(importUuid);
      if (!current || current.status === 'completed' || current.status === 'failed') {
        await this.deps.uploads().remove(key);
        logger.info('Upload to a finished or unknown import: ignored, its object removed', { importUuid, status: current?.status });
      } else {
        logger.info('Second upload to a running import: ignored', { importUuid });
      }
      return;
    }
    try {
      if (size > IMPORT_LIMITS.uploadBytes) {
        await this.fail(record, [`The document has ${size.toLocaleString('en-US')} bytes, more than the ${IMPORT_LIMITS.uploadBytes.toLocaleString('en-US')} an upload may have.`]);
        return;
      }
      let inventory: Inventory;
      try {
        inventory = await this.read(await this.deps.uploads().read(key, eTag || undefined), undefined);
      } catch (error) {
        if (error instanceof UploadReplacedError) return await this.fail(record, ['The document was replaced by another upload to the same URL before it was read: an upload URL is good for one document. Ask for a new one.']);
        if (error instanceof ValidationError) return await this.fail(record, Object.entries(error.fieldErrors).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`)));
        if (error instanceof UnsupportedMediaTypeError || error instanceof PayloadTooLargeError) return await this.fail(record, [error.message]);
        throw error;
      }
      const components = inventory.components.length + inventory.skipped.length;
      if (components > IMPORT_LIMITS.uploadComponents) {
        return await this.fail(record, [`The document has ${components.toLocaleString('en-US')} components, more than the ${IMPORT_LIMITS.uploadComponents.toLocaleString('en-US')} an import may have.`], inventory);
      }
      const running = { ...record, format: inventory.format, specVersion: inventory.specVersion };
      let result: RunResult;
      try {
        const importing = () => this.partOf(running, () => this.run(running, inventory, { writing: false }));
        const runAs = this.deps.runAs;
        result = runAs && running.createdBy ? await runAs({ user: running.createdBy, key: running.createdWithKey ?? undefined }, importing) : await importing();
      } catch (error) {
        if (error instanceof ImportProductGoneError) return await this.fail(running, ['The product was deleted during the import.'], inventory, true);
        throw error;
      }
      await this.deps.store.finish(this.completed(running, result, inventory), { changed: result.changed, consumedWriteCapacity: result.consumedWriteCapacity });
    } catch (error) {
      if (!lastAttempt) throw error;
      logger.error('Import failed for good', { importUuid, error: error as Error });
      // Whatever it wrote before failing asks for the product's evaluation.
      await this.fail(record, ['The import failed; see the service logs. Upload the document again to retry.'], undefined, true);
    } finally {
      // The document is read; a failed read is kept for the next delivery (the bucket's lifecycle removes it in a day).
      const current = await this.deps.store.get(importUuid);
      if (current && (current.status === 'completed' || current.status === 'failed')) await this.deps.uploads().remove(key).catch(() => undefined);
    }
  }

  /**
   * Runs an import's writes as part of it: the audit trail records the import once, when it completes
   * (its own item, written outside this), and none of the packages, product packages and analyses it writes.
   */
  private partOf<T>(record: SbomImport, work: () => Promise<T>): Promise<T> {
    return runAsPartOf(`sbom_import:${record.uuid}`, work);
  }

  private async fail(record: SbomImport, errors: readonly string[], inventory?: Inventory, changed = false): Promise<void> {
    await this.deps.store.finish(
      {
        ...record,
        status: 'failed',
        ...(inventory ? { format: inventory.format, specVersion: inventory.specVersion } : {}),
        errors: [...record.errors, ...errors],
        completedDate: isoWithOffset(this.deps.now()),
      },
      { changed },
    );
  }

  private newRecord(caller: Caller, product: Pick<Product, 'uuid' | 'name' | 'version'>, options: ImportOptions, created: string, uploadExpiresAt: string | null): SbomImport {
    return {
      uuid: this.deps.newUuid(),
      dataspace: caller.dataspace,
      productUuid: product.uuid,
      productName: `${product.name} ${product.version}`.trim(),
      createdBy: caller.username,
      createdWithKey: caller.apiKey?.name ?? null,
      status: 'queued',
      format: '',
      specVersion: '',
      mode: options.mode,
      updateExistingPackages: options.updateExistingPackages,
      errors: [],
      createdDate: created,
      completedDate: null,
      summary: null,
      uploadExpiresAt,
    };
  }

  /** The document as an Inventory; a document that cannot be read is a 400 (its errors) or a 415. */
  private async read(document: Buffer, contentType: string | undefined): Promise<Inventory> {
    const read = await readSbom(document, contentType);
    if (read.ok) return read.inventory;
    if (read.status === 415) {
      throw new UnsupportedMediaTypeError(contentType || 'none', ACCEPTED_MEDIA_TYPES, read.errors.detail);
    }
    throw new ValidationError(read.errors);
  }

  private completed(record: SbomImport, result: RunResult, inventory?: Inventory): SbomImport {
    const summary = result.summary;
    // What the reader repaired or left out (unknown tag-value tags, a CycloneDX license id read as a name,
    // SPDX 3.0.0 checked as 3.0.1), then what the import could not apply: the first ones.
    const read = inventory?.warnings ?? [];
    // Bounded, as the record is one item (400 KB): a VEX of thousands of vulnerabilities for packages the
    // product does not hold says a line for each.
    const applied = result.warnings;
    const errors = [
      ...read.slice(0, READER_WARNINGS),
      ...(read.length > READER_WARNINGS ? [`${read.length.toLocaleString('en-US')} notes from reading the document; the first ${READER_WARNINGS} are listed.`] : []),
      ...applied.slice(0, IMPORT_WARNINGS),
      ...(applied.length > IMPORT_WARNINGS ? [`${applied.length.toLocaleString('en-US')} notes on what could not be applied; the first ${IMPORT_WARNINGS} are listed.`] : []),
    ];
    if (summary.skipped.length > LISTED) errors.push(`${summary.skipped.length.toLocaleString('en-US')} components were skipped; the summary lists the first ${LISTED}.`);
    if ((summary.resolvedLicenses?.length ?? 0) > LISTED) errors.push(`${summary.resolvedLicenses!.length.toLocaleString('en-US')} licenses were recognised; the summary lists the first ${LISTED}.`);
    if (summary.unknownLicenses.length > LISTED) errors.push(`${summary.unknownLicenses.length.toLocaleString('en-US')} unknown licenses; the summary lists the first ${LISTED}.`);
    const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);
    return {
      ...record,
      status: 'completed',
      errors,
      completedDate: isoWithOffset(this.deps.now()),
      summary: {
        ...summary,
        skipped: summary.skipped
          .slice(0, LISTED)
          .map((entry) => ({ component: cut(entry.component), ...(entry.name === undefined ? {} : { name: cut(entry.name) }), reason: cut(entry.reason) })),
        unknownLicenses: summary.unknownLicenses.slice(0, LISTED).map(cut),
        resolvedLicenses: (summary.resolvedLicenses ?? []).slice(0, LISTED).map((resolution) => ({ ...resolution, written: cut(resolution.written) })),
      },
    };
  }

  /**
   * Reads what the document names, plans, and writes the plan; a write that finds what it read
   * changed (a concurrent writer) reads and plans again: the writes already made are then found.
   */
  private async run(record: SbomImport, inventory: Inventory, progress: { writing: boolean }): Promise<RunResult> {
    const { store } = this.deps;
    const prepared = prepare(inventory);
    // A merge or a VEX removes nothing: it reads the product packages its document names (and those its
    // vulnerabilities name by purl), by key, not the whole product.
    // Two references need all of them instead: a BOM-Link whose bom-ref is no purl (it names a product
    // package by where it was imported from), and a purl without a version (every version the product holds).
    const affects = inventory.vulnerabilities.flatMap((v) => v.affects);
    const affectedPurls = affects.map((ref) => canonicalPurl(parseBomLink(ref)?.ref ?? ref));
    const needsAll = affects.some((ref, index) => {
      const purl = affectedPurls[index];
      return (parseBomLink(ref) !== undefined && purl === undefined) || (purl !== undefined && isVersionless(purl));
    });
    const partial = (record.mode === 'merge' || inventory.vexOnly) && !needsAll;
    const purls = [...new Set([...prepared.map((p) => p.purl), ...(partial ? affectedPurls : [])].filter((purl): purl is string => purl !== undefined))];
    const vulnerabilityIds = [...new Set(inventory.vulnerabilities.map((v) => v.id.trim()).filter((id) => id !== '' && id.length <= 100))];
    let consumed = 0;
    let changed = false;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const [licenses, mappings, byPurl, vulnerabilities] = await Promise.all([
        store.dataspaceLicenses(record.dataspace),
        store.licenseMappings(record.dataspace),
        store.packagesByPurl(record.dataspace, purls),
        store.vulnerabilitiesById(record.dataspace, vulnerabilityIds),
      ]);
      const contents = partial
        ? await store.productContentsOf(record.productUuid, [...new Set([...byPurl.values()].map((pkg) => pkg.uuid))])
        : await store.productContents(record.productUuid);
      if (!contents) throw new ImportProductGoneError('The product is gone.');
      // The product's own packages too: a VEX names them by purl, and merge keeps their edges.
      const loaded = new Set([...byPurl.values()].map((pkg) => pkg.uuid));
      const missing = contents.productPackages.map((pp) => pp.packageUuid).filter((uuid) => !loaded.has(uuid));
      const packages = new Map<string, Package>(byPurl);
      for (const pkg of await store.packagesByUuid(missing)) packages.set(pkg.purl, pkg);
      const plan = planImport(
        inventory,
        prepared,
        {
          dataspace: record.dataspace,
          productUuid: record.productUuid,
          productPackages: contents.productPackages,
          markedForRemoval: contents.markedForRemoval,
          analyses: contents.analyses,
          ...(contents.othersCount !== undefined ? { othersCount: contents.othersCount } : {}),
          packagesByPurl: packages,
          vulnerabilitiesById: vulnerabilities,
        },
        {
          index: shippedLicenseIndex(licenses, mappings, { library: this.deps.library(), knowledge: (this.deps.knowledge ?? scancodeKnowledge)() }),
          now: isoWithOffset(this.deps.now()),
          newUuid: this.deps.newUuid,
          mode: record.mode as ImportMode,
          updateExistingPackages: record.updateExistingPackages,
          canonicalPurl,
        },
      );
      if (isEmptyPlan(plan)) return { summary: plan.summary, warnings: plan.warnings, changed, consumedWriteCapacity: consumed };
      try {
        progress.writing = true;
        consumed += await store.write(plan, { importUuid: record.uuid, product: contents.product, licenseKeys: new Set(licenses.map((l) => l.key)) });
        return { summary: plan.summary, warnings: plan.warnings, changed: true, consumedWriteCapacity: consumed };
      } catch (error) {
        // Part of the plan may have been written: the product changed, whatever happens next.
        changed = true;
        if (!isImportRace(error)) throw error;
        if (Date.now() - started > RACE_BUDGET_MS) throw new ServiceUnavailableError(1, { cause: error });
        logger.info('Import raced with another writer: reading again', { importUuid: record.uuid, attempt });
        // Exponential backoff with full jitter, so two racing writers do not meet again at once.
        const ceiling = Math.min(RACE_BACKOFF.capMs, RACE_BACKOFF.baseMs * 2 ** Math.min(attempt, 10));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
      }
    }
  }
}

/** Each component with the catalog's canonical form of its purl, or why it has none. */
function prepare(inventory: Inventory): PreparedComponent[] {
  return inventory.components.map((component) => {
    const purl = canonicalPurl(component.purl);
    return purl !== undefined ? { component, purl } : { component, purl: undefined, problem: `Not a package URL the catalog can hold: "${component.purl.slice(0, 200)}".` };
  });
}
