/**
 * CycloneDX JSON 1.2-1.6 → Inventory: components (nested ones too), licenses, hashes, references,
 * the dependency graph and vulnerabilities with their analyses (VEX). Reads a document that has
 * passed its schema (read-sbom.ts), but never trusts a shape it did not check itself. Pure.
 * What is read from where: docs/sbom-formats.md.
 */
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES, type AnalysisResponse, type AnalysisState, type Justification } from '../domain/catalog.ts';
import type { Inventory, SbomAnalysis, SbomHashes, SbomVulnerability } from './inventory.ts';
import { asserted, httpUrl, InventoryBuilder, isObject, joinLicenses, list, text } from './inventory-builder.ts';
import { clip } from './purl.ts';

const HASHES: Readonly<Record<string, keyof SbomHashes>> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

export function cyclonedxInventory(document: Record<string, unknown>, specVersion: string): Inventory {
  const builder = new InventoryBuilder();
  const metadata = isObject(document.metadata) ? document.metadata : {};
  const subjectComponent = isObject(metadata.component) ? metadata.component : undefined;

  const walk = (components: unknown, pointer: string) => {
    list(components).forEach((component, index) => {
      if (!isObject(component)) return;
      const at = `${pointer}/${index}`;
      builder.add(candidate(component, at));
      walk(component.components, `${at}/components`);
    });
  };
  // The described product is not a component; what it is made of (its own nested components) is.
  if (subjectComponent) walk(subjectComponent.components, '/metadata/component/components');
  walk(document.components, '/components');

  for (const entry of list(document.dependencies)) {
    if (!isObject(entry) || typeof entry.ref !== 'string') continue;
    for (const target of list(entry.dependsOn)) {
      if (typeof target === 'string') builder.depend(entry.ref, target);
    }
  }

  const subjectRef = subjectComponent ? text(subjectComponent['bom-ref']) : '';
  const vulnerabilities = list(document.vulnerabilities).flatMap((vulnerability, index) =>
    isObject(vulnerability) ? readVulnerability(vulnerability, `/vulnerabilities/${index}`, builder, subjectRef) : [],
  );
  const hasComponents = list(document.components).length > 0 || list(subjectComponent?.components).length > 0;
  return builder.build({
    format: 'cyclonedx',
    specVersion,
    subject: subjectComponent && text(subjectComponent.name) ? { name: text(subjectComponent.name), version: text(subjectComponent.version) } : null,
    vulnerabilities,
    vexOnly: !hasComponents && list(document.vulnerabilities).length > 0,
  });
}

function candidate(component: Record<string, unknown>, pointer: string) {
  const stated = readLicenses(component.licenses);
  // CycloneDX 1.6 `licenses` holds a list of single licenses or exactly one expression, so a writer with
  // a declared and a concluded expression puts the declared one in `evidence.licenses`, marked
  // "declared" (this service's export does: docs/sbom-export.md). Read it when `licenses` declares none,
  // or importing an export would lose the package's own expression.
  const evidence = isObject(component.evidence) ? readLicenses(list(component.evidence.licenses).filter((entry) => acknowledgementOf(entry) === 'declared')) : undefined;
  const licenses = { concluded: stated.concluded, declared: stated.declared || (evidence?.declared ?? '') };
  const hashes: Partial<Record<keyof SbomHashes, string>> = {};
  const references = list(component.externalReferences).filter(isObject);
  // The component's own hashes first; then those of its distribution reference (cyclonedx-npm puts the
  // tarball's integrity there): the digest of the file the package is downloaded as.
  const distributions = references.filter((ref) => ref.type === 'distribution').flatMap((ref) => list(ref.hashes));
  for (const hash of [...list(component.hashes), ...distributions]) {
    if (!isObject(hash)) continue;
    const key = HASHES[text(hash.alg)];
    const content = text(hash.content).trim().toLowerCase();
    if (key && content && hashes[key] === undefined) hashes[key] = content;
  }
  const firstUrl = (type: string) => references.filter((ref) => ref.type === type).map((ref) => httpUrl(ref.url)).find((url) => url !== '') ?? '';
  return {
    ref: text(component['bom-ref']),
    pointer,
    purl: text(component.purl).trim(),
    group: text(component.group),
    name: text(component.name),
    version: text(component.version),
    declaredLicense: licenses.declared,
    concludedLicense: licenses.concluded,
    hashes,
    description: text(component.description),
    homepageUrl: firstUrl('website'),
    downloadUrl: firstUrl('distribution'),
    supplier: isObject(component.supplier) ? text(component.supplier.name) : '',
    copyright: text(component.copyright),
    filename: '',
  };
}

