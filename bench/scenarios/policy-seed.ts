/**
 * Seeding helpers of the policy scenarios (not a scenario): a package with defaults, and polling.
 * The items themselves come from the stores' seed builders (catalogSeedItems, productPackageSeedItems,
 * analysisSeedItems), so large products load with BatchWriteItem (lib/seed.ts writeAll) as the stores
 * would write them.
 */
import { NO_PACKAGE_DETAILS, type Package } from '../../shared/domain/catalog.ts';

/** A package with defaults for what the policy scenarios do not vary. */
export function benchPackage(
  fields: Pick<Package, 'uuid' | 'dataspace' | 'name'> & Partial<Pick<Package, 'licenseExpression' | 'licenseKeys' | 'usagePolicy' | 'vulnerabilities'>>,
): Package {
  const version = '1.0.0';
  return {
    uuid: fields.uuid,
    dataspace: fields.dataspace,
    rev: 0,
    type: 'npm',
    namespace: '',
    name: fields.name,
    version,
    qualifiers: {},
    subpath: '',
    purl: `pkg:npm/${fields.name}@${version}`,
    filename: '',
    downloadUrl: '',
    ...NO_PACKAGE_DETAILS,
    licenseExpression: fields.licenseExpression ?? '',
    licenseKeys: fields.licenseKeys ?? [],
    // Seeded keys are the dataspace's own licenses, written as keys.
    countedLicenseKeys: fields.licenseKeys ?? [],
    declaredLicenseExpression: fields.licenseExpression ?? '',
    unknownLicenses: [],
    usagePolicy: fields.usagePolicy ?? null,
    vulnerabilities: fields.vulnerabilities ?? {},
  };
}

/** Polls `check` every `everyMs` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function pollUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, everyMs));
  }
}
