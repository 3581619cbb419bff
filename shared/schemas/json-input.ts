/**
 * Limits on parsed JSON that the schemas cannot express, checked without recursion (a recursive walk
 * overflows the stack on 100,000 nested arrays, which a 1 MB body can hold), and the one schema for a
 * JSON object whose keys the client chooses.
 */
import * as z from 'zod';
import { wellFormed } from '../domain/stored-text.ts';

/**
 * The deepest nesting of arrays and objects a body, or a JSON text inside one, may have. The deepest
 * body the API takes is three levels (policy rules: type → parameters → value); 64 leaves room and
 * keeps every later recursive step (zod, JSON.stringify, the DynamoDB marshaller) far from the stack's end.
 */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels`;
export const UNPAIRED_SURROGATE = 'a string holds an unpaired surrogate (\\ud800-\\udfff)';

/**
 * What is wrong with a parsed JSON value, or undefined: nesting deeper than MAX_JSON_DEPTH, or a
 * string or key that is not well-formed Unicode. An explicit stack, never recursion.
 */
export function jsonProblem(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current === 'string') {
      if (!wellFormed(current)) return UNPAIRED_SURROGATE;
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
    if (Array.isArray(current)) {
      for (const item of current) pending.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(current)) {
      if (!wellFormed(key)) return UNPAIRED_SURROGATE;
      pending.push([(current as Record<string, unknown>)[key], depth + 1]);
    }
  }
  return undefined;
}

/**
 * A JSON object whose keys the client chooses (rule types, question labels), passed on as parsed:
 * every own key is kept, "__proto__" included. JSON.parse makes `{"__proto__": 1}` an own key, but
 * z.record (like any copy into `{}` by assignment) skips it, so it would vanish before the domain,
 * which names every key it does not know, could refuse it. The domain checks keys and values.
 */
export function jsonObject(error: string | ((input: unknown) => string)) {
  return z
    .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
      error: typeof error === 'string' ? error : (issue) => error(issue.input),
    })
    .meta({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} } as Record<string, unknown>);
}

const PYTHON_TYPES: Record<string, string> = { array: 'list', string: 'str', number: 'int', boolean: 'bool', null: 'NoneType', undefined: 'NoneType' };

/** DRF's message for a body that is not an object: "Invalid data. Expected a dictionary, but got list." */
export function expectedDictionary(input: unknown): string {
  const type = Array.isArray(input) ? 'array' : input === null ? 'null' : typeof input;
  return `Invalid data. Expected a dictionary, but got ${PYTHON_TYPES[type] ?? type}.`;
}
