/**
 * OpenVEX 0.2.0 (JSON) → a VEX-only Inventory: which packages a vulnerability affects and the
 * analysis the document's author gives for them, for the import to record as the product's triage.
 * Sniffing, the version, schema validation (the openvex/spec JSON schema beside this module) and the
 * reading itself, which never trusts a shape it did not check itself and never throws. Pure apart
 * from the validator, compiled once per process on first use.
 *
 * Versions. `"@context": "https://openvex.dev/ns/v0.2.0"` is read. The older documents
 * (`https://openvex.dev/ns`, which the spec says means v0.0.1, and `https://openvex.dev/ns/v0.0.1`)
 * are refused, naming the version read: their shape is not 0.2.0's (a statement's vulnerability and
 * products are plain strings, subcomponents sit on the statement, `version` is a string), so reading
 * them would take a second reader (go-vex's compat.go transcodes them), not a tolerance.
 *
 * What a statement becomes:
 * - The packages it speaks of are the purls of its products' `subcomponents` when a product lists
 *   any, else of the products themselves. The spec defines a subcomponent as the component of the
 *   product "where the vulnerability originates", most often one of its dependencies: with
 *   subcomponents the product is the thing shipped (an OCI image, say) and the statement is about the
 *   vulnerable package inside it, which is what the service triages; without them the product is that
 *   package. A product's or subcomponent's purl is its `@id` when that is a purl, else
 *   `identifiers.purl`. Ids that are not purls (OCI digests, CPEs, URLs, hashes) are left out, named in
 *   one warning: the catalog matches packages by purl.
 * - The vulnerability is `vulnerability.name`; `aliases` (over all its statements) are its aliases,
 *   the first `description` its summary. `vulnerability.@id` is an IRI to the record (an NVD page,
 *   say), not another id, and the catalog keeps no link: not read.
 * - Time (the spec's "Inheritance Flow"): a statement's `timestamp`, else the document's, is when it
 *   was known to be true, and for the same vulnerability and package the statement of the latest time
 *   wins, whatever its place in the document; at the same time the later one in the document wins (as
 *   go-vex's EffectiveStatement sorts them, stably). `last_updated` does not order statements: the
 *   spec gives it no part in inheritance, and go-vex ignores it too.
 * - One SbomVulnerability per vulnerability and analysis: statements of one vulnerability that end up
 *   giving different packages different analyses become several entries of the same id, each with
 *   its own `affects` and analysis, and the same aliases and summary; the import applies each entry's
 *   analysis to its own packages (shared/domain/sbom-import.ts).
 *
 * The analysis, in the service's CycloneDX vocabulary (shared/domain/catalog.ts):
 *
 * | OpenVEX status        | state        |
 * | --------------------- | ------------ |
 * | `not_affected`        | not_affected |
 * | `affected`            | exploitable  |
 * | `fixed`               | resolved     |
 * | `under_investigation` | in_triage    |
 *
 * | OpenVEX justification (CISA's definition)                                                        | justification                   |
 * | ------------------------------------------------------------------------------------------------ | ------------------------------- |
 * | `component_not_present`: the vulnerable component is not in the product                          | code_not_present                |
 * | `vulnerable_code_not_present`: the component is, the vulnerable code is not                      | code_not_present                |
 * | `vulnerable_code_not_in_execute_path`: the code is there but never executed                      | code_not_reachable              |
 * | `vulnerable_code_cannot_be_controlled_by_adversary`: present and used, but in a way no attacker can drive | requires_environment   |
 * | `inline_mitigations_already_exist`: built-in controls prevent exploitation                       | protected_by_mitigating_control |
 *
 * Why `cannot_be_controlled_by_adversary` is requires_environment: CISA's text describes no measure
 * taken, only that the conditions an attack needs (input the attacker controls) do not exist where the
 * code runs, which is CycloneDX's "exploitability requires a certain environment which is not
 * present"; protected_by_mitigating_control ("preventative measures have been implemented") is what
 * `inline_mitigations_already_exist` says, and giving both the same value would lose the difference.
 * The mapping is lossy (two labels become code_not_present), so the detail keeps the OpenVEX label:
 * detail = "OpenVEX justification: <label>", "Impact statement: …", "Action statement: …", "Status
 * notes: …", those the statement gives, joined with " | " (line breaks read as spaces). No response is
 * set: OpenVEX has none, and its action statement is free text.
 *
 * A `not_affected` statement without a justification or an impact statement, or an `affected` one
 * without an action statement, breaks a MUST of the spec and the schema's if/then: checkOpenVex
 * refuses the document. The reader, which may be handed anything, reads such a statement with a warning.
 *
 * The schema (openvex-0.2.0-schema.README.md says whence) is imported, so bundled with the function:
 * 9 KB, against a file the CDK construct would have to copy beside each bundle. Its `format: "iri"` is
 * checked as an absolute IRI (RFC 3987: a scheme, then only characters an IRI may hold, % only as an
 * escape): ajv-formats has no "iri", and ajv-formats-draft2019's wants a scheme from its IANA list,
 * which `pkg:` is not in, though the spec says a purl is an IRI. So the document id "merged-vex-<hash>"
 * that `vexctl merge` writes is refused, as the schema says. Its `uniqueItems` are checked in linear
 * time, as schema-validation.ts does for CycloneDX (why there).
 */
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { printable } from '../domain/stored-text.ts';
import type { AnalysisState, Justification } from '../domain/catalog.ts';
import type { Inventory, SbomAnalysis, SbomFormat, SbomVulnerability } from './inventory.ts';
import { documentTextErrors, InventoryBuilder, isObject, list, text, TextCheck } from './inventory-builder.ts';
import { clip } from './purl.ts';
import { LINEAR_UNIQUE_ITEMS, linearUniqueItems, MAX_SCHEMA_ERRORS, vendoredSchema } from './schema-validation.ts';

