/** Text as DynamoDB orders and bounds it: by UTF-8 bytes, which is code point order. */

/** Compares two strings in DynamoDB's order (UTF-8 bytes = code points), not JavaScript's UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** The longest prefix of `value` that fits `maxBytes` of UTF-8, cut between code points. */
export function clipUtf8(value: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of value) {
    const size = char.codePointAt(0)! < 0x80 ? 1 : char.codePointAt(0)! < 0x800 ? 2 : char.codePointAt(0)! < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return value.slice(0, end);
}

/**
 * Characters a name may not hold because they cannot be seen: Unicode's format characters (\p{Cf}:
 * zero-width space, joiners and marks U+200B–U+200F, the bidirectional embeddings, overrides and
 * isolates U+202A–U+202E and U+2066–U+2069, the word joiner U+2060, the byte-order mark U+FEFF, the
 * Arabic letter mark, the soft hyphen, tag characters) and the line and paragraph separators.
 * "Café" and "Ca\u200Bfé" look the same: two objects that look the same may not both exist.
 */
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]/u;

/** The API's field error for a name holding `character` (U+XXXX). */
export const invisibleMessage = (character: string) =>
  `Invisible character ${character} is not allowed (zero-width characters, bidirectional controls).`;

/** The first invisible character of `value`, as U+XXXX, or undefined. */
export function invisibleCharacter(value: string): string | undefined {
  const found = INVISIBLE.exec(value);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}

/**
 * A name or key as it is stored and compared: in Unicode normalization form C, so "Café" typed
 * precomposed (U+00E9) or decomposed (e + U+0301) is one name.
 */
export function canonicalName(value: string): string {
  return value.normalize('NFC');
}
