/** The catalog pages' display rules: decoded purls, risk bands, usage policy tones, an expression's keys. */
import { describe, expect, it } from 'vitest';
import { displayPurl, expressionKeys, lastSegment, policyTone, riskBand } from '../../web/src/lib/catalog-display.ts';

describe('catalog display', () => {
  it.each([
    ['pkg:npm/%40aws-sdk/client-dynamodb@3.1162.0', 'pkg:npm/@aws-sdk/client-dynamodb@3.1162.0'],
    ['pkg:npm/left-pad@1.3.0', 'pkg:npm/left-pad@1.3.0'],
    ['pkg:pypi/caf%C3%A9@1.0?arch=x86%5F64', 'pkg:pypi/café@1.0?arch=x86_64'],
    ['pkg:generic/broken%E0@1', 'pkg:generic/broken%E0@1'],
    ['pkg:maven/org.example/a%2Fb@1.0?classifier=x%20y#sub%2Fpath', 'pkg:maven/org.example/a/b@1.0?classifier=x y#sub/path'],
    ['pkg:generic/100%@1', 'pkg:generic/100%@1'],
    ['pkg:generic/x@1.0%2Bbuild', 'pkg:generic/x@1.0+build'],
  ])('shows %s as %s', (purl, shown) => expect(displayPurl(purl)).toBe(shown));

  it.each([
    [null, 'Not scored', 'none'],
    [0, 'None', 'ok'],
    [0.1, 'Low', 'notice'],
    [3.9, 'Low', 'notice'],
    [4, 'Medium', 'warning'],
    [6.9, 'Medium', 'warning'],
    [7, 'High', 'error'],
    [8.9, 'High', 'error'],
    [9, 'Critical', 'error'],
    [10, 'Critical', 'error'],
  ] as const)('bands the risk score %s as %s (%s)', (score, label, tone) => expect(riskBand(score)).toEqual({ label, tone }));

  it('tones a usage policy by its compliance alert', () => {
    expect([policyTone('error'), policyTone('warning'), policyTone(''), policyTone(undefined)]).toEqual(['error', 'warning', 'ok', 'none']);
  });

  it('lists the keys an expression names, once each', () => {
    expect(expressionKeys('(mit OR apache-2.0) AND gpl-2.0 WITH classpath-exception-2.0 AND mit')).toEqual(['mit', 'apache-2.0', 'gpl-2.0', 'classpath-exception-2.0']);
    expect(expressionKeys('')).toEqual([]);
    expect(lastSegment('http://127.0.0.1:8000/api/v2/products/6f1c/')).toBe('6f1c');
  });
});
