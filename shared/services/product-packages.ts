/**
 * What products hold: their packages and the triage analyses of those packages' vulnerabilities.
 * Reading follows the product (view_product); writing needs change_product on it.
 */
import type { Caller } from '../domain/caller.ts';
import { PRODUCT_PACKAGE_DEFAULTS, type Analysis, type ProductPackage } from '../domain/catalog.ts';
import { NotFoundError, ValidationError, type FieldErrors } from '../domain/errors.ts';
import { isUuid, uuidOf } from '../domain/identifiers.ts';
import type { Product } from '../domain/product.ts';
import { retryOnConflict, isTransactionConflict } from '../store/dynamo.ts';
import type { CatalogStore } from '../store/catalog-store.ts';
import { StaleAnalysisError, StaleProductPackageError, type ProductPackageStore } from '../store/product-package-store.ts';
import { StaleProductError } from '../store/product-store.ts';
import { MAX_LICENSE_KEYS, catalogUrl, licenseInput, packageInDataspace, packageLicense, packageView, type SpdxRenderer } from './catalog.ts';
import { LicenseIndexes } from './license-indexes.ts';
import { namedLicenseCount, resolveLicenseExpression } from '../domain/license-resolution.ts';
import { isoWithOffset } from '../domain/time.ts';
import { productKey, productUrl, type ProductService } from './products.ts';
import { paginate } from './paginate.ts';
import { inventoryMatches, type InventoryFilters } from '../domain/product-inventory.ts';
import { entityTag, requireMatch, tagged, type IfMatch } from '../domain/etag.ts';

/** A product package's entity tag: its revision (1 once added, as before product packages could change). */
const productPackageTag = (productPackage: ProductPackage) => entityTag(productPackage.rev);

/** An analysis's entity tag: its revision. */
const analysisTag = (analysis: Analysis) => entityTag(analysis.rev);

export interface ProductPackageServiceDeps {
  readonly productPackages: ProductPackageStore;
  readonly catalog: CatalogStore;
  readonly products: ProductService;
  readonly now: () => Date;
  readonly newUuid: () => string;
  /** How concluded expressions are resolved and rendered; by default over `catalog` and the shipped reference library. */
  readonly licenseIndexes?: LicenseIndexes;
}

const isRace = (error: unknown) =>
  error instanceof StaleProductError || error instanceof StaleAnalysisError || error instanceof StaleProductPackageError || isTransactionConflict(error);

export function productPackageView(productPackage: ProductPackage, baseUrl: string, spdx: SpdxRenderer) {
  return {
    uuid: productPackage.uuid,
    api_url: catalogUrl(baseUrl, 'product_packages', productPackage.uuid),
    product: productUrl(baseUrl, productPackage.productUuid),
    package: catalogUrl(baseUrl, 'packages', productPackage.packageUuid),
    license_expression: productPackage.licenseExpression,
    license_expression_spdx: spdx(productPackage.licenseExpression),
    is_deployed: productPackage.isDeployed,
    is_modified: productPackage.isModified,
    created_date: productPackage.createdDate,
  };
}

export function analysisView(analysis: Analysis, baseUrl: string) {
  return {
    uuid: analysis.uuid,
    api_url: catalogUrl(baseUrl, 'vulnerability_analyses', analysis.uuid),
    product_package: catalogUrl(baseUrl, 'product_packages', analysis.productPackageUuid),
    vulnerability_id: analysis.vulnerabilityId,
    state: analysis.state,
    justification: analysis.justification,
    responses: analysis.responses,
    detail: analysis.detail,
    created_date: analysis.createdDate,
    last_modified_date: analysis.lastModifiedDate,
  };
}

type Body = Record<string, unknown>;

export class ProductPackageService {
  private readonly indexes: LicenseIndexes;

  constructor(private readonly deps: ProductPackageServiceDeps) {
    this.indexes = deps.licenseIndexes ?? new LicenseIndexes(deps.catalog);
  }

