/**
 * Amazon EventBridge event-pattern matching (the syntax Lambda event-source filter criteria share),
 * so the local stack routes bus events and filters stream records exactly as AWS would.
 * Pure: no I/O. Semantics follow the EventBridge user guide and AWS's Event Ruler, which implements it.
 */

type JsonObject = Record<string, unknown>;

const OR_KEY = '$or';

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/**
 * True when `event` matches `pattern`. Fields of the pattern are ANDed, the values listed for one
 * field are ORed, and an array in the event matches when any of its elements does.
 * The pattern is expected to be valid (see validateEventPattern); an unknown operator never matches.
 */
export function matchesEventPattern(pattern: Record<string, unknown>, event: Record<string, unknown>): boolean {
  return matchesNode(pattern, event);
}

/**
 * Matches a nested pattern object against the event value found at the same place. When that value
 * is an array of objects, one element must satisfy the whole sub-pattern: like Ruler's
 * rulesForJSONEvent, a match never combines fields from different elements of one array.
 * (Consequence: `exists: false` holds for an element that lacks the field even if a sibling has it.)
 */
function matchesNode(pattern: JsonObject, value: unknown): boolean {
  return objectCandidates(value).some((candidate) => matchesFields(pattern, candidate));
}

function matchesFields(pattern: JsonObject, object: JsonObject): boolean {
  return Object.entries(pattern).every(([key, sub]) => {
    if (key === OR_KEY && Array.isArray(sub)) {
      return sub.some((alternative) => isPlainObject(alternative) && matchesFields(alternative, object));
    }
    // Own properties only: a pattern field named "constructor" must not find Object.prototype's.
    const value = Object.hasOwn(object, key) ? object[key] : undefined;
    if (Array.isArray(sub)) return matchesLeaf(sub, value);
    if (isPlainObject(sub)) return matchesNode(sub, value);
    return false;
  });
}

/** The objects a nested pattern is tried against; `{}` when there are none, so `exists: false` can hold. */
function objectCandidates(value: unknown): JsonObject[] {
  const objects = flatten(value).filter(isPlainObject);
  return objects.length > 0 ? objects : [{}];
}

/**
 * The leaf values of an event field: a scalar (null included), or the scalars of an array, at any
 * depth. An object is not a leaf, so, as in EventBridge, `exists` looks at leaves only.
 */
function leafValues(value: unknown): unknown[] {
  if (value === undefined) return [];
  return flatten(value).filter((item) => !isPlainObject(item));
}

function flatten(value: unknown): unknown[] {
  return Array.isArray(value) ? value.flatMap(flatten) : [value];
}

function matchesLeaf(matchers: readonly unknown[], value: unknown): boolean {
  const leaves = leafValues(value);
  return matchers.some((matcher) => {
    if (isPlainObject(matcher) && Object.hasOwn(matcher, 'exists')) {
      return matcher['exists'] === true ? leaves.length > 0 : leaves.length === 0;
    }
    return leaves.some((leaf) => matchesValue(matcher, leaf));
  });
}

function matchesValue(matcher: unknown, leaf: unknown): boolean {
  if (!isPlainObject(matcher)) return matcher === leaf;
  const [operator, operand] = singleEntry(matcher) ?? [];
  switch (operator) {
    case 'prefix':
      return typeof leaf === 'string' && matchesAffix(operand, leaf, (text, affix) => text.startsWith(affix));
    case 'suffix':
      return typeof leaf === 'string' && matchesAffix(operand, leaf, (text, affix) => text.endsWith(affix));
    case 'equals-ignore-case':
      return typeof leaf === 'string' && typeof operand === 'string' && foldCase(leaf) === foldCase(operand);
    case 'wildcard':
      return typeof leaf === 'string' && typeof operand === 'string' && matchesWildcard(operand, leaf);
    case 'numeric':
      return typeof leaf === 'number' && Array.isArray(operand) && matchesNumeric(operand, leaf);
    case 'cidr':
      return typeof leaf === 'string' && typeof operand === 'string' && matchesCidr(operand, leaf);
    case 'anything-but':
      return matchesAnythingBut(operand, leaf);
    default:
      return false;
  }
}

