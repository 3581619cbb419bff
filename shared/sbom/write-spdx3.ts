/**
 * A product as an SPDX 3.0.1 JSON-LD document (`@context` and `@graph`): the product as the root
 * package of a `software_Sbom` that the SpdxDocument's root is, `contains` from it to every package,
 * `dependsOn` between packages exactly as the product records them, licenses as
 * `simplelicensing_LicenseExpression` elements, and the vulnerabilities with the product's analyses as
 * VEX assessment relationships. Pure: the caller passes the clock and the namespace seed in the model,
 * and the same model gives the same document. shared/sbom/spdx3.ts reads it back to the same packages,
 * licenses, dependencies, vulnerabilities and analyses.
 *
 * Ids. Every element's spdxId is `<namespace>#<local id>`, the namespace built as write-spdx.ts builds
 * its documentNamespace (`<product apiUrl>/spdx/<document uuid>`), the local ids as its SPDXIDs
 * (`SPDXRef-Package-<package uuid>`, `SPDXRef-Product-<product uuid>`), numbered where the service has
 * no id (relationships, license expressions, suppliers, vulnerabilities). One CreationInfo, the blank
 * node `_:creationinfo`: created (to the second, as SPDX 3 wants), created by a SoftwareAgent that is the
 * service and using a Tool named `<name>-<version>` (what write-spdx.ts's creator says).
 *
 * Licenses. The model's expressions go through DocumentLicenses as for SPDX 2.3 (listed ids in their
 * listed case, what is off the list a `LicenseRef-…`), one LicenseExpression element per distinct
 * expression, linked from the package by `hasDeclaredLicense` and `hasConcludedLicense` (none when the
 * model has none: SPDX 3 says "no information" by leaving the relationship out). Each `LicenseRef-…`
 * an expression names is mapped by its `simplelicensing_customIdToUri` to a
 * `simplelicensing_SimpleLicensingText` element (`<namespace>#LicenseRef-…`) holding the name and text
 * write-spdx.ts would give its extracted licensing info: the Simple Licensing profile's own way, which
 * needs no Expanded Licensing element.
 *
 * Vulnerabilities. Each is a `security_Vulnerability` named by its id, with the id and its aliases as
 * `externalIdentifier`s (`cve` for CVE-…, else `securityOther`; the id first: the reader takes the first
 * as the id) and the summary as its description. Each affected package with an analysis is one VEX
 * relationship from the vulnerability, `to` the product and `security_assessedElement` the package:
 * the spec makes `to` the VEX "product" the statement is about and the assessed element the
 * subcomponent the vulnerability is in, which is exactly what the service's analysis is (the
 * product's triage of the vulnerability in that package). The class follows the state, the justification
 * the CISA justification whose definition covers it: the reader's mapping (spdx3.ts) inverted, with what
 * the reader never gives (false_positive, resolved_with_pedigree, the justifications it has no label for)
 * where its meaning puts it:
 *
 * | state                              | class                                               | relationshipType      |
 * | ---------------------------------- | --------------------------------------------------- | --------------------- |
 * | not_affected, false_positive       | security_VexNotAffectedVulnAssessmentRelationship   | doesNotAffect         |
 * | exploitable                        | security_VexAffectedVulnAssessmentRelationship      | affects               |
 * | resolved, resolved_with_pedigree   | security_VexFixedVulnAssessmentRelationship         | fixedIn               |
 * | in_triage, or no state             | security_VexUnderInvestigationVulnAssessmentRelationship | underInvestigationFor |
 *
 * | justification                                                                   | security_justificationType                  |
 * | ------------------------------------------------------------------------------- | ------------------------------------------- |
 * | code_not_present                                                                | vulnerableCodeNotPresent                    |
 * | code_not_reachable                                                              | vulnerableCodeNotInExecutePath              |
 * | requires_configuration, requires_environment                                    | vulnerableCodeCannotBeControlledByAdversary |
 * | requires_dependency                                                             | componentNotPresent                         |
 * | protected_by_compiler, protected_at_runtime, protected_at_perimeter, protected_by_mitigating_control | inlineMitigationsAlreadyExist |
 *
 * The detail is the not-affected `security_impactStatement`, the affected `security_actionStatement`
 * and the fixed and under-investigation `security_statusNotes`. What the spec requires and the analysis
 * lacks is said in words from CycloneDX's definitions rather than left out: a not_affected statement
 * needs a justification or an impact statement (the minimum elements for VEX), an affected one an
 * action statement (the responses, else the upgrade a published advisory gives, else that none was
 * recorded). The mapping loses states, justifications and responses, so the analysis as the service
 * recorded it also goes in an `extension_CdxPropertiesExtension` under spdx3.ts's ANALYSIS_PROPERTIES,
 * which the reader prefers; and the risk score, which is the service's own and not a CVSS score (SPDX 3
 * scores are CVSS, EPSS or SSVC, each with its vector or method), only there.
 *
 * An affected package without an analysis is a `hasAssociatedVulnerability` relationship from the
 * package to the vulnerabilities: the spec's way to say an artifact has a vulnerability without
 * assessing it. Not VexAffected (a confirmed "affected", which requires an action statement) nor
 * VexUnderInvestigation (someone investigating: the service's in_triage, which must stay distinct).
 *
 * Not written: the package's `filename` (an SPDX 3 package has no file name; a File element would say
 * more than the service knows), `isModified`, `isDeployed` (no field, as in SPDX 2.3), and the fixed
 * versions but in an affected statement's action statement. The SpdxDocument and Sbom leave their
 * `element` lists out (optional; every element is in `@graph`) and claim no `software_sbomType`.
 */
