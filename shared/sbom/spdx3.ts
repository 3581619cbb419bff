/**
 * SPDX 3.0 JSON-LD → Inventory: the version a document says it is (spdx3Version), its check against
 * the SPDX 3.0.1 JSON schema (checkSpdx3), the strings of its own metadata the service cannot store
 * (spdx3TextErrors), and the reading itself (spdx3Inventory): packages, their licenses, hashes and
 * references, the dependency relationships, vulnerabilities and their VEX assessments. The reader
 * never trusts a shape it did not check itself and never throws. Pure apart from the validator,
 * compiled once per process on first use.
 *
 * Versions. The `@context` says it: `https://spdx.org/rdf/3.0.1/spdx-context.jsonld` (3.0.1) and
 * `…/3.0.0/…` (3.0.0) are read; a CreationInfo `specVersion` outside SPDX3_VERSIONS is refused too.
 * Only the 3.0.1 schema is held here. A 3.0.0 document is checked against it with its context and the
 * terms 3.0.1 renamed (SpdxDocument `imports`, File `software_contentType`, Build `build_parameters`,
 * the relationship types `hasInputs`, `hasOutputs`, `hasPrerequsite`) read in their 3.0.1 spelling.
 * Compared term by term, the two schemas otherwise differ, for what a document holds, in that 3.0.1
 * requires an affected VEX statement's action statement (a 3.0.0 one without is refused) and no longer
 * requires an EPSS assessment's publishedTime.
 *
 * The schema (spdx-3.0.1-schema.json, the SPDX project's own: its README says where from) checks each
 * element of `@graph` against `AnyClass`, an anyOf of the 78 classes under `unevaluatedProperties:
 * false`, and every reference (`from`, `to`, `rootElement`, `element`) against an anyOf whose first
 * branch is an inline object of any of some 45 classes. As written, Ajv tries every branch for every
 * element and reference: on writeSpdx3's document of 10,000 packages (31,364 elements, 28 MB) it took
 * 51 s of CPU here listing all errors, 5 s stopping at the first. The validator is compiled from the
 * same schema with two rewrites of the same verdict:
 * - an element is checked against the class its `type` names only (Ajv's `discriminator`): every
 *   class of AnyClass requires `type` (SHACLClass) and allows it exactly its own name, so no other
 *   class can accept it; a `type` that names no class fails every branch either way;
 * - an anyOf/oneOf branch `{type: "object", …}` is tried only on objects (`if: {type: object}, then:
 *   branch, else: false`): on anything else it fails at once, as it did.
 * The unit tests hold its verdict to the schema's as written on real documents and mutations of them.
 * Measured here (2 shared cores): compilation 0.5-0.8 s once per process (0.7-0.9 s of CPU), the same
 * 10,000-package document 0.25-0.55 s, all errors listed.
 *
 * What is read (everything else — files, snippets, builds, AI and dataset fields, annotations — is not):
 * - Packages: `software_Package` elements and its subclasses `ai_AIPackage` and `dataset_DatasetPackage`;
 *   `name`, `software_packageVersion`, the purl (`software_packageUrl`, else the first
 *   `externalIdentifier` of type `packageUrl`), `software_homePage`, `software_downloadLocation`
 *   (http(s) only), `software_copyrightText`, `description` (else `summary`), `suppliedBy` (the
 *   agent's `name`), `verifiedUsing` hashes md5, sha1, sha256, sha512. A package holding a string the
 *   service cannot store is skipped (inventory-builder.ts).
 * - The described product (the subject, not a component, as in the SPDX 2 reader): the one package
 *   among the root elements of the SpdxDocument, of every `software_Sbom`/`Bom` (followed through
 *   collections that are roots) and the `describes` relationships from them. Several: none is.
 * - Licenses: `hasDeclaredLicense` and `hasConcludedLicense` relationships from a package. Each `to` is
 *   a `simplelicensing_LicenseExpression` (its `simplelicensing_licenseExpression`, NOASSERTION and
 *   NONE read as none), the individuals `expandedlicensing_NoAssertionLicense` and
 *   `expandedlicensing_NoneLicense` (none, as SPDX 2's NOASSERTION and NONE), or an ExpandedLicensing
 *   element (a listed license, a custom one as its `LicenseRef-…`, or-later, with-addition, and the
 *   conjunctive and disjunctive sets of them), written back as an expression. Several are joined with
 *   AND. What `simplelicensing_customIdToUri` maps a `LicenseRef-…` to (a `CustomLicense` or
 *   `SimpleLicensingText` in the document: its name and text) is the license hint the service
 *   recognises it by; a URI the document holds no element of is an id, not a page, and says nothing.
 * - Dependencies: `dependsOn`, `hasOptionalDependency`, `hasProvidedDependency` and `hasPrerequisite`
 *   (`from` depends on each `to`), of any relationship class (LifecycleScopedRelationship's scope,
 *   build, test or runtime, is not kept: every kind counts, as in the SPDX 2 and CycloneDX readers).
 *   `hasStaticLink`/`hasDynamicLink` are not read (linking is not a package dependency the catalog
 *   records; SPDX 2's STATIC_LINK is not read either). Edges between packages only, as
 *   inventory-builder.ts keeps them.
 * - Vulnerabilities: `security_Vulnerability` elements. The id is the first `externalIdentifier` of type
 *   `cve` or `securityOther`, the others its aliases (else its `name`); `description`, else `summary`,
 *   is the summary. Elements of the same id (OpenEmbedded writes one per recipe) are one vulnerability.
 *   The risk score is the highest CVSS v2/v3/v4 assessment score (`security_score`) of the id.
 * - What it affects: the VEX assessment relationships from the vulnerability. The package is the
 *   relationship's `security_assessedElement` when it names one (the spec's "subcomponent": `to` is
 *   then the product, the thing the statement is about), else each `to`. `hasAssociatedVulnerability`
 *   (a package to vulnerabilities) and a plain `affects` relationship say a package has the
 *   vulnerability without an assessment: analysis null, unless a VEX statement speaks of the same
 *   package. For one vulnerability and package the statement with the latest `security_modifiedTime`
 *   (else `security_publishedTime`) wins, at equal (or no) times the later one in the document.
 *   One SbomVulnerability per id and distinct analysis, as the OpenVEX and CycloneDX readers give.
 * - A document with vulnerabilities and no package but the subject is VEX-only.
 *
 * The analysis, in the service's CycloneDX vocabulary (shared/domain/catalog.ts), as the OpenVEX
 * reader maps the same CISA statuses and justifications (openvex.ts says why each):
 *
 * | SPDX 3 relationship (relationshipType)                    | state        |
 * | --------------------------------------------------------- | ------------ |
 * | `security_VexNotAffectedVulnAssessmentRelationship` (doesNotAffect)          | not_affected |
 * | `security_VexAffectedVulnAssessmentRelationship` (affects)                   | exploitable  |
 * | `security_VexFixedVulnAssessmentRelationship` (fixedIn)                      | resolved     |
 * | `security_VexUnderInvestigationVulnAssessmentRelationship` (underInvestigationFor) | in_triage |
 *
 * | `security_justificationType`                  | justification                   |
 * | --------------------------------------------- | ------------------------------- |
 * | `componentNotPresent`                         | code_not_present                |
 * | `vulnerableCodeNotPresent`                    | code_not_present                |
 * | `vulnerableCodeNotInExecutePath`              | code_not_reachable              |
 * | `vulnerableCodeCannotBeControlledByAdversary` | requires_environment            |
 * | `inlineMitigationsAlreadyExist`               | protected_by_mitigating_control |
 *
 * The detail keeps what the mapping loses and what the statement says: "SPDX justification: <label>",
 * "Impact statement: …", "Action statement: …", "Status notes: …", those given, joined with " | ". No
 * response is set (SPDX 3 has none). Except: a statement that carries the service's own analysis in a
 * `extension_CdxPropertiesExtension` (ANALYSIS_PROPERTIES: what write-spdx3.ts writes, so that an
 * export reads back as it was) is read from those properties when they are valid and agree with the
 * relationship's class; the same properties' `risk-score` on a vulnerability is its risk score when it
 * has no CVSS assessment.
 */
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES, type AnalysisResponse, type AnalysisState, type Justification } from '../domain/catalog.ts';
import type { LicenseHint } from '../domain/license-resolution.ts';
import { printable } from '../domain/stored-text.ts';
import type { Inventory, SbomAnalysis, SbomHashes, SbomVulnerability } from './inventory.ts';
import { asserted, documentTextErrors, httpUrl, InventoryBuilder, isObject, joinLicenses, list, text, TextCheck } from './inventory-builder.ts';
import { clip } from './purl.ts';
import { MAX_SCHEMA_ERRORS, vendoredSchema } from './schema-validation.ts';

