/**
 * The API's answers the product page's inventory and waivers read: the outputs of the API's own zod
 * schemas (type-only imports: nothing of zod reaches the bundle), as ./types.ts does for the others.
 */
import type * as z from 'zod';
import type { LicenseSchema, ProductInventoryPackageSchema, UsagePolicySchema } from '../../../shared/schemas/catalog.ts';
import type { PolicyWaiverSchema } from '../../../shared/schemas/policy.ts';

export type InventoryPackage = z.output<typeof ProductInventoryPackageSchema>;
export type InventoryLicense = z.output<typeof LicenseSchema>;
export type InventoryUsagePolicy = z.output<typeof UsagePolicySchema>;
export type ProductWaiver = z.output<typeof PolicyWaiverSchema>;