/**
 * `licenses` entries: `{license: {id}}`, `{license: {name}}` or `{expression}`. Several are joined with
 * AND (a component under all of them); CycloneDX 1.6 `acknowledgement: "concluded"` ones make the
 * concluded expression, the others (declared, or not said) the declared one.
 */
function readLicenses(entries: unknown): { declared: string; concluded: string } {
  const declared: string[] = [];
  const concluded: string[] = [];
  for (const entry of list(entries)) {
    if (!isObject(entry)) continue;
    let written = '';
    let acknowledgement: unknown;
    if (isObject(entry.license)) {
      written = asserted(entry.license.id) || asserted(entry.license.name);
      acknowledgement = entry.license.acknowledgement;
    } else if (typeof entry.expression === 'string') {
      written = asserted(entry.expression);
      acknowledgement = entry.acknowledgement;
    }
    if (written) (acknowledgement === 'concluded' ? concluded : declared).push(written);
  }
  return { declared: joinLicenses(declared), concluded: joinLicenses(concluded) };
}

function acknowledgementOf(entry: unknown): unknown {
  if (!isObject(entry)) return undefined;
  return isObject(entry.license) ? entry.license.acknowledgement : entry.acknowledgement;
}

function readVulnerability(vulnerability: Record<string, unknown>, pointer: string, builder: InventoryBuilder, subjectRef: string): SbomVulnerability[] {
  const id = text(vulnerability.id).trim();
  if (!id) {
    builder.warnings.push(`${pointer}: a vulnerability without an id was left out.`);
    return [];
  }
  const aliases = new Set<string>();
  for (const reference of list(vulnerability.references)) {
    const alias = isObject(reference) ? text(reference.id).trim() : '';
    if (alias && alias !== id) aliases.add(alias);
  }
  const scores = list(vulnerability.ratings)
    .map((rating) => (isObject(rating) && typeof rating.score === 'number' ? rating.score : NaN))
    .filter((score) => Number.isFinite(score) && score >= 0 && score <= 10);
  const affects: string[] = [];
  for (const affected of list(vulnerability.affects)) {
    const ref = isObject(affected) ? text(affected.ref).trim() : '';
    if (!ref) continue;
    // A component of this document (by bom-ref or purl), else a purl of a package the product may
    // hold (a VEX written for another document's components).
    const resolved = builder.resolve(ref) ?? builder.canonicalPurl(ref);
    if (resolved === undefined && ref === subjectRef) {
      builder.warnings.push(`${pointer}: ${id} affects the described product itself ("${clip(ref)}"), which is not a package; left out.`);
    } else if (resolved === undefined) {
      builder.warnings.push(`${pointer}: ${id} affects "${clip(ref)}", which is neither a component of the document nor a purl; left out.`);
    } else if (!affects.includes(resolved)) {
      affects.push(resolved);
    }
  }
  return [
    {
      id,
      aliases: [...aliases],
      summary: text(vulnerability.description).trim() || text(vulnerability.detail).trim(),
      riskScore: scores.length > 0 ? Math.round(Math.max(...scores) * 10) / 10 : null,
      affects,
      analysis: readAnalysis(vulnerability.analysis),
    },
  ];
}

function readAnalysis(analysis: unknown): SbomAnalysis | null {
  if (!isObject(analysis)) return null;
  const state = oneOf(ANALYSIS_STATES, analysis.state) as AnalysisState | null;
  const justification = oneOf(JUSTIFICATIONS, analysis.justification) as Justification | null;
  const responses = [...new Set(list(analysis.response).map((response) => oneOf(RESPONSES, response)))].filter(
    (response): response is AnalysisResponse => response !== null,
  );
  const detail = text(analysis.detail);
  if (state === null && justification === null && responses.length === 0 && detail === '') return null;
  return { state, justification, responses, detail };
}

function oneOf(values: readonly string[], value: unknown): string | null {
  return typeof value === 'string' && values.includes(value) ? value : null;
}
