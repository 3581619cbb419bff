/**
 * A product as a CycloneDX JSON document (1.4, 1.5 or 1.6): the inventory (components and the
 * dependency graph), the vulnerabilities with the product's analyses (VEX), or both. Pure: the caller
 * passes the clock and the serial in the model and serializes the object it gets back. The mapping and
 * its choices are in docs/sbom-export.md.
 */
import type { SbomAnalysis, SbomHashes } from './inventory.ts';
import type { ExportModel, ExportPackage, ExportVulnerability } from './export-model.ts';
import { DocumentLicenses, type DocumentLicense } from './export-licenses.ts';

import type { CycloneDxOptions, CycloneDxSpecVersion } from './export-options.ts';
export { CYCLONEDX_CONTENTS, CYCLONEDX_SPEC_VERSIONS, type CycloneDxContent, type CycloneDxOptions, type CycloneDxSpecVersion } from './export-options.ts';

type Json = Record<string, unknown>;

/** The document: JSON whose two first fields say it is CycloneDX of this version (what the export route documents). */
export type CycloneDxDocument = Json & { readonly bomFormat: 'CycloneDX'; readonly specVersion: CycloneDxSpecVersion };

const HASH_ALGORITHMS: readonly (readonly [keyof SbomHashes, string, number])[] = [
  ['md5', 'MD5', 32],
  ['sha1', 'SHA-1', 40],
  ['sha256', 'SHA-256', 64],
  ['sha512', 'SHA-512', 128],
];

export function writeCycloneDx(model: ExportModel, options: CycloneDxOptions): CycloneDxDocument {
  const { specVersion, content } = options;
  const licenses = new DocumentLicenses(model.licenseRefs);
  const refs = bomRefs(model.packages);
  const productRef = `${model.product.uuid}`;
  const withInventory = content !== 'vex';
  const withVulnerabilities = content !== 'sbom';

  const document: CycloneDxDocument = {
    $schema: `http://cyclonedx.org/schema/bom-${specVersion}.schema.json`,
    bomFormat: 'CycloneDX',
    specVersion,
    serialNumber: `urn:uuid:${model.documentUuid.toLowerCase()}`,
    version: 1,
    metadata: {
      timestamp: model.timestamp,
      tools: tools(model.tool, specVersion),
      component: { type: 'application', 'bom-ref': productRef, name: model.product.name, ...optional('version', model.product.version) },
    },
  };
  if (withInventory) {
    document.components = model.packages.map((pkg) => component(pkg, refs.get(pkg.uuid)!, licenses, specVersion));
    document.dependencies = dependencies(model, refs, productRef);
  }
  if (withVulnerabilities) {
    const packages = new Map(model.packages.map((pkg) => [pkg.uuid, pkg]));
    document.vulnerabilities = model.vulnerabilities.flatMap((vulnerability) => vulnerabilityEntries(vulnerability, refs, packages));
  }
  return document;
}

/**
 * Each package's bom-ref: its purl (unique in a dataspace, and what a VEX-only document's reader can
 * match without the components), or its uuid when it has no purl or shares it with another package.
 */
function bomRefs(packages: readonly ExportPackage[]): Map<string, string> {
  const purlCount = new Map<string, number>();
  for (const pkg of packages) if (pkg.purl) purlCount.set(pkg.purl, (purlCount.get(pkg.purl) ?? 0) + 1);
  return new Map(packages.map((pkg) => [pkg.uuid, pkg.purl && purlCount.get(pkg.purl) === 1 ? pkg.purl : pkg.uuid]));
}

function tools(tool: ExportModel['tool'], specVersion: CycloneDxSpecVersion): unknown {
  // 1.5 deprecated the array of tools for `tools.components`; 1.4 knows only the array.
  if (specVersion === '1.4') return [{ name: tool.name, ...optional('version', tool.version) }];
  return { components: [{ type: 'application', name: tool.name, ...optional('version', tool.version) }] };
}