import { isoSeconds } from '../domain/time.ts';
import type { AnalysisResponse, AnalysisState, Justification } from '../domain/catalog.ts';
import type { ExportModel, ExportPackage, ExportVulnerability } from './export-model.ts';
import { DocumentLicenses } from './export-licenses.ts';
import type { SbomAnalysis, SbomHashes } from './inventory.ts';
import { ANALYSIS_PROPERTIES, spdx3Context, VEX_CLASSES } from './spdx3.ts';

type Json = Record<string, unknown>;

/** The document: JSON-LD that says it is SPDX 3.0.1. */
export type Spdx3Document = Json & { readonly '@context': string; readonly '@graph': readonly Json[] };

const CREATION_INFO = '_:creationinfo';

const HASH_ALGORITHMS: readonly (keyof SbomHashes)[] = ['md5', 'sha1', 'sha256', 'sha512'];

type VexClass = keyof typeof VEX_CLASSES;

const CLASS_OF_STATE: Readonly<Record<AnalysisState, VexClass>> = {
  not_affected: 'security_VexNotAffectedVulnAssessmentRelationship',
  false_positive: 'security_VexNotAffectedVulnAssessmentRelationship',
  exploitable: 'security_VexAffectedVulnAssessmentRelationship',
  resolved: 'security_VexFixedVulnAssessmentRelationship',
  resolved_with_pedigree: 'security_VexFixedVulnAssessmentRelationship',
  in_triage: 'security_VexUnderInvestigationVulnAssessmentRelationship',
};

const VEX_JUSTIFICATION: Readonly<Record<Justification, string>> = {
  code_not_present: 'vulnerableCodeNotPresent',
  code_not_reachable: 'vulnerableCodeNotInExecutePath',
  requires_configuration: 'vulnerableCodeCannotBeControlledByAdversary',
  requires_environment: 'vulnerableCodeCannotBeControlledByAdversary',
  requires_dependency: 'componentNotPresent',
  protected_by_compiler: 'inlineMitigationsAlreadyExist',
  protected_at_runtime: 'inlineMitigationsAlreadyExist',
  protected_at_perimeter: 'inlineMitigationsAlreadyExist',
  protected_by_mitigating_control: 'inlineMitigationsAlreadyExist',
};

/** CycloneDX's definitions of the not-affected states: the impact statement when there is neither a justification nor a detail. */
const NOT_AFFECTED_STATEMENT: Readonly<Partial<Record<AnalysisState, string>>> = {
  not_affected: 'The component or service is not affected by the vulnerability.',
  false_positive: 'The vulnerability is not specific to the component or service and was falsely identified or associated.',
};

/** CycloneDX's responses in words: an action statement when the analysis has no detail. */
const RESPONSE_WORDS: Readonly<Record<AnalysisResponse, string>> = {
  can_not_fix: 'Can not fix.',
  rollback: 'Roll back.',
  update: 'Update.',
  will_not_fix: 'Will not fix.',
  workaround_available: 'A workaround is available.',
};