/** `prefix`/`suffix` take a string or `{ "equals-ignore-case": string }`. */
function matchesAffix(operand: unknown, text: string, test: (text: string, affix: string) => boolean): boolean {
  if (typeof operand === 'string') return test(text, operand);
  if (isPlainObject(operand) && typeof operand['equals-ignore-case'] === 'string') {
    return test(foldCase(text), foldCase(operand['equals-ignore-case']));
  }
  return false;
}

function matchesAnythingBut(operand: unknown, leaf: unknown): boolean {
  if (Array.isArray(operand)) return !operand.some((excluded) => excluded === leaf);
  if (!isPlainObject(operand)) return operand !== leaf;
  // The string forms exclude strings only. EventBridge compares values in their JSON form, where a
  // number, boolean or null can never start/end with or equal a quoted string, so those match.
  if (typeof leaf !== 'string') return true;
  const [operator, inner] = singleEntry(operand) ?? [];
  const excluded = (Array.isArray(inner) ? inner : [inner]).filter((item): item is string => typeof item === 'string');
  switch (operator) {
    case 'prefix':
      return !excluded.some((prefix) => leaf.startsWith(prefix));
    case 'suffix':
      return !excluded.some((suffix) => leaf.endsWith(suffix));
    case 'equals-ignore-case':
      return !excluded.some((value) => foldCase(value) === foldCase(leaf));
    case 'wildcard':
      return !excluded.some((wildcard) => matchesWildcard(wildcard, leaf));
    default:
      return false;
  }
}

function matchesNumeric(conditions: readonly unknown[], value: number): boolean {
  for (let index = 0; index + 1 < conditions.length; index += 2) {
    const operator = conditions[index];
    const bound = conditions[index + 1];
    if (typeof bound !== 'number') return false;
    const holds =
      operator === '='
        ? value === bound
        : operator === '<'
          ? value < bound
          : operator === '<='
            ? value <= bound
            : operator === '>'
              ? value > bound
              : operator === '>='
                ? value >= bound
                : false;
    if (!holds) return false;
  }
  return true;
}