function component(pkg: ExportPackage, ref: string, licenses: DocumentLicenses, specVersion: CycloneDxSpecVersion): Json {
  const hashes = hashList(pkg.hashes);
  const externalReferences = [
    ...(pkg.homepageUrl ? [{ url: pkg.homepageUrl, type: 'website' }] : []),
    ...(pkg.downloadUrl ? [{ url: pkg.downloadUrl, type: 'distribution' }] : []),
  ];
  const { licenses: choice, evidence } = componentLicenses(pkg, licenses, specVersion);
  return {
    type: 'library',
    'bom-ref': ref,
    ...(pkg.supplier ? { supplier: { name: pkg.supplier } } : {}),
    ...optional('group', pkg.namespace),
    name: pkg.name,
    ...optional('version', pkg.version),
    ...optional('description', pkg.description),
    ...(hashes.length > 0 ? { hashes } : {}),
    ...(choice ? { licenses: choice } : {}),
    ...optional('copyright', pkg.copyright),
    ...optional('purl', pkg.purl),
    ...(externalReferences.length > 0 ? { externalReferences } : {}),
    ...(evidence ? { evidence } : {}),
    // The AboutCode CycloneDX taxonomy's name for it, as DejaCode writes it: CycloneDX has no file name field.
    ...(pkg.filename ? { properties: [{ name: 'aboutcode:filename', value: pkg.filename }] } : {}),
  };
}

/** Hashes CycloneDX can carry: a hex digest of the algorithm's length (the schema refuses anything else). */
function hashList(hashes: SbomHashes): Json[] {
  const list: Json[] = [];
  for (const [field, alg, length] of HASH_ALGORITHMS) {
    const value = hashes[field];
    if (value && value.length === length && /^[0-9a-fA-F]+$/.test(value)) list.push({ alg, content: value.toLowerCase() });
  }
  return list;
}

/**
 * 1.4 and 1.5 carry one expression: the effective one (the product's concluded expression when set,
 * else the package's declared one). 1.6 marks each with its acknowledgement; its schema holds either
 * a list of single licenses or exactly one expression, so when both are set and one of them is more
 * than a listed SPDX id, the concluded expression stays in `licenses` and the declared one goes to
 * `evidence.licenses`.
 */
function componentLicenses(
  pkg: ExportPackage,
  licenses: DocumentLicenses,
  specVersion: CycloneDxSpecVersion,
): { licenses?: Json[]; evidence?: Json } {
  const declared = licenses.license(pkg.declaredLicenseSpdx);
  const concluded = licenses.license(pkg.concludedLicenseSpdx);
  if (specVersion !== '1.6') {
    const effective = concluded.expression ? concluded : declared;
    return effective.expression ? { licenses: [licenseChoice(effective)] } : {};
  }
  if (!concluded.expression && !declared.expression) return {};
  if (!concluded.expression) return { licenses: [licenseChoice(declared, 'declared')] };
  if (!declared.expression) return { licenses: [licenseChoice(concluded, 'concluded')] };
  if (declared.listedId && concluded.listedId) return { licenses: [licenseChoice(declared, 'declared'), licenseChoice(concluded, 'concluded')] };
  return { licenses: [licenseChoice(concluded, 'concluded')], evidence: { licenses: [licenseChoice(declared, 'declared')] } };
}

function licenseChoice(license: DocumentLicense, acknowledgement?: 'declared' | 'concluded'): Json {
  const ack = acknowledgement ? { acknowledgement } : {};
  return license.listedId ? { license: { id: license.listedId, ...ack } } : { expression: license.expression, ...ack };
}

/**
 * Every component has an entry, one without `dependsOn` when it depends on nothing (CycloneDX reads a
 * missing entry as "unknown"; the reference library and cyclonedx-npm write an empty one so). The
 * product's own entry depends on the packages no other package depends on, plus one entry point into
 * each cycle nothing else reaches, so the whole inventory hangs from it. A package depending on itself
 * says nothing and is left out, as the reference library does.
 */
function dependencies(model: ExportModel, refs: ReadonlyMap<string, string>, productRef: string): Json[] {
  const edges = new Map<string, string[]>();
  const dependedOn = new Set<string>();
  for (const pkg of model.packages) {
    const targets = [...new Set(model.dependencies.get(pkg.uuid) ?? [])].filter((uuid) => uuid !== pkg.uuid && refs.has(uuid));
    edges.set(pkg.uuid, targets);
    for (const target of targets) dependedOn.add(target);
  }
  const roots = model.packages.filter((pkg) => !dependedOn.has(pkg.uuid)).map((pkg) => pkg.uuid);
  const reached = new Set<string>();
  const visit = (start: string) => {
    const stack = [start];
    while (stack.length > 0) {
      const uuid = stack.pop()!;
      if (reached.has(uuid)) continue;
      reached.add(uuid);
      for (const target of edges.get(uuid)!) if (!reached.has(target)) stack.push(target);
    }
  };
  roots.forEach(visit);
  for (const pkg of model.packages) {
    if (reached.has(pkg.uuid)) continue;
    roots.push(pkg.uuid);
    visit(pkg.uuid);
  }
  const entry = (ref: string, targets: readonly string[]): Json => (targets.length > 0 ? { ref, dependsOn: targets.map((uuid) => refs.get(uuid)!) } : { ref });
  return [entry(productRef, roots), ...model.packages.map((pkg) => entry(refs.get(pkg.uuid)!, edges.get(pkg.uuid)!))];
}

