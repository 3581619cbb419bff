/** Identifiers in paths and bodies: uuids, and the API URLs that may stand for them. */
import { v5 as uuidV5 } from 'uuid';

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

/** The service's own UUID v5 namespace (drawn once at random): the ids it derives are its own. */
export const STABLE_UUID_NAMESPACE = '922c3ea7-4dc3-4190-aab7-d92fecb6cbfe';

/**
 * A UUID v5 (RFC 9562: SHA-1 of the service's namespace and `text`): the same text always gives the
 * same id (an event's id from its stream record, a delivery's from its event and subscription).
 */
export function stableUuid(text: string): string {
  return uuidV5(text, STABLE_UUID_NAMESPACE);
}
