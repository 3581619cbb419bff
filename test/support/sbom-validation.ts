/**
 * Validators for the documents the SBOM writers produce: the CycloneDX JSON schemas through
 * @cyclonedx/cyclonedx-library's strict validator, the SPDX 2.3 JSON schema the import validates
 * with (shared/sbom/spdx-schema.ts, written from the specification), and the rules neither schema checks (SPDX ids, references that resolve,
 * license expressions that parse with spdx-expression-parse, LicenseRefs that are declared).
 */
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import parseSpdxExpression from 'spdx-expression-parse';
import { checkSpdx } from '../../shared/sbom/schema-validation.ts';

const CDX_VERSIONS = { '1.4': Spec.Version.v1dot4, '1.5': Spec.Version.v1dot5, '1.6': Spec.Version.v1dot6 } as const;
const cdxValidators = new Map<string, Validation.JsonStrictValidator>();

/** The schema errors of a CycloneDX document (null when it validates). */
export async function cycloneDxSchemaErrors(document: object, specVersion: keyof typeof CDX_VERSIONS): Promise<unknown> {
  let validator = cdxValidators.get(specVersion);
  if (!validator) cdxValidators.set(specVersion, (validator = new Validation.JsonStrictValidator(CDX_VERSIONS[specVersion])));
  return validator.validate(JSON.stringify(document));
}

/** The schema errors of an SPDX document (null when it validates). */
export function spdxSchemaErrors(document: object): unknown {
  const { errors } = checkSpdx(JSON.parse(JSON.stringify(document)) as Record<string, unknown>, '2.3');
  return errors.length === 0 ? null : errors;
}

/** The symbols of an SPDX expression, read by spdx-expression-parse (which throws on anything invalid). */
export function expressionSymbols(expression: string): { licenses: string[]; exceptions: string[] } {
  const licenses: string[] = [];
  const exceptions: string[] = [];
  const walk = (node: parseSpdxExpression.Info) => {
    if ('conjunction' in node) {
      walk(node.left);
      walk(node.right);
    } else {
      licenses.push(node.plus ? `${node.license}+` : node.license);
      if (node.exception) exceptions.push(node.exception);
    }
  };
  walk(parseSpdxExpression(expression));
  return { licenses, exceptions };
}

type Json = Record<string, any>;

/** What the SPDX 2.3 specification requires beyond its JSON schema, for what the writer emits. */
export function spdxRuleProblems(document: Json): string[] {
  const problems: string[] = [];
  const ids = new Set<string>(['SPDXRef-DOCUMENT']);
  for (const pkg of document.packages ?? []) {
    if (!/^SPDXRef-[A-Za-z0-9.-]+$/.test(pkg.SPDXID)) problems.push(`bad SPDXID ${pkg.SPDXID}`);
    if (ids.has(pkg.SPDXID)) problems.push(`duplicate SPDXID ${pkg.SPDXID}`);
    ids.add(pkg.SPDXID);
  }
  for (const relationship of document.relationships ?? []) {
    for (const end of [relationship.spdxElementId, relationship.relatedSpdxElement]) if (!ids.has(end)) problems.push(`relationship to unknown ${end}`);
  }
  for (const described of document.documentDescribes ?? []) if (!ids.has(described)) problems.push(`describes unknown ${described}`);
  if (!/^[a-z][a-z0-9+.-]*:[^#\s]+$/i.test(document.documentNamespace)) problems.push(`namespace ${document.documentNamespace} is no absolute URI without #`);
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(document.creationInfo?.created)) problems.push(`created ${document.creationInfo?.created}`);
  const declaredRefs = new Set<string>();
  for (const info of document.hasExtractedLicensingInfos ?? []) {
    if (!/^LicenseRef-[A-Za-z0-9.-]+$/.test(info.licenseId)) problems.push(`bad licenseId ${info.licenseId}`);
    if (!info.extractedText) problems.push(`no extractedText for ${info.licenseId}`);
    if (declaredRefs.has(info.licenseId.toLowerCase())) problems.push(`licenseId ${info.licenseId} twice`);
    declaredRefs.add(info.licenseId.toLowerCase());
  }
  const usedRefs = new Set<string>();
  for (const pkg of document.packages ?? []) {
    for (const field of ['licenseConcluded', 'licenseDeclared']) {
      const value = pkg[field];
      if (value === undefined || value === 'NOASSERTION' || value === 'NONE') continue;
      try {
        for (const symbol of expressionSymbols(value).licenses) {
          if (symbol.startsWith('LicenseRef-')) {
            usedRefs.add(symbol.toLowerCase());
            if (!declaredRefs.has(symbol.toLowerCase())) problems.push(`${symbol} has no extracted licensing info`);
          }
        }
      } catch (error) {
        problems.push(`${pkg.SPDXID} ${field} "${value}" does not parse: ${(error as Error).message}`);
      }
    }
    for (const checksum of pkg.checksums ?? []) if (!/^[0-9a-f]+$/.test(checksum.checksumValue)) problems.push(`checksum ${checksum.checksumValue}`);
    if (pkg.supplier !== undefined && !/^(NOASSERTION|(Person|Organization): .+)$/s.test(pkg.supplier)) problems.push(`supplier ${pkg.supplier}`);
  }
  for (const ref of declaredRefs) if (!usedRefs.has(ref)) problems.push(`${ref} declared and never used`);
  return problems;
}

/** What CycloneDX requires beyond its JSON schema: unique bom-refs, references that resolve, SPDX expressions that parse. */
export function cycloneDxRuleProblems(document: Json, options: { vexOnly?: boolean } = {}): string[] {
  const problems: string[] = [];
  const refs = new Set<string>();
  const addRef = (ref: string | undefined) => {
    if (ref === undefined) return;
    if (refs.has(ref)) problems.push(`duplicate bom-ref ${ref}`);
    refs.add(ref);
  };
  addRef(document.metadata?.component?.['bom-ref']);
  for (const component of document.components ?? []) {
    addRef(component['bom-ref']);
    for (const choice of [...(component.licenses ?? []), ...(component.evidence?.licenses ?? [])]) {
      if (choice.expression === undefined) continue;
      try {
        expressionSymbols(choice.expression);
      } catch (error) {
        problems.push(`${component['bom-ref']} expression "${choice.expression}" does not parse: ${(error as Error).message}`);
      }
    }
  }
  for (const dependency of document.dependencies ?? []) {
    for (const ref of [dependency.ref, ...(dependency.dependsOn ?? [])]) if (!refs.has(ref)) problems.push(`dependency on unknown ${ref}`);
  }
  if (!options.vexOnly) {
    for (const vulnerability of document.vulnerabilities ?? []) {
      for (const affect of vulnerability.affects ?? []) if (!refs.has(affect.ref)) problems.push(`${vulnerability.id} affects unknown ${affect.ref}`);
    }
  }
  return problems;
}