export const SPDX3_VERSIONS = ['3.0.0', '3.0.1'] as const;
export type Spdx3Version = (typeof SPDX3_VERSIONS)[number];

/** The JSON-LD context of a version, as the document must name it. */
export const spdx3Context = (version: Spdx3Version): string => `https://spdx.org/rdf/${version}/spdx-context.jsonld`;
const CONTEXT = /^https?:\/\/spdx\.org\/rdf\/([^/]+)\/spdx-context\.jsonld$/;

/**
 * The names under which write-spdx3.ts records the service's own analysis and risk score in an
 * `extension_CdxPropertiesExtension` (the SPDX 3 Extension profile's name-value list, "compatible with
 * the CycloneDX property `properties`"): the parts of an analysis SPDX 3 has no field for (CycloneDX's
 * six states against SPDX's four, its nine justifications against five, its responses) and the
 * service's risk score, which is not a CVSS score. Several `response` entries, one per response.
 */
export const ANALYSIS_PROPERTIES = {
  state: 'compliance-service:analysis:state',
  justification: 'compliance-service:analysis:justification',
  response: 'compliance-service:analysis:response',
  detail: 'compliance-service:analysis:detail',
  riskScore: 'compliance-service:risk-score',
} as const;

/** The four VEX classes: the status each is, its relationship type, and the service states that are that status. */
export const VEX_CLASSES = {
  security_VexNotAffectedVulnAssessmentRelationship: { relationshipType: 'doesNotAffect', state: 'not_affected', states: ['not_affected', 'false_positive'] },
  security_VexAffectedVulnAssessmentRelationship: { relationshipType: 'affects', state: 'exploitable', states: ['exploitable'] },
  security_VexFixedVulnAssessmentRelationship: { relationshipType: 'fixedIn', state: 'resolved', states: ['resolved', 'resolved_with_pedigree'] },
  security_VexUnderInvestigationVulnAssessmentRelationship: { relationshipType: 'underInvestigationFor', state: 'in_triage', states: ['in_triage'] },
} as const satisfies Record<string, { relationshipType: string; state: AnalysisState; states: readonly AnalysisState[] }>;
type VexClass = keyof typeof VEX_CLASSES;
const VEX_CLASSES_SET: ReadonlySet<string> = new Set(Object.keys(VEX_CLASSES));

/** SPDX's VexJustificationType → the service's justification (the module head's table). */
const VEX_JUSTIFICATIONS: ReadonlyMap<string, Justification> = new Map([
  ['componentNotPresent', 'code_not_present'],
  ['vulnerableCodeNotPresent', 'code_not_present'],
  ['vulnerableCodeNotInExecutePath', 'code_not_reachable'],
  ['vulnerableCodeCannotBeControlledByAdversary', 'requires_environment'],
  ['inlineMitigationsAlreadyExist', 'protected_by_mitigating_control'],
]);

const PACKAGE_TYPES = new Set(['software_Package', 'ai_AIPackage', 'dataset_DatasetPackage']);
/** Collections whose root elements say what a document describes. */
const COLLECTION_TYPES = new Set(['SpdxDocument', 'software_Sbom', 'Bom', 'Bundle']);
const HASHES: Readonly<Record<string, keyof SbomHashes>> = { md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha512: 'sha512' };
/** `from` depends on each `to` (hasPrerequsite: 3.0.0's spelling). */
const DEPENDS_ON = new Set(['dependsOn', 'hasOptionalDependency', 'hasProvidedDependency', 'hasPrerequisite', 'hasPrerequsite']);
const CVSS_CLASSES = new Set(['security_CvssV2VulnAssessmentRelationship', 'security_CvssV3VulnAssessmentRelationship', 'security_CvssV4VulnAssessmentRelationship']);
/** The licensing individuals that say "no information" and "no license", in their short and full forms. */
const NO_LICENSE = new Set(
  ['NoAssertionLicense', 'NoneLicense'].flatMap((name) => [`expandedlicensing_${name}`, ...SPDX3_VERSIONS.map((version) => `https://spdx.org/rdf/${version}/terms/ExpandedLicensing/${name}`)]),
);
const LISTED = /^https?:\/\/spdx\.org\/licenses\/([A-Za-z0-9.+-]+?)(?:\.html|\.json)?$/;
/** What an SPDX idstring allows: letters, digits, `.` and `-`. */
const LICENSE_REF = /^(LicenseRef|AdditionRef)-[A-Za-z0-9.-]+$/;

/** A license text longer than this (characters) is not compared: no license text is near it. */
const MAX_LICENSE_TEXT = 200_000;
/** License sets nest at most this deep (a set of sets of …): a deeper one is left out with a warning rather than recursed into. */
const MAX_LICENSE_DEPTH = 32;
/** At most this many ids are named in one warning; the count says how many there were. */
const NAMED_IN_WARNING = 10;

// --- version -----------------------------------------------------------------------------------

/** The SPDX 3 version the document says it is, when it is one read here, else why not. */
export function spdx3Version(document: Record<string, unknown>): { version: Spdx3Version } | { error: string } {
  const result = sniffVersion(document);
  // The message quotes the document: storable, whatever it holds.
  return 'error' in result ? { error: printable(result.error) } : result;
}

