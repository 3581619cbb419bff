/**
 * Entity tags (RFC 9110 §8.8.3) of single objects, and the If-Match precondition (§13.1.1) that
 * their writes honour. A tag is strong and derived from the object's stored revision (`rev`, which
 * every write of the object's own fields bumps), so computing it costs no hashing of the body.
 * Services attach the tag to the view they answer; the API handler sends it as the ETag header.
 */
import { PreconditionFailedError } from './errors.ts';

/** What an If-Match header asks for: the current representation whatever it is (`*`), or one of these tags. */
export type IfMatch = { readonly any: true } | { readonly tags: readonly string[] };

/** The strong entity tag of a revision, with more parts where the answer holds more than the object. */
export function entityTag(...parts: readonly number[]): string {
  return `"${parts.join('-')}"`;
}

/**
 * Reads an If-Match header: `*`, or a comma-separated list of entity tags. Weak tags (W/"…") are
 * kept, and never match: If-Match compares strongly. Absent or empty: no precondition.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (header.trim() === '*') return { any: true };
  // An entity tag's opaque part cannot hold a double quote, so a comma inside quotes is part of a tag.
  const tags = header.match(/(?:W\/)?"[^"]*"|[^,\s][^,]*/g) ?? [];
  return { tags: tags.map((tag) => tag.trim()) };
}

/** Throws PreconditionFailedError unless the precondition holds for an object whose tag is `current`. */
export function requireMatch(ifMatch: IfMatch | undefined, current: string): void {
  if (ifMatch === undefined || 'any' in ifMatch) return;
  if (!ifMatch.tags.includes(current)) throw new PreconditionFailedError();
}

/** Where a view carries its tag: a symbol key, which JSON.stringify and toEqual both leave out. */
const ETAG = Symbol('etag');

/** The view with its entity tag attached (not enumerable: it is not part of the body). */
export function tagged<T extends object>(view: T, etag: string): T {
  Object.defineProperty(view, ETAG, { value: etag, enumerable: false });
  return view;
}

/** The entity tag attached to an answer's body, if any. */
export function etagOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? ((body as Record<symbol, unknown>)[ETAG] as string | undefined) : undefined;
}
