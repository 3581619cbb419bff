import { describe, expect, it } from 'vitest';
import { canonicalName, invisibleCharacter } from '../../shared/domain/text.ts';
import { uniqueName } from '../../shared/schemas/common.ts';

describe('invisible characters in names', () => {
  it.each([
    ['zero-width space', 'a\u200bb', 'U+200B'],
    ['zero-width non-joiner', 'a\u200cb', 'U+200C'],
    ['zero-width joiner', 'a\u200db', 'U+200D'],
    ['left-to-right mark', '\u200eab', 'U+200E'],
    ['right-to-left mark', 'ab\u200f', 'U+200F'],
    ['left-to-right embedding', '\u202aab', 'U+202A'],
    ['right-to-left override', 'a\u202eb', 'U+202E'],
    ['left-to-right isolate', 'a\u2066b', 'U+2066'],
    ['pop directional isolate', 'a\u2069b', 'U+2069'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['byte-order mark', '\ufeffab', 'U+FEFF'],
    ['Arabic letter mark', 'a\u061cb', 'U+061C'],
    ['line separator', 'a\u2028b', 'U+2028'],
    ['tag character', 'a\u{e0041}b', 'U+E0041'],
  ])('finds a %s', (_, value, expected) => {
    expect(invisibleCharacter(value)).toBe(expected);
  });

  it.each(['Café', 'Cafe\u0301', 'naïve résumé', 'Ελληνικά', 'עברית', 'العربية', '中文', 'emoji 🎉', 'a b'])('leaves %j alone', (value) => {
    expect(invisibleCharacter(value)).toBeUndefined();
  });

  it('names compose to NFC', () => {
    expect(canonicalName('Cafe\u0301')).toBe('Caf\u00e9');
    expect(canonicalName('Caf\u00e9')).toBe('Caf\u00e9');
    expect(canonicalName('\u212b')).toBe('\u00c5'); // the Ångström sign is the letter Å
  });
});

describe('uniqueName schema', () => {
  const schema = uniqueName(10);

  it('answers the NFC form, trimmed', () => {
    expect(schema.parse('  Cafe\u0301 ')).toBe('Caf\u00e9');
  });

  it('measures the length of the NFC form', () => {
    expect(schema.safeParse('e\u0301'.repeat(10)).success).toBe(true);
  });

  it('refuses an invisible character, naming it', () => {
    const result = schema.safeParse('Ca\u200bfé');
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'Invisible character U+200B is not allowed (zero-width characters, bidirectional controls).',
    ]);
  });

  it('refuses control characters and over-long names as before', () => {
    expect(schema.safeParse('a\u0001b').error?.issues.map((issue) => issue.message)).toEqual(['Control characters are not allowed.']);
    expect(schema.safeParse('x'.repeat(11)).error?.issues.map((issue) => issue.message)).toEqual(['Ensure this field has no more than 10 characters.']);
  });
});
