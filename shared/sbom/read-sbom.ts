// PLACEHOLDER: replaced by the real reader at merge.
/**
 * A minimal stand-in for the SBOM reader (CycloneDX JSON, SPDX JSON → Inventory) so that the import
 * service and its HTTP tests run before the real reader lands. It has the real reader's signature and
 * answers; it walks CycloneDX components (nested ones too), licenses, hashes, dependencies and
 * vulnerabilities, and SPDX packages with their purl and relationships, but validates no schema.
 */
import { PackageURL } from 'packageurl-js';
import type { Inventory, SbomAnalysis, SbomComponent, SbomHashes, SbomVulnerability, SkippedComponent } from './inventory.ts';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES, type AnalysisResponse, type AnalysisState, type Justification } from '../domain/catalog.ts';

export type ReadResult =
  | { readonly ok: true; readonly inventory: Inventory }
  | { readonly ok: false; readonly status: 400 | 415; readonly errors: Record<string, string[]> };

const ACCEPTED = 'application/vnd.cyclonedx+json, application/spdx+json or application/json';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function readSbom(body: Buffer | string, contentType?: string): ReadResult {
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  const start = raw.trimStart();
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type.endsWith('xml') || start.startsWith('<')) {
    return { ok: false, status: 415, errors: { detail: [`CycloneDX XML is not accepted: send JSON (${ACCEPTED}).`] } };
  }
  if (/^SPDXVersion:/m.test(start.slice(0, 2000)) && !start.startsWith('{')) {
    return { ok: false, status: 415, errors: { detail: [`SPDX tag-value is not accepted: send SPDX JSON (${ACCEPTED}).`] } };
  }
  let document: unknown;
  try {
    document = JSON.parse(raw);
  } catch (error) {
    return { ok: false, status: 400, errors: { input_file: [`Not JSON: ${(error as Error).message}`] } };
  }
  if (!isObject(document)) return { ok: false, status: 400, errors: { input_file: ['The document is not a JSON object.'] } };
  if (document.bomFormat === 'CycloneDX') return readCycloneDx(document);
  if (typeof document.spdxVersion === 'string') return readSpdx(document);
  return { ok: false, status: 400, errors: { input_file: ['Neither a CycloneDX document (bomFormat) nor an SPDX document (spdxVersion).'] } };
}

interface Parts {
  type: string;
  namespace: string;
  name: string;
  version: string;
  qualifiers: Record<string, string>;
  subpath: string;
  purl: string;
}

function purlParts(purl: string): Parts | undefined {
  try {
    const parsed = PackageURL.fromString(purl);
    return {
      type: parsed.type,
      namespace: parsed.namespace ?? '',
      name: parsed.name,
      version: parsed.version ?? '',
      qualifiers: Object.fromEntries(Object.entries(parsed.qualifiers ?? {}).map(([key, value]) => [key, String(value)])),
      subpath: parsed.subpath ?? '',
      purl: parsed.toString(),
    };
  } catch {
    return undefined;
  }
}

function genericParts(name: string, version: string, namespace = ''): Parts {
  const purl = new PackageURL('generic', namespace || undefined, name, version || undefined, undefined, undefined);
  return { type: 'generic', namespace, name, version, qualifiers: {}, subpath: '', purl: purl.toString() };
}

const HASH_NAMES: Record<string, keyof SbomHashes> = { MD5: 'md5', 'SHA-1': 'sha1', SHA1: 'sha1', 'SHA-256': 'sha256', SHA256: 'sha256', 'SHA-512': 'sha512', SHA512: 'sha512' };

