/**
 * EventBridge event-pattern matching (the syntax Lambda filter criteria share), as much of it as the
 * local stack needs: the bus's rules (shared/resources.ts EVENT_RULES) and the stream mappings' filter
 * criteria (EVENT_SOURCES) name exact values in nested fields; `prefix`, and `anything-but` with a
 * prefix or with values (the stream mappings leave out the rate limiters' items by their sort key),
 * serve filters on keys. validateEventPattern refuses any other operator, so a pattern
 * the local stack cannot evaluate fails at start rather than never matching. Semantics follow the
 * EventBridge user guide and AWS's Event Ruler.
 */

type JsonObject = Record<string, unknown>;

/** The operators of EventBridge patterns, to tell one this module leaves out from a misspelt one. */
const EVENTBRIDGE_OPERATORS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'anything-but', 'numeric', 'exists', 'cidr', 'wildcard']);

/**
 * True when `event` matches `pattern`: the fields of the pattern are ANDed, the values listed for one
 * field are ORed, and an array in the event matches when any of its elements does. The pattern is
 * expected to be valid (validateEventPattern); an operator it does not know never matches.
 */
export function matchesEventPattern(pattern: JsonObject, event: JsonObject): boolean {
  return matchesNode(pattern, event);
}

/**
 * A nested pattern against the event value at the same place. When that value is an array of objects,
 * one element must satisfy the whole sub-pattern: as in Event Ruler, a match never combines fields of
 * different elements.
 */
function matchesNode(pattern: JsonObject, value: unknown): boolean {
  const objects = flatten(value).filter(isPlainObject);
  return (objects.length > 0 ? objects : [{}]).some((object) =>
    Object.entries(pattern).every(([key, sub]) => {
      // Own properties only: a pattern field named "constructor" must not find Object.prototype's.
      const field = Object.hasOwn(object, key) ? object[key] : undefined;
      if (Array.isArray(sub)) return matchesLeaf(sub, field);
      return isPlainObject(sub) && matchesNode(sub, field);
    }),
  );
}

/** The scalars (null included) of an event field, or of an array at any depth: objects are no leaves. */
function leafValues(value: unknown): unknown[] {
  return value === undefined ? [] : flatten(value).filter((item) => !isPlainObject(item));
}

function flatten(value: unknown): unknown[] {
  return Array.isArray(value) ? value.flatMap(flatten) : [value];
}

function matchesLeaf(matchers: readonly unknown[], value: unknown): boolean {
  const leaves = leafValues(value);
  return matchers.some((matcher) => leaves.some((leaf) => matchesValue(matcher, leaf)));
}

function matchesValue(matcher: unknown, leaf: unknown): boolean {
  if (!isPlainObject(matcher)) return matcher === leaf;
  const [operator, operand] = singleEntry(matcher) ?? [];
  if (operator === 'prefix') return typeof leaf === 'string' && typeof operand === 'string' && leaf.startsWith(operand);
  if (operator === 'anything-but') {
    // Values: every leaf but these (a value of another type is another value).
    if (typeof operand === 'string') return leaf !== operand;
    if (Array.isArray(operand)) return !operand.includes(leaf);
    const prefix = isPlainObject(operand) ? operand['prefix'] : undefined;
    // EventBridge compares values in their JSON form, where a number, boolean or null never starts
    // with a quoted string: those match.
    return typeof prefix === 'string' && (typeof leaf !== 'string' || !leaf.startsWith(prefix));
  }
  return false;
}

/**
 * The problems that would make EventBridge (or Lambda) refuse the pattern, or that this module cannot
 * evaluate, as sentences naming the offending path; empty when the pattern is fine. Also refuses empty
 * objects, which would silently match every event.
 */
export function validateEventPattern(pattern: unknown): string[] {
  const problems: string[] = [];
  if (isPlainObject(pattern)) validateObject(pattern, '', problems);
  else problems.push('The pattern must be a JSON object.');
  return problems;
}

function validateObject(pattern: JsonObject, path: string, problems: string[]): void {
  const keys = Object.keys(pattern);
  if (keys.length === 0) problems.push(`${path ? `"${path}"` : 'The pattern'} is an empty object; it would match every event.`);
  for (const key of keys) {
    const value = pattern[key];
    const fieldPath = path ? `${path}.${key}` : key;
    if (Array.isArray(value)) {
      if (value.length === 0) problems.push(`"${fieldPath}" is an empty array; list at least one value to match.`);
      value.forEach((matcher, index) => validateMatcher(matcher, `${fieldPath}[${index}]`, problems));
    } else if (isPlainObject(value)) {
      validateObject(value, fieldPath, problems);
    } else {
      problems.push(`"${fieldPath}" must be an array of values or a nested object, not ${JSON.stringify(value)} (write [${JSON.stringify(value)}]).`);
    }
  }
}

function validateMatcher(matcher: unknown, path: string, problems: string[]): void {
  if (matcher === null || typeof matcher === 'string' || typeof matcher === 'boolean') return;
  if (typeof matcher === 'number') {
    if (!Number.isFinite(matcher)) problems.push(`"${path}" must be a finite number.`);
    return;
  }
  if (!isPlainObject(matcher)) {
    problems.push(`"${path}" must be a string, number, boolean, null or an operator object.`);
    return;
  }
  const entry = singleEntry(matcher);
  if (!entry) {
    problems.push(`"${path}" must hold exactly one operator, found ${Object.keys(matcher).length}.`);
    return;
  }
  const [operator, operand] = entry;
  const at = `"${path}.${operator}"`;
  if (operator === 'prefix') {
    if (typeof operand !== 'string') problems.push(`${at} must be a string.`);
  } else if (operator === 'anything-but' && (typeof operand === 'string' || Array.isArray(operand))) {
    const values = typeof operand === 'string' ? [operand] : operand;
    if (values.length === 0 || !values.every((value) => typeof value === 'string')) problems.push(`${at} must be a string or a non-empty list of strings here (bin/local/event-pattern.ts).`);
  } else if (operator === 'anything-but') {
    const inner = isPlainObject(operand) ? singleEntry(operand) : undefined;
    if (inner && inner[0] !== 'prefix') problems.push(`${at} does not support "${inner[0]}" here: only { "prefix": string } (bin/local/event-pattern.ts).`);
    else if (typeof inner?.[1] !== 'string' || inner[1] === '') problems.push(`${at} must be strings or { "prefix": a non-empty string } here (bin/local/event-pattern.ts).`);
  } else if (EVENTBRIDGE_OPERATORS.has(operator)) {
    problems.push(`"${path}" uses "${operator}", which the local stack does not implement (bin/local/event-pattern.ts).`);
  } else {
    problems.push(`"${path}" uses the unknown operator "${operator}".`);
  }
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function singleEntry(object: JsonObject): [string, unknown] | undefined {
  const entries = Object.entries(object);
  return entries.length === 1 ? entries[0] : undefined;
}