  /** The answers of product packages of one dataspace, their SPDX forms with one read of the licenses they name. */
  private async views(dataspace: string, productPackages: readonly ProductPackage[], baseUrl: string) {
    const spdx = await this.indexes.spdxRenderer(dataspace, productPackages);
    return productPackages.map((pp) => productPackageView(pp, baseUrl, spdx));
  }

  /** The concluded license a body gives (resolved in the dataspace, as a package's), or undefined when it gives none. */
  private async concludedLicense(dataspace: string, body: Body, before: ProductPackage | undefined, errors: FieldErrors) {
    const input = licenseInput({ license_expression: body.license_expression });
    if (!input) return undefined;
    const resolved = resolveLicenseExpression(input.text, await this.indexes.forDataspace(dataspace));
    if (namedLicenseCount(resolved) > MAX_LICENSE_KEYS) {
      errors.license_expression = [`Ensure this expression names no more than ${MAX_LICENSE_KEYS} licenses.`];
      return undefined;
    }
    // Concluded expressions are not counted on their licenses (docs/license-expressions.md).
    const { countedLicenseKeys: _notCounted, ...license } = packageLicense(resolved, input, before && { ...before, countedLicenseKeys: [] });
    return license;
  }

  /** A product named in a body: its view or change access decides; one the caller cannot see is a field error. */
  private async productIn(caller: Caller, reference: string, field: string, errors: FieldErrors): Promise<Product | undefined> {
    const uuid = uuidOf(reference, 'products');
    try {
      if (uuid) return await this.deps.products.authorize(caller, uuid, 'change');
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    errors[field] = [`No product "${reference}" that you can see.`];
    return undefined;
  }

  /** The product package and its product, if the caller may `action` the product (404 when it cannot see it). */
  private async productPackage(caller: Caller, uuid: string, action: 'view' | 'change') {
    const productPackage = isUuid(uuid) ? await this.deps.productPackages.get(uuid.toLowerCase()) : undefined;
    if (!productPackage || productPackage.dataspace !== caller.dataspace) throw new NotFoundError();
    const product = await this.deps.products.authorize(caller, productPackage.productUuid, action);
    return { productPackage, product };
  }

  /** The uuids of the products the caller can see, or undefined for "all of the dataspace" (superusers). */
  private async visibleProducts(caller: Caller, only: string | undefined): Promise<string[] | undefined> {
    if (only !== undefined) {
      try {
        return [(await this.deps.products.authorize(caller, only, 'view')).uuid];
      } catch (error) {
        if (error instanceof NotFoundError) throw new ValidationError({ product: [`No product "${only}" that you can see.`] });
        throw error;
      }
    }
    return caller.isSuperuser ? undefined : this.deps.products.visibleProductUuids(caller);
  }

  // --- product packages ----------------------------------------------------------------------

  async list(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const only = query.product || undefined;
    const products = await this.visibleProducts(caller, only);
    let page;
    if (query.package) {
      // Which products use a package: the reverse index names its holders, the items are read by key.
      const pkg = await this.packageIn(caller.dataspace, query.package);
      if (!pkg) throw new ValidationError({ package: [`No package "${query.package}" in this dataspace.`] });
      const visible = products && new Set(products);
      const holders = (await this.deps.productPackages.productsHolding(pkg.uuid)).filter((uuid) => !visible || visible.has(uuid));
      const all = (await this.deps.productPackages.ofPackageIn(pkg.uuid, holders))
        .filter((pp) => pp.dataspace === caller.dataspace)
        .sort((a, b) => (a.createdDate + a.uuid < b.createdDate + b.uuid ? -1 : 1));
      page = await paginate(query, url, async (offset, limit) => ({ count: all.length, items: all.slice(offset, offset + limit) }), (pp) => pp);
    } else if (!products || only !== undefined) {
      // The dataspace's, or the one product's the caller may see: counted by the list counters, paged on the index.
      const product = products?.[0];
      page = await paginate(query, url, (offset, limit) => this.deps.productPackages.listDataspace(caller.dataspace, offset, limit, product), (pp) => pp);
    } else {
      const all = (await Promise.all(products.map((uuid) => this.deps.productPackages.ofProduct(uuid))))
        .flat()
        .sort((a, b) => (a.createdDate + a.uuid < b.createdDate + b.uuid ? -1 : 1));
      page = await paginate(query, url, async (offset, limit) => ({ count: all.length, items: all.slice(offset, offset + limit) }), (pp) => pp);
    }
    return { ...page, results: await this.views(caller.dataspace, page.results, baseUrl) };
  }

  async retrieve(caller: Caller, uuid: string, baseUrl: string) {
    const { productPackage } = await this.productPackage(caller, uuid, 'view');
    const [view] = await this.views(caller.dataspace, [productPackage], baseUrl);
    return tagged(view!, productPackageTag(productPackage));
  }

  async add(caller: Caller, readBody: () => Body, baseUrl: string) {
    const body = readBody();
    const errors: FieldErrors = {};
    const product = await this.productIn(caller, body.product as string, 'product', errors);
    const pkg = await this.packageIn(caller.dataspace, body.package as string);
    if (!pkg) errors.package = [`No package "${String(body.package)}" in this dataspace.`];
    const license = await this.concludedLicense(caller.dataspace, body, undefined, errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const productPackage: ProductPackage = {
      uuid: this.deps.newUuid(),
      dataspace: caller.dataspace,
      productUuid: product!.uuid,
      packageUuid: pkg!.uuid,
      createdDate: isoWithOffset(this.deps.now()),
      ...PRODUCT_PACKAGE_DEFAULTS,
      ...(license ?? {}),
      isDeployed: (body.is_deployed as boolean | undefined) ?? true,
      isModified: (body.is_modified as boolean | undefined) ?? false,
    };
    await retryOnConflict(async () => {
      const current = await this.deps.products.authorize(caller, product!.uuid, 'change');
      await this.deps.productPackages.add(current, productPackage);
    }, isRace, { key: productKey(product!.uuid) });
    const [view] = await this.views(caller.dataspace, [productPackage], baseUrl);
    return tagged(view!, productPackageTag(productPackage));
  }

  /**
   * PUT / PATCH: the concluded license, is_deployed and is_modified (change_product). The product and
   * the package may be sent back as GET answers them, but not changed.
   */
  async update(caller: Caller, uuid: string, readBody: () => Body, baseUrl: string, ifMatch?: IfMatch) {
    const updated = await retryOnConflict(async () => {
      const { productPackage: before, product } = await this.productPackage(caller, uuid, 'change');
      requireMatch(ifMatch, productPackageTag(before));
      const body = readBody();
      const errors: FieldErrors = {};
      if (body.product !== undefined && uuidOf(body.product as string, 'products') !== before.productUuid) {
        errors.product = ['The product of a product package cannot be changed.'];
      }
      if (body.package !== undefined && uuidOf(body.package as string, 'packages') !== before.packageUuid) {
        errors.package = ['The package of a product package cannot be changed.'];
      }
      const license = await this.concludedLicense(caller.dataspace, body, before, errors);
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      const after: ProductPackage = {
        ...before,
        ...(license ?? {}),
        isDeployed: (body.is_deployed as boolean | undefined) ?? before.isDeployed,
        isModified: (body.is_modified as boolean | undefined) ?? before.isModified,
        rev: before.rev + 1,
      };
      await this.deps.productPackages.update(product, before, after);
      return after;
    }, isRace);
    const [view] = await this.views(caller.dataspace, [updated], baseUrl);
    return tagged(view!, productPackageTag(updated));
  }

  async remove(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const { productPackage, product } = await this.productPackage(caller, uuid, 'change');
      requireMatch(ifMatch, productPackageTag(productPackage));
      await this.deps.productPackages.remove(product, productPackage);
    }, isRace);
  }

