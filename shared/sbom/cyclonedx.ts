/**
 * CycloneDX JSON 1.2-1.6 → Inventory: components (nested ones too), licenses, hashes, references,
 * the dependency graph and vulnerabilities with their analyses (VEX). Reads a document that has
 * passed its schema (read-sbom.ts), but never trusts a shape it did not check itself. Pure.
 * What is read from where: docs/sbom-formats.md. A string the service cannot store (an unpaired
 * surrogate, a control character) skips its component or vulnerability, and refuses the document in
 * its metadata (cyclonedxTextErrors, before anything is read).
 */
import type { LicenseHint } from '../domain/license-resolution.ts';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES, type AnalysisResponse, type AnalysisState, type Justification } from '../domain/catalog.ts';
import type { Inventory, SbomAnalysis, SbomHashes, SbomVulnerability } from './inventory.ts';
import { documentTextErrors, httpUrl, InventoryBuilder, isObject, joinLicenses, list, text, TextCheck } from './inventory-builder.ts';
import { clip } from './purl.ts';
import { bomLinkSerial, parseBomLink } from '../domain/bom-link.ts';

const HASHES: Readonly<Record<string, keyof SbomHashes>> = { MD5: 'md5', 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };

/**
 * What in the document's own metadata (serialNumber, metadata, the described product; not the
 * product's own components, which are components) the service cannot store: the document is then
 * refused. The described product's reference, name and version are used, and checked as names are.
 */
export function cyclonedxTextErrors(document: Record<string, unknown>): string[] {
  const errors = documentTextErrors(document.serialNumber, '/serialNumber', { strict: ['/serialNumber'] });
  const strict = ['bom-ref', 'name', 'version'].map((field) => `/metadata/component/${field}`);
  return [...errors, ...documentTextErrors(document.metadata, '/metadata', { strict, skip: ['/metadata/component/components'] })];
}

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
  const ownSerial = bomLinkSerial(document.serialNumber);
  const vulnerabilities = list(document.vulnerabilities).flatMap((vulnerability, index) =>
    isObject(vulnerability) ? readVulnerability(vulnerability, `/vulnerabilities/${index}`, builder, subjectRef, ownSerial) : [],
  );
  const hasComponents = list(document.components).length > 0 || list(subjectComponent?.components).length > 0;
  const serial = bomLinkSerial(document.serialNumber);
  return builder.build({
    ...(serial ? { serial } : {}),
    format: 'cyclonedx',
    specVersion,
    subject: subjectComponent && text(subjectComponent.name) ? { name: text(subjectComponent.name), version: text(subjectComponent.version) } : null,
    vulnerabilities,
    vexOnly: !hasComponents && list(document.vulnerabilities).length > 0,
  });
}

