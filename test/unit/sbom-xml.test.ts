/**
 * CycloneDX XML import: the same document in XML and in JSON, as real producers wrote both, is the
 * same inventory; XML 1.0 and 1.1 (XML only) are read; hostile and broken XML is a 400 that says why,
 * and nothing of it is read.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSbom, readSbomSync, type ReadResult } from '../../shared/sbom/read-sbom.ts';
import type { Inventory } from '../../shared/sbom/inventory.ts';
import { parseXml, XML_LIMITS } from '../../shared/sbom/xml.ts';
import { cyclonedxComponents, fixture, fixtureText } from '../support/sbom-documents.ts';

function inventoryOf(result: ReadResult): Inventory {
  if (!result.ok) throw new Error(`not read: ${JSON.stringify(result.errors)}`);
  return result.inventory;
}

function errorsOf(result: ReadResult): string[] {
  if (result.ok) throw new Error('read, but should not be');
  expect(result.status).toBe(400);
  return (result.errors as { input_file: string[] }).input_file;
}

/** What an import uses of an inventory, comparable across two readings. */
function essence(inventory: Inventory) {
  return {
    subject: inventory.subject,
    components: inventory.components,
    skipped: inventory.skipped,
    dependencies: [...inventory.dependencies].sort(([a], [b]) => a.localeCompare(b)),
    vulnerabilities: inventory.vulnerabilities,
    vexOnly: inventory.vexOnly,
  };
}

const bom = (version: string, body: string, attributes = '') => `<?xml version="1.0" encoding="UTF-8"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/${version}" version="1"${attributes}>${body}</bom>`;