/** The context of the version read. */
export const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';
const CONTEXT_PREFIX = 'https://openvex.dev/ns';
/** The contexts of v0.0.1: the spec says a context without a version is v0.0.1. */
const LEGACY_CONTEXTS = new Set([CONTEXT_PREFIX, `${CONTEXT_PREFIX}/`, `${CONTEXT_PREFIX}/v0.0.1`]);

const STATES: ReadonlyMap<string, AnalysisState> = new Map([
  ['not_affected', 'not_affected'],
  ['affected', 'exploitable'],
  ['fixed', 'resolved'],
  ['under_investigation', 'in_triage'],
]);

const JUSTIFICATIONS: ReadonlyMap<string, Justification> = new Map([
  ['component_not_present', 'code_not_present'],
  ['vulnerable_code_not_present', 'code_not_present'],
  ['vulnerable_code_not_in_execute_path', 'code_not_reachable'],
  ['vulnerable_code_cannot_be_controlled_by_adversary', 'requires_environment'],
  ['inline_mitigations_already_exist', 'protected_by_mitigating_control'],
]);

/** At most this many ids or statements are named in one warning; the count says how many there were. */
const NAMED_IN_WARNING = 10;

/** Whether the document says it is OpenVEX (any version): its `@context` is an openvex.dev namespace. */
export function isOpenVex(document: Record<string, unknown>): boolean {
  const context = document['@context'];
  return typeof context === 'string' && context.startsWith(CONTEXT_PREFIX);
}

/** The OpenVEX version of the document when it is one read here ('0.2.0'), else why not. */
export function openVexVersion(document: Record<string, unknown>): { version: string } | { error: string } {
  const context = document['@context'];
  if (typeof context !== 'string') return { error: `An OpenVEX document names its version in "@context", a string: "${OPENVEX_CONTEXT}" is read here.` };
  if (context === OPENVEX_CONTEXT) return { version: '0.2.0' };
  if (LEGACY_CONTEXTS.has(context)) {
    return {
      error: `OpenVEX v0.0.1 ("@context": "${clip(context)}") is not read here: OpenVEX v0.2.0 ("@context": "${OPENVEX_CONTEXT}") is. v0.0.1 names vulnerabilities and products as plain strings.`,
    };
  }
  return { error: `OpenVEX "@context" "${clip(context)}" is not a version read here: OpenVEX v0.2.0 ("@context": "${OPENVEX_CONTEXT}") is.` };
}