function candidate(component: Record<string, unknown>, pointer: string) {
  const check = new TextCheck();
  const stated = readLicenses(component.licenses, 'licenses', check);
  // CycloneDX 1.6 `licenses` holds a list of single licenses or exactly one expression, so a writer with
  // a declared and a concluded expression puts the declared one in `evidence.licenses`, marked
  // "declared" (this service's export does: docs/sbom-export.md). Read it when `licenses` declares none,
  // or importing an export would lose the package's own expression.
  const evidence = isObject(component.evidence) ? readLicenses(component.evidence.licenses, 'evidence/licenses', check, (entry) => acknowledgementOf(entry) === 'declared') : undefined;
  const licenses = { concluded: stated.concluded, declared: stated.declared || (evidence?.declared ?? '') };
  const licenseHints = new Map([...(evidence?.hints ?? []), ...stated.hints]);
  const hashes: Partial<Record<keyof SbomHashes, string>> = {};
  const references = list(component.externalReferences).flatMap((ref, index) => {
    if (!isObject(ref)) return [];
    const at = `externalReferences/${index}`;
    return [{ type: check.text(ref.type, `${at}/type`), url: check.text(ref.url, `${at}/url`), hashes: ref.hashes, at }];
  });
  // The component's own hashes first; then those of its distribution reference (cyclonedx-npm puts the
  // tarball's integrity there): the digest of the file the package is downloaded as.
  const hashLists = [{ hashes: component.hashes, at: 'hashes' }, ...references.filter((ref) => ref.type === 'distribution').map((ref) => ({ hashes: ref.hashes, at: `${ref.at}/hashes` }))];
  for (const { hashes: given, at } of hashLists) {
    list(given).forEach((hash, index) => {
      if (!isObject(hash)) return;
      const alg = check.text(hash.alg, `${at}/${index}/alg`);
      // Own keys only: an algorithm named "constructor" is none of them.
      const key = Object.hasOwn(HASHES, alg) ? HASHES[alg] : undefined;
      const content = check.text(hash.content, `${at}/${index}/content`).trim().toLowerCase();
      if (key && content && hashes[key] === undefined) hashes[key] = content;
    });
  }
  const firstUrl = (type: string) => references.filter((ref) => ref.type === type).map((ref) => httpUrl(ref.url)).find((url) => url !== '') ?? '';
  return {
    ref: check.text(component['bom-ref'], 'bom-ref'),
    pointer,
    purl: check.text(component.purl, 'purl').trim(),
    group: check.text(component.group, 'group'),
    name: check.text(component.name, 'name'),
    version: check.text(component.version, 'version'),
    declaredLicense: licenses.declared,
    concludedLicense: licenses.concluded,
    licenseHints,
    hashes,
    description: check.prose(component.description, 'description'),
    homepageUrl: firstUrl('website'),
    downloadUrl: firstUrl('distribution'),
    supplier: isObject(component.supplier) ? check.text(component.supplier.name, 'supplier/name') : '',
    copyright: check.prose(component.copyright, 'copyright'),
    filename: '',
    problem: check.problem,
  };
}

/**
 * `licenses` entries: `{license: {id}}`, `{license: {name}}` or `{expression}`. Several are joined with
 * AND (a component under all of them); CycloneDX 1.6 `acknowledgement: "concluded"` ones make the
 * concluded expression, the others (declared, or not said) the declared one.
 */
function readLicenses(entries: unknown, at: string, check: TextCheck, read: (entry: unknown) => boolean = () => true): { declared: string; concluded: string; hints: Map<string, LicenseHint> } {
  const declared: string[] = [];
  const concluded: string[] = [];
  const hints = new Map<string, LicenseHint>();
  list(entries).forEach((entry, index) => {
    if (!isObject(entry) || !read(entry)) return;
    let written = '';
    let acknowledgement: unknown;
    if (isObject(entry.license)) {
      written = check.asserted(entry.license.id, `${at}/${index}/license/id`) || check.asserted(entry.license.name, `${at}/${index}/license/name`);
      acknowledgement = entry.license.acknowledgement;
      const hint = licenseHint(entry.license);
      if (written && hint && !hints.has(written.trim())) hints.set(written.trim(), hint);
    } else if (typeof entry.expression === 'string') {
      written = check.asserted(entry.expression, `${at}/${index}/expression`);
      acknowledgement = entry.acknowledgement;
    }
    if (written) (acknowledgement === 'concluded' ? concluded : declared).push(written);
  });
  return { declared: joinLicenses(declared), concluded: joinLicenses(concluded), hints };
}

/** A license text longer than this (characters, decoded) is not compared: no license text is near it. */
const MAX_HINT_TEXT = 200_000;

/**
 * What a license entry says beside its id or name: its `url` (http, https or ftp) and its `text`
 * (decoded from base64 when so encoded). Used only to recognise a license its name does not; a value of
 * the wrong type or an undecodable text is left out, not an error.
 */