function readCycloneDx(document: Json): ReadResult {
  const specVersion = text(document.specVersion);
  if (!['1.2', '1.3', '1.4', '1.5', '1.6'].includes(specVersion)) {
    return { ok: false, status: 400, errors: { '/specVersion': [`Unsupported CycloneDX version "${specVersion}".`] } };
  }
  const components: SbomComponent[] = [];
  const skipped: SkippedComponent[] = [];
  const walk = (entries: unknown) => {
    for (const entry of list(entries)) {
      if (!isObject(entry)) continue;
      walk(entry.components);
      const name = text(entry.name);
      const purlText = text(entry.purl);
      const ref = text(entry['bom-ref']) || purlText || `${name}@${text(entry.version)}`;
      if (!name) {
        skipped.push({ component: ref, reason: 'The component has no name.' });
        continue;
      }
      const parts = purlText ? purlParts(purlText) : genericParts(name, text(entry.version), text(entry.group));
      if (!parts) {
        skipped.push({ component: ref, reason: `Invalid purl "${purlText}".` });
        continue;
      }
      const licenses = list(entry.licenses).filter(isObject);
      const declared = licenses
        .map((choice) => text(choice.expression) || (isObject(choice.license) ? text(choice.license.id) || text(choice.license.name) : ''))
        .filter(Boolean);
      const hashes: Record<string, string> = {};
      // cyclonedx-npm puts the tarball's hash on its distribution reference.
      const distribution = list(entry.externalReferences).filter(isObject).find((r) => r.type === 'distribution');
      for (const hash of [...list(distribution?.hashes), ...list(entry.hashes)].filter(isObject)) {
        const field = HASH_NAMES[text(hash.alg).toUpperCase()];
        if (field) hashes[field] = text(hash.content);
      }
      const reference = (type: string) => text(list(entry.externalReferences).filter(isObject).find((r) => r.type === type)?.url);
      const supplier = isObject(entry.supplier) ? text(entry.supplier.name) : '';
      components.push({
        ref,
        ...parts,
        hadPurl: purlText !== '',
        declaredLicense: declared.length > 1 ? declared.map((d) => (/\s/.test(d) ? `(${d})` : d)).join(' AND ') : (declared[0] ?? ''),
        concludedLicense: '',
        hashes,
        description: text(entry.description),
        homepageUrl: reference('website'),
        downloadUrl: /^https?:\/\//.test(reference('distribution')) ? reference('distribution') : '',
        supplier,
        copyright: text(entry.copyright),
        filename: '',
      });
    }
  };
  walk(document.components);
  const refs = new Set(components.map((c) => c.ref));
  const dependencies = new Map<string, string[]>();
  for (const dependency of list(document.dependencies).filter(isObject)) {
    const ref = text(dependency.ref);
    if (!refs.has(ref)) continue;
    dependencies.set(ref, list(dependency.dependsOn).map(text).filter((r) => refs.has(r)));
  }
  const vulnerabilities: SbomVulnerability[] = list(document.vulnerabilities)
    .filter(isObject)
    .filter((v) => text(v.id) !== '')
    .map((v) => {
      const scores = list(v.ratings).filter(isObject).map((r) => r.score).filter((s): s is number => typeof s === 'number');
      const analysis = isObject(v.analysis) ? analysisOf(v.analysis) : null;
      return {
        id: text(v.id),
        aliases: list(v.references).filter(isObject).map((r) => text(r.id)).filter(Boolean),
        summary: text(v.description) || text(v.detail),
        riskScore: scores.length > 0 ? Math.round(Math.min(10, Math.max(...scores)) * 10) / 10 : null,
        affects: list(v.affects).filter(isObject).map((a) => text(a.ref)).filter(Boolean),
        analysis,
      };
    });
  const metadata = isObject(document.metadata) && isObject(document.metadata.component) ? document.metadata.component : undefined;
  return {
    ok: true,
    inventory: {
      format: 'cyclonedx',
      specVersion,
      subject: metadata ? { name: text(metadata.name), version: text(metadata.version) } : null,
      components,
      skipped,
      dependencies,
      vulnerabilities,
      vexOnly: components.length === 0 && skipped.length === 0 && vulnerabilities.length > 0,
    },
  };
}