// A CommonJS module whose default export is module.exports (Node's ES module interop).
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** RFC 3987 absolute IRI, by its characters: a scheme, then no space, control, `"<>\^`{|}`, and % only before two hex digits. */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[^\u0000-\u0020\u007f-\u009f"<>\\^`{|}%]|%[0-9A-Fa-f]{2})*$/;

let validator: ValidateFunction | undefined;

function openVexValidator(): ValidateFunction {
  if (validator === undefined) {
    // strictRequired off: the schema's if/then and anyOf branches name properties defined beside them, which strict mode cannot see.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv, ['uri', 'date-time']);
    ajv.addFormat('iri', IRI);
    ajv.addKeyword(LINEAR_UNIQUE_ITEMS);
    validator = ajv.compile(linearUniqueItems(vendoredSchema('openvex-0.2.0-schema.json')) as AnySchemaObject);
  }
  return validator;
}

/**
 * The document against the OpenVEX 0.2.0 JSON schema: the errors as "<JSON pointer>: <message>", the
 * first MAX_SCHEMA_ERRORS, none when it is valid. The schema's if/then (a not_affected statement needs a
 * justification or an impact statement, an affected one an action statement) and its "one of these
 * properties" anyOfs are said as such rather than as Ajv's parts of them.
 */
export function checkOpenVex(document: Record<string, unknown>): { errors: string[] } {
  const validate = openVexValidator();
  if (validate(document)) return { errors: [] };
  return { errors: describeErrors(validate.errors ?? [], document) };
}

/**
 * What in the document's own metadata (everything but its statements) the service cannot store, as
 * "<JSON pointer>: <message>" (the document is then refused, as CycloneDX metadata is). A statement
 * holding such a string is left out by the reader, with a warning. The context, ids and timestamps
 * the reader uses are checked as names are.
 */
export function openVexTextErrors(document: Record<string, unknown>): string[] {
  // Its keys and string values only: the schema allows nothing deeper here (a nested value is its error),
  // and walking one would take time quadratic in its depth (each pointer is as long as the path).
  const metadata = Object.fromEntries(
    Object.entries(document)
      .filter(([key]) => key !== 'statements')
      .map(([key, value]) => [key, typeof value === 'string' ? value : null]),
  );
  const strict = ['/@context', '/@id', '/timestamp', '/last_updated'];
  // The metadata object is the root (pointer ''): an unstorable key of it is reported at "/".
  return documentTextErrors(metadata, '', { strict, max: MAX_SCHEMA_ERRORS }).map((error) => (error.startsWith(':') ? `/${error}` : error));
}

/** One statement's say about one package: what wins is decided by `time`, then `order`. */
interface Assertion {
  readonly time: bigint | undefined;
  readonly order: number;
  readonly analysis: SbomAnalysis;
  readonly key: string;
}