export function writeSpdx3(model: ExportModel): Spdx3Document {
  const namespace = `${model.product.apiUrl.replace(/\/+$/, '')}/spdx/${model.documentUuid.toLowerCase()}`;
  const id = (local: string) => `${namespace}#${local}`;
  const element = (type: string, spdxId: string, fields: Json): Json => ({ type, spdxId, creationInfo: CREATION_INFO, ...fields });
  let relationshipCount = 0;
  const relationship = (from: string, relationshipType: string, to: readonly string[], type = 'Relationship', fields: Json = {}): Json =>
    element(type, id(`SPDXRef-Relationship-${++relationshipCount}`), { from, relationshipType, to: [...to], ...fields });

  const agentId = id('SPDXRef-Agent');
  const toolId = id('SPDXRef-Tool');
  const documentId = id('SPDXRef-DOCUMENT');
  const sbomId = id('SPDXRef-Sbom');
  const dataLicenseId = id('SPDXRef-DataLicense');
  const productId = id(localId('Product', model.product.uuid));
  const ids = new Map(model.packages.map((pkg) => [pkg.uuid, id(localId('Package', pkg.uuid))]));

  const suppliers = new Map<string, { spdxId: string; element: Json }>();
  const supplierOf = (name: string): string | undefined => {
    const written = name.trim();
    if (!written) return undefined;
    let supplier = suppliers.get(written);
    if (supplier === undefined) {
      // As write-spdx.ts: an organization unless the name says `Person:` (or `Organization:`).
      const person = /^Person\s*:\s*(.*)$/.exec(written);
      const organization = /^Organization\s*:\s*(.*)$/.exec(written);
      const spdxId = id(`SPDXRef-Supplier-${suppliers.size + 1}`);
      const type = person ? 'Person' : 'Organization';
      supplier = { spdxId, element: element(type, spdxId, { name: (person?.[1] ?? organization?.[1] ?? written).trim() || written }) };
      suppliers.set(written, supplier);
    }
    return supplier.spdxId;
  };

  const licenses = new DocumentLicenses(model.licenseRefs);
  const expressions = new Map<string, string>();
  const expressionOf = (written: string): string | undefined => {
    const expression = licenses.license(written).expression;
    if (!expression) return undefined;
    let spdxId = expressions.get(expression);
    if (spdxId === undefined) expressions.set(expression, (spdxId = id(`SPDXRef-License-${expressions.size + 1}`)));
    return spdxId;
  };

  const packages: Json[] = [];
  const licensing: Json[] = [];
  for (const pkg of model.packages) {
    const pkgId = ids.get(pkg.uuid)!;
    packages.push(softwarePackage(pkg, pkgId, supplierOf(pkg.supplier), element));
    const declared = expressionOf(pkg.declaredLicenseSpdx);
    // Empty concluded means "the declared one applies": no conclusion was recorded, so none is asserted.
    const concluded = expressionOf(pkg.concludedLicenseSpdx);
    if (declared) licensing.push(relationship(pkgId, 'hasDeclaredLicense', [declared]));
    if (concluded) licensing.push(relationship(pkgId, 'hasConcludedLicense', [concluded]));
  }

  const structure: Json[] = [];
  if (model.packages.length > 0) structure.push(relationship(productId, 'contains', model.packages.map((pkg) => ids.get(pkg.uuid)!)));
  for (const pkg of model.packages) {
    const targets = [...new Set(model.dependencies.get(pkg.uuid) ?? [])].filter((target) => target !== pkg.uuid && ids.has(target)).map((target) => ids.get(target)!);
    if (targets.length > 0) structure.push(relationship(ids.get(pkg.uuid)!, 'dependsOn', targets));
  }

  const security = vulnerabilityElements(model, productId, ids, id, element, relationship);

  const licenseElements = [...expressions].map(([expression, spdxId]) => {
    const refs = [...new Set(expression.split(/[\s()]+/).filter((symbol) => symbol.startsWith('LicenseRef-')))];
    return element('simplelicensing_LicenseExpression', spdxId, {
      simplelicensing_licenseExpression: expression,
      ...(refs.length > 0 ? { simplelicensing_customIdToUri: refs.map((ref) => ({ type: 'DictionaryEntry', key: ref, value: id(ref) })) } : {}),
    });
  });
  // Every ref the expressions used, with the name and text SPDX 2.3's extracted licensing info would have.
  const licenseTexts = licenses.extractedLicenses().map((info) => element('simplelicensing_SimpleLicensingText', id(info.licenseId), { name: info.name, simplelicensing_licenseText: info.extractedText }));

  const profiles = ['core', 'software', 'simpleLicensing', ...(security.elements.length > 0 ? ['security'] : []), ...(security.extended ? ['extension'] : [])];
  const graph: Json[] = [
    {
      type: 'CreationInfo',
      '@id': CREATION_INFO,
      specVersion: '3.0.1',
      created: spdxTimestamp(model.timestamp),
      // Only what the service knows for certain: itself. Who asked for the export is not in the model.
      createdBy: [agentId],
      createdUsing: [toolId],
    },
    element('SoftwareAgent', agentId, { name: model.tool.name }),
    element('Tool', toolId, { name: `${model.tool.name}${model.tool.version ? `-${model.tool.version}` : ''}` }),
    element('SpdxDocument', documentId, {
      name: model.product.version ? `${model.product.name} ${model.product.version}` : model.product.name,
      dataLicense: dataLicenseId,
      profileConformance: profiles,
      rootElement: [sbomId],
    }),
    element('simplelicensing_LicenseExpression', dataLicenseId, { simplelicensing_licenseExpression: 'CC0-1.0' }),
    element('software_Sbom', sbomId, { rootElement: [productId] }),
    element('software_Package', productId, { name: model.product.name, ...optional('software_packageVersion', model.product.version), software_primaryPurpose: 'application' }),
    ...packages,
    ...[...suppliers.values()].map((supplier) => supplier.element),
    ...licenseElements,
    ...licenseTexts,
    ...structure,
    ...licensing,
    ...security.elements,
  ];
  return { '@context': spdx3Context('3.0.1'), '@graph': graph };
}

