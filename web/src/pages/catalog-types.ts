/** The catalog answers the catalog pages read: the output types of the API's own zod schemas (type-only imports). */
import type * as z from 'zod';
import type {
  AdvisorySourceSchema,
  AnalysisSchema,
  LicenseSchema,
  ProductPackageSchema,
  ReferenceLicenseSchema,
  UsagePolicySchema,
  VulnerabilitySchema,
} from '../../../shared/schemas/catalog.ts';

export type License = z.output<typeof LicenseSchema>;
export type ReferenceLicense = z.output<typeof ReferenceLicenseSchema>;
export type UsagePolicy = z.output<typeof UsagePolicySchema>;
export type Vulnerability = z.output<typeof VulnerabilitySchema>;
export type ProductPackage = z.output<typeof ProductPackageSchema>;
export type Analysis = z.output<typeof AnalysisSchema>;
export type AdvisorySource = z.output<typeof AdvisorySourceSchema>;
