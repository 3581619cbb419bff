/** Entity tags and If-Match (shared/domain/etag.ts): strong comparison, `*`, lists, weak tags. */
import { describe, expect, it } from 'vitest';
import { entityTag, etagOf, parseIfMatch, requireMatch, tagged } from '../../shared/domain/etag.ts';
import { PreconditionFailedError } from '../../shared/domain/errors.ts';

describe('If-Match', () => {
  it.each([
    [undefined, '"3"', true],
    ['', '"3"', true],
    ['*', '"3"', true],
    ['"3"', '"3"', true],
    ['"2", "3"', '"3"', true],
    ['"2","3"', '"3"', true],
    ['"2"', '"3"', false],
    // If-Match compares strongly: a weak tag never matches.
    ['W/"3"', '"3"', false],
    // An unquoted tag is not the tag.
    ['3', '"3"', false],
    ['"3-1"', entityTag(3, 1), true],
    ['"3-1"', entityTag(3, 2), false],
  ])('If-Match %j against %s: holds %s', (header, current, holds) => {
    const check = () => requireMatch(parseIfMatch(header), current);
    if (holds) expect(check).not.toThrow();
    else expect(check).toThrow(PreconditionFailedError);
  });

  it('tags are strong and quoted', () => {
    expect(entityTag(7)).toBe('"7"');
    expect(entityTag(7, 2)).toBe('"7-2"');
  });

  it('a tag rides on a view without being part of its JSON or its equality', () => {
    const view = tagged({ uuid: 'u', name: 'n' }, '"4"');
    expect(etagOf(view)).toBe('"4"');
    expect(JSON.stringify(view)).toBe('{"uuid":"u","name":"n"}');
    expect(view).toEqual({ uuid: 'u', name: 'n' });
    expect(etagOf({ uuid: 'u' })).toBeUndefined();
    expect(etagOf(undefined)).toBeUndefined();
  });
});