function analysisOf(analysis: Json): SbomAnalysis {
  const state = text(analysis.state);
  const justification = text(analysis.justification);
  return {
    state: (ANALYSIS_STATES as readonly string[]).includes(state) ? (state as AnalysisState) : null,
    justification: (JUSTIFICATIONS as readonly string[]).includes(justification) ? (justification as Justification) : null,
    responses: list(analysis.response).map(text).filter((r): r is AnalysisResponse => (RESPONSES as readonly string[]).includes(r)),
    detail: text(analysis.detail),
  };
}

function readSpdx(document: Json): ReadResult {
  const specVersion = text(document.spdxVersion).replace(/^SPDX-/, '');
  if (!['2.2', '2.3'].includes(specVersion)) {
    return { ok: false, status: 400, errors: { '/spdxVersion': [`Unsupported SPDX version "${text(document.spdxVersion)}".`] } };
  }
  const noAssertion = (value: string) => (value === 'NOASSERTION' || value === 'NONE' ? '' : value);
  const described = new Set(list(document.documentDescribes).map(text));
  const components: SbomComponent[] = [];
  const skipped: SkippedComponent[] = [];
  for (const pkg of list(document.packages).filter(isObject)) {
    const ref = text(pkg.SPDXID);
    if (described.has(ref)) continue;
    const name = text(pkg.name);
    if (!name) {
      skipped.push({ component: ref, reason: 'The package has no name.' });
      continue;
    }
    const purlText = text(list(pkg.externalRefs).filter(isObject).find((r) => r.referenceType === 'purl')?.referenceLocator);
    const parts = purlText ? purlParts(purlText) : genericParts(name, text(pkg.versionInfo));
    if (!parts) {
      skipped.push({ component: ref, reason: `Invalid purl "${purlText}".` });
      continue;
    }
    const hashes: Record<string, string> = {};
    for (const checksum of list(pkg.checksums).filter(isObject)) {
      const field = HASH_NAMES[text(checksum.algorithm).toUpperCase()];
      if (field) hashes[field] = text(checksum.checksumValue);
    }
    const download = noAssertion(text(pkg.downloadLocation));
    components.push({
      ref,
      ...parts,
      hadPurl: purlText !== '',
      declaredLicense: noAssertion(text(pkg.licenseDeclared)),
      concludedLicense: noAssertion(text(pkg.licenseConcluded)),
      hashes,
      description: text(pkg.description) || text(pkg.summary),
      homepageUrl: noAssertion(text(pkg.homepage)),
      downloadUrl: /^https?:\/\//.test(download) ? download : '',
      supplier: noAssertion(text(pkg.supplier)).replace(/^(Organization|Person):\s*/, ''),
      copyright: noAssertion(text(pkg.copyrightText)),
      filename: text(pkg.packageFileName),
    });
  }
  const refs = new Set(components.map((c) => c.ref));
  const dependencies = new Map<string, string[]>();
  const edge = (from: string, to: string) => {
    if (!refs.has(from) || !refs.has(to)) return;
    const targets = dependencies.get(from) ?? [];
    if (!targets.includes(to)) targets.push(to);
    dependencies.set(from, targets);
  };
  for (const relationship of list(document.relationships).filter(isObject)) {
    const [a, type, b] = [text(relationship.spdxElementId), text(relationship.relationshipType), text(relationship.relatedSpdxElement)];
    if (type === 'DEPENDS_ON') edge(a, b);
    else if (type === 'DEPENDENCY_OF') edge(b, a);
  }
  const root = list(document.packages).filter(isObject).find((p) => described.has(text(p.SPDXID)));
  return {
    ok: true,
    inventory: {
      format: 'spdx',
      specVersion,
      subject: root ? { name: text(root.name), version: text(root.versionInfo) } : null,
      components,
      skipped,
      dependencies,
      vulnerabilities: [],
      vexOnly: false,
    },
  };
}