function sniffVersion(document: Record<string, unknown>): { version: Spdx3Version } | { error: string } {
  const read = `SPDX ${SPDX3_VERSIONS.join(' and ')} are`;
  const contexts = (Array.isArray(document['@context']) ? document['@context'] : [document['@context']]).filter((context): context is string => typeof context === 'string');
  const versions = [...new Set(contexts.flatMap((context) => CONTEXT.exec(context.trim())?.[1] ?? []))];
  if (versions.length === 0) {
    if (document['@context'] === undefined) return { error: `An SPDX 3 document names its version in "@context" ("${spdx3Context('3.0.1')}"): ${read} read here.` };
    return { error: `"@context" ${clip(JSON.stringify(document['@context']))} is not an SPDX 3 context ("${spdx3Context('3.0.1')}"): ${read} read here.` };
  }
  if (versions.length > 1) return { error: `"@context" names SPDX ${versions.map((version) => clip(version)).join(' and ')}: a document is one version.` };
  const version = versions[0]!;
  if (!(SPDX3_VERSIONS as readonly string[]).includes(version)) return { error: `SPDX ${clip(version)} ("@context") is not read here: ${read}.` };
  for (const specVersion of creationInfoVersions(document)) {
    if (!(SPDX3_VERSIONS as readonly string[]).includes(specVersion)) return { error: `CreationInfo specVersion "${clip(specVersion)}" is not read here: ${read}.` };
  }
  // A supported specVersion that differs from the context (3.0.0 beside a 3.0.1 context) is read as the context says: the context defines the terms.
  return { version: version as Spdx3Version };
}

/** The `specVersion` of every CreationInfo: in `@graph`, inline in an element, or the document itself. */
function creationInfoVersions(document: Record<string, unknown>): Set<string> {
  const versions = new Set<string>();
  const note = (info: unknown) => {
    if (isObject(info) && info.type === 'CreationInfo' && typeof info.specVersion === 'string') versions.add(info.specVersion.trim());
  };
  for (const element of elementsOf(document).elements) {
    note(element);
    note(element.creationInfo);
  }
  return versions;
}

// --- schema --------------------------------------------------------------------------------------

/** The terms 3.0.1 renamed, as a 3.0.0 document spells them (the module head). */
const RENAMED_PROPERTIES: ReadonlyMap<string, string> = new Map([
  ['imports', 'import'],
  ['software_contentType', 'contentType'],
  ['build_parameters', 'build_parameter'],
]);
const RENAMED_RELATIONSHIP_TYPES: ReadonlyMap<string, string> = new Map([
  ['hasInputs', 'hasInput'],
  ['hasOutputs', 'hasOutput'],
  ['hasPrerequsite', 'hasPrerequisite'],
]);

let validator: ValidateFunction | undefined;

/** The schema's verdict, fast (the module head): the per-class dispatch and the object-branch guard. */
function spdx3Validator(): ValidateFunction {
  if (validator === undefined) {
    // strictRequired off: the `if` names `@graph`, defined beside it in `then`, which strict mode cannot see.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, discriminator: true });
    validator = ajv.compile(dispatching(vendoredSchema('spdx-3.0.1-schema.json')));
  }
  return validator;
}

/**
 * The schema rewritten as the module head says. When the vendored schema is not of the shape the
 * rewrite relies on (every class of AnyClass allowing `type` exactly its own name), it is compiled as
 * written: slower, the same verdict.
 */
function dispatching(schema: Record<string, unknown>): AnySchemaObject {
  const defs = isObject(schema.$defs) ? schema.$defs : {};
  const classes = list(isObject(defs.AnyClass) ? defs.AnyClass.anyOf : undefined).map((branch) => (isObject(branch) && typeof branch.$ref === 'string' ? branch.$ref.replace(/^#\/\$defs\//, '') : ''));
  const context = isObject(schema.properties) && isObject(schema.properties['@context']) ? schema.properties['@context'].const : undefined;
  const ownType = (name: string) => {
    const definition = defs[name];
    const first = isObject(definition) ? list(definition.allOf)[0] : undefined;
    const type = isObject(first) && isObject(first.properties) && isObject(first.properties.type) ? list(first.properties.type.oneOf) : [];
    return type.length === 1 && isObject(type[0]) && type[0].const === name;
  };
  if (classes.length === 0 || !classes.every(ownType) || typeof context !== 'string') return schema as AnySchemaObject;
  const element = {
    type: 'object',
    discriminator: { propertyName: 'type' },
    required: ['type'],
    oneOf: classes.map((name) => ({ properties: { type: { const: name } }, required: ['type'], $ref: `#/$defs/${name}` })),
  };
  return {
    ...(typeof schema.$schema === 'string' ? { $schema: schema.$schema } : {}),
    $defs: { ...(guarded(defs) as Record<string, unknown>), spdx3_Element: element },
    type: 'object',
    // `@graph: true`: evaluated whatever `then` says, so that a bad @graph is not also reported as an unexpected key (the same verdict: `then` decides it).
    properties: { '@context': { const: context }, '@graph': true },
    required: ['@context'],
    if: { required: ['@graph'] },
    then: { properties: { '@graph': { type: 'array', items: { type: 'object', $ref: '#/$defs/spdx3_Element', unevaluatedProperties: false } } } },
    else: { $ref: '#/$defs/spdx3_Element' },
    unevaluatedProperties: false,
  };
}

/** Every anyOf/oneOf branch `{type: "object", …}` tried on objects only (the same verdict, the module head says why). */
function guarded(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(guarded);
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === 'const' || key === 'enum') return [key, value];
      if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
        return [key, value.map((branch) => (isObject(branch) && branch.type === 'object' ? { if: { type: 'object' }, then: guarded(branch), else: false } : guarded(branch)))];
      }
      return [key, guarded(value)];
    }),
  );
}

/**
 * The document against the SPDX 3.0.1 JSON schema: errors as "<JSON pointer>: <message>", the first
 * MAX_SCHEMA_ERRORS, none when valid. A 3.0.0 document is checked as the module head says, and a
 * warning says so. Never throws.
 */
export function checkSpdx3(document: Record<string, unknown>): { errors: string[]; warnings: string[] } {
  const warnings: string[] = [];
  let checked: unknown = document;
  const version = spdx3Version(document);
  if ('version' in version && version.version === '3.0.0') {
    checked = as301(document);
    warnings.push('SPDX 3.0.0 is checked against the SPDX 3.0.1 schema (no 3.0.0 schema is held here), its renamed terms read in their 3.0.1 spelling.');
  }
  const validate = spdx3Validator();
  if (validate(checked)) return { errors: [], warnings };
  const context = spdx3Context('version' in version ? version.version : '3.0.1');
  // The schema's constant is 3.0.1's, whatever the document's version: say the document's own.
  const errors = describeErrors(validate.errors ?? []).map((error) =>
    error.startsWith('/@context: must be equal to constant') ? `/@context: must be "${context}" (a string: the schema allows no other context)` : error,
  );
  return { errors, warnings };
}

