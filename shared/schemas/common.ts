/** zod schemas shared by many endpoints: error bodies and pagination. They feed validation and OpenAPI. */
import * as z from 'zod';
import { invisibleCharacter, invisibleMessage } from '../domain/text.ts';
import { MAX_SEARCH_TERM_LENGTH, MAX_SEARCH_TERMS, parseSearch } from '../domain/search.ts';

export const DetailErrorSchema = z
  .object({ detail: z.string() })
  .meta({ id: 'DetailError', description: 'A DRF-style error that is not about one field.' });

export const FieldErrorsSchema = z
  .record(z.string(), z.array(z.string()))
  .meta({ id: 'FieldErrors', description: 'Field name (or non_field_errors) to its error messages.' });

export const ApiRootSchema = z
  .record(z.string(), z.url())
  .meta({ id: 'ApiRoot', description: 'Each list endpoint of the API by name, as an absolute URL.' });

export function paginated<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      count: z.int().nonnegative(),
      next: z.url().nullable(),
      previous: z.url().nullable(),
      results: z.array(item),
    })
    .meta({ id });
}

/** The query of a paginated list: page and page_size (validated by the pagination itself), plus filters. */
export function pageQuery<T extends z.ZodRawShape>(filters: T) {
  return z.object({
    page: z.string().optional().describe('Page number (1 by default)'),
    page_size: z.string().optional().describe('Items per page: 10 by default, at most 100'),
    ...filters,
  });
}

/**
 * A list's `search` query parameter (DRF's SearchFilter), searching `fields`: refused at the edge
 * when parseSearch refuses it (too many or too long terms).
 */
export function searchQuery(fields: readonly string[]) {
  return z
    .string()
    .optional()
    .superRefine((value, context) => {
      const parsed = parseSearch(value);
      if (!parsed.ok) context.addIssue({ code: 'custom', message: parsed.error });
    })
    .describe(
      `Search terms, separated by spaces or commas ("quoted phrases" kept whole): each must be contained, ignoring case, ` +
        `in one of ${fields.join(', ')}. At most ${MAX_SEARCH_TERMS} terms of at most ${MAX_SEARCH_TERM_LENGTH} characters.`,
    );
}

/**
 * A request body: the writable fields, plus the read-only fields of the representation, which a
 * client may send back (GET, modify, PUT) and which are dropped; any other field is "Unknown field.".
 */
export function writableObject<T extends z.ZodRawShape>(shape: T, readOnly: readonly string[]) {
  return z
    .object({ ...shape, ...Object.fromEntries(readOnly.map((field) => [field, z.unknown().optional()])) })
    .catchall(z.never({ error: 'Unknown field.' }))
    .transform((value) => {
      const result: Record<string, unknown> = { ...value };
      for (const field of readOnly) delete result[field];
      return result as { [K in keyof T]: z.output<T[K]> };
    });
}

/**
 * A received value as an error message quotes it: strings and numbers as they are, anything else as
 * short JSON. Never throws, whatever the client sent (`{"toString": "x"}` cannot be made a string).
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 100 ? `${value.slice(0, 100)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return typeof value;
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/**
 * The start of every name or key that must be unique (product name and version, usage policy label,
 * license key, package parts; the load file's names): the NFC form of the text, refused when it holds
 * a character that cannot be seen (shared/domain/text.ts), so two names that look the same are one.
 * Chain the field's own rules after it; they see the NFC form.
 */
export function visibleName(message: (character: string) => string = invisibleMessage) {
  return z
    .string()
    .normalize('NFC')
    .refine((value) => invisibleCharacter(value) === undefined, { error: (issue) => message(invisibleCharacter(String(issue.input))!) });
}

/** A unique name of the API: NFC, visible, trimmed, at most `max` characters, no control characters. */
export function uniqueName(max: number) {
  return visibleName()
    .trim()
    .max(max, `Ensure this field has no more than ${max} characters.`)
    .refine((value) => !/\p{Cc}/u.test(value), 'Control characters are not allowed.');
}