/** `*` stands for any run of characters (none included); `\*` is a literal star, `\\` a backslash. */
function matchesWildcard(wildcard: string, text: string): boolean {
  let source = '';
  for (let index = 0; index < wildcard.length; index += 1) {
    const char = wildcard[index] ?? '';
    if (char === '\\') {
      index += 1;
      source += escapeRegExp(wildcard[index] ?? '');
    } else {
      source += char === '*' ? '[\\s\\S]*' : escapeRegExp(char);
    }
  }
  return new RegExp(`^${source}$`, 'u').test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function foldCase(text: string): string {
  return text.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// IP addresses (cidr)
// ---------------------------------------------------------------------------------------------

interface IpAddress {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

function matchesCidr(cidr: string, text: string): boolean {
  const block = parseCidr(cidr);
  const address = parseIp(text);
  if (!block || !address || block.address.bits !== address.bits) return false;
  const hostBits = BigInt(address.bits - block.maskBits);
  return address.value >> hostBits === block.address.value >> hostBits;
}

function parseCidr(cidr: string): { address: IpAddress; maskBits: number } | undefined {
  const [ip, mask, extra] = cidr.split('/');
  if (ip === undefined || mask === undefined || extra !== undefined || !/^\d{1,3}$/.test(mask)) return undefined;
  const address = parseIp(ip);
  const maskBits = Number(mask);
  if (!address || maskBits > address.bits) return undefined;
  return { address, maskBits };
}

function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { bits: 32, value: v4 };
  const v6 = parseIpv6(text);
  return v6 === undefined ? undefined : { bits: 128, value: v6 };
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (half: string | undefined): string[] | undefined => {
    if (!half) return [];
    const groups = half.split(':');
    const last = groups.at(-1) ?? '';
    // An IPv4 tail (e.g. ::ffff:10.0.0.1) counts as two groups.
    if (last.includes('.')) {
      const v4 = parseIpv4(last);
      if (v4 === undefined) return undefined;
      groups.splice(-1, 1, (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16));
    }
    return groups;
  };
  const head = toGroups(halves[0]);
  const tail = toGroups(halves[1]);
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

const NUMERIC_OPERATORS = new Set(['=', '<', '<=', '>', '>=']);

/**
 * The problems that would make EventBridge (or Lambda) reject the pattern, as human-readable
 * sentences naming the offending path; empty when the pattern is valid. Also refuses empty
 * objects, which would silently match every event.
 */
export function validateEventPattern(pattern: unknown): string[] {
  const problems: string[] = [];
  if (!isPlainObject(pattern)) {
    problems.push('The pattern must be a JSON object.');
    return problems;
  }
  validateObject(pattern, '', problems);
  return problems;
}

function validateObject(pattern: JsonObject, path: string, problems: string[]): void {
  const keys = Object.keys(pattern);
  if (keys.length === 0) {
    problems.push(`${subject(path)} is an empty object; it would match every event.`);
    return;
  }
  for (const key of keys) {
    const value = pattern[key];
    const fieldPath = path ? `${path}.${key}` : key;
    if (key === OR_KEY) {
      validateOr(value, fieldPath, problems);
    } else if (Array.isArray(value)) {
      if (value.length === 0) problems.push(`"${fieldPath}" is an empty array; list at least one value to match.`);
      value.forEach((matcher, index) => validateMatcher(matcher, `${fieldPath}[${index}]`, problems));
    } else if (isPlainObject(value)) {
      validateObject(value, fieldPath, problems);
    } else {
      problems.push(
        `"${fieldPath}" must be an array of values or a nested object, not ${JSON.stringify(value)} (write [${JSON.stringify(value)}]).`,
      );
    }
  }
}

function validateOr(value: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(value) || value.length < 2) {
    problems.push(`"${path}" must be an array of at least two patterns.`);
    return;
  }
  value.forEach((alternative, index) => {
    if (isPlainObject(alternative)) validateObject(alternative, `${path}[${index}]`, problems);
    else problems.push(`"${path}[${index}]" must be a pattern object.`);
  });
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
  switch (operator) {
    case 'prefix':
    case 'suffix':
      if (typeof operand === 'string') return;
      if (isPlainObject(operand) && singleEntry(operand)?.[0] === 'equals-ignore-case') {
        if (typeof operand['equals-ignore-case'] !== 'string') problems.push(`${at}.equals-ignore-case must be a string.`);
        return;
      }
      problems.push(`${at} must be a string or { "equals-ignore-case": string }.`);
      return;
    case 'equals-ignore-case':
      if (typeof operand !== 'string') problems.push(`${at} must be a string.`);
      return;
    case 'wildcard':
      validateWildcard(operand, at, problems);
      return;
    case 'numeric':
      validateNumeric(operand, at, problems);
      return;
    case 'cidr':
      if (typeof operand !== 'string' || !parseCidr(operand)) {
        problems.push(`${at} must be an IPv4 or IPv6 block such as "10.0.0.0/24", not ${JSON.stringify(operand)}.`);
      }
      return;
    case 'exists':
      if (typeof operand !== 'boolean') problems.push(`${at} must be true or false.`);
      return;
    case 'anything-but':
      validateAnythingBut(operand, at, problems);
      return;
    default:
      problems.push(`"${path}" uses the unknown operator "${operator}".`);
  }
}

function validateAnythingBut(operand: unknown, at: string, problems: string[]): void {
  if (typeof operand === 'string') return;
  if (typeof operand === 'number') {
    if (!Number.isFinite(operand)) problems.push(`${at} must be a finite number.`);
    return;
  }
  if (Array.isArray(operand)) {
    const allStrings = operand.every((item) => typeof item === 'string');
    const allNumbers = operand.every((item) => typeof item === 'number' && Number.isFinite(item));
    if (operand.length === 0 || !(allStrings || allNumbers)) {
      problems.push(`${at} must list only strings or only numbers, and at least one.`);
    }
    return;
  }
  const entry = isPlainObject(operand) ? singleEntry(operand) : undefined;
  if (!entry) {
    problems.push(`${at} must be a string, a number, a list of them, or one of prefix/suffix/equals-ignore-case/wildcard.`);
    return;
  }
  const [operator, inner] = entry;
  const innerAt = `${at}.${operator}`;
  const values = Array.isArray(inner) ? inner : [inner];
  switch (operator) {
    case 'prefix':
    case 'suffix':
    case 'equals-ignore-case':
      if (values.length === 0 || !values.every((value) => typeof value === 'string' && value !== '')) {
        problems.push(`${innerAt} must be a non-empty string or a list of them.`);
      }
      return;
    case 'wildcard':
      if (values.length === 0) problems.push(`${innerAt} must list at least one wildcard.`);
      values.forEach((value) => validateWildcard(value, innerAt, problems));
      return;
    default:
      problems.push(`${at} does not support "${operator}".`);
  }
}

function validateWildcard(operand: unknown, at: string, problems: string[]): void {
  if (typeof operand !== 'string') {
    problems.push(`${at} must be a string.`);
    return;
  }
  for (let index = 0; index < operand.length; index += 1) {
    const char = operand[index];
    if (char === '\\') {
      const next = operand[index + 1];
      if (next !== '*' && next !== '\\') {
        problems.push(`${at} "${operand}": a backslash may only escape "*" or "\\" (position ${index + 1}).`);
        return;
      }
      index += 1;
    } else if (char === '*' && operand[index + 1] === '*') {
      problems.push(`${at} "${operand}": consecutive wildcard characters at position ${index + 2}.`);
      return;
    }
  }
}

/** One comparison (`["<", 10]`, `["=", 3]`), or a lower then an upper bound (`[">", 0, "<=", 5]`). */
function validateNumeric(operand: unknown, at: string, problems: string[]): void {
  if (!Array.isArray(operand) || (operand.length !== 2 && operand.length !== 4)) {
    problems.push(`${at} must be [operator, number] or [">" | ">=", number, "<" | "<=", number].`);
    return;
  }
  for (let index = 0; index < operand.length; index += 2) {
    const operator = operand[index];
    const bound = operand[index + 1];
    if (typeof operator !== 'string' || !NUMERIC_OPERATORS.has(operator)) {
      problems.push(`${at}: ${JSON.stringify(operator)} is not one of =, <, <=, >, >=.`);
      return;
    }
    if (typeof bound !== 'number' || !Number.isFinite(bound)) {
      problems.push(`${at}: the value after "${operator}" must be a number.`);
      return;
    }
  }
  if (operand.length === 4) {
    const [low, bottom, high, top] = operand as [string, number, string, number];
    if ((low !== '>' && low !== '>=') || (high !== '<' && high !== '<=')) {
      problems.push(`${at}: a range is a lower bound (> or >=) followed by an upper bound (< or <=).`);
    } else if (bottom >= top) {
      problems.push(`${at}: the lower bound ${bottom} must be less than the upper bound ${top}.`);
    }
  }
}

// ---------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function singleEntry(object: JsonObject): [string, unknown] | undefined {
  const entries = Object.entries(object);
  return entries.length === 1 ? entries[0] : undefined;
}

function subject(path: string): string {
  return path ? `"${path}"` : 'The pattern';
}