  /** GET /api/v2/products/{uuid}/packages/: the product's packages, by purl. */
  async packagesOfProduct(caller: Caller, productUuid: string, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const held = await this.deps.productPackages.ofProduct(product.uuid);
    const heldOf = new Map(held.map((pp) => [pp.packageUuid, pp]));
    // Filters checked at the edge (shared/schemas/catalog.ts ProductInventoryQuery); judged on what the product holds.
    const filters: InventoryFilters = {
      search: query.search,
      license: query.license,
      usagePolicy: query.usage_policy,
      hasUnknownLicense: query.has_unknown_license === undefined ? undefined : query.has_unknown_license === 'true',
      vulnerable: query.vulnerable === undefined ? undefined : query.vulnerable === 'true',
    };
    const packages = (await this.deps.catalog.packages.getMany(held.map((pp) => pp.packageUuid)))
      .filter((pkg) => inventoryMatches(pkg, heldOf.get(pkg.uuid), filters))
      .sort((a, b) => (a.purl < b.purl ? -1 : 1));
    const page = await paginate(query, url, async (offset, limit) => ({ count: packages.length, items: packages.slice(offset, offset + limit) }), (pkg) => pkg);
    const spdx = await this.indexes.spdxRenderer(product.dataspace, [...page.results, ...page.results.flatMap((pkg) => heldOf.get(pkg.uuid) ?? [])]);
    return {
      ...page,
      results: page.results.map((pkg) => {
        const concluded = heldOf.get(pkg.uuid)?.licenseExpression ?? '';
        return { ...packageView(pkg, baseUrl, spdx), concluded_license_expression: concluded, concluded_license_expression_spdx: concluded === '' ? '' : spdx(concluded) };
      }),
    };
  }

