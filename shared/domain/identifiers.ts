/** Identifiers in paths and bodies: uuids, and the API URLs that may stand for them. */
import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The uuid (lower case) that `reference` names: the uuid itself, or the API URL of that object in
 * `collection` (e.g. https://host/api/v2/products/<uuid>/). Undefined when it is neither.
 */
export function uuidOf(reference: string, collection: string): string | undefined {
  const fromUrl = new RegExp(`/api/v2/${collection}/([0-9a-f-]{36})/?$`, 'i').exec(reference)?.[1];
  const candidate = fromUrl ?? reference;
  return isUuid(candidate) ? candidate.toLowerCase() : undefined;
}

/** A uuid-shaped id derived from a text: the same text always gives the same id (e.g. an event's id from its stream record). */
export function stableUuid(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