/**
 * One entry per distinct analysis: CycloneDX holds one analysis per vulnerability entry, and the
 * product may have triaged the same vulnerability differently in two of its packages (Dependency-Track
 * likewise writes one entry per finding).
 */
function vulnerabilityEntries(vulnerability: ExportVulnerability, refs: ReadonlyMap<string, string>, packages: ReadonlyMap<string, ExportPackage>): Json[] {
  const groups = new Map<string, { analysis: Json | null; affects: Json[]; seen: Set<string>; fixes: string[] }>();
  for (const affected of vulnerability.affects) {
    const ref = refs.get(affected.packageUuid);
    if (ref === undefined) continue;
    const analysis = analysisJson(affected.analysis);
    const key = analysis ? JSON.stringify(analysis) : '';
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { analysis, affects: [], seen: new Set(), fixes: [] }));
    if (group.seen.has(ref)) continue;
    group.seen.add(ref);
    // The package's version is affected; each version the advisory says fixes it is not.
    const pkg = packages.get(affected.packageUuid);
    const fixed = affected.fixedVersions ?? [];
    group.affects.push({
      ref,
      ...(fixed.length > 0 && pkg?.version
        ? { versions: [{ version: pkg.version, status: 'affected' }, ...fixed.map((version) => ({ version, status: 'unaffected' }))] }
        : {}),
    });
    if (fixed.length > 0 && pkg) group.fixes.push(`${pkg.namespace ? `${pkg.namespace}/` : ''}${pkg.name} ${pkg.version} to ${fixed[0]}${fixed.length > 1 ? ` (fixed also in ${fixed.slice(1).join(', ')})` : ''}`);
  }
  const base = vulnerabilityBase(vulnerability);
  if (groups.size === 0) return [base];
  return [...groups.values()].map((group) => ({
    ...base,
    ...(group.fixes.length > 0 ? { recommendation: `Upgrade ${group.fixes.join('; ')}.` } : {}),
    ...(group.analysis ? { analysis: group.analysis } : {}),
    affects: group.affects,
  }));
}

function vulnerabilityBase(vulnerability: ExportVulnerability): Json {
  const source = advisorySource(vulnerability.id);
  const aliases = [...new Set(vulnerability.aliases)].filter((alias) => alias !== '' && alias !== vulnerability.id);
  return {
    id: vulnerability.id,
    ...(source ? { source } : {}),
    // `source` is required in a reference: `{}` says the service does not know who published the alias.
    ...(aliases.length > 0 ? { references: aliases.map((alias) => ({ id: alias, source: advisorySource(alias) ?? {} })) } : {}),
    // The service's 0-10 risk score is no CVSS score: method `other`, and no severity is made up from it.
    ...(vulnerability.riskScore !== null ? { ratings: [{ score: vulnerability.riskScore, method: 'other' }] } : {}),
    ...optional('description', vulnerability.summary),
  };
}

/** The database that publishes ids of this form, for the two whose address is certain. */
function advisorySource(id: string): { name: string; url: string } | undefined {
  if (/^CVE-\d{4}-\d+$/i.test(id)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id.toUpperCase()}` };
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/i.test(id)) return { name: 'GitHub Advisories', url: `https://github.com/advisories/${id}` };
  return undefined;
}

function analysisJson(analysis: SbomAnalysis | null): Json | null {
  if (!analysis) return null;
  const json: Json = {
    ...(analysis.state ? { state: analysis.state } : {}),
    ...(analysis.justification ? { justification: analysis.justification } : {}),
    ...(analysis.responses.length > 0 ? { response: [...new Set(analysis.responses)] } : {}),
    ...optional('detail', analysis.detail),
  };
  return Object.keys(json).length > 0 ? json : null;
}

function optional(key: string, value: string): Json {
  return value ? { [key]: value } : {};
}