/** A 3.0.0 document as 3.0.1 spells it: its context, and the renamed terms (a copy of the parts it changes). */
function as301(document: Record<string, unknown>): Record<string, unknown> {
  const rename = (element: unknown): unknown => {
    if (!isObject(element)) return element;
    let changed = false;
    const entries = Object.entries(element).map(([key, value]): [string, unknown] => {
      if (key === 'relationshipType' && typeof value === 'string' && RENAMED_RELATIONSHIP_TYPES.has(value)) {
        changed = true;
        return [key, RENAMED_RELATIONSHIP_TYPES.get(value)];
      }
      const renamed = RENAMED_PROPERTIES.get(key);
      if (renamed !== undefined && !Object.hasOwn(element, renamed)) {
        changed = true;
        return [renamed, value];
      }
      return [key, value];
    });
    return changed ? Object.fromEntries(entries) : element;
  };
  // Only the 3.0.0 URL is replaced: a context of another shape (an array with prefixes) fails the schema as it would in 3.0.1.
  const from = spdx3Context('3.0.0');
  const to = spdx3Context('3.0.1');
  const written = document['@context'];
  const context = Array.isArray(written) ? written.map((entry) => (entry === from ? to : entry)) : written === from ? to : written;
  if (Array.isArray(document['@graph'])) return { ...document, '@context': context, '@graph': document['@graph'].map(rename) };
  return { ...(rename(document) as Record<string, unknown>), '@context': context };
}

/** Ajv errors as "<pointer>: <message>", repeated ones once, at most MAX_SCHEMA_ERRORS. */
function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) {
    // Parts of a failure already said by another error: the guard's `if` and `false`, an anyOf's summary of its branches.
    if (error.keyword === 'if' || error.keyword === 'false schema') continue;
    lines.add(describe(error));
    if (lines.size === MAX_SCHEMA_ERRORS) break;
  }
  return lines.size > 0 ? [...lines] : ['/: the document does not match the SPDX 3.0.1 schema.'];
}

