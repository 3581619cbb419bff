/**
 * Schema validation of SBOM documents: CycloneDX against the official CycloneDX JSON schemas that
 * @cyclonedx/cyclonedx-library ships, compiled with Ajv as the library's own JsonValidator compiles
 * them (its options, formats and referenced schemas), SPDX against spdx-schema.ts. Each validator is
 * compiled on first use and kept for the life of the process: a Lambda container pays the compile
 * once, on the first document of that version it reads (0.07-0.16 s a CycloneDX version here).
 *
 * Two changes to the library's way. All errors are collected (the library stops at the first), so a
 * 400 can list up to 20. And, for time: Ajv checks `uniqueItems` on arrays of objects by
 * comparing every pair, and the CycloneDX schemas ask it of `components` and `dependencies`: the
 * library's validator took 10-22 s on a 10,000-component document here, this one about 0.2 s. So
 * `uniqueItems` is checked by a keyword of the same meaning (JSON equality, whatever the key order)
 * in linear time, through a canonical form of each item. The unit tests hold this validator to the
 * library's JsonValidator on the real producers' documents and on thousands of mutations of them.
 *
 * Before CycloneDX validation, two harmless slips of real producers are repaired, each said in a
 * warning (docs/sbom-formats.md): repeated `dependencies` entries and `dependsOn` refs (npm 10's
 * `npm sbom`, Trivy; the schema wants them unique), and a `license.id` that is not an SPDX license id
 * of the schema's list (a producer newer than the list, or a name written as an id), read as a
 * license `name`. Anything else that fails the schema is refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSupportedSpdxId } from '@cyclonedx/cyclonedx-library/SPDX';
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import addFormats2019 from 'ajv-formats-draft2019';
import { isObject, list } from './inventory-builder.ts';
import { clip } from './purl.ts';
import { spdxSchema, type SpdxSchemaVersion } from './spdx-schema.ts';

export const CYCLONEDX_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6'] as const;
/** CycloneDX XML has two more: 1.0 and 1.1 were XML only. */
export const CYCLONEDX_XML_VERSIONS = ['1.0', '1.1', ...CYCLONEDX_VERSIONS] as const;
export type CycloneDxXmlVersion = (typeof CYCLONEDX_XML_VERSIONS)[number];
export type CycloneDxVersion = (typeof CYCLONEDX_VERSIONS)[number];
export const SPDX_VERSIONS = ['2.2', '2.3'] as const satisfies readonly SpdxSchemaVersion[];

/** At most this many schema errors are listed: the first ones say what is wrong. */
export const MAX_SCHEMA_ERRORS = 20;

export interface SchemaCheck {
  /** "<JSON pointer>: <message>", at most MAX_SCHEMA_ERRORS; empty when the document is valid. */
  readonly errors: readonly string[];
  /** The repairs made before validation. */
  readonly warnings: readonly string[];
  /** The document as read (repaired when a repair was made). */
  readonly document: Record<string, unknown>;
}

