/** Turns zod issues into DRF-style field errors: `{"field": ["message"]}`, `non_field_errors` for the whole body. */
import type { z } from 'zod';
import type { FieldErrors } from '../domain/errors.ts';

export function fieldErrorsFromZod(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'non_field_errors';
    (errors[field] ??= []).push(messageOf(issue));
  }
  return errors;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'This field is required.';
  if (issue.code === 'invalid_type' && issue.input === null) return 'This field may not be null.';
  if (issue.code === 'unrecognized_keys') return `Unknown field(s): ${issue.keys.join(', ')}.`;
  return issue.message;
}
