/**
 * The filters of a product's inventory (GET /api/v2/products/{uuid}/packages/), pure: each package as
 * the product holds it (its concluded license when set) judged against the query. Absent filters do not
 * filter; every one given must hold.
 */
import type { Package, ProductPackage } from './catalog.ts';
import { searchFold, searchTerms } from './license-search.ts';
import { UNKNOWN_LICENSE_KEY } from './license-resolution.ts';

export interface InventoryFilters {
  /** Words, each contained (any case) in the purl or the name. */
  readonly search?: string | undefined;
  /** A license key the effective expression names (any case). */
  readonly license?: string | undefined;
  /** The package's own usage policy label, exactly. */
  readonly usagePolicy?: string | undefined;
  readonly hasUnknownLicense?: boolean | undefined;
  readonly vulnerable?: boolean | undefined;
}

/** The license a product package stands under: its concluded one when set, else its package's. */
export function effectiveLicenseOf(pkg: Package, held: Pick<ProductPackage, 'licenseExpression' | 'licenseKeys' | 'unknownLicenses'> | undefined) {
  const concluded = held !== undefined && held.licenseExpression !== '';
  return concluded
    ? { expression: held.licenseExpression, keys: held.licenseKeys, unknown: held.unknownLicenses }
    : { expression: pkg.licenseExpression, keys: pkg.licenseKeys, unknown: pkg.unknownLicenses };
}

export function inventoryMatches(pkg: Package, held: Parameters<typeof effectiveLicenseOf>[1], filters: InventoryFilters): boolean {
  const license = effectiveLicenseOf(pkg, held);
  if (filters.search !== undefined && filters.search.trim() !== '') {
    const text = searchFold(`${pkg.purl}\n${pkg.name}`);
    if (!searchTerms(filters.search).every((term) => text.includes(term))) return false;
  }
  if (filters.license !== undefined && filters.license !== '' && !license.keys.some((key) => searchFold(key) === searchFold(filters.license!))) return false;
  if (filters.usagePolicy !== undefined && filters.usagePolicy !== '' && pkg.usagePolicy !== filters.usagePolicy) return false;
  if (filters.hasUnknownLicense !== undefined && license.keys.includes(UNKNOWN_LICENSE_KEY) !== filters.hasUnknownLicense) return false;
  if (filters.vulnerable !== undefined && Object.keys(pkg.vulnerabilities).length > 0 !== filters.vulnerable) return false;
  return true;
}