/** The document's statements as a VEX-only Inventory (see the module head). `version` is openVexVersion's. */
export function openVexInventory(document: Record<string, unknown>, version: string): Inventory {
  const builder = new InventoryBuilder();
  const warn = (message: string) => builder.warnings.push(message);
  const documentTime = instant(document.timestamp);
  // vulnerability id → (canonical purl → the assertion in force); Maps keep first-seen order.
  const assertions = new Map<string, Map<string, Assertion>>();
  const about = new Map<string, { aliases: Set<string>; summary: string }>();
  const notPurls = new Set<string>();
  const withoutProducts: string[] = [];
  const conflicts: string[] = [];
  // Canonical purls by the id as written: documents repeat a package's id in every statement and
  // product that names it, and a purl's canonical form is the slow part of reading one.
  const purls = new Map<string, string | undefined>();
  const canonicalPurl = (id: string) => {
    if (!purls.has(id)) purls.set(id, builder.canonicalPurl(id));
    return purls.get(id);
  };

  const statements = list(document.statements);
  if (statements.length === 0) warn('/statements: the document has no statements.');
  statements.forEach((statement, index) => {
    const pointer = `/statements/${index}`;
    if (!isObject(statement)) return warn(`${pointer}: not a statement (an object); left out.`);
    const check = new TextCheck();
    const vulnerability = isObject(statement.vulnerability) ? statement.vulnerability : {};
    const id = check.text(vulnerability.name, 'vulnerability/name').trim();
    const aliases = list(vulnerability.aliases).map((alias, at) => check.text(alias, `vulnerability/aliases/${at}`).trim());
    const summary = check.prose(vulnerability.description, 'vulnerability/description').trim();
    const status = check.text(statement.status, 'status');
    const label = check.text(statement.justification, 'justification');
    const texts = {
      impact: check.prose(statement.impact_statement, 'impact_statement').trim(),
      action: check.prose(statement.action_statement, 'action_statement').trim(),
      notes: check.prose(statement.status_notes, 'status_notes').trim(),
    };
    const timestamp = check.text(statement.timestamp, 'timestamp');
    const targets = list(statement.products).flatMap((product, at) => packagesOf(product, `products/${at}`, check, canonicalPurl));
    if (check.problem !== undefined) return warn(`${pointer}: statement${id ? ` on "${clip(id)}"` : ''} left out: ${check.problem}.`);
    if (!id) {
      // A string is v0.0.1's shape, which openVexVersion refuses: said, for a caller that did not ask it.
      const shape = typeof statement.vulnerability === 'string' ? ' (its vulnerability is a string, as in OpenVEX v0.0.1: v0.2.0 writes {"name": …})' : '';
      return warn(`${pointer}: a statement without a vulnerability name was left out${shape}.`);
    }
    const state = STATES.get(status);
    if (state === undefined) {
      return warn(`${pointer}: ${clip(id)}: status "${clip(status)}" is not an OpenVEX status (${[...STATES.keys()].join(', ')}); statement left out.`);
    }
    const justification = label ? JUSTIFICATIONS.get(label) : undefined;
    if (label && justification === undefined) warn(`${pointer}: ${clip(id)}: justification "${clip(label)}" is not an OpenVEX justification; read without one.`);
    if (status === 'not_affected' && !label && !texts.impact) warn(`${pointer}: ${clip(id)}: not_affected without a justification or an impact statement (the spec requires one); read as given.`);
    if (status === 'affected' && !texts.action) warn(`${pointer}: ${clip(id)}: affected without an action statement (the spec requires one); read as given.`);
    const detail = [
      justification !== undefined ? `OpenVEX justification: ${label}` : '',
      texts.impact ? `Impact statement: ${texts.impact}` : '',
      texts.action ? `Action statement: ${texts.action}` : '',
      texts.notes ? `Status notes: ${texts.notes}` : '',
    ]
      .filter((part) => part !== '')
      .join(' | ');
    const analysis: SbomAnalysis = { state, justification: justification ?? null, responses: [], detail };

    let known = about.get(id);
    if (known === undefined) about.set(id, (known = { aliases: new Set(), summary: '' }));
    for (const alias of aliases) if (alias && alias !== id) known.aliases.add(alias);
    if (!known.summary) known.summary = summary;

    let time = documentTime;
    if (timestamp) {
      const own = instant(timestamp);
      if (own === undefined) warn(`${pointer}: ${clip(id)}: timestamp "${clip(timestamp)}" is not an RFC 3339 date-time; the document's is used.`);
      else time = own;
    }
    if (list(statement.products).length === 0) withoutProducts.push(pointer);
    const assertion: Assertion = { time, order: index, analysis, key: JSON.stringify([analysis.state, analysis.justification, analysis.detail]) };
    let byPurl = assertions.get(id);
    if (byPurl === undefined) assertions.set(id, (byPurl = new Map()));
    for (const target of targets) {
      if ('label' in target) {
        notPurls.add(target.label);
        continue;
      }
      const before = byPurl.get(target.purl);
      if (before === undefined || !isEarlier(assertion, before)) byPurl.set(target.purl, assertion);
      if (before !== undefined && before.time === assertion.time && before.key !== assertion.key && before.order !== assertion.order) {
        conflicts.push(`${clip(id)} on ${clip(target.purl)} (/statements/${before.order} and ${pointer})`);
      }
    }
  });

  if (notPurls.size > 0) {
    warn(`${notPurls.size} product or subcomponent id${notPurls.size === 1 ? ' is' : 's are'} not a purl and left out (packages are matched by purl): ${named([...notPurls].map((id) => `"${clip(id)}"`))}.`);
  }
  if (withoutProducts.length > 0) {
    warn(`${named(withoutProducts)}: no products; left out (OpenVEX lets an encapsulating document, such as an in-toto attestation, name them: not read here).`);
  }
  if (conflicts.length > 0) {
    warn(`Statements of the same time disagree about ${named(conflicts)}: the later one in the document is used.`);
  }

  const vulnerabilities: SbomVulnerability[] = [];
  for (const [id, byPurl] of assertions) {
    const known = about.get(id)!;
    // One entry per distinct analysis, in the order the packages first appear.
    const groups = new Map<string, { analysis: SbomAnalysis; affects: string[] }>();
    for (const [purl, assertion] of byPurl) {
      let group = groups.get(assertion.key);
      if (group === undefined) groups.set(assertion.key, (group = { analysis: assertion.analysis, affects: [] }));
      group.affects.push(purl);
    }
    for (const group of groups.values()) {
      vulnerabilities.push({ id, aliases: [...known.aliases], summary: known.summary, riskScore: null, affects: group.affects, analysis: group.analysis });
    }
  }

  return builder.build({
    format: 'openvex',
    specVersion: version,
    // A VEX document may speak of many products; none is the document's subject.
    subject: null,
    vulnerabilities,
    vexOnly: true,
  });
}

