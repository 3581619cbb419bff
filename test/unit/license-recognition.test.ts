/**
 * Licenses as the world writes them, recognised with ScanCode's knowledge: the normalisation, the
 * shipped rules index, the resolver's use of it (names, words joining licenses, `with` exceptions,
 * URLs, texts, mappings first, ambiguity left unknown), the index builder on real ScanCode files, and
 * the SBOM readers' hints.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRulesData, parseFrontMatter, serialiseRulesData } from '../../bin/build-license-rules.ts';
import { parseLicenseExpression } from '../../shared/domain/license-expression.ts';
import { buildLicenseIndex, type MappingRule } from '../../shared/domain/license-index.ts';
import { licenseKnowledgeOf } from '../../shared/domain/license-knowledge.ts';
import { licenseTextDigest, normaliseLicenseName, normaliseLicenseUrl } from '../../shared/domain/license-names.ts';
import { resolveLicenseExpression, type LicenseHint } from '../../shared/domain/license-resolution.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { readRulesData, scancodeKnowledge } from '../../shared/reference/scancode-rules.ts';
import { readSbomSync } from '../../shared/sbom/read-sbom.ts';

const library = scancodeLibrary();
const knowledge = scancodeKnowledge();
const index = buildLicenseIndex([], library, { knowledge });
const resolve = (text: string, hints?: Record<string, LicenseHint>) => resolveLicenseExpression(text, index, hints && new Map(Object.entries(hints)));
const toolkitFixture = path.join(import.meta.dirname, '..', 'fixtures', 'scancode');
const mitText = parseFrontMatter(readFileSync(path.join(toolkitFixture, 'src', 'licensedcode', 'data', 'licenses', 'mit.LICENSE'), 'utf8')).text;

describe('normaliseLicenseName', () => {
  it.each([
    ['Apache License, Version 2.0', 'apache license 2'],
    ['The Apache Software Licence v. 2.0.0', 'apache software license 2'],
    ['Eclipse Distribution License - v 1.0', 'eclipse distribution license 1'],
    ['GPLv2', 'gpl 2'],
    ['lgpl_v2_1', 'lgpl 2.1'],
    ['LGPL, version 2.1', 'lgpl 2.1'],
    ['GPL-2.0+', 'gpl 2+'],
    ['CDDL+GPL', 'cddl+gpl'],
    ['{{MIT}} License', 'mit license'],
  ])('%s → %s', (written, normal) => {
    expect(normaliseLicenseName(written)).toBe(normal);
  });

  it('keeps what tells versions apart', () => {
    expect(normaliseLicenseName('LGPL 2.1')).not.toBe(normaliseLicenseName('LGPL 2'));
    expect(normaliseLicenseName('GPL 2.0+')).not.toBe(normaliseLicenseName('GPL 2.0'));
  });
});

describe('normaliseLicenseUrl and licenseTextDigest', () => {
  it('compares URLs without scheme, www, fragment or trailing slash, the path as written', () => {
    expect(normaliseLicenseUrl('HTTPS://www.Apache.org/licenses/LICENSE-2.0/#x')).toBe('apache.org/licenses/LICENSE-2.0');
    expect(normaliseLicenseUrl('http://apache.org:80/licenses/LICENSE-2.0')).toBe('apache.org/licenses/LICENSE-2.0');
    expect(normaliseLicenseUrl('Apache 2.0')).toBe('');
    expect(normaliseLicenseUrl('javascript:alert(1)')).toBe('');
  });

  it('digests a text the same however it is wrapped, quoted or spelled "licence"', () => {
    const reflowed = mitText.replace(/\n/g, ' ').replace(/"/g, '“').replace(/License/g, 'Licence');
    expect(licenseTextDigest(reflowed)).toBe(licenseTextDigest(mitText));
    expect(licenseTextDigest(`${mitText} Extra words.`)).not.toBe(licenseTextDigest(mitText));
  });
});

describe('resolving licenses as the world writes them', () => {
  it.each([
    // Names and tags ScanCode's rules know.
    ['ALv2', 'apache-2.0', 'name', 'apache-2.0_388.RULE'],
    ['ASF 2.0', 'apache-2.0', 'name', 'apache-2.0_221.RULE'],
    ['Bouncy Castle Licence', 'mit', 'name', 'mit_239.RULE'],
    ['Eclipse Distribution License - v 1.0', 'bsd-new', 'name', 'bsd-new_665.RULE'],
    ['GNU Lesser General Public License, Version 2.1', 'lgpl-2.1', 'name', 'lgpl-2.1.LICENSE'],
    ['lgpl_v2_1', 'lgpl-2.1', 'name', 'lgpl-2.1.LICENSE'],
    ['License :: OSI Approved :: BSD License', 'bsd-new', 'name', 'pypi_bsd_license.RULE'],
    // Several licenses in one name, as ScanCode's rules say.
    ['Apache License, Version 2.0 and Common Development And Distribution License (CDDL) Version 1.0', 'apache-2.0 AND cddl-1.0', 'name', 'apache-2.0_and_cddl-1.0_1.RULE'],
    ['GNU General Public License, Version 2 with the Classpath Exception', 'gpl-2.0 WITH classpath-exception-2.0', 'name', 'gpl-2.0_with_classpath-exception-2.0_8.RULE'],
  ])('%s → %s (by %s, %s)', (written, expression, by, rule) => {
    const resolved = resolve(written);
    expect(resolved).toMatchObject({ declared: written, expression, unknown: [] });
    expect(resolved.resolvedFrom).toEqual([{ written, expression, by, rule }]);
  });

  it('splits a name at "and" / "or" into the fewest parts that each resolve, all joined by the same word', () => {
    const resolved = resolve('MPL 2.0 or EPL 1.0');
    expect(resolved).toMatchObject({ expression: 'mpl-2.0 OR epl-1.0', spdx: 'MPL-2.0 OR EPL-1.0', unknown: [] });
    expect(resolved.resolvedFrom.map((r) => [r.written, r.expression])).toEqual([
      ['MPL 2.0', 'mpl-2.0'],
      ['EPL 1.0', 'epl-1.0'],
    ]);
    // A name whose own words hold "and" is looked up whole first (Common Development And Distribution License).
    expect(resolve('COMMON DEVELOPMENT AND DISTRIBUTION LICENSE (CDDL) Version 1.0').expression).toBe('cddl-1.0');
    // Mixed words are not guessed at.
    expect(resolve('MPL 2.0 or EPL 1.0 and GPL v2')).toMatchObject({ expression: 'unknown-license-reference', unknown: ['MPL 2.0 or EPL 1.0 and GPL v2'] });
  });

  it('reads "<license> with <exception>" in words when both sides resolve', () => {
    const resolved = resolve('GNU General Public License (GPL), version 2, with the Classpath exception');
    expect(resolved).toMatchObject({ expression: 'gpl-2.0 WITH classpath-exception-2.0', spdx: 'GPL-2.0-only WITH Classpath-exception-2.0', unknown: [] });
    expect(resolved.resolvedFrom.map((r) => r.rule).sort()).toEqual(['classpath-exception-2.0_5.RULE', 'gpl-2.0_1014.RULE']);
    // A trailing abbreviation in parentheses is no part of the name.
    expect(resolve('GNU General Public License, version 2 (GPL2), with the classpath exception').expression).toBe('gpl-2.0 WITH classpath-exception-2.0');
  });

  it('resolves each license an SBOM reader joined with AND, keeping the ones it cannot as unknown, as written', () => {
    const resolved = resolve('(Lesser General Public License, version 3 or greater) AND Apache-2.0');
    expect(resolved).toMatchObject({ expression: 'unknown-license-reference AND apache-2.0', unknown: ['Lesser General Public License, version 3 or greater'] });
    // When no part resolves, the text stays unknown whole.
    expect(resolve('Foo License AND Bar Terms')).toMatchObject({ unknown: ['Foo License AND Bar Terms'] });
  });

  it('does not over-resolve: what ScanCode gives two meanings, or only a clue, stays unknown', () => {
    // "GNU Lesser General Public License" is lgpl-2.0-plus in one rule and (as "Licence") lgpl-2.1-plus in another.
    // ScanCode's rules for "see the license file" name its unknown licenses (unknown-license-reference): no resolution.
    for (const written of ['GNU Lesser General Public License', 'GNU Lesser General Public Licence', 'Public Domain', 'CDDL+GPL', 'BSD', 'jQuery license', 'SEE LICENSE IN COPYING.txt']) {
      expect(resolve(written), written).toMatchObject({ expression: 'unknown-license-reference', unknown: [written], resolvedFrom: [] });
    }
    // An exception alone is no license, whatever its URL says.
    expect(resolve('Classpath', { Classpath: { url: 'https://www.gnu.org/software/classpath/license.html' } })).toMatchObject({ unknown: ['Classpath'] });
  });

  it("uses what the document says beside a name it cannot resolve: the license's URL, then its text", () => {
    const byUrl = resolve('Public Domain', { 'Public Domain': { url: 'http://repository.jboss.org/licenses/cc0-1.0.txt' } });
    expect(byUrl).toMatchObject({ expression: 'cc0-1.0', unknown: [] });
    expect(byUrl.resolvedFrom).toEqual([{ written: 'Public Domain', expression: 'cc0-1.0', by: 'url', rule: 'cc0-1.0_200.RULE' }]);
    const byText = resolve('Acme Open License', { 'Acme Open License': { text: mitText.replace(/\n/g, '\r\n') } });
    expect(byText).toMatchObject({ expression: 'mit', unknown: [] });
    expect(byText.resolvedFrom).toEqual([{ written: 'Acme Open License', expression: 'mit', by: 'text', rule: 'mit.LICENSE' }]);
    // A URL written as the license itself.
    expect(resolve('https://opensource.org/licenses/MIT')).toMatchObject({ expression: 'mit', resolvedFrom: [{ by: 'url', rule: 'mit.LICENSE' }] });
    // A name the SBOM reader put in parentheses (it holds "or") still finds what the document said beside it.
    expect(resolve('(Foo or Bar License) AND MIT', { 'Foo or Bar License': { url: 'https://opensource.org/licenses/MIT' } })).toMatchObject({ expression: 'mit AND mit', unknown: [] });
    // A name that resolves wins over its URL.
    expect(resolve('ALv2', { ALv2: { url: 'https://opensource.org/licenses/MIT' } }).expression).toBe('apache-2.0');
  });

  it('keeps SPDX ids and keys first: nothing to explain for them', () => {
    expect(resolve('MIT OR Apache-2.0')).toMatchObject({ expression: 'mit OR apache-2.0', resolvedFrom: [] });
  });

  it("applies a dataspace's mapping before ScanCode's rules, and counts a dataspace license it names", () => {
    const mapping: MappingRule = { uuid: '8c9d3f0e-1111-4222-8333-944455556666', text: 'alv2', licenseExpression: 'acme-apache' };
    const mapped = buildLicenseIndex([{ key: 'acme-apache', spdxLicenseKey: '' }], library, { knowledge, mappings: [mapping] });
    const resolved = resolveLicenseExpression('ALv2 AND MIT', mapped);
    expect(resolved).toMatchObject({ expression: 'acme-apache AND mit', dataspaceKeys: ['acme-apache'], unknown: [] });
    expect(resolved.resolvedFrom).toEqual([{ written: 'ALv2', expression: 'acme-apache', by: 'mapping', rule: mapping.uuid }]);
    // A recognised reference key the dataspace adopted is the dataspace's license, counted.
    const adopted = buildLicenseIndex([{ key: 'apache-2.0', spdxLicenseKey: 'Apache-2.0' }], library, { knowledge });
    expect(resolveLicenseExpression('ASF 2.0', adopted)).toMatchObject({ expression: 'apache-2.0', dataspaceKeys: ['apache-2.0'] });
  });
});

describe('the shipped rules index', () => {
  const data = readRulesData();

  it("names its source, and every expression parses over keys the reference library holds", () => {
    expect(data.source).toMatchObject({ repository: 'https://github.com/aboutcode-org/scancode-toolkit', commit: 'bc787214ed21f313be84a1e6a571051cdfdd4003', licence: 'CC-BY-4.0' });
    for (const expression of data.expressions) {
      const parsed = parseLicenseExpression(expression);
      expect(parsed.ok && parsed.keys.every((key) => library.byKey(key)?.key === key), expression).toBe(true);
    }
    expect(data.names.length).toBeGreaterThan(15_000);
    expect(data.urls.length).toBeGreaterThan(4_000);
    expect(data.texts.length).toBeGreaterThan(5_000);
  });

  it('is stored as the builder writes it (sorted, one entry per line), so a rebuild reads as a diff', () => {
    const file = readFileSync(path.join(import.meta.dirname, '..', '..', 'shared', 'reference', 'scancode-license-rules.json'), 'utf8');
    expect(serialiseRulesData(data)).toBe(file);
    const names = data.names.map(([name]) => name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});

describe("bin/build-license-rules.ts on ScanCode's own files", () => {
  it('indexes names, URLs and texts, leaves out ambiguity, clues and false positives, and says what it left out', async () => {
    const { data, report } = await buildRulesData(toolkitFixture, 'fixture');
    const built = licenseKnowledgeOf(data);
    expect(built.byName('ALv2')).toEqual({ expression: 'apache-2.0', by: 'name', rule: 'apache-2.0_388.RULE' });
    expect(built.byName('Apache License 2.0')).toMatchObject({ expression: 'apache-2.0', rule: 'apache-2.0.LICENSE' });
    expect(built.byName('Apache License, Version 2.0 and Common Development And Distribution License (CDDL) Version 1.0')?.expression).toBe('apache-2.0 AND cddl-1.0');
    // lgpl-2.0-plus_87 and lgpl-2.1-plus_485 name the same text (License / Licence) differently.
    expect(built.byName('GNU Lesser General Public License')).toBeUndefined();
    // A clue (is_license_clue) is no detection; a false positive names no license.
    expect(built.byName('Public Domain')).toBeUndefined();
    expect(built.byName('# Apache 2.5')).toBeUndefined();
    // URLs: a tag rule's own URL, a license's text URL.
    expect(built.byUrl('http://www.apache.org/license/LICENSE-2.0.txt')?.expression).toBe('apache-2.0');
    expect(built.byUrl('https://opensource.org/licenses/MIT')).toMatchObject({ expression: 'mit', rule: 'mit.LICENSE' });
    // Texts by digest.
    expect(built.byText(mitText)).toMatchObject({ expression: 'mit', by: 'text' });
    expect(report.join('\n')).toMatch(/names: \d+ \(1 ambiguous, 1 false-positive texts left out\)/);
  });
});

describe('the SBOM readers give what they say beside a license', () => {
  const base64Mit = Buffer.from(mitText).toString('base64');
  const cyclonedx = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    components: [
      {
        type: 'library',
        name: 'a',
        version: '1',
        purl: 'pkg:maven/org.example/a@1',
        licenses: [{ license: { name: 'Acme Open License', text: { content: base64Mit, contentType: 'text/plain', encoding: 'base64' } } }, { license: { name: 'Public Domain', url: 'http://creativecommons.org/publicdomain/zero/1.0/' } }],
      },
    ],
  };

  it('CycloneDX: license.url and license.text (base64 decoded) by the name they are beside', () => {
    const read = readSbomSync(Buffer.from(JSON.stringify(cyclonedx)), 'application/vnd.cyclonedx+json');
    if (!read.ok) throw new Error(JSON.stringify(read));
    const [component] = read.inventory.components;
    const resolved = resolveLicenseExpression(component!.declaredLicense, index, component!.licenseHints);
    expect(resolved).toMatchObject({ expression: 'mit AND cc0-1.0', unknown: [] });
    expect(resolved.resolvedFrom.map((r) => [r.written, r.by])).toEqual([
      ['Acme Open License', 'text'],
      ['Public Domain', 'url'],
    ]);
  });

  it("SPDX: a LicenseRef's extracted text and name", () => {
    const spdx = {
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'doc',
      documentNamespace: 'https://example.com/doc',
      creationInfo: { created: '2026-01-01T00:00:00Z', creators: ['Tool: test'] },
      packages: [
        { SPDXID: 'SPDXRef-a', name: 'a', versionInfo: '1', downloadLocation: 'NOASSERTION', licenseDeclared: 'LicenseRef-1 AND LicenseRef-2', externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:pypi/a@1' }] },
      ],
      hasExtractedLicensingInfos: [
        { licenseId: 'LicenseRef-1', extractedText: mitText, name: 'NOASSERTION' },
        { licenseId: 'LicenseRef-2', extractedText: 'See the notice.', name: 'ALv2' },
      ],
    };
    const read = readSbomSync(Buffer.from(JSON.stringify(spdx)), 'application/spdx+json');
    if (!read.ok) throw new Error(JSON.stringify(read));
    const [component] = read.inventory.components;
    const resolved = resolveLicenseExpression(component!.declaredLicense, index, component!.licenseHints);
    expect(resolved).toMatchObject({ expression: 'mit AND apache-2.0', unknown: [] });
    expect(resolved.resolvedFrom.map((r) => [r.written, r.by])).toEqual([
      ['LicenseRef-1', 'text'],
      ['LicenseRef-2', 'name'],
    ]);
  });
});