  private packageIn(dataspace: string, reference: string) {
    return packageInDataspace(this.deps.catalog, dataspace, reference);
  }

  // --- analyses ------------------------------------------------------------------------------

  async listAnalyses(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const products = await this.visibleProducts(caller, query.product || undefined);
    if (!products) {
      return paginate(query, url, (offset, limit) => this.deps.productPackages.listAnalyses(caller.dataspace, offset, limit), (a) => analysisView(a, baseUrl));
    }
    const all = (await Promise.all(products.map((uuid) => this.deps.productPackages.analysesOfProduct(uuid))))
      .flat()
      .sort((a, b) => (a.createdDate + a.uuid < b.createdDate + b.uuid ? -1 : 1));
    return paginate(query, url, async (offset, limit) => ({ count: all.length, items: all.slice(offset, offset + limit) }), (a) => analysisView(a, baseUrl));
  }

  private async analysis(caller: Caller, uuid: string, action: 'view' | 'change') {
    const analysis = isUuid(uuid) ? await this.deps.productPackages.getAnalysis(uuid.toLowerCase()) : undefined;
    if (!analysis || analysis.dataspace !== caller.dataspace) throw new NotFoundError();
    const product = await this.deps.products.authorize(caller, analysis.productUuid, action);
    return { analysis, product };
  }

  async retrieveAnalysis(caller: Caller, uuid: string, baseUrl: string) {
    const { analysis } = await this.analysis(caller, uuid, 'view');
    return tagged(analysisView(analysis, baseUrl), analysisTag(analysis));
  }