// A CommonJS module whose default export is module.exports (Node's ES module interop).
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Where the CycloneDX schemas are, found on first use (a process reading only SPDX never looks):
 * a `cyclonedx-schemas` folder beside the running module when there is one (a Lambda bundle whose
 * build copied the library's res/schema/*.json there), else the library's own res/schema, which its
 * own validator reads too (node_modules in development and tests, or the library installed beside a
 * bundle with CDK `bundling.nodeModules`).
 */
let schemaDirectory: string | undefined;
/** The folder beside a bundle that holds the CycloneDX schemas (the CDK function construct copies them there). */
export const CYCLONEDX_SCHEMA_FOLDER = 'cyclonedx-schemas';
export function cyclonedxSchemaDirectory(): string {
  if (schemaDirectory === undefined) {
    const beside = fileURLToPath(new URL(`${CYCLONEDX_SCHEMA_FOLDER}/`, import.meta.url));
    schemaDirectory = existsSync(path.join(beside, 'bom-1.6.SNAPSHOT.schema.json'))
      ? beside
      : path.join(path.dirname(createRequire(import.meta.url).resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
  }
  return schemaDirectory;
}

/** The files a bundle's `cyclonedx-schemas` folder needs: the bom schemas of the versions read and the schemas they refer to. */
export function cyclonedxSchemaFiles(): string[] {
  return [
    ...CYCLONEDX_VERSIONS.map((version) => `bom-${version}.SNAPSHOT.schema.json`),
    ...Object.values(REFERENCED_SCHEMAS),
    // The XML schemas (cyclonedx-xml-schema.ts): every version read as XML, and the SPDX one they import.
    ...CYCLONEDX_XML_VERSIONS.map((version) => `bom-${version}.SNAPSHOT.xsd`),
    'spdx.SNAPSHOT.xsd',
  ];
}

/**
 * The schemas this repository vendors (their sources in the README beside each): read at run time from
 * the schema folder beside a bundle, else from this folder in the source tree, as the CycloneDX ones are.
 */
export const VENDORED_SCHEMA_FILES = ['spdx-3.0.1-schema.json', 'openvex-0.2.0-schema.json'] as const;
export type VendoredSchemaFile = (typeof VENDORED_SCHEMA_FILES)[number];

/** A vendored schema, parsed: read on first use (a function that never meets the format never reads it). */
export function vendoredSchema(file: VendoredSchemaFile): Record<string, unknown> {
  const beside = fileURLToPath(new URL(`${CYCLONEDX_SCHEMA_FOLDER}/${file}`, import.meta.url));
  const source = existsSync(beside) ? beside : fileURLToPath(new URL(file, import.meta.url));
  return JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>;
}

/** The schemas the bom schemas refer to, by the ids the library registers them under. */
const REFERENCED_SCHEMAS = {
  'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json': 'spdx.SNAPSHOT.schema.json',
  'http://cyclonedx.org/schema/cryptography-defs.SNAPSHOT.schema.json': 'cryptography-defs.SNAPSHOT.schema.json',
  'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json': 'jsf-0.82.SNAPSHOT.schema.json',
};

const cyclonedxValidators = new Map<CycloneDxVersion, ValidateFunction>();
const spdxValidators = new Map<SpdxSchemaVersion, ValidateFunction>();

function readSchema(file: string): AnySchemaObject {
  return JSON.parse(readFileSync(path.join(cyclonedxSchemaDirectory(), file), 'utf8')) as AnySchemaObject;
}

/** The CycloneDX validator of a version, compiled as the library's JsonValidator does (its ajv plug-in). */
export function cyclonedxValidator(version: CycloneDxVersion): ValidateFunction {
  let validate = cyclonedxValidators.get(version);
  if (validate === undefined) {
    const ajv = new Ajv({
      // The library's options, and allErrors: the answer lists up to MAX_SCHEMA_ERRORS errors, not
      // the first alone (which errors, not whether there are any: the verdict is the library's).
      allErrors: true,
      useDefaults: false,
      strict: false,
      strictSchema: false,
      addUsedSchema: false,
      schemas: Object.fromEntries(Object.entries(REFERENCED_SCHEMAS).map(([id, file]) => [id, readSchema(file)])),
      loadSchema: (uri: string) => {
        throw new Error(`Remote schemas are disabled: ${uri}`);
      },
    });
    addFormats(ajv);
    addFormats2019(ajv, { formats: ['idn-email'] });
    // As the library: no implementation of "iri-reference" works (ajv-formats-draft2019 issue 22).
    ajv.addFormat('iri-reference', true);
    ajv.addKeyword(LINEAR_UNIQUE_ITEMS);
    validate = ajv.compile(linearUniqueItems(readSchema(`bom-${version}.SNAPSHOT.schema.json`)) as AnySchemaObject);
    cyclonedxValidators.set(version, validate);
  }
  return validate;
}

export function checkCycloneDx(document: Record<string, unknown>, version: CycloneDxVersion): SchemaCheck {
  const warnings: string[] = [];
  const repaired = repairCycloneDx(document, warnings);
  const validate = cyclonedxValidator(version);
  return { errors: validate(repaired) ? [] : describeErrors(validate.errors), warnings, document: repaired };
}

export function checkSpdx(document: Record<string, unknown>, version: SpdxSchemaVersion): SchemaCheck {
  let validate = spdxValidators.get(version);
  if (validate === undefined) {
    // allErrors: list every error (up to MAX_SCHEMA_ERRORS), not only the first.
    validate = new Ajv({ allErrors: true, strict: true }).compile(spdxSchema(version));
    spdxValidators.set(version, validate);
  }
  return { errors: validate(document) ? [] : describeErrors(validate.errors), warnings: [], document };
}

/** `uniqueItems` of the same meaning as JSON Schema's, checked in linear time (the module head says why). */
const uniqueItems: ((schema: boolean, data: unknown[]) => boolean) & { errors?: Partial<ErrorObject>[] } = (schema, data) => {
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let index = 0; index < data.length; index++) {
    const key = canonical(data[index], 0);
    // An item nested past MAX_ITEM_DEPTH is compared with nothing (no SBOM nests so deep; reading it
    // whole would overflow the stack on a hostile document).
    if (key === undefined) continue;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      // Ajv's own message and params for uniqueItems.
      uniqueItems.errors = [
        { keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${earlier} and ${index} are identical)`, params: { i: index, j: earlier } },
      ];
      return false;
    }
    seen.set(key, index);
  }
  return true;
};
/** Ajv's keyword for the linear `uniqueItems` (the CycloneDX and OpenVEX validators use it). */
export const LINEAR_UNIQUE_ITEMS = { keyword: 'uniqueItemsLinear', type: 'array' as const, schemaType: 'boolean' as const, errors: true, validate: uniqueItems };

/** Nesting past which an item is not compared: far deeper than any SBOM item, far shallower than the stack. */
const MAX_ITEM_DEPTH = 256;

/**
 * A JSON value as text with object keys sorted: two values are JSON-equal exactly when their canonical
 * forms are. Undefined past MAX_ITEM_DEPTH.
 */
function canonical(value: unknown, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (depth > MAX_ITEM_DEPTH) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const part = canonical(item, depth + 1);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(',')}]`;
  }
  for (const key of Object.keys(value).sort()) {
    const part = canonical((value as Record<string, unknown>)[key], depth + 1);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(',')}}`;
}

/** The schema with every `uniqueItems: true` keyword replaced by the linear one (`enum` and `const` values left alone). */
export function linearUniqueItems(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(linearUniqueItems);
  if (!isObject(schema)) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === 'uniqueItems' && value === true) return ['uniqueItemsLinear', true];
      if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default') return [key, value];
      return [key, linearUniqueItems(value)];
    }),
  );
}

/** Compiles every validator now (for a process that would rather pay at start than on its first document). */
export function prepareValidators(): void {
  for (const version of CYCLONEDX_VERSIONS) cyclonedxValidator(version);
  for (const version of SPDX_VERSIONS) checkSpdx({}, version);
}

/** Ajv errors as "<pointer>: <message>", repeated ones once, at most MAX_SCHEMA_ERRORS. */
function describeErrors(errors: unknown): string[] {
  const lines = new Set<string>();
  for (const error of list(errors)) {
    if (!isObject(error)) continue;
    lines.add(describe(error as unknown as ErrorObject));
    if (lines.size === MAX_SCHEMA_ERRORS) break;
  }
  return lines.size > 0 ? [...lines] : ['/: the document does not match its schema.'];
}

function describe(error: ErrorObject): string {
  const at = error.instancePath || '/';
  let message = error.message ?? `fails "${error.keyword}"`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') message += `: "${clip(String(params.additionalProperty))}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed = params.allowedValues as unknown[];
    message += `: ${allowed.slice(0, 8).map((value) => JSON.stringify(value)).join(', ')}${allowed.length > 8 ? `, … (${allowed.length} values)` : ''}`;
  }
  if (error.keyword === 'const') message += `: ${JSON.stringify(params.allowedValue)}`;
  return `${at}: ${message}`;
}

/** The document with the tolerated slips repaired (a copy of the parts it changes), or itself when none. */
function repairCycloneDx(document: Record<string, unknown>, warnings: string[]): Record<string, unknown> {
  let repaired = document;
  const dependencies = repairDependencies(document.dependencies);
  if (dependencies) {
    repaired = { ...repaired, dependencies: dependencies.entries };
    warnings.push(
      `/dependencies: ${dependencies.merged} repeated entr${dependencies.merged === 1 ? 'y' : 'ies'} merged and ${dependencies.dropped} repeated dependsOn ref${dependencies.dropped === 1 ? '' : 's'} dropped (the schema wants them unique).`,
    );
  }
  const metadata = document.metadata;
  if (isObject(metadata) && isObject(metadata.component)) {
    const component = repairComponent(metadata.component, '/metadata/component', warnings);
    if (component !== metadata.component) repaired = { ...repaired, metadata: { ...metadata, component } };
  }
  const components = repairComponents(document.components, '/components', warnings);
  if (components !== document.components) repaired = { ...repaired, components };
  return repaired;
}

function repairDependencies(value: unknown): { entries: unknown[]; merged: number; dropped: number } | undefined {
  if (!Array.isArray(value) || !hasRepeats(value)) return undefined;
  const byRef = new Map<string, { ref: string; dependsOn?: string[] }>();
  const entries: unknown[] = [];
  let merged = 0;
  let dropped = 0;
  for (const entry of value) {
    if (!isObject(entry) || typeof entry.ref !== 'string' || (entry.dependsOn !== undefined && !Array.isArray(entry.dependsOn))) {
      entries.push(entry); // Not the shape the repair knows: the schema says what is wrong with it.
      continue;
    }
    const targets = entry.dependsOn as unknown[] | undefined;
    let kept = byRef.get(entry.ref);
    if (kept === undefined) {
      kept = { ...entry, ref: entry.ref, ...(targets ? { dependsOn: [] } : {}) };
      byRef.set(entry.ref, kept);
      entries.push(kept);
    } else {
      merged++;
      if (targets && !kept.dependsOn) kept.dependsOn = [];
    }
    for (const target of targets ?? []) {
      if (typeof target === 'string' && kept.dependsOn!.includes(target)) dropped++;
      else kept.dependsOn!.push(target as string);
    }
  }
  return merged > 0 || dropped > 0 ? { entries, merged, dropped } : undefined;
}

/** Whether two entries name the same ref or one entry names a target twice (a quick look first: most documents have neither). */
function hasRepeats(entries: readonly unknown[]): boolean {
  const refs = new Set<unknown>();
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    if (refs.has(entry.ref)) return true;
    refs.add(entry.ref);
    if (Array.isArray(entry.dependsOn) && new Set(entry.dependsOn).size !== entry.dependsOn.length) return true;
  }
  return false;
}

