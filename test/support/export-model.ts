/** Factories for the SBOM writers' input (shared/sbom/export-model.ts): valid defaults, overridden per test. */
import { createHash } from 'node:crypto';
import type { ExportModel, ExportPackage, ExportVulnerability } from '../../shared/sbom/export-model.ts';

let sequence = 0;

/** A deterministic v4-shaped uuid from a counter, so documents compare across runs. */
export function aUuid(n = ++sequence): string {
  const hex = createHash('sha256').update(`uuid-${n}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function anExportPackage(overrides: Partial<ExportPackage> = {}): ExportPackage {
  const n = ++sequence;
  const name = overrides.name ?? `lib${n}`;
  const version = overrides.version ?? `1.${n}.0`;
  return {
    uuid: aUuid(n),
    purl: `pkg:npm/${name}@${version}`,
    type: 'npm',
    namespace: '',
    name,
    version,
    declaredLicenseSpdx: 'MIT',
    concludedLicenseSpdx: '',
    hashes: { sha1: createHash('sha1').update(name).digest('hex') },
    description: '',
    homepageUrl: '',
    downloadUrl: '',
    supplier: '',
    copyright: '',
    filename: '',
    isModified: false,
    isDeployed: true,
    ...overrides,
  };
}

export function anExportVulnerability(overrides: Partial<ExportVulnerability> = {}): ExportVulnerability {
  const n = ++sequence;
  return {
    id: `CVE-2024-${10000 + n}`,
    aliases: [],
    summary: `Vulnerability ${n}`,
    riskScore: 5.5,
    affects: [],
    ...overrides,
  };
}

export function anExportModel(overrides: Partial<ExportModel> = {}): ExportModel {
  const productUuid = aUuid();
  return {
    product: { uuid: productUuid, name: 'Checkout', version: '2.1', apiUrl: `https://compliance.example.com/api/v2/products/${productUuid}/` },
    packages: [],
    dependencies: new Map(),
    vulnerabilities: [],
    timestamp: '2026-11-25T10:20:30.456Z',
    documentUuid: aUuid(),
    tool: { name: 'compliance-service', version: '0.1.0' },
    ...overrides,
  };
}

/** A product of `count` packages, each depending on the next two, with mixed licenses, hashes and a few vulnerabilities. */
export function aLargeExportModel(count: number): ExportModel {
  const licenses = ['MIT', 'Apache-2.0', 'MIT OR GPL-3.0-only', 'GPL-2.0-only WITH Classpath-exception-2.0', 'LicenseRef-scancode-proprietary-license', 'BSD-3-Clause AND ISC'];
  const packages = Array.from({ length: count }, (_, i) =>
    anExportPackage({
      name: `package-${i}`,
      namespace: i % 3 === 0 ? '@scope' : '',
      purl: i % 3 === 0 ? `pkg:npm/%40scope/package-${i}@1.0.${i}` : `pkg:npm/package-${i}@1.0.${i}`,
      version: `1.0.${i}`,
      declaredLicenseSpdx: licenses[i % licenses.length]!,
      concludedLicenseSpdx: i % 10 === 0 ? 'MIT' : '',
      hashes: {
        sha1: createHash('sha1').update(`p${i}`).digest('hex'),
        sha512: createHash('sha512').update(`p${i}`).digest('hex'),
      },
      description: `Package number ${i}, which does useful things.`,
      homepageUrl: `https://example.com/package-${i}`,
      downloadUrl: `https://registry.example.com/package-${i}/-/package-${i}-1.0.${i}.tgz`,
      supplier: `Supplier ${i % 50}`,
      copyright: `Copyright ${2000 + (i % 25)} Author ${i}`,
    }),
  );
  const dependencies = new Map(packages.map((pkg, i) => [pkg.uuid, packages.slice(i + 1, i + 3).map((next) => next.uuid)]));
  const vulnerabilities = Array.from({ length: Math.floor(count / 100) }, (_, i) =>
    anExportVulnerability({
      aliases: [`PYSEC-2024-${i}`],
      affects: [
        { packageUuid: packages[i * 100]!.uuid, analysis: { state: 'not_affected', justification: 'code_not_reachable', responses: [], detail: 'Not called.' } },
        { packageUuid: packages[i * 100 + 1]!.uuid, analysis: null },
      ],
    }),
  );
  return anExportModel({ packages, dependencies, vulnerabilities });
}
