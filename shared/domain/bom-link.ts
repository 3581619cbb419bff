/**
 * BOM-Links (CycloneDX): `urn:cdx:<serial>/<version>`, a BOM, and `urn:cdx:<serial>/<version>#<bom-ref>`,
 * one of its components (the bom-ref percent-encoded), as a VEX published apart from its BOM names
 * what it speaks of. Pure.
 */

/** A serialNumber as BOM-Links name it: the uuid of `urn:uuid:<uuid>`, lower case; undefined when it is none. */
export function bomLinkSerial(serialNumber: unknown): string | undefined {
  const match = typeof serialNumber === 'string' ? /^urn:uuid:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(serialNumber.trim()) : null;
  return match ? match[1]!.toLowerCase() : undefined;
}

/** A BOM-Link to a component (`urn:cdx:<serial>/<version>#<bom-ref>`, the bom-ref percent-encoded), or undefined. */
export function parseBomLink(reference: string): { readonly serial: string; readonly version: number; readonly ref: string } | undefined {
  const match = /^urn:cdx:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([1-9][0-9]{0,9})#(.+)$/i.exec(reference);
  if (!match) return undefined;
  let ref: string;
  try {
    ref = decodeURIComponent(match[3]!);
  } catch {
    ref = match[3]!;
  }
  return { serial: match[1]!.toLowerCase(), version: Number(match[2]), ref };
}

