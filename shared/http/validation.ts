/** Options for every parse at the edge: the messages need the input to name what was received. */
export const PARSE_OPTIONS = { reportInput: true } as const;

/** Turns zod issues into DRF-style field errors: `{"field": ["message"]}`, `non_field_errors` for the whole body. */
import type { z } from 'zod';
import type { FieldErrors } from '../domain/errors.ts';

export function fieldErrorsFromZod(error: z.ZodError): FieldErrors {
  // Field names come from the client: no prototype, so "constructor" or "__proto__" are plain keys.
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) (errors[fieldOf([...issue.path, key])] ??= []).push('Unknown field.');
      continue;
    }
    (errors[fieldOf(issue.path)] ??= []).push(messageOf(issue));
  }
  return errors;
}

/** The field an issue belongs to: its object path, up to the first list index (a list's errors are the list's). */
function fieldOf(path: readonly PropertyKey[]): string {
  const names: string[] = [];
  for (const segment of path) {
    if (typeof segment !== 'string') break;
    names.push(segment);
  }
  return names.length > 0 ? names.join('.') : 'non_field_errors';
}

const TYPE_NAMES: Record<string, string> = { array: 'list', string: 'str', number: 'int', boolean: 'bool', null: 'NoneType' };

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.path.length === 0 && issue.expected === 'object') {
    const received = Array.isArray(issue.input) ? 'array' : issue.input === null ? 'null' : typeof issue.input;
    return `Invalid data. Expected a dictionary, but got ${TYPE_NAMES[received] ?? received}.`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'This field is required.';
  if (issue.code === 'invalid_type' && issue.input === null) return 'This field may not be null.';
  if (issue.code === 'invalid_type') {
    const received = Array.isArray(issue.input) ? 'array' : typeof issue.input;
    switch (issue.expected) {
      case 'string':
        return 'Not a valid string.';
      case 'boolean':
        return 'Must be a valid boolean.';
      case 'number':
      case 'int':
        return 'A valid number is required.';
      case 'array':
        return `Expected a list of items but got type "${TYPE_NAMES[received] ?? received}".`;
      case 'object':
        return `Expected a dictionary of items but got type "${TYPE_NAMES[received] ?? received}".`;
    }
  }
  return issue.message;
}
