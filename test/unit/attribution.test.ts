/**
 * Attribution notices rendered (shared/domain/attribution.ts): every SBOM-given value escaped, nothing
 * loaded from elsewhere, each license's text once, unknown licenses as written, links only to http(s).
 */
import { describe, expect, it } from 'vitest';
import { attributionHtml, attributionLicenseKeys, attributionText, sortedForAttribution, type Attribution, type AttributionPackage } from '../../shared/domain/attribution.ts';

const aPackage = (overrides: Partial<AttributionPackage> = {}): AttributionPackage => ({
  name: 'left-pad',
  version: '1.3.0',
  purl: 'pkg:npm/left-pad@1.3.0',
  homepageUrl: 'https://github.com/left-pad/left-pad',
  copyright: 'Copyright (c) 2014 Azer',
  notice: '',
  licenseExpression: 'mit',
  licenseExpressionSpdx: 'MIT',
  unknownLicenses: [],
  ...overrides,
});

const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
const attribution = (packages: AttributionPackage[]): Attribution => ({
  product: { name: `Shop ${hostile}`, version: '2' },
  packages,
  licenses: attributionLicenseKeys(packages).map((key) => ({ key, name: key === 'mit' ? 'MIT License' : key, spdxKey: key === 'mit' ? 'MIT' : '', text: key === 'mit' ? 'Permission is hereby granted <free>.' : '' })),
  generatedAt: '2026-11-29T16:00:00+00:00',
});

describe('attribution notices', () => {
  it('escapes every value a document gave, loads nothing from elsewhere, and links only http(s) home pages', () => {
    const html = attributionHtml(
      attribution([
        aPackage({ name: hostile, version: hostile, purl: `pkg:npm/x@1?${hostile}`, copyright: hostile, homepageUrl: 'javascript:alert(3)', unknownLicenses: [hostile], licenseExpression: 'mit AND unknown-license-reference', licenseExpressionSpdx: 'MIT AND LicenseRef-scancode-unknown-license-reference' }),
        aPackage({ name: 'b', homepageUrl: 'https://example.com/b?x=1&y=2' }),
      ]),
    );
    // No element but the page's own: no script, image or stylesheet link, no attribute that loads or runs anything.
    expect(html).not.toMatch(/<script|<img|<link|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/<[^>]*\s(src|on\w+)=/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('href="https://example.com/b?x=1&amp;y=2"');
    expect(html).toContain('Permission is hereby granted &lt;free&gt;.');
  });

  it("gives each license's text once, however many packages name it, and says when none is known", () => {
    const packages = [aPackage(), aPackage({ name: 'a', purl: 'pkg:npm/a@1' }), aPackage({ name: 'z', purl: 'pkg:npm/z@1', licenseExpression: 'mit OR acme-eula', licenseExpressionSpdx: 'MIT OR LicenseRef-dejacode-acme-eula' })];
    expect(attributionLicenseKeys(packages)).toEqual(['acme-eula', 'mit']);
    const html = attributionHtml(attribution(packages));
    expect(html.split('Permission is hereby granted').length - 1).toBe(1);
    expect(html).toContain('No text of this license is known to the service.');
    const text = attributionText(attribution(packages));
    expect(text.split('Permission is hereby granted').length - 1).toBe(1);
    expect(text).toContain('left-pad 1.3.0\n  pkg:npm/left-pad@1.3.0\n  Home page: https://github.com/left-pad/left-pad\n  License: MIT\n  Copyright (c) 2014 Azer\n');
  });

  it('shows unknown licenses as written, a package without license as such, and sorts by name', () => {
    const packages = sortedForAttribution([aPackage({ name: 'zeta', purl: 'pkg:npm/zeta@1', licenseExpression: '', licenseExpressionSpdx: '' }), aPackage({ name: 'Alpha', purl: 'pkg:npm/alpha@1', licenseExpression: 'unknown-license-reference', licenseExpressionSpdx: 'LicenseRef-scancode-unknown-license-reference', unknownLicenses: ['SEE LICENSE IN LICENSE.md'] })]);
    expect(packages.map((p) => p.name)).toEqual(['Alpha', 'zeta']);
    const text = attributionText(attribution(packages));
    expect(text).toContain('License: LicenseRef-scancode-unknown-license-reference (as written: "SEE LICENSE IN LICENSE.md")');
    expect(text).toContain('License: no license stated');
    expect(attributionHtml(attribution(packages))).toContain('<em>No license stated</em>');
  });
});
