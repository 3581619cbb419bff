import { describe, expect, it } from 'vitest';
import { parseLicenseExpression } from '../../shared/domain/license-expression.ts';

describe('license expressions', () => {
  it.each([
    ['mit', 'mit', ['mit']],
    ['MIT or apache-2.0', 'MIT OR apache-2.0', ['MIT', 'apache-2.0']],
    ['mit and bsd-new or gpl-2.0', '(mit AND bsd-new) OR gpl-2.0', ['mit', 'bsd-new', 'gpl-2.0']],
    ['mit AND (bsd-new OR gpl-2.0)', 'mit AND (bsd-new OR gpl-2.0)', ['mit', 'bsd-new', 'gpl-2.0']],
    ['gpl-2.0 WITH classpath-exception-2.0', 'gpl-2.0 WITH classpath-exception-2.0', ['gpl-2.0', 'classpath-exception-2.0']],
    ['((mit))', 'mit', ['mit']],
    ['mit OR mit', 'mit OR mit', ['mit']],
    ['  lgpl-2.1+   and   x11 ', 'lgpl-2.1+ AND x11', ['lgpl-2.1+', 'x11']],
  ])('%j → %j naming %j', (text, normalized, keys) => {
    const parsed = parseLicenseExpression(text);
    expect(parsed).toMatchObject({ ok: true, normalized, keys });
  });

  it.each([
    ['', 'The expression is empty.'],
    ['mit AND', 'The expression ends too early.'],
    ['AND mit', 'Unexpected "AND".'],
    ['(mit OR bsd', 'A parenthesis is not closed.'],
    ['mit)', 'Unexpected ")".'],
    ['mit bsd', 'Unexpected "bsd".'],
    ['gpl-2.0 WITH', 'WITH must be followed by an exception key.'],
    ['mit & bsd', '"&" is not a license key.'],
    ['()', 'Unexpected ")".'],
  ])('%j is refused: %s', (text, error) => {
    expect(parseLicenseExpression(text)).toEqual({ ok: false, error });
  });
});