/** Local ids as write-spdx.ts's SPDXIDs: letters, digits, `.` and `-` (uuids already are). */
function localId(kind: string, uuid: string): string {
  return `SPDXRef-${kind}-${uuid.replace(/[^A-Za-z0-9.-]/g, '-')}`;
}

/** SPDX 3 DateTime: `YYYY-MM-DDThh:mm:ssZ`, no fraction (the schema's pattern). */
function spdxTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : isoSeconds(date);
}

function softwarePackage(pkg: ExportPackage, spdxId: string, supplier: string | undefined, element: (type: string, spdxId: string, fields: Json) => Json): Json {
  const hashes = HASH_ALGORITHMS.flatMap((algorithm) => {
    const value = pkg.hashes[algorithm];
    return value && /^[0-9a-fA-F]+$/.test(value) ? [{ type: 'Hash', algorithm, hashValue: value.toLowerCase() }] : [];
  });
  return element('software_Package', spdxId, {
    name: pkg.name,
    ...optional('software_packageVersion', pkg.version),
    ...optional('software_packageUrl', pkg.purl),
    ...optional('software_downloadLocation', pkg.downloadUrl),
    ...optional('software_homePage', pkg.homepageUrl),
    ...optional('software_copyrightText', pkg.copyright),
    ...optional('description', pkg.description),
    ...(supplier ? { suppliedBy: supplier } : {}),
    ...(hashes.length > 0 ? { verifiedUsing: hashes } : {}),
    software_primaryPurpose: 'library',
  });
}

/** The vulnerabilities, their VEX statements and the packages' associations (the module head). */
function vulnerabilityElements(
  model: ExportModel,
  productId: string,
  ids: ReadonlyMap<string, string>,
  id: (local: string) => string,
  element: (type: string, spdxId: string, fields: Json) => Json,
  relationship: (from: string, relationshipType: string, to: readonly string[], type?: string, fields?: Json) => Json,
): { elements: Json[]; extended: boolean } {
  const packages = new Map(model.packages.map((pkg) => [pkg.uuid, pkg]));
  const vulnerabilities: Json[] = [];
  const statements: Json[] = [];
  // package uuid → the vulnerabilities it has without an analysis, in order of first mention.
  const associated = new Map<string, string[]>();
  let extended = false;
  model.vulnerabilities.forEach((vulnerability, index) => {
    const vulnerabilityId = id(`SPDXRef-Vulnerability-${index + 1}`);
    const riskScore = vulnerability.riskScore !== null && Number.isFinite(vulnerability.riskScore) ? properties([[ANALYSIS_PROPERTIES.riskScore, String(vulnerability.riskScore)]]) : undefined;
    if (riskScore) extended = true;
    vulnerabilities.push(
      element('security_Vulnerability', vulnerabilityId, {
        name: vulnerability.id,
        ...optional('description', vulnerability.summary),
        externalIdentifier: identifiers(vulnerability),
        ...(riskScore ? { extension: [riskScore] } : {}),
      }),
    );
    const seen = new Set<string>();
    for (const affected of vulnerability.affects) {
      const pkgId = ids.get(affected.packageUuid);
      if (pkgId === undefined || seen.has(affected.packageUuid)) continue;
      seen.add(affected.packageUuid);
      if (affected.analysis === null || isEmpty(affected.analysis)) {
        const listed = associated.get(affected.packageUuid);
        if (listed === undefined) associated.set(affected.packageUuid, [vulnerabilityId]);
        else listed.push(vulnerabilityId);
        continue;
      }
      const statement = vexStatement(affected.analysis, packages.get(affected.packageUuid)!, affected.fixedVersions ?? []);
      if (statement.extension) extended = true;
      statements.push(relationship(vulnerabilityId, VEX_CLASSES[statement.type].relationshipType, [productId], statement.type, { security_assessedElement: pkgId, ...statement.fields, ...(statement.extension ? { extension: [statement.extension] } : {}) }));
    }
  });
  const associations = [...associated].map(([uuid, targets]) => relationship(ids.get(uuid)!, 'hasAssociatedVulnerability', targets));
  return { elements: [...vulnerabilities, ...statements, ...associations], extended };
}