/** Whether `a` is superseded by `b`: known earlier, or at the same time (or neither dated) and earlier in the document. */
function isEarlier(a: Assertion, b: Assertion): boolean {
  if (a.time !== undefined && b.time !== undefined && a.time !== b.time) return a.time < b.time;
  // An undated statement (no timestamp of its own nor the document's) cannot be placed in time: document order decides.
  if ((a.time === undefined) !== (b.time === undefined)) return a.time === undefined;
  return a.order < b.order;
}

/**
 * The packages a product stands for (its subcomponents when it lists any, else itself: the module
 * head says why), each as a canonical purl or, when it has none, the label that names it in a warning.
 */
function packagesOf(product: unknown, field: string, check: TextCheck, canonicalPurl: CanonicalPurl): ({ purl: string } | { label: string })[] {
  if (!isObject(product)) return [{ label: `(${field}: not an object)` }];
  const subcomponents = list(product.subcomponents);
  if (subcomponents.length > 0) return subcomponents.map((subcomponent, at) => identify(subcomponent, `${field}/subcomponents/${at}`, check, canonicalPurl));
  return [identify(product, field, check, canonicalPurl)];
}

/** The canonical form of a purl, or undefined when the text is none (InventoryBuilder.canonicalPurl). */
type CanonicalPurl = (id: string) => string | undefined;

