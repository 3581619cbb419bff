/** Identifiers in paths and bodies: uuids, and the API URLs that may stand for them. */

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
