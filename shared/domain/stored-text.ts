/**
 * What any string must be before the service stores or uses it, whoever sent it: well-formed UTF-16
 * (no unpaired surrogate: it has no UTF-8 form, and encodeURIComponent throws on it) and, in the
 * catalog's fields, free of control characters (\p{Cc}: U+0000-U+001F, U+007F-U+009F), which the
 * catalog's schemas refuse (shared/schemas/common.ts, catalog.ts). The API's JSON bodies
 * (shared/schemas/json-input.ts) and the SBOM readers (shared/sbom/) check with it. Pure.
 */

// String.prototype.isWellFormed, spelled out: the web console's TypeScript library predates it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL = /\p{Cc}/u;
/** What printable() escapes: unpaired surrogates and control characters (\p{Cc} is all in these two ranges). */
const UNPRINTABLE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\u0000-\u001f\u007f-\u009f]/g;

/** Whether `text` holds no unpaired surrogate. */
export const wellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Why `text` cannot be stored, as words that follow "holds" ("an unpaired surrogate (U+D800)", "the
 * control character U+0007"), or undefined when it can.
 */
export function storedTextProblem(text: string): string | undefined {
  const lone = LONE_SURROGATE.exec(text);
  if (lone) return `an unpaired surrogate (${codePoint(lone[0])})`;
  const control = CONTROL.exec(text);
  if (control) return `the control character ${codePoint(control[0])}`;
  return undefined;
}

/**
 * `text` with each unpaired surrogate and control character written as its JSON escape (\ud800,
 * \u0007): a refused value quoted in a message stays storable and shows what was refused.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