function describe(error: ErrorObject): string {
  const at = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'discriminator') {
    return printable(
      params.error === 'mapping' ? `${at}/type: ${clip(JSON.stringify(params.tagValue))} is not an SPDX 3.0.1 class` : `${at}: must have a "type", a string naming its SPDX 3.0.1 class`,
    );
  }
  let message = error.message ?? `fails "${error.keyword}"`;
  if (error.keyword === 'unevaluatedProperties' && params.unevaluatedProperty !== undefined) message += `: "${clip(String(params.unevaluatedProperty))}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues as unknown[];
    message += `: ${allowed.slice(0, 8).map((value) => JSON.stringify(value)).join(', ')}${allowed.length > 8 ? `, … (${allowed.length} values)` : ''}`;
  }
  if (error.keyword === 'const') message += `: ${clip(JSON.stringify(params.allowedValue))}`;
  // A message may quote the document (a key it did not expect): storable, whatever it holds.
  return printable(`${at}: ${message}`);
}

// --- the graph -----------------------------------------------------------------------------------

type Json = Record<string, unknown>;

interface Graph {
  /** The elements, in document order: the objects of `@graph`, or the document itself when it is one element. */
  readonly elements: readonly Json[];
  /** The JSON pointer of each element. */
  readonly pointers: readonly string[];
  /** spdxId (or @id) → the first element of that id. */
  readonly byId: ReadonlyMap<string, Json>;
  /** Ids given to more than one element. */
  readonly repeated: readonly string[];
  /** What is not an element where one should be: `@graph` entries that are not objects. */
  readonly notElements: readonly string[];
}

function elementsOf(document: Json): Graph {
  const elements: Json[] = [];
  const pointers: string[] = [];
  const notElements: string[] = [];
  if (Array.isArray(document['@graph'])) {
    document['@graph'].forEach((element, index) => {
      if (isObject(element)) {
        elements.push(element);
        pointers.push(`/@graph/${index}`);
      } else {
        notElements.push(`/@graph/${index}`);
      }
    });
  } else if (document['@graph'] === undefined && document.type !== undefined) {
    // A document of one element: the element is the document, beside its @context.
    elements.push(document);
    pointers.push('');
  }
  const byId = new Map<string, Json>();
  const repeated = new Set<string>();
  for (const element of elements) {
    const id = idOf(element);
    if (!id) continue;
    if (byId.has(id)) repeated.add(id);
    else byId.set(id, element);
  }
  return { elements, pointers, byId, repeated: [...repeated], notElements };
}

/** An element's id: `spdxId`, else `@id` (its JSON-LD alias; blank nodes such as `_:creationinfo`). */
function idOf(element: Json): string {
  return typeof element.spdxId === 'string' ? element.spdxId : typeof element['@id'] === 'string' ? element['@id'] : '';
}

const typeOf = (element: Json): string => (typeof element.type === 'string' ? element.type : '');

/** The id a reference names: the string itself, or an inline element's id. */
function refOf(value: unknown): string {
  return typeof value === 'string' ? value : isObject(value) ? idOf(value) : '';
}

/** A property that holds one reference or a list of them, as a list. */
function refs(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** The element a reference names: an inline object itself, or the element of that id. */
function deref(graph: Graph, value: unknown): Json | undefined {
  if (isObject(value)) return value;
  return typeof value === 'string' ? graph.byId.get(value) : undefined;
}

/** The first NAMED_IN_WARNING items (quoted, unless they are JSON pointers), and how many more. */
function named(items: readonly string[], quoted = true): string {
  const shown = items
    .slice(0, NAMED_IN_WARNING)
    .map((item) => (quoted ? `"${clip(item)}"` : item))
    .join(', ');
  return items.length > NAMED_IN_WARNING ? `${shown} and ${items.length - NAMED_IN_WARNING} more` : shown;
}

/**
 * The product the document is of: the one package among what it describes (the module head). Several
 * described packages are all components: no one of them is the product.
 */
function describedProduct(graph: Graph): Json | undefined {
  const pending: unknown[] = [];
  for (const element of graph.elements) {
    const type = typeOf(element);
    if (COLLECTION_TYPES.has(type)) pending.push(...refs(element.rootElement));
    if (element.relationshipType === 'describes' && COLLECTION_TYPES.has(typeOf(deref(graph, element.from) ?? {}))) pending.push(...refs(element.to));
  }
  const seen = new Set<Json>();
  const packages: Json[] = [];
  // A collection among the roots stands for its own roots; `seen` ends a cycle of collections.
  while (pending.length > 0) {
    const element = deref(graph, pending.pop());
    if (element === undefined || seen.has(element)) continue;
    seen.add(element);
    const type = typeOf(element);
    if (PACKAGE_TYPES.has(type)) packages.push(element);
    else if (COLLECTION_TYPES.has(type)) pending.push(...refs(element.rootElement));
  }
  return packages.length === 1 ? packages[0] : undefined;
}

// --- text errors ---------------------------------------------------------------------------------

/** Metadata elements: the document, its collections and how it was created. */
const METADATA_TYPES = new Set(['SpdxDocument', 'software_Sbom', 'Bom', 'Bundle', 'CreationInfo']);

/**
 * What in the document's own metadata the service cannot store, as "<JSON pointer>: <message>" (the
 * document is then refused, as SPDX 2 and CycloneDX metadata are): its `@context`, the SpdxDocument,
 * `software_Sbom`/`Bom`/`Bundle` and CreationInfo elements, the agents and tools that created it, and
 * the described product's spdxId, name and version. Ids, names and versions are checked as the catalog
 * checks a name. A package or vulnerability holding such a string is skipped or left out instead.
 */
export function spdx3TextErrors(document: Record<string, unknown>): string[] {
  const graph = elementsOf(document);
  const errors = documentTextErrors(document['@context'], '/@context', { strict: ['/@context'], max: MAX_SCHEMA_ERRORS });
  const creators = new Set<Json>();
  graph.elements.forEach((element) => {
    for (const info of [element, deref(graph, element.creationInfo)]) {
      if (!isObject(info) || typeOf(info) !== 'CreationInfo') continue;
      for (const agent of [...refs(info.createdBy), ...refs(info.createdUsing)]) {
        const found = deref(graph, agent);
        if (found) creators.add(found);
      }
    }
  });
  const subject = describedProduct(graph);
  graph.elements.forEach((element, index) => {
    const at = graph.pointers[index]!;
    if (element === subject) {
      for (const field of ['spdxId', '@id', 'name', 'software_packageVersion']) errors.push(...documentTextErrors(element[field], `${at}/${field}`, { strict: [`${at}/${field}`] }));
    } else if (METADATA_TYPES.has(typeOf(element)) || creators.has(element)) {
      const strict = ['spdxId', '@id', 'name', 'specVersion', 'created'].map((field) => `${at}/${field}`);
      for (const field of ['rootElement', 'element']) refs(element[field]).forEach((_, i) => strict.push(`${at}/${field}/${i}`));
      // The document itself as its one element: its @context is checked above.
      const fields = at === '' ? Object.fromEntries(Object.entries(element).filter(([key]) => key !== '@context')) : element;
      errors.push(...documentTextErrors(fields, at, { strict, max: MAX_SCHEMA_ERRORS }));
    }
  });
  // The document as one element is the root (pointer ''): an unstorable key of it is reported at "/".
  return errors.slice(0, MAX_SCHEMA_ERRORS).map((error) => (error.startsWith(':') ? `/${error}` : error));
}

// --- the reader ----------------------------------------------------------------------------------

/** A relationship element and where it sits. */
interface Relationship {
  readonly element: Json;
  readonly pointer: string;
}

/** One statement about one vulnerability and package: which wins is decided by `time`, then `order`. */
interface Assertion {
  readonly time: number | undefined;
  readonly order: number;
  readonly analysis: SbomAnalysis | null;
}

/** A vulnerability id's own data, over all the elements of that id. */
interface Known {
  readonly aliases: Set<string>;
  summary: string;
  scores: number[];
  extensionScore: number | null;
}

/** The document as an Inventory (see the module head). `specVersion` is spdx3Version's. Never throws. */
export function spdx3Inventory(document: Record<string, unknown>, specVersion: string): Inventory {
  const builder = new InventoryBuilder();
  const warnings = new Set<string>();
  const warn = (message: string) => warnings.add(message);
  const graph = elementsOf(document);
  if (graph.elements.length === 0) warn(Array.isArray(document['@graph']) ? '/@graph: the document holds no elements.' : '/: the document holds no "@graph" and is no element itself: nothing to read.');
  if (graph.notElements.length > 0) warn(`${named(graph.notElements, false)}: not an element (an object); left out.`);
  if (graph.repeated.length > 0) warn(`Elements repeat an spdxId (${named(graph.repeated)}): the first of each is read.`);
  const untyped = graph.elements.flatMap((element, index) => (typeOf(element) === '' ? [graph.pointers[index]!] : []));
  if (untyped.length > 0) warn(`${named(untyped, false)}: an element without a "type"; left out.`);

  const subject = describedProduct(graph);
  const subjectId = subject ? idOf(subject) : '';
  const relationships = graph.elements.flatMap((element, index) =>
    typeof element.relationshipType === 'string' || VEX_CLASSES_SET.has(typeOf(element)) || CVSS_CLASSES.has(typeOf(element)) ? [{ element, pointer: graph.pointers[index]! }] : [],
  );
  const licenses = licenseRelationships(graph, relationships);
  const dangling = new Set<string>();

  let packageCount = 0;
  graph.elements.forEach((element, index) => {
    if (!PACKAGE_TYPES.has(typeOf(element)) || element === subject) return;
    packageCount++;
    builder.add(candidate(element, graph.pointers[index]!, graph, licenses.get(idOf(element)), warn));
  });

  for (const { element: relationship } of relationships) {
    if (!DEPENDS_ON.has(text(relationship.relationshipType))) continue;
    const from = refOf(relationship.from);
    for (const to of refs(relationship.to).map(refOf)) {
      if (!to) continue;
      if (!graph.byId.has(to) && builder.resolve(to) === undefined) dangling.add(to);
      builder.depend(from, to);
    }
    if (from && !graph.byId.has(from) && builder.resolve(from) === undefined) dangling.add(from);
  }

  const vulnerabilities = readVulnerabilities(graph, relationships, builder, subjectId, warn, dangling);
  if (dangling.size > 0) warn(`Relationships name elements the document does not hold (${named([...dangling])}); those ends are left out.`);
  builder.warnings.push(...warnings);
  return builder.build({
    format: 'spdx',
    specVersion,
    subject: subject ? { name: text(subject.name), version: text(subject.software_packageVersion) } : null,
    vulnerabilities,
    vexOnly: packageCount === 0 && vulnerabilities.length > 0,
  });
}

/** Package id → the `to` of its hasDeclaredLicense and hasConcludedLicense relationships, in document order. */
function licenseRelationships(graph: Graph, relationships: readonly Relationship[]): Map<string, { declared: unknown[]; concluded: unknown[] }> {
  const byPackage = new Map<string, { declared: unknown[]; concluded: unknown[] }>();
  for (const { element: relationship } of relationships) {
    const kind = relationship.relationshipType === 'hasDeclaredLicense' ? 'declared' : relationship.relationshipType === 'hasConcludedLicense' ? 'concluded' : undefined;
    if (kind === undefined) continue;
    const from = refOf(relationship.from);
    if (!from || !graph.byId.has(from)) continue;
    let entry = byPackage.get(from);
    if (entry === undefined) byPackage.set(from, (entry = { declared: [], concluded: [] }));
    entry[kind].push(...refs(relationship.to));
  }
  return byPackage;
}

function candidate(pkg: Json, pointer: string, graph: Graph, licenses: { declared: unknown[]; concluded: unknown[] } | undefined, warn: (message: string) => void) {
  const check = new TextCheck();
  const hashes: Partial<Record<keyof SbomHashes, string>> = {};
  refs(pkg.verifiedUsing).forEach((method, i) => {
    if (!isObject(method) || (method.type !== undefined && method.type !== 'Hash')) return;
    const algorithm = check.text(method.algorithm, `verifiedUsing/${i}/algorithm`);
    // Own keys only: an algorithm named "constructor" is none of them.
    const key = Object.hasOwn(HASHES, algorithm) ? HASHES[algorithm] : undefined;
    const value = check.text(method.hashValue, `verifiedUsing/${i}/hashValue`).trim().toLowerCase();
    if (key && value && hashes[key] === undefined) hashes[key] = value;
  });
  let purl = check.text(pkg.software_packageUrl, 'software_packageUrl').trim();
  refs(pkg.externalIdentifier).forEach((identifier, i) => {
    if (!isObject(identifier)) return;
    const type = check.text(identifier.externalIdentifierType, `externalIdentifier/${i}/externalIdentifierType`);
    const value = check.text(identifier.identifier, `externalIdentifier/${i}/identifier`).trim();
    if (!purl && type === 'packageUrl') purl = value;
  });
  const hints = new Map<string, LicenseHint>();
  const license = (targets: unknown[] | undefined, field: string) =>
    joinLicenses((targets ?? []).map((target, i) => licenseOf(target, graph, check, `${field}/${i}`, hints, warn, pointer)));
  const declaredLicense = license(licenses?.declared, 'hasDeclaredLicense');
  const concludedLicense = license(licenses?.concluded, 'hasConcludedLicense');
  return {
    ref: check.text(idOf(pkg), 'spdxId'),
    pointer,
    purl,
    group: '',
    name: check.text(pkg.name, 'name'),
    version: check.text(pkg.software_packageVersion, 'software_packageVersion'),
    declaredLicense,
    concludedLicense,
    licenseHints: hints,
    hashes,
    description: check.prose(pkg.description, 'description') || check.prose(pkg.summary, 'summary'),
    homepageUrl: httpUrl(check.text(pkg.software_homePage, 'software_homePage')),
    downloadUrl: httpUrl(check.text(pkg.software_downloadLocation, 'software_downloadLocation')),
    supplier: refs(pkg.suppliedBy)
      .map((agent, i) => check.text(deref(graph, agent)?.name, `suppliedBy/${i}/name`).trim())
      .filter((name) => name !== '')
      .join(', '),
    copyright: asserted(check.prose(pkg.software_copyrightText, 'software_copyrightText')),
    filename: '',
    problem: check.problem,
  };
}

/**
 * One `to` of a licensing relationship as an SPDX expression ('' for none or what cannot be one, with
 * a warning), noting the hints of the LicenseRefs it names. Its strings are the package's: checked.
 */
function licenseOf(target: unknown, graph: Graph, check: TextCheck, field: string, hints: Map<string, LicenseHint>, warn: (message: string) => void, pointer: string): string {
  const seen = new Set<Json>();
  const render = (value: unknown, depth: number, at: string): string | undefined => {
    if (typeof value === 'string' && NO_LICENSE.has(value)) return '';
    const element = deref(graph, value);
    if (element === undefined) {
      const listed = typeof value === 'string' ? LISTED.exec(value)?.[1] : undefined;
      if (listed !== undefined) return listed;
      warn(`${pointer}: its ${at} names ${typeof value === 'string' ? `"${clip(value)}", which the document does not hold` : 'no license'}; left out.`);
      return undefined;
    }
    if (seen.has(element) || depth > MAX_LICENSE_DEPTH) {
      warn(`${pointer}: its ${at} refers to itself (a license set that contains itself); left out.`);
      return undefined;
    }
    seen.add(element);
    try {
      return renderElement(element, depth, at);
    } finally {
      seen.delete(element);
    }
  };
  const renderElement = (element: Json, depth: number, at: string): string | undefined => {
    const type = typeOf(element);
    const id = idOf(element);
    switch (type) {
      case 'simplelicensing_LicenseExpression': {
        const expression = asserted(check.text(element.simplelicensing_licenseExpression, `${at}/simplelicensing_licenseExpression`));
        noteCustomIds(element, expression, graph, hints);
        return expression;
      }
      case 'expandedlicensing_ListedLicense':
      case 'expandedlicensing_ListedLicenseException':
        return LISTED.exec(id)?.[1] ?? (check.text(element.name, `${at}/name`).trim() || undefined);
      case 'expandedlicensing_CustomLicense':
      case 'expandedlicensing_CustomLicenseAddition':
      case 'simplelicensing_SimpleLicensingText': {
        const ref = customRef(element, type === 'expandedlicensing_CustomLicenseAddition' ? 'AdditionRef' : 'LicenseRef');
        if (ref === undefined) {
          warn(`${pointer}: its ${at} is a custom license whose id gives no LicenseRef (${clip(id)}); left out.`);
          return undefined;
        }
        const hint = licenseHint(element);
        if (hint && !hints.has(ref)) hints.set(ref, hint);
        return ref;
      }
      case 'expandedlicensing_OrLaterOperator': {
        const license = render(element.expandedlicensing_subjectLicense, depth + 1, `${at}/expandedlicensing_subjectLicense`);
        return license ? `${license}+` : undefined;
      }
      case 'expandedlicensing_WithAdditionOperator': {
        const license = render(element.expandedlicensing_subjectExtendableLicense, depth + 1, `${at}/expandedlicensing_subjectExtendableLicense`);
        const addition = render(element.expandedlicensing_subjectAddition, depth + 1, `${at}/expandedlicensing_subjectAddition`);
        return license && addition ? `${wrap(license)} WITH ${addition}` : undefined;
      }
      case 'expandedlicensing_ConjunctiveLicenseSet':
      case 'expandedlicensing_DisjunctiveLicenseSet': {
        const members = refs(element.expandedlicensing_member).map((member, i) => render(member, depth + 1, `${at}/expandedlicensing_member/${i}`));
        if (members.some((member) => member === undefined)) return undefined;
        const parts = (members as string[]).filter((member) => member !== '');
        return parts.map(wrap).join(type === 'expandedlicensing_ConjunctiveLicenseSet' ? ' AND ' : ' OR ');
      }
      default:
        warn(`${pointer}: its ${at} is a ${type ? `"${clip(type)}"` : 'element without a type'}, not a license; left out.`);
        return undefined;
    }
  };
  return render(target, 0, field) ?? '';
}

/** An operand of AND, OR or WITH in parentheses when it is itself compound. */
function wrap(expression: string): string {
  return /\s/.test(expression) && !(expression.startsWith('(') && expression.endsWith(')')) ? `(${expression})` : expression;
}

/**
 * A custom license's `LicenseRef-…` (or `AdditionRef-…`): the last segment of its id when it is one
 * (as SPDX 2 conversions write them), else one made of that segment, or of its name, in the idstring's
 * characters. Its name and text go with it as a hint: they, not the made-up id, recognise the license.
 */
function customRef(element: Json, prefix: 'LicenseRef' | 'AdditionRef'): string | undefined {
  const last = idOf(element).split(/[/#:]/).pop() ?? '';
  if (LICENSE_REF.test(last) && last.startsWith(`${prefix}-`)) return last;
  const idString = (last || text(element.name)).replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '');
  return idString ? `${prefix}-${idString}` : undefined;
}

/**
 * What a license element says beside its id: its name and text (not NOASSERTION; within bounds). Not
 * checked as stored text: a hint only helps recognise the license (as in the SPDX 2 and CycloneDX readers).
 */
function licenseHint(element: Json): LicenseHint | undefined {
  const name = asserted(element.name);
  const licenseText = text(element.simplelicensing_licenseText);
  const hint: LicenseHint = {
    ...(name && name.length <= 1_024 ? { name } : {}),
    ...(licenseText.trim() && asserted(licenseText) && licenseText.length <= MAX_LICENSE_TEXT ? { text: licenseText } : {}),
  };
  return hint.name || hint.text ? hint : undefined;
}

/** The hints of the `LicenseRef-…` an expression names, from its `simplelicensing_customIdToUri`. */
function noteCustomIds(expression: Json, written: string, graph: Graph, hints: Map<string, LicenseHint>): void {
  const symbols = new Set(written.split(/[\s()]+/));
  for (const entry of refs(expression.simplelicensing_customIdToUri)) {
    if (!isObject(entry)) continue;
    const key = text(entry.key).trim();
    const value = text(entry.value).trim();
    if (!symbols.has(key) || hints.has(key)) continue;
    // The value is the custom license's id (an IRI), not a page about it: only an element of that id says more.
    const element = graph.byId.get(value);
    const hint = element ? licenseHint(element) : undefined;
    if (hint) hints.set(key, hint);
  }
}

/** The service's name-value properties of an element (its CdxPropertiesExtensions), name → values. Strings are checked. */
function properties(element: Json, check: TextCheck): Map<string, string[]> {
  const found = new Map<string, string[]>();
  refs(element.extension).forEach((extension, i) => {
    if (!isObject(extension) || extension.type !== 'extension_CdxPropertiesExtension') return;
    refs(extension.extension_cdxProperty).forEach((entry, j) => {
      if (!isObject(entry)) return;
      const name = check.text(entry.extension_cdxPropName, `extension/${i}/extension_cdxProperty/${j}/extension_cdxPropName`);
      const value = check.text(entry.extension_cdxPropValue, `extension/${i}/extension_cdxProperty/${j}/extension_cdxPropValue`);
      if (!Object.values(ANALYSIS_PROPERTIES).includes(name as never)) return;
      const values = found.get(name);
      if (values === undefined) found.set(name, [value]);
      else values.push(value);
    });
  });
  return found;
}

function readVulnerabilities(graph: Graph, relationships: readonly Relationship[], builder: InventoryBuilder, subjectId: string, warn: (message: string) => void, dangling: Set<string>): SbomVulnerability[] {
  // spdxId of a vulnerability element → its id; id → what is known of it (Maps keep first-seen order).
  const idOfVulnerability = new Map<string, string>();
  const known = new Map<string, Known>();
  graph.elements.forEach((element, index) => {
    if (typeOf(element) !== 'security_Vulnerability') return;
    const pointer = graph.pointers[index]!;
    const check = new TextCheck();
    const identifiers: string[] = [];
    refs(element.externalIdentifier).forEach((identifier, i) => {
      if (!isObject(identifier)) return;
      const type = check.text(identifier.externalIdentifierType, `externalIdentifier/${i}/externalIdentifierType`);
      const value = check.text(identifier.identifier, `externalIdentifier/${i}/identifier`).trim();
      if ((type === 'cve' || type === 'securityOther') && value && !identifiers.includes(value)) identifiers.push(value);
    });
    const id = identifiers[0] ?? check.text(element.name, 'name').trim();
    const summary = check.prose(element.description, 'description').trim() || check.prose(element.summary, 'summary').trim();
    const own = properties(element, check);
    if (check.problem !== undefined) return warn(`${pointer}: vulnerability "${clip(id)}" was left out: ${check.problem}.`);
    if (!id) return warn(`${pointer}: a vulnerability without an id (no cve or securityOther identifier, no name) was left out.`);
    if (idOf(element)) idOfVulnerability.set(idOf(element), id);
    let entry = known.get(id);
    if (entry === undefined) known.set(id, (entry = { aliases: new Set(), summary: '', scores: [], extensionScore: null }));
    for (const alias of identifiers) if (alias !== id) entry.aliases.add(alias);
    if (!entry.summary) entry.summary = summary;
    const score = Number(own.get(ANALYSIS_PROPERTIES.riskScore)?.[0]);
    if (entry.extensionScore === null && own.has(ANALYSIS_PROPERTIES.riskScore) && Number.isFinite(score) && score >= 0 && score <= 10) entry.extensionScore = score;
  });

  // vulnerability id → (component ref → the assertion in force); associations say "affected, not assessed".
  const assertions = new Map<string, Map<string, Assertion>>();
  const associations = new Map<string, Set<string>>();
  const assert = (id: string, ref: string, assertion: Assertion) => {
    let byRef = assertions.get(id);
    if (byRef === undefined) assertions.set(id, (byRef = new Map()));
    const before = byRef.get(ref);
    if (before === undefined || !isEarlier(assertion, before)) byRef.set(ref, assertion);
  };
  const associate = (id: string, ref: string) => {
    let refsOf = associations.get(id);
    if (refsOf === undefined) associations.set(id, (refsOf = new Set()));
    refsOf.add(ref);
  };
  // What statements name that is not what they should, each said once after the loop (a skipped package can be named by dozens).
  const packageIds = new Set(graph.elements.flatMap((element) => (PACKAGE_TYPES.has(typeOf(element)) && idOf(element) ? [idOf(element)] : [])));
  const onSubject = new Set<string>();
  const onSkipped = new Set<string>();
  const onOthers = new Set<string>();
  const notVulnerabilities = new Set<string>();
  /** The component a package reference names, or undefined (noted). */
  const component = (name: string, id: string): string | undefined => {
    if (!name) return undefined;
    const resolved = builder.resolve(name) ?? builder.canonicalPurl(name);
    if (resolved !== undefined) return resolved;
    if (name === subjectId) onSubject.add(id);
    else if (packageIds.has(name)) onSkipped.add(name);
    else if (graph.byId.has(name)) onOthers.add(name);
    else dangling.add(name);
    return undefined;
  };
  /** The vulnerability id a reference names, or undefined (noted). */
  const vulnerabilityNamed = (value: unknown): string | undefined => {
    const name = refOf(value);
    const id = idOfVulnerability.get(name);
    if (id === undefined && name && !graph.byId.has(name)) dangling.add(name);
    else if (id === undefined) notVulnerabilities.add(name);
    return id;
  };

  relationships.forEach(({ element: relationship, pointer }, order) => {
    const type = typeOf(relationship);
    if (VEX_CLASSES_SET.has(type)) {
      const id = vulnerabilityNamed(relationship.from);
      if (id === undefined) return;
      const check = new TextCheck();
      const analysis = readAnalysis(relationship, type as VexClass, check, pointer, id, warn);
      if (check.problem !== undefined) return warn(`${pointer}: the statement on ${id} was left out: ${check.problem}.`);
      const assessed = refOf(relationship.security_assessedElement);
      const targets = assessed ? [assessed] : refs(relationship.to).map(refOf);
      const time = instant(relationship.security_modifiedTime) ?? instant(relationship.security_publishedTime);
      for (const target of targets) {
        const ref = component(target, id);
        if (ref !== undefined) assert(id, ref, { time, order, analysis });
      }
      return;
    }
    if (CVSS_CLASSES.has(type)) {
      const id = vulnerabilityNamed(relationship.from);
      const score = typeof relationship.security_score === 'string' ? Number(relationship.security_score) : relationship.security_score;
      if (id !== undefined && typeof score === 'number' && Number.isFinite(score) && score >= 0 && score <= 10) known.get(id)!.scores.push(score);
      return;
    }
    if (relationship.relationshipType === 'hasAssociatedVulnerability') {
      const ref = component(refOf(relationship.from), 'hasAssociatedVulnerability');
      for (const target of refs(relationship.to)) {
        const id = vulnerabilityNamed(target);
        if (id !== undefined && ref !== undefined) associate(id, ref);
      }
    } else if (relationship.relationshipType === 'affects') {
      const id = vulnerabilityNamed(relationship.from);
      if (id === undefined) return;
      for (const target of refs(relationship.to)) {
        const ref = component(refOf(target), id);
        if (ref !== undefined) associate(id, ref);
      }
    }
  });

  if (onSubject.size > 0) warn(`Statements on ${named([...onSubject])} speak of the described product itself, which is not a package; left out.`);
  if (onSkipped.size > 0) warn(`Statements on vulnerabilities speak of packages that were skipped (${named([...onSkipped])}); left out.`);
  if (onOthers.size > 0) warn(`Statements on vulnerabilities speak of elements that are not packages (${named([...onOthers])}); left out.`);
  if (notVulnerabilities.size > 0) warn(`Statements name as vulnerabilities elements that are not (with an id) (${named([...notVulnerabilities])}); left out.`);

  const vulnerabilities: SbomVulnerability[] = [];
  for (const [id, about] of known) {
    const byRef = assertions.get(id) ?? new Map<string, Assertion>();
    for (const ref of associations.get(id) ?? []) if (!byRef.has(ref)) byRef.set(ref, { time: undefined, order: -1, analysis: null });
    const scores = about.scores.length > 0 ? about.scores : about.extensionScore !== null ? [about.extensionScore] : [];
    const riskScore = scores.length > 0 ? Math.round(Math.max(...scores) * 10) / 10 : null;
    // One entry per distinct analysis, in the order the packages first appear; a vulnerability nothing is said of, with no affects.
    const groups = new Map<string, { analysis: SbomAnalysis | null; affects: string[] }>();
    for (const [ref, assertion] of byRef) {
      const key = JSON.stringify(assertion.analysis);
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { analysis: assertion.analysis, affects: [] }));
      group.affects.push(ref);
    }
    if (groups.size === 0) groups.set('', { analysis: null, affects: [] });
    for (const group of groups.values()) vulnerabilities.push({ id, aliases: [...about.aliases], summary: about.summary, riskScore, affects: group.affects, analysis: group.analysis });
  }
  return vulnerabilities;
}

/** Whether `a` is superseded by `b`: known earlier, or at the same time (or neither dated) and earlier in the document. */
function isEarlier(a: Assertion, b: Assertion): boolean {
  if (a.time !== undefined && b.time !== undefined && a.time !== b.time) return a.time < b.time;
  if ((a.time === undefined) !== (b.time === undefined)) return a.time === undefined;
  return a.order < b.order;
}

/** An SPDX DateTime (`YYYY-MM-DDThh:mm:ssZ`) as milliseconds, or undefined. */
function instant(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/.test(value)) return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : undefined;
}

/** A VEX statement's analysis: the service's own properties when valid and of the class's status, else its SPDX fields (the module head). */
function readAnalysis(relationship: Json, type: VexClass, check: TextCheck, pointer: string, id: string, warn: (message: string) => void): SbomAnalysis {
  const vex = VEX_CLASSES[type];
  const label = check.text(relationship.security_justificationType, 'security_justificationType');
  const texts = {
    impact: check.prose(relationship.security_impactStatement, 'security_impactStatement').trim(),
    action: check.prose(relationship.security_actionStatement, 'security_actionStatement').trim(),
    notes: check.prose(relationship.security_statusNotes, 'security_statusNotes').trim(),
  };
  const own = properties(relationship, check);
  if (own.has(ANALYSIS_PROPERTIES.state) || own.has(ANALYSIS_PROPERTIES.justification) || own.has(ANALYSIS_PROPERTIES.response) || own.has(ANALYSIS_PROPERTIES.detail)) {
    const recorded = ownAnalysis(own, vex.states);
    if (recorded !== undefined) return recorded;
    warn(`${pointer}: ${id}: the service's analysis properties are not valid for a ${type.replace(/^security_/, '')}; its SPDX fields are read instead.`);
  }
  const justification = label ? VEX_JUSTIFICATIONS.get(label) : undefined;
  if (label && justification === undefined) warn(`${pointer}: ${id}: justification "${clip(label)}" is not an SPDX VEX justification; read without one.`);
  const detail = [
    justification !== undefined ? `SPDX justification: ${label}` : '',
    texts.impact ? `Impact statement: ${texts.impact}` : '',
    texts.action ? `Action statement: ${texts.action}` : '',
    texts.notes ? `Status notes: ${texts.notes}` : '',
  ]
    .filter((part) => part !== '')
    .join(' | ');
  return { state: vex.state, justification: justification ?? null, responses: [], detail };
}