function repairComponents(value: unknown, pointer: string, warnings: string[]): unknown {
  if (!Array.isArray(value)) return value;
  let changed = false;
  const components = value.map((component, index) => {
    const repaired = isObject(component) ? repairComponent(component, `${pointer}/${index}`, warnings) : component;
    if (repaired !== component) changed = true;
    return repaired;
  });
  return changed ? components : value;
}

function repairComponent(component: Record<string, unknown>, pointer: string, warnings: string[]): Record<string, unknown> {
  let repaired = component;
  if (Array.isArray(component.licenses)) {
    let changed = false;
    const licenses = component.licenses.map((entry, index) => {
      if (!isObject(entry) || !isObject(entry.license) || typeof entry.license.id !== 'string' || entry.license.name !== undefined) return entry;
      const { id, ...license } = entry.license;
      if (isSupportedSpdxId(id)) return entry;
      changed = true;
      warnings.push(`${pointer}/licenses/${index}/license/id: "${clip(id as string)}" is not an SPDX license id of the schema's list; read as a license name.`);
      return { ...entry, license: { ...license, name: id } };
    });
    if (changed) repaired = { ...repaired, licenses };
  }
  const nested = repairComponents(component.components, `${pointer}/components`, warnings);
  if (nested !== component.components) repaired = { ...repaired, components: nested };
  return repaired;
}
