/**
 * The size budget of each function's bundle: a regression budget, not a goal. The one definition that
 * the cold start scenario reports against and test/infra/bundling.test.ts checks.
 */
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';

/** The AWS SDK is bundled, so a table-reading function is a few hundred kB. */
const BASE_BYTES = 1024 * 1024;
/**
 * What reading SBOMs adds to a function (FUNCTIONS' readsSboms): Ajv and its formats, the CycloneDX
 * library's models and the SBOM readers (the schemas themselves are files beside the bundle).
 */
const SBOM_READER_BYTES = 256 * 1024;
/**
 * What matching published advisories adds (FUNCTIONS' matchesAdvisories: the linker and the sync): the
 * ecosystems' version libraries (semver, @renovatebot/pep440 and ruby-semver), the CVSS calculator, the OSV
 * record checks and the zip reader. Measured when they came: 74 kB and 56 kB over the others' largest.
 */
const ADVISORY_BYTES = 128 * 1024;
/** What tracing adds to every function: Powertools' Tracer and the X-Ray SDK it drives (127 kB minified, measured alone). */
const TRACER_BYTES = 160 * 1024;

export function readsSboms(name: FunctionName): boolean {
  return (FUNCTIONS[name] as { readsSboms?: true }).readsSboms === true;
}

export function matchesAdvisories(name: FunctionName): boolean {
  return (FUNCTIONS[name] as { matchesAdvisories?: true }).matchesAdvisories === true;
}

/** The bytes `name`'s bundle must stay under. */
export function bundleBudget(name: FunctionName): number {
  return BASE_BYTES + TRACER_BYTES + (readsSboms(name) ? SBOM_READER_BYTES : 0) + (matchesAdvisories(name) ? ADVISORY_BYTES : 0);
}