/** The analysis the service's properties record, when every value is of its vocabulary and the state is one of `states` (absent only beside under investigation). */
function ownAnalysis(own: ReadonlyMap<string, readonly string[]>, states: readonly AnalysisState[]): SbomAnalysis | undefined {
  const one = (name: string) => {
    const values = own.get(name) ?? [];
    return values.length > 1 ? undefined : (values[0] ?? null);
  };
  const state = one(ANALYSIS_PROPERTIES.state);
  const justification = one(ANALYSIS_PROPERTIES.justification);
  const detail = one(ANALYSIS_PROPERTIES.detail);
  const responses = own.get(ANALYSIS_PROPERTIES.response) ?? [];
  if (state === undefined || justification === undefined || detail === undefined) return undefined;
  if (state === null ? !states.includes('in_triage') : !states.includes(state as AnalysisState) || !(ANALYSIS_STATES as readonly string[]).includes(state)) return undefined;
  if (justification !== null && !(JUSTIFICATIONS as readonly string[]).includes(justification)) return undefined;
  if (!responses.every((response) => (RESPONSES as readonly string[]).includes(response))) return undefined;
  return {
    state: state as AnalysisState | null,
    justification: justification as Justification | null,
    responses: [...new Set(responses)] as AnalysisResponse[],
    detail: detail ?? '',
  };
}
