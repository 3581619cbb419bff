/**
 * CycloneDX 1.6 documents shaped like cyclonedx-npm's output (its demo results in
 * CycloneDX/cyclonedx-node-npm, demo/* /example-results/flat/bom.1.6.json): the npm and library tools
 * in metadata, the project as metadata.component, each package a library with a bom-ref made of its
 * path, a declared license, a purl, a distribution reference carrying the tarball's hash, npm
 * properties, and a dependencies section listing every component. Used by the import tests and the
 * benchmark (10,000 components).
 */
import { createHash } from 'node:crypto';

export interface NpmPackage {
  /** `left-pad` or `@scope/name`. */
  readonly name: string;
  readonly version: string;
  /** An SPDX id (`{"license": {"id"}}`), `{ name }` (free text) or `{ expression }`; none when undefined. */
  readonly license?: string | { readonly name: string } | { readonly expression: string };
  readonly description?: string;
  readonly author?: string;
  readonly homepage?: string;
  /** Names of the packages it depends on (within the document). */
  readonly dependsOn?: readonly string[];
}

export interface CycloneDxVulnerability {
  readonly id: string;
  readonly aliases?: readonly string[];
  readonly description?: string;
  readonly score?: number;
  /** Names of the affected packages. */
  readonly affects: readonly string[];
  readonly analysis?: { readonly state?: string; readonly justification?: string; readonly response?: readonly string[]; readonly detail?: string };
}

const purlOf = (name: string, version: string) =>
  name.startsWith('@') ? `pkg:npm/${encodeURIComponent(name.split('/')[0]!)}/${name.split('/')[1]}@${version}` : `pkg:npm/${name}@${version}`;

/** A sha512 that stays the same for the same package (the "integrity" of its tarball). */
const integrity = (name: string, version: string) => createHash('sha512').update(`${name}@${version}`).digest('hex');

export function cyclonedxNpm(
  project: { readonly name: string; readonly version: string },
  packages: readonly NpmPackage[],
  options: { readonly vulnerabilities?: readonly CycloneDxVulnerability[]; readonly serialNumber?: string } = {},
): Record<string, unknown> {
  const root = `${project.name}@${project.version}`;
  const refOf = new Map(packages.map((pkg) => [pkg.name, `${root}|${pkg.name}@${pkg.version}`]));
  const licenses = (license: NpmPackage['license']) => {
    if (license === undefined) return undefined;
    if (typeof license === 'string') return [{ license: { id: license, acknowledgement: 'declared' } }];
    if ('expression' in license) return [{ expression: license.expression, acknowledgement: 'declared' }];
    return [{ license: { name: license.name, acknowledgement: 'declared' } }];
  };
  const components = packages.map((pkg) => {
    const [scope, bare] = pkg.name.startsWith('@') ? [pkg.name.split('/')[0], pkg.name.split('/')[1]!] : [undefined, pkg.name];
    return {
      type: 'library',
      name: bare,
      ...(scope ? { group: scope } : {}),
      version: pkg.version,
      'bom-ref': refOf.get(pkg.name),
      ...(pkg.author ? { author: pkg.author } : {}),
      ...(pkg.description ? { description: pkg.description } : {}),
      ...(pkg.license !== undefined ? { licenses: licenses(pkg.license) } : {}),
      purl: purlOf(pkg.name, pkg.version),
      externalReferences: [
        {
          url: `https://registry.npmjs.org/${pkg.name}/-/${bare}-${pkg.version}.tgz`,
          type: 'distribution',
          hashes: [{ alg: 'SHA-512', content: integrity(pkg.name, pkg.version) }],
          comment: 'as detected from npm-ls property "resolved" and property "integrity"',
        },
        ...(pkg.homepage ? [{ url: pkg.homepage, type: 'website', comment: 'as detected from PackageJson property "homepage"' }] : []),
      ],
      properties: [{ name: 'cdx:npm:package:path', value: `node_modules/${pkg.name}` }],
    };
  });
  const direct = packages.filter((pkg) => !packages.some((other) => other.dependsOn?.includes(pkg.name)));
  const dependencies = [
    { ref: root, dependsOn: direct.map((pkg) => refOf.get(pkg.name)!) },
    ...packages.map((pkg) => ({
      ref: refOf.get(pkg.name)!,
      // Only packages of the document: a producer names no dependency it does not list.
      ...(pkg.dependsOn?.some((name) => refOf.has(name)) ? { dependsOn: pkg.dependsOn.filter((name) => refOf.has(name)).map((name) => refOf.get(name)!) } : {}),
    })),
  ];
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: options.serialNumber ?? 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
    version: 1,
    metadata: {
      timestamp: '2026-11-01T09:00:00.000Z',
      tools: {
        components: [
          { type: 'application', name: 'npm', version: '10.9.2' },
          { type: 'application', name: 'cyclonedx-npm', group: '@cyclonedx', version: '6.0.1' },
        ],
      },
      component: {
        type: 'application',
        name: project.name,
        version: project.version,
        'bom-ref': root,
        purl: purlOf(project.name, project.version),
        properties: [{ name: 'cdx:npm:package:path', value: '' }],
      },
    },
    components,
    dependencies,
    ...(options.vulnerabilities
      ? {
          vulnerabilities: options.vulnerabilities.map((v) => ({
            id: v.id,
            ...(v.aliases ? { references: v.aliases.map((id) => ({ id, source: { name: 'GitHub Advisories' } })) } : {}),
            ...(v.score !== undefined ? { ratings: [{ score: v.score, severity: v.score >= 7 ? 'high' : 'medium', method: 'CVSSv31' }] } : {}),
            ...(v.description ? { description: v.description } : {}),
            ...(v.analysis ? { analysis: v.analysis } : {}),
            affects: v.affects.map((name) => ({ ref: refOf.get(name) ?? name })),
          })),
        }
      : {}),
  };
}

/** A VEX: the vulnerabilities and their analyses alone, naming the affected packages by purl. */
export function cyclonedxVex(vulnerabilities: readonly (Omit<CycloneDxVulnerability, 'affects'> & { readonly affects: readonly { name: string; version: string }[] })[]) {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: 'urn:uuid:7b0a6c4e-5cf1-4f1e-8a57-0f6cbbf1d3a1',
    version: 1,
    vulnerabilities: vulnerabilities.map((v) => ({
      id: v.id,
      ...(v.score !== undefined ? { ratings: [{ score: v.score, method: 'CVSSv31' }] } : {}),
      ...(v.analysis ? { analysis: v.analysis } : {}),
      affects: v.affects.map(({ name, version }) => ({ ref: purlOf(name, version) })),
    })),
  };
}