  async createAnalysis(caller: Caller, readBody: () => Body, baseUrl: string) {
    const body = readBody();
    const errors: FieldErrors = {};
    const reference = body.product_package as string;
    const ppUuid = uuidOf(reference, 'product_packages');
    let target: { productPackage: ProductPackage; product: Product } | undefined;
    try {
      if (ppUuid) target = await this.productPackage(caller, ppUuid, 'change');
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    if (!target) errors.product_package = [`No product package "${reference}" that you can see.`];
    const vulnerabilityId = body.vulnerability_id as string;
    if (target) {
      const pkg = await this.deps.catalog.packages.get(target.productPackage.packageUuid);
      if (!pkg?.vulnerabilities[vulnerabilityId]) {
        errors.vulnerability_id = [`Vulnerability "${vulnerabilityId}" does not affect the package of this product package.`];
      }
    }
    checkContent(body, undefined, errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const now = isoWithOffset(this.deps.now());
    const analysis: Analysis = {
      uuid: this.deps.newUuid(),
      dataspace: caller.dataspace,
      rev: 0,
      productUuid: target!.product.uuid,
      productPackageUuid: target!.productPackage.uuid,
      packageUuid: target!.productPackage.packageUuid,
      vulnerabilityId,
      state: (body.state as Analysis['state']) ?? null,
      justification: (body.justification as Analysis['justification']) ?? null,
      responses: [...new Set((body.responses as Analysis['responses']) ?? [])],
      detail: (body.detail as string) ?? '',
      createdDate: now,
      lastModifiedDate: now,
    };
    await retryOnConflict(async () => {
      const product = await this.deps.products.authorize(caller, analysis.productUuid, 'change');
      await this.deps.productPackages.writeAnalysis(product, undefined, analysis);
    }, isRace, { key: productKey(analysis.productUuid) });
    return tagged(analysisView(analysis, baseUrl), entityTag(1));
  }

  async updateAnalysis(caller: Caller, uuid: string, readBody: () => Body, baseUrl: string, ifMatch?: IfMatch) {
    const updated = await retryOnConflict(async () => {
      const { analysis: before, product } = await this.analysis(caller, uuid, 'change');
      requireMatch(ifMatch, analysisTag(before));
      const body = readBody();
      const errors: FieldErrors = {};
      if (body.product_package !== undefined && uuidOf(body.product_package as string, 'product_packages') !== before.productPackageUuid) {
        errors.product_package = ['The product package of an analysis cannot be changed.'];
      }
      if (body.vulnerability_id !== undefined && body.vulnerability_id !== before.vulnerabilityId) {
        errors.vulnerability_id = ['The vulnerability of an analysis cannot be changed.'];
      }
      const after: Analysis = {
        ...before,
        state: body.state !== undefined ? (body.state as Analysis['state']) : before.state,
        justification: body.justification !== undefined ? (body.justification as Analysis['justification']) : before.justification,
        responses: body.responses !== undefined ? [...new Set(body.responses as Analysis['responses'])] : before.responses,
        detail: body.detail !== undefined ? (body.detail as string) : before.detail,
        lastModifiedDate: isoWithOffset(this.deps.now()),
      };
      checkContent({ state: after.state, justification: after.justification, responses: after.responses, detail: after.detail }, before, errors);
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      await this.deps.productPackages.writeAnalysis(product, before, after);
      return after;
    }, isRace);
    return tagged(analysisView(updated, baseUrl), entityTag(updated.rev + 1));
  }

  async deleteAnalysis(caller: Caller, uuid: string, ifMatch?: IfMatch): Promise<void> {
    await retryOnConflict(async () => {
      const { analysis, product } = await this.analysis(caller, uuid, 'change');
      requireMatch(ifMatch, analysisTag(analysis));
      await this.deps.productPackages.writeAnalysis(product, analysis, undefined);
    }, isRace);
  }
}

/** At least one of state, justification, responses or detail must say something. */
function checkContent(body: Body, _before: Analysis | undefined, errors: FieldErrors): void {
  const empty =
    (body.state ?? null) === null &&
    (body.justification ?? null) === null &&
    ((body.responses as unknown[] | undefined) ?? []).length === 0 &&
    String(body.detail ?? '').trim() === '';
  if (empty) errors.non_field_errors = ['Give at least one of state, justification, responses or detail.'];
}