/** The id first, then each alias: `cve` for a CVE id, `securityOther` for any other. */
function identifiers(vulnerability: ExportVulnerability): Json[] {
  const all = [...new Set([vulnerability.id, ...vulnerability.aliases].map((value) => value.trim()).filter((value) => value !== ''))];
  return all.map((identifier) => ({ type: 'ExternalIdentifier', externalIdentifierType: /^CVE-\d{4}-\d+$/i.test(identifier) ? 'cve' : 'securityOther', identifier }));
}

function isEmpty(analysis: SbomAnalysis): boolean {
  return analysis.state === null && analysis.justification === null && analysis.responses.length === 0 && analysis.detail.trim() === '';
}

/** The VEX class and fields of one analysis (the module head's tables), and the service's own record of it. */
function vexStatement(analysis: SbomAnalysis, pkg: ExportPackage, fixedVersions: readonly string[]): { type: VexClass; fields: Json; extension: Json | undefined } {
  const type = analysis.state ? CLASS_OF_STATE[analysis.state] : 'security_VexUnderInvestigationVulnAssessmentRelationship';
  const detail = analysis.detail.trim() ? analysis.detail : '';
  const responses = [...new Set(analysis.responses)];
  let fields: Json;
  if (type === 'security_VexNotAffectedVulnAssessmentRelationship') {
    const justification = analysis.justification ? VEX_JUSTIFICATION[analysis.justification] : undefined;
    const impact = detail || (justification ? '' : (NOT_AFFECTED_STATEMENT[analysis.state!] ?? ''));
    fields = { ...optional('security_justificationType', justification ?? ''), ...optional('security_impactStatement', impact) };
  } else if (type === 'security_VexAffectedVulnAssessmentRelationship') {
    const upgrade = fixedVersions.length > 0 && pkg.version ? `Upgrade ${pkg.namespace ? `${pkg.namespace}/` : ''}${pkg.name} ${pkg.version} to ${fixedVersions[0]}.` : '';
    const action = detail || (responses.length > 0 ? responses.map((response) => RESPONSE_WORDS[response]).join(' ') : upgrade) || 'No action was recorded.';
    fields = { security_actionStatement: action };
  } else {
    fields = optional('security_statusNotes', detail);
  }
  const entries: [string, string][] = [
    ...(analysis.state ? [[ANALYSIS_PROPERTIES.state, analysis.state] as [string, string]] : []),
    ...(analysis.justification ? [[ANALYSIS_PROPERTIES.justification, analysis.justification] as [string, string]] : []),
    ...responses.map((response): [string, string] => [ANALYSIS_PROPERTIES.response, response]),
    ...(detail ? [[ANALYSIS_PROPERTIES.detail, detail] as [string, string]] : []),
  ];
  return { type, fields, extension: properties(entries) };
}

/** The service's name-value properties as one CdxPropertiesExtension (none when there are none: the list needs one). */
function properties(entries: readonly (readonly [string, string])[]): Json | undefined {
  if (entries.length === 0) return undefined;
  return {
    type: 'extension_CdxPropertiesExtension',
    extension_cdxProperty: entries.map(([name, value]) => ({ type: 'extension_CdxPropertyEntry', extension_cdxPropName: name, extension_cdxPropValue: value })),
  };
}

function optional(key: string, value: string): Json {
  return value ? { [key]: value } : {};
}
