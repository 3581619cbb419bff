import { describe, expect, it } from 'vitest';
import { fold, matchesSearch, parseSearch, searchText, splitSearch } from '../../shared/domain/search.ts';

describe('splitSearch: the terms of ?search= as DRF 3.16 splits them', () => {
  it.each([
    ['one word', 'zlib', ['zlib']],
    ['words', 'review  zlib', ['review', 'zlib']],
    ['commas', 'review,zlib', ['review', 'zlib']],
    ['commas and spaces, empty parts dropped', ' a , b ,, c ', ['a', 'b', 'c']],
    ['a quoted phrase kept whole', '"review zlib" urgent', ['review zlib', 'urgent']],
    ['single quotes', "'review zlib'", ['review zlib']],
    ['an escaped quote inside a phrase', '"a \\" b"', ['a " b']],
    ['a phrase inside a word', 'x"y z"w', ['x"y z"w']],
    ['an unterminated quote', '"open phrase', ['"open', 'phrase']],
    ['an empty phrase', '""', []],
    ['tabs and newlines', 'a\tb\nc', ['a', 'b', 'c']],
    ['only separators', ' , , ', []],
  ])('%s', (_, value, expected) => {
    expect(splitSearch(value)).toEqual(expected);
  });
});

describe('fold: how search compares text', () => {
  it.each([
    ['letter case', 'ÄRGER', 'ärger'],
    ['decomposed and composed forms', 'A\u0308rger', 'ärger'],
    ['a ligature (NFKC)', 'ﬁle', 'file'],
    ['full-width letters (NFKC)', 'Ｚｌｉｂ', 'zlib'],
    ['sharp s (full case mapping)', 'Straße', 'strasse'],
    ['a final sigma', 'ΟΔΟΣ', 'οδοσ'],
    ['a control character', 'a\u0001b', 'a b'],
  ])('%s', (_, value, expected) => {
    expect(fold(value)).toBe(expected);
  });
});

describe('parseSearch', () => {
  it('answers the folded terms, each once', () => {
    expect(parseSearch('Zlib ZLIB review')).toEqual({ ok: true, terms: ['zlib', 'review'] });
  });

  it.each([undefined, '', '   ', ',,'])('takes %j as no search', (value) => {
    expect(parseSearch(value)).toEqual({ ok: true, terms: [] });
  });

  it('accepts 10 terms of 100 characters', () => {
    const value = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(100, 'x')).join(' ');
    expect(parseSearch(value)).toMatchObject({ ok: true });
  });

  it.each([
    ['11 terms', 'a b c d e f g h i j k', 'Ensure there are no more than 10 search terms.'],
    ['a term of 101 characters', 'x'.repeat(101), 'Ensure each search term has no more than 100 characters.'],
    ['a quoted phrase of 101 characters', `"${'x y '.repeat(25)}z"`, 'Ensure each search term has no more than 100 characters.'],
    ['a NUL', 'a\u0000b', 'Null characters are not allowed.'],
  ])('refuses %s', (_, value, error) => {
    expect(parseSearch(value)).toEqual({ ok: false, error });
  });

  it('counts characters, not UTF-16 units, against the length limit', () => {
    expect(parseSearch('🎉'.repeat(100))).toMatchObject({ ok: true });
  });
});

describe('matchesSearch', () => {
  const text = searchText(['Ärger Toolkit', '2.0-beta']);

  it.each([
    [['ärger'], true],
    [['toolkit', 'beta'], true],
    [['toolkit', 'gamma'], false],
    [['2.0'], true],
    // A term matches within one field, never across two.
    [['toolkit2'], false],
    [['toolkit 2'], false],
  ])('%j: %s', (terms, expected) => {
    expect(matchesSearch(text, terms)).toBe(expected);
  });
});
