/**
 * The registry of benchmark scenarios, in the order `npm run bench` runs them and the table lists
 * them. A scenario is added here by the issue that brings what it measures.
 */
import type { Scenario } from '../lib/scenario.ts';
import { apiLatency } from './api-latency.ts';
import { apiOverhead } from './api-overhead.ts';
import { coldStart } from './cold-start.ts';
import { freshClone } from './fresh-clone.ts';
import { permissionFilteredList } from './permission-filtered-list.ts';
import { policyBurst } from './policy-burst.ts';
import { policyEvaluation } from './policy-evaluation.ts';
import { policyLargeProduct } from './policy-large-product.ts';
import { policyFanOut } from './policy-fan-out.ts';
import { policyFanOutScale } from './policy-fan-out-scale.ts';
import { policyRules } from './policy-rules.ts';
import { requestListScaling } from './request-list-scaling.ts';
import { webhookFanOut } from './webhook-fan-out.ts';
import { sbomImport } from './sbom-import.ts';
import { sbomFormats } from './sbom-formats.ts';
import { sbomExport } from './sbom-export.ts';
import { sbomMergeScale } from './sbom-merge-scale.ts';
import { listCounts } from './list-counts.ts';
import { requestCreates } from './request-creates.ts';
import { apiCapacity } from './api-capacity.ts';
import { consoleBundle } from './console-bundle.ts';
import { advisories } from './advisories.ts';
import { licenseResolution } from './license-resolution.ts';

export const SCENARIOS: readonly Scenario[] = [
  apiOverhead,
  apiLatency,
  permissionFilteredList,
  requestListScaling,
  listCounts,
  requestCreates,
  coldStart,
  policyRules,
  policyEvaluation,
  policyLargeProduct,
  policyFanOut,
  policyFanOutScale,
  policyBurst,
  advisories,
  licenseResolution,
  webhookFanOut,
  sbomImport,
  sbomFormats,
  sbomExport,
  sbomMergeScale,
  apiCapacity,
  consoleBundle,
  freshClone,
];
