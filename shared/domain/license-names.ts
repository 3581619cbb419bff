/**
 * How license names, URLs and texts are compared with ScanCode's knowledge of them: the one
 * normalisation the index is built with (bin/build-license-rules.ts) and looked up with, so a name
 * written `The Apache Software Licence, Version 2.0` meets the rule written `Apache Software License 2.0`.
 * Pure.
 */
import { createHash } from 'node:crypto';

/**
 * A license name or tag as compared: lower case, "licence" spelled "license", punctuation and
 * whitespace as one space, version spellings as the bare number (`Version 2.0`, `v2.0`, `v. 2`, `2.0`
 * are all `2`; `2.1` stays), a leading "the" dropped. `+` is kept (`GPL-2.0+` is not `GPL-2.0`), and so
 * is a dot between digits (`2.1`).
 */
export function normaliseLicenseName(text: string): string {
  let name = text
    .normalize('NFKC')
    .toLowerCase()
    // ScanCode's rules mark required phrases {{so}}.
    .replace(/\{\{|\}\}/g, ' ')
    .replace(/licen[cs]e/g, 'license')
    // `GPLv2`, `LGPLv2.1`: a version glued to a name.
    .replace(/([a-z])v(\d)/g, '$1 $2')
    // `lgpl_v2_1`: a version written with underscores.
    .replace(/(\d)_(?=\d)/g, '$1.')
    // Anything but letters, digits, `+` and a dot between digits is a separator.
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ')
    .replace(/[^a-z0-9+.]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // `version 2`, `ver 2`, `v 2`, `v. 2` and `v2` say nothing more than `2`.
  name = name.replace(/\b(?:version|ver|v)\s*(?=\d)/g, '');
  // `2.0` and `2.0.0` are `2`; `2.1` and `1.0.1` keep what is not zero.
  name = name.replace(/\b(\d+)((?:\.\d+)*)\b/g, (_whole, major: string, rest: string) => major + rest.replace(/(?:\.0)+$/, ''));
  return name.replace(/^the\s+/, '');
}

/**
 * A license URL as compared: no scheme, no `www.`, the host in lower case, no fragment, no trailing
 * slash. The path keeps its letter case and extension (`LICENSE-2.0.txt` and `LICENSE-2.0` are both
 * in the index when ScanCode knows both). '' for text that is no http(s) or ftp URL.
 */
export function normaliseLicenseUrl(text: string): string {
  const match = /^\s*(?:https?|ftp):\/\/([^/?#\s]+)([^#\s]*)(?:#\S*)?\s*$/i.exec(text);
  if (!match) return '';
  const host = match[1]!.toLowerCase().replace(/^www\./, '').replace(/:(80|443)$/, '');
  const rest = match[2]!.replace(/\/+$/, '');
  return host + rest;
}

/** Whether a text is written as a URL (and so is looked up among URLs, not names). */
export const isLicenseUrl = (text: string) => normaliseLicenseUrl(text) !== '';

/**
 * A full license text's digest for an exact match after normalisation: lower case, "licence" spelled
 * "license", every run of non-alphanumeric characters as one space (line breaks, indentation,
 * punctuation and quotes as producers reflow them). 16 hex digits of SHA-256.
 */
export function licenseTextDigest(text: string): string {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/licen[cs]e/g, 'license')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return createHash('sha256').update(words).digest('hex').slice(0, 16);
}

/** Texts shorter than this are names, not license texts, and are not looked up by digest. */
export const MIN_LICENSE_TEXT_LENGTH = 200;