describe('CycloneDX XML: the same document as JSON, as its producer wrote both', () => {
  it.each([
    ['cyclonedx-npm 6.0.1 (npm, 1.6)', 'cyclonedx-npm-1.6-prod.cdx.xml', 'cyclonedx-npm-1.6-prod.cdx.json', 89],
    ['cyclonedx-gomod 0.6.1 (Go, 1.2)', 'cyclonedx-gomod-proton-bridge-1.8.0.cdx.xml', 'cyclonedx-gomod-proton-bridge-1.8.0.cdx.json', 201],
    ['cyclonedx-php-composer (Composer, 1.4)', 'cyclonedx-composer-laravel-7.12.0-1.4.cdx.xml', 'cyclonedx-composer-laravel-7.12.0-1.4.cdx.json', 62],
  ])('%s: the same inventory, licenses, hashes and dependencies', async (_producer, xml, json, components) => {
    const fromXml = inventoryOf(await readSbom(fixtureText(xml), 'application/vnd.cyclonedx+xml'));
    const fromJson = inventoryOf(await readSbom(fixtureText(json)));
    // Counted in the JSON form independently of the reader (test/support/sbom-documents.ts).
    expect(fromXml.components.length + fromXml.skipped.length).toBe(cyclonedxComponents(fixture(json)).length);
    expect(fromXml.components).toHaveLength(components);
    expect(essence(fromXml)).toEqual(essence(fromJson));
    expect(fromXml.format).toBe('cyclonedx');
    expect(fromXml.specVersion).toBe(fromJson.specVersion);
    // Not vacuous: licenses, hashes and edges are there to compare.
    expect(fromXml.components.filter((component) => component.declaredLicense !== '').length).toBeGreaterThan(components / 2);
  });

  it('the CycloneDX Maven plugin 2.0.2 (dropwizard 1.3.15, 1.2): the same, but for the one license its XML leaves out', async () => {
    const fromXml = inventoryOf(await readSbom(fixtureText('cyclonedx-maven-dropwizard-1.3.15.cdx.xml')));
    const fromJson = inventoryOf(await readSbom(fixtureText('cyclonedx-maven-dropwizard-1.3.15.cdx.json')));
    expect(fromXml.components).toHaveLength(167);
    expect(Object.keys(fromXml.components[0]!.hashes).sort()).toEqual(['md5', 'sha1', 'sha256', 'sha512']);
    // The plugin wrote osgi-resource-locator's expression into the JSON only (its XML has no <licenses> there).
    const locator = 'pkg:maven/org.glassfish.hk2/osgi-resource-locator@1.0.1?type=jar';
    expect(fixtureText('cyclonedx-maven-dropwizard-1.3.15.cdx.json')).toContain('(CDDL-1.0 OR GPL-2.0-with-classpath-exception)');
    expect(fixtureText('cyclonedx-maven-dropwizard-1.3.15.cdx.xml')).not.toContain('CDDL-1.0 OR GPL-2.0-with-classpath-exception');
    const patched = fromXml.components.map((component) => (component.purl === locator ? { ...component, declaredLicense: '(CDDL-1.0 OR GPL-2.0-with-classpath-exception)' } : component));
    expect(fromXml.components.find((component) => component.purl === locator)?.declaredLicense).toBe('');
    expect({ ...essence(fromXml), components: patched }).toEqual(essence(fromJson));
    // Its descriptions are CDATA sections indented on their own lines: read as the JSON has them.
    expect(fromXml.components.find((component) => component.purl === locator)?.description).toBe('See http://wiki.glassfish.java.net/Wiki.jsp?page=JdkSpiOsgi for more information');
    expect(fromXml.dependencies.size).toBeGreaterThan(10);
  });

  it('CycloneDX 1.1 (XML only: cyclonedx-php-composer on laravel 7.12.0) reads the packages its 1.4 JSON holds', async () => {
    const v11 = inventoryOf(await readSbom(fixtureText('cyclonedx-composer-laravel-7.12.0-1.1.cdx.xml'), 'text/xml'));
    const v14 = inventoryOf(await readSbom(fixtureText('cyclonedx-composer-laravel-7.12.0-1.4.cdx.json')));
    expect(v11.specVersion).toBe('1.1');
    expect(v11.components.map((component) => [component.purl, component.declaredLicense, component.homepageUrl, component.downloadUrl])).toEqual(
      v14.components.map((component) => [component.purl, component.declaredLicense, component.homepageUrl, component.downloadUrl]),
    );
    // The 1.1 document has no dependency graph and no metadata (both came in 1.2).
    expect(v11.dependencies.size).toBe(0);
    expect(v11.subject).toBeNull();
  });

  it('CycloneDX 1.0 and the 1.1 dependency-graph extension', async () => {
    const v10 = bom('1.0', '<components><component type="library"><name>left-pad</name><version>1.3.0</version><purl>pkg:npm/left-pad@1.3.0</purl><modified>false</modified></component></components>');
    expect(inventoryOf(await readSbom(v10)).components.map((component) => component.purl)).toEqual(['pkg:npm/left-pad@1.3.0']);
    const graph =
      '<components><component type="library" bom-ref="a"><name>a</name><version>1</version><purl>pkg:npm/a@1</purl></component><component type="library" bom-ref="b"><name>b</name><version>2</version><purl>pkg:npm/b@2</purl></component></components>' +
      '<dg:dependencies xmlns:dg="http://cyclonedx.org/schema/ext/dependency-graph/1.0"><dg:dependency ref="a"><dg:dependency ref="b"/></dg:dependency></dg:dependencies>';
    expect([...inventoryOf(await readSbom(bom('1.1', graph))).dependencies]).toEqual([['a', ['b']]]);
  });

  it('a VEX in XML: analyses, ratings, references and affects, as in JSON', async () => {
    const vex = bom(
      '1.6',
      '<vulnerabilities><vulnerability><id>CVE-2099-0001</id><references><reference><id>GHSA-9x9x-test-0001</id><source><name>GitHub</name></source></reference></references>' +
        '<ratings><rating><score>7.5</score><severity>high</severity><method>CVSSv31</method></rating><rating><score>9.1</score><severity>critical</severity></rating></ratings>' +
        '<cwes><cwe>79</cwe></cwes><description>Made up for a test.</description>' +
        '<analysis><state>not_affected</state><justification>code_not_reachable</justification><responses><response>will_not_fix</response><response>update</response></responses><detail>Never called.</detail></analysis>' +
        '<affects><target><ref>pkg:npm/left-pad@1.3.0</ref></target></affects></vulnerability></vulnerabilities>',
      ' serialNumber="urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79"',
    );
    const inventory = inventoryOf(await readSbom(vex, 'application/xml'));
    expect(inventory.vexOnly).toBe(true);
    expect(inventory.vulnerabilities).toEqual([
      {
        id: 'CVE-2099-0001',
        aliases: ['GHSA-9x9x-test-0001'],
        summary: 'Made up for a test.',
        riskScore: 9.1,
        affects: ['pkg:npm/left-pad@1.3.0'],
        analysis: { state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix', 'update'], detail: 'Never called.' },
      },
    ]);
  });

  it('the synchronous reader refuses XML rather than read it without its schema check', () => {
    expect(errorsOf(readSbomSync(fixtureText('cyclonedx-npm-1.6-prod.cdx.xml')))).toEqual(['CycloneDX XML is read with its schema check: use readSbom.']);
  });
});

describe('CycloneDX XML: a 400 that says why, for hostile and broken documents', () => {
  const laughs = `<?xml version="1.0"?>\n<!DOCTYPE bom [\n<!ENTITY lol "lol">\n${Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level === 0 ? '' : level};`.repeat(10)}">`).join('\n')}\n]>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.6" version="1"><components><component type="library"><name>&lol9;</name></component></components></bom>`;

  it.each([
    ['billion laughs', laughs, /line \d+, column \d+: a document type declaration \(<!DOCTYPE …>\) is not accepted/],
    [
      'an external entity',
      '<?xml version="1.0"?>\n<!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&xxe;</name></component></components></bom>',
      /document type declaration/,
    ],
    ['an external DTD', '<?xml version="1.0"?>\n<!DOCTYPE bom SYSTEM "http://example.com/bom.dtd">\n<bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', /document type declaration/],
    ['an undefined entity', bom('1.6', '<components><component type="library"><name>&nbsp;</name><version>1</version></component></components>'), /undefined entity/],
    ['another encoding', '<?xml version="1.0" encoding="ISO-8859-1"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', /declares encoding "ISO-8859-1": send it as UTF-8/],
    ['truncated', fixtureText('cyclonedx-npm-1.6-prod.cdx.xml').slice(0, 5000), /Not a well-formed XML document that is read here: line \d+, column \d+: /],
    ['two roots', `${bom('1.6', '')}<bom/>`, /line 2/],
    ['wrong root', '<?xml version="1.0"?>\n<sbom xmlns="http://cyclonedx.org/schema/bom/1.6"/>', /root element is <sbom> in namespace "http:\/\/cyclonedx.org\/schema\/bom\/1.6": a CycloneDX XML document's is <bom>/],
    ['no namespace', '<bom version="1"><components/></bom>', /root element is <bom> without a namespace/],
    ['a wrong namespace', '<bom xmlns="http://example.com/schema/bom/1.6"/>', /in namespace "http:\/\/example.com\/schema\/bom\/1.6"/],
    ['an unsupported version', bom('1.7', '<components/>'), /CycloneDX XML 1.7 is not read here: 1.0 to 1.6 are./],
    ['deep nesting', `<bom xmlns="http://cyclonedx.org/schema/bom/1.6">${'<components><component type="library">'.repeat(60)}`, new RegExp(`nested more than ${XML_LIMITS.depth} deep`)],
    ['too many elements', `<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>${'<x/>'.repeat(XML_LIMITS.elements + 1)}</components></bom>`, /more than 1,000,000 elements/],
    ['too many attributes', `<bom xmlns="http://cyclonedx.org/schema/bom/1.6" ${Array.from({ length: 300 }, (_, i) => `a${i}="x"`).join(' ')}/>`, /more than 256 attributes on <bom>/],
    ['not XML at all', '<<<>>>', /Not a well-formed XML document/],
  ])('%s', async (_name, text, message) => {
    const started = performance.now();
    const errors = errorsOf(await readSbom(text));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
    // Refused before anything is expanded: the billion laughs' name would be 3 GB.
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  it('a document that breaks its XML schema: the schema errors, with their lines', async () => {
    const text = fixtureText('cyclonedx-npm-1.6-prod.cdx.xml').replace(/<name>/, '<nme>').replace(/<\/name>/, '</nme>');
    const errors = errorsOf(await readSbom(text));
    expect(errors[0]).toMatch(/^line \d+: Element 'nme': This element is not expected\. Expected is one of/);
    // An element where 1.2 has none: each version is checked against its own schema.
    const v12 = bom('1.2', '<components><component type="library"><name>a</name><version>1</version></component></components><annotations/>');
    expect(errorsOf(await readSbom(v12))[0]).toMatch(/^line \d+: Element 'annotations': This element is not expected/);
    // A score that is not a number.
    const rating = bom('1.6', '<vulnerabilities><vulnerability><id>CVE-2099-0002</id><ratings><rating><score>high</score></rating></ratings></vulnerability></vulnerabilities>');
    expect(errorsOf(await readSbom(rating))[0]).toMatch(/'high' is not a valid value of the atomic type 'xs:decimal'/);
  });

  it('CycloneDX XML sent as SPDX is a 400 naming both', async () => {
    expect(errorsOf(await readSbom(fixtureText('cyclonedx-npm-1.6-prod.cdx.xml'), 'application/spdx+json'))).toEqual([
      'The document is CycloneDX XML, but the Content-Type says SPDX (application/spdx+json): send it as application/vnd.cyclonedx+xml, application/xml or text/xml.',
    ]);
  });

  it('the parser keeps only what an SBOM needs: no DOCTYPE, XML entities and character references decoded', () => {
    const parsed = parseXml('<a xmlns="urn:x" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="t" b="&lt;&#x41;&amp;"><c>&quot;<![CDATA[<raw>]]></c></a>');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect([...parsed.root.attributes]).toEqual([['b', '<A&']]);
    expect(parsed.root.children[0]!.text).toBe('"<raw>');
  });
});

describe('CycloneDX XML: never throws, whatever the bytes', () => {
  // A small real-shaped document (a document that parses spawns the schema worker: 100 runs).
  const small = bom(
    '1.6',
    '<metadata><component type="application" bom-ref="app"><name>app</name><version>1.0.0</version></component></metadata>' +
      '<components><component type="library" bom-ref="a"><name>a</name><version>1</version><licenses><license><id>MIT</id></license></licenses><purl>pkg:npm/a@1</purl></component>' +
      '<component type="library" bom-ref="b"><name>b</name><version>2</version><hashes><hash alg="SHA-256">e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855</hash></hashes><purl>pkg:npm/b@2</purl></component></components>' +
      '<dependencies><dependency ref="a"><dependency ref="b"/></dependency></dependencies>',
    ' serialNumber="urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79"',
  );
  const hostile = ['&', '<', ']]>', '<!DOCTYPE x>', '&#0;', '&#xD800;', '\u0000', '\uFFFE', '\uD800', '"', "'", '<![CDATA[', '<?pi?>', '<!--', 'xmlns:x="y"', '\n'.repeat(3)];

  it('a truncation, an insertion or a replacement anywhere: an inventory or a 400, never a throw or a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(small.length), fc.nat(small.length), fc.constantFrom(...hostile), fc.constantFrom('truncate', 'insert', 'replace'), async (at, length, text, how) => {
        const mutated = how === 'truncate' ? small.slice(0, at) : how === 'insert' ? small.slice(0, at) + text + small.slice(at) : small.slice(0, at) + text + small.slice(Math.min(small.length, at + (length % 12)));
        const result = await readSbom(mutated);
        if (result.ok) expect(result.inventory.format).toBe('cyclonedx');
        else expect([400, 415]).toContain(result.status);
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