function licenseHint(license: Record<string, unknown>): LicenseHint | undefined {
  const url = typeof license.url === 'string' && /^(https?|ftp):\/\//i.test(license.url.trim()) && license.url.length <= 2_048 ? license.url.trim() : undefined;
  let content: string | undefined;
  if (isObject(license.text) && typeof license.text.content === 'string' && license.text.content.length <= MAX_HINT_TEXT * 2) {
    content = license.text.encoding === 'base64' ? decodeBase64(license.text.content) : license.text.content;
    if (content !== undefined && (content.length > MAX_HINT_TEXT || content.trim() === '')) content = undefined;
  }
  if (!url && !content) return undefined;
  return { ...(url ? { url } : {}), ...(content ? { text: content } : {}) };
}

function decodeBase64(content: string): string | undefined {
  if (!/^[A-Za-z0-9+/=\s]*$/.test(content)) return undefined;
  const decoded = Buffer.from(content, 'base64').toString('utf8');
  return decoded.includes('\uFFFD') ? undefined : decoded;
}

function acknowledgementOf(entry: unknown): unknown {
  if (!isObject(entry)) return undefined;
  return isObject(entry.license) ? entry.license.acknowledgement : entry.acknowledgement;
}

function readVulnerability(vulnerability: Record<string, unknown>, pointer: string, builder: InventoryBuilder, subjectRef: string, ownSerial: string | undefined): SbomVulnerability[] {
  const check = new TextCheck();
  const id = check.text(vulnerability.id, 'id').trim();
  const aliases = new Set<string>();
  list(vulnerability.references).forEach((reference, index) => {
    const alias = isObject(reference) ? check.text(reference.id, `references/${index}/id`).trim() : '';
    if (alias && alias !== id) aliases.add(alias);
  });
  const summary = check.prose(vulnerability.description, 'description').trim() || check.prose(vulnerability.detail, 'detail').trim();
  const refs = list(vulnerability.affects).map((affected, index) => (isObject(affected) ? check.text(affected.ref, `affects/${index}/ref`).trim() : ''));
  const analysis = readAnalysis(vulnerability.analysis, check);
  if (check.problem !== undefined) {
    builder.warnings.push(`${pointer}: vulnerability "${clip(id)}" was left out: ${check.problem}.`);
    return [];
  }
  if (!id) {
    builder.warnings.push(`${pointer}: a vulnerability without an id was left out.`);
    return [];
  }
  const scores = list(vulnerability.ratings)
    .map((rating) => (isObject(rating) && typeof rating.score === 'number' ? rating.score : NaN))
    .filter((score) => Number.isFinite(score) && score >= 0 && score <= 10);
  const affects: string[] = [];
  for (const ref of refs) {
    if (!ref) continue;
    // A component of this document (by bom-ref or purl), else a purl of a package the product may
    // hold (a VEX written for another document's components), else a BOM-Link: to a component of this
    // document, that one; else kept for the import to resolve against the product's packages (a VEX
    // may also be a later version of the BOM itself, with its serial number).
    const link = parseBomLink(ref);
    const resolved = link
      ? ((link.serial === ownSerial ? builder.resolve(link.ref) : undefined) ?? `urn:cdx:${link.serial}/${link.version}#${encodeURIComponent(link.ref)}`)
      : (builder.resolve(ref) ?? builder.canonicalPurl(ref));
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
      summary,
      riskScore: scores.length > 0 ? Math.round(Math.max(...scores) * 10) / 10 : null,
      affects,
      analysis,
    },
  ];
}

function readAnalysis(analysis: unknown, check: TextCheck): SbomAnalysis | null {
  if (!isObject(analysis)) return null;
  const state = oneOf(ANALYSIS_STATES, analysis.state) as AnalysisState | null;
  const justification = oneOf(JUSTIFICATIONS, analysis.justification) as Justification | null;
  const responses = [...new Set(list(analysis.response).map((response) => oneOf(RESPONSES, response)))].filter(
    (response): response is AnalysisResponse => response !== null,
  );
  const detail = check.prose(analysis.detail, 'analysis/detail');
  if (state === null && justification === null && responses.length === 0 && detail === '') return null;
  return { state, justification, responses, detail };
}

function oneOf(values: readonly string[], value: unknown): string | null {
  return typeof value === 'string' && values.includes(value) ? value : null;
}
