/**
 * The entry of the SBOM bundle test (test/unit/sbom-bundle.test.ts): reads each file named on the
 * command line with readSbom and prints one JSON line per file, as a function bundled for Lambda would.
 */
import { readFileSync } from 'node:fs';
import { readSbom } from '../../shared/sbom/read-sbom.ts';

for (const file of process.argv.slice(2)) {
  const result = await readSbom(readFileSync(file));
  console.log(JSON.stringify(result.ok ? { format: result.inventory.format, components: result.inventory.components.length } : result));
}
