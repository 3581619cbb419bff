/**
 * The full texts of the reference licenses (ScanCode's `.LICENSE` files; see NOTICE.md), shipped as one
 * file beside each bundle that serves them: a header (the source, and each key's offset and length) and
 * each text deflated on its own, so that a function reads and inflates only the text it answers (the
 * 2,356 texts are 15 MB as text, 4 MB so stored). Read with positioned reads; the header once a process.
 *
 * Layout: 4 bytes, the header's length (big-endian); the header, JSON; then the deflated texts.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** The file's name, here and next to each Lambda bundle that serves texts. */
export const TEXTS_DATA_FILE = 'scancode-license-texts.bin';

export interface TextsHeader {
  readonly source: { readonly repository: string; readonly path: string; readonly commit: string; readonly licence: string };
  /** key → [offset from the end of the header, deflated length] */
  readonly texts: Readonly<Record<string, readonly [number, number]>>;
}

export interface LicenseTexts {
  /** The license's full text, or undefined when the data holds none for the key. */
  text(key: string): string | undefined;
  readonly header: TextsHeader;
}

export function licenseTextsAt(file: URL | string): LicenseTexts {
  const fd = openSync(file, 'r');
  try {
    const lengthBytes = Buffer.alloc(4);
    readSync(fd, lengthBytes, 0, 4, 0);
    const headerLength = lengthBytes.readUInt32BE(0);
    const headerBytes = Buffer.alloc(headerLength);
    readSync(fd, headerBytes, 0, headerLength, 4);
    const header = JSON.parse(headerBytes.toString('utf8')) as TextsHeader;
    const base = 4 + headerLength;
    return {
      header,
      text(key) {
        if (!Object.hasOwn(header.texts, key)) return undefined;
        const [offset, length] = header.texts[key]!;
        const bytes = Buffer.alloc(length);
        const reader = openSync(file, 'r');
        try {
          readSync(reader, bytes, 0, length, base + offset);
        } finally {
          closeSync(reader);
        }
        return inflateRawSync(bytes).toString('utf8');
      },
    };
  } finally {
    closeSync(fd);
  }
}

let texts: LicenseTexts | undefined;

/** The shipped texts, their header read on first use. */
export function scancodeTexts(): LicenseTexts {
  texts ??= licenseTextsAt(new URL(`./${TEXTS_DATA_FILE}`, import.meta.url));
  return texts;
}
