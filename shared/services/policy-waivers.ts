/**
 * Policy waivers of a product: made and revoked by those who may change the product, seen by those
 * who may view it. Saving one writes its item only: the table's stream re-evaluates the product and
 * carries the waiver's events to the bus (the outbox), as for every other change.
 */
import type { Caller } from '../domain/caller.ts';
import { NotFoundError, ValidationError, type FieldErrors } from '../domain/errors.ts';
import { isUuid, uuidOf } from '../domain/identifiers.ts';
import { RULES, type RuleType } from '../domain/policy-rules.ts';
import { expiryProblem, isExpired, type PolicyWaiver } from '../domain/policy-waivers.ts';
import { isoWithOffset } from '../domain/time.ts';
import { waiverUrl } from '../events/waiver-events.ts';
import type { CatalogStore } from '../store/catalog-store.ts';
import { WaiverPackageGoneError, WaiverProductGoneError, type PolicyWaiverStore } from '../store/policy-waiver-store.ts';
import { packageInDataspace } from './catalog.ts';
import { paginate } from './paginate.ts';
import { productUrl, type ProductService } from './products.ts';

export interface PolicyWaiverServiceDeps {
  readonly waivers: PolicyWaiverStore;
  readonly catalog: CatalogStore;
  readonly products: ProductService;
  readonly now: () => Date;
  readonly newUuid: () => string;
}

/** The body of a creation, as the route's schema outputs it. */
export interface WaiverInput {
  readonly rule_type: RuleType;
  readonly package: string | null;
  readonly reason: string;
  readonly expires_at: string;
}

export function waiverView(waiver: PolicyWaiver, baseUrl: string, now: Date) {
  return {
    uuid: waiver.uuid,
    api_url: waiverUrl(baseUrl, waiver.productUuid, waiver.uuid),
    product: productUrl(baseUrl, waiver.productUuid),
    rule_type: waiver.ruleType,
    rule_label: RULES[waiver.ruleType].label,
    package: waiver.packagePurl,
    package_uuid: waiver.packageUuid,
    reason: waiver.reason,
    expires_at: waiver.expiresDate,
    is_expired: isExpired(waiver, now),
    created_by: waiver.createdBy,
    created_date: waiver.createdDate,
  };
}

export class PolicyWaiverService {
  constructor(private readonly deps: PolicyWaiverServiceDeps) {}

  async create(caller: Caller, productUuid: string, readBody: () => WaiverInput, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'change');
    const body = readBody();
    const now = this.deps.now();
    const errors: FieldErrors = {};
    const expiresAt = new Date(body.expires_at);
    const problem = expiryProblem(expiresAt, now);
    if (problem) errors.expires_at = [problem];
    const pkg = body.package === null ? null : await this.packageIn(product.dataspace, body.package);
    if (pkg === undefined) errors.package = [`No package "${String(body.package)}" in this product.`];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const waiver: PolicyWaiver = {
      uuid: this.deps.newUuid(),
      dataspace: product.dataspace,
      productUuid: product.uuid,
      ruleType: body.rule_type,
      packageUuid: pkg?.uuid ?? null,
      packagePurl: pkg?.purl ?? null,
      reason: body.reason,
      // In UTC, as the expiry index sorts it (keys.waiverExpiry).
      expiresDate: isoWithOffset(expiresAt),
      createdBy: caller.username,
      createdDate: isoWithOffset(now),
      expiredDate: null,
    };
    try {
      // Conditional on the product still existing and (for a package waiver) still holding the package.
      await this.deps.waivers.create(product, waiver);
    } catch (error) {
      if (error instanceof WaiverPackageGoneError) throw new ValidationError({ package: [`No package "${String(body.package)}" in this product.`] });
      if (error instanceof WaiverProductGoneError) throw new NotFoundError();
      throw error;
    }
    return waiverView(waiver, baseUrl, now);
  }

  async list(caller: Caller, productUuid: string, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const now = this.deps.now();
    const expired = query.is_expired === undefined ? undefined : query.is_expired === 'true';
    const waivers = (await this.deps.waivers.ofProduct(product.uuid))
      .filter((waiver) => expired === undefined || isExpired(waiver, now) === expired)
      .sort((a, b) => (a.createdDate + a.uuid < b.createdDate + b.uuid ? -1 : 1));
    return paginate(query, url, async (offset, limit) => ({ count: waivers.length, items: waivers.slice(offset, offset + limit) }), (waiver) => waiverView(waiver, baseUrl, now));
  }

  /**
   * The waivers of every product the caller may view (or of the one `?product=` names), soonest expiry
   * first, each with its product's name: one Query of each product's WAIVER# prefix, never a scan.
   */
  async listDataspace(caller: Caller, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    const now = this.deps.now();
    let productUuids: string[];
    if (query.product) {
      const product = await this.deps.products.authorize(caller, uuidOf(query.product, 'products') ?? query.product, 'view').catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new ValidationError({ product: ['Select a valid choice. That choice is not one of the available choices.'] });
        throw error;
      });
      productUuids = [product.uuid];
    } else {
      productUuids = await this.deps.products.viewableProductUuids(caller);
    }
    const expired = query.is_expired === undefined ? undefined : query.is_expired === 'true';
    const waivers = (await Promise.all(productUuids.map((uuid) => this.deps.waivers.ofProduct(uuid))))
      .flat()
      .filter((waiver) => expired === undefined || isExpired(waiver, now) === expired)
      .sort((a, b) => (a.expiresDate + a.uuid < b.expiresDate + b.uuid ? -1 : 1));
    return paginate(
      query,
      url,
      async (offset, limit) => {
        const items = waivers.slice(offset, offset + limit);
        const products = new Map((await this.deps.products.productsOf(items.map((waiver) => waiver.productUuid))).map((p) => [p.uuid, p]));
        return { count: waivers.length, items: items.map((waiver) => ({ waiver, product: products.get(waiver.productUuid) })) };
      },
      ({ waiver, product }) => ({
        ...waiverView(waiver, baseUrl, now),
        product_uuid: waiver.productUuid,
        product_name: product?.name ?? '',
        product_version: product?.version ?? '',
      }),
    );
  }

  async retrieve(caller: Caller, productUuid: string, uuid: string, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const waiver = isUuid(uuid) ? await this.deps.waivers.get(product.uuid, uuid.toLowerCase()) : undefined;
    if (!waiver) throw new NotFoundError();
    return waiverView(waiver, baseUrl, this.deps.now());
  }

  /** Revokes a waiver (expired or not): the product is re-evaluated without it. */
  async revoke(caller: Caller, productUuid: string, uuid: string): Promise<void> {
    const product = await this.deps.products.authorize(caller, productUuid, 'change');
    const now = this.deps.now();
    if (!isUuid(uuid) || !(await this.deps.waivers.revoke(product.uuid, uuid.toLowerCase(), caller.username, now, isoWithOffset(now)))) throw new NotFoundError();
  }

  /**
   * The package a body names (uuid, API URL or purl) in the product's dataspace, or undefined. Whether
   * the product holds it is the creation's condition (PolicyWaiverStore.create).
   */
  private packageIn(dataspace: string, reference: string): Promise<{ uuid: string; purl: string } | undefined> {
    return packageInDataspace(this.deps.catalog, dataspace, reference);
  }
}