function identify(component: unknown, field: string, check: TextCheck, canonicalPurl: CanonicalPurl): { purl: string } | { label: string } {
  if (!isObject(component)) return { label: `(${field}: not an object)` };
  const id = check.text(component['@id'], `${field}/@id`).trim();
  const identifiers = isObject(component.identifiers) ? component.identifiers : {};
  const purl = check.text(identifiers.purl, `${field}/identifiers/purl`).trim();
  for (const candidate of [id, purl]) {
    const canonical = candidate ? canonicalPurl(candidate) : undefined;
    if (canonical !== undefined) return { purl: canonical };
  }
  const hashes = isObject(component.hashes) ? Object.entries(component.hashes).find(([, value]) => typeof value === 'string') : undefined;
  const label = id || purl || text(identifiers.cpe23) || text(identifiers.cpe22) || (hashes ? `${hashes[0]}:${String(hashes[1])}` : '') || `(${field}: no id)`;
  return { label };
}

/** The first NAMED_IN_WARNING items, and how many more. */
function named(items: readonly string[]): string {
  const shown = items.slice(0, NAMED_IN_WARNING).join(', ');
  return items.length > NAMED_IN_WARNING ? `${shown} and ${items.length - NAMED_IN_WARNING} more` : shown;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 date-time as nanoseconds since 1970 (exact: producers write nine digits of fraction), or undefined. */
function instant(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', zulu, sign, offsetHours, offsetMinutes] = match;
  const numbers = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [y, mo, d, h, mi, s] = numbers;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const millis = Date.UTC(y, mo - 1, d, h, mi, s) - offset * 60_000;
  if (!Number.isFinite(millis)) return undefined;
  return BigInt(millis) * 1_000_000n + BigInt(fraction.slice(0, 9).padEnd(9, '0'));
}

// --- schema errors (the linear uniqueItems keyword is schema-validation.ts's) ----------------------------------

const IF_MESSAGES: Readonly<Record<string, string>> = {
  '#/properties/statements/items/allOf/0/if': 'a "not_affected" statement must give a justification or an impact_statement',
  '#/properties/statements/items/allOf/1/if': 'an "affected" statement must give an action_statement',
};

/** Ajv's errors as "<pointer>: <message>", each once, at most MAX_SCHEMA_ERRORS; an if/then or an anyOf of `required`s as one message. */
function describeErrors(errors: readonly ErrorObject[], document: Record<string, unknown>): string[] {
  const replaced = new Map<ErrorObject, string>();
  const dropped = new Set<ErrorObject>();
  for (const error of errors) {
    const children = (prefix: string) => errors.filter((other) => other !== error && other.instancePath === error.instancePath && other.schemaPath.startsWith(prefix));
    if (error.keyword === 'if' && Object.hasOwn(IF_MESSAGES, error.schemaPath)) {
      replaced.set(error, IF_MESSAGES[error.schemaPath]!);
      for (const child of children(`${error.schemaPath.slice(0, -'if'.length)}then`)) dropped.add(child);
    } else if (error.keyword === 'anyOf') {
      const parts = children(`${error.schemaPath}/`);
      if (parts.length > 0 && parts.every((part) => part.keyword === 'required')) {
        const names = parts.map((part) => `"${String((part.params as { missingProperty?: unknown }).missingProperty)}"`);
        replaced.set(error, `must have one of the properties ${names.join(', ')}`);
        for (const part of parts) dropped.add(part);
      }
    }
  }
  const lines = new Set<string>();
  for (const error of errors) {
    if (dropped.has(error)) continue;
    lines.add(printable(`${error.instancePath || '/'}: ${replaced.get(error) ?? message(error)}`));
    if (lines.size === MAX_SCHEMA_ERRORS) break;
  }
  // Nothing said (Ajv always says something; a document is never refused without a reason).
  return lines.size > 0 ? [...lines] : [`/: the document does not match the OpenVEX ${document['@context'] === OPENVEX_CONTEXT ? '0.2.0 ' : ''}schema.`];
}

function message(error: ErrorObject): string {
  let said = error.message ?? `fails "${error.keyword}"`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') said += `: "${clip(String(params.additionalProperty))}"`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) said += `: ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
  return said;
}
