/**
 * Strings an SBOM holds that the service cannot store (issue 30, item 3): an unpaired surrogate
 * ("\ud800x", "x\udc00") or a control character ("\u0007"). In a component (CycloneDX) or package
 * (SPDX), the component is skipped with the reason and the rest imports; in the document's own
 * metadata, the document is a 400; and the purl code never throws on them (it threw URIError, a 500).
 */
import { describe, expect, it } from 'vitest';
import { storedTextProblem } from '../../shared/domain/stored-text.ts';
import type { Inventory } from '../../shared/sbom/inventory.ts';
import { clip, purlFromParts, purlFromString } from '../../shared/sbom/purl.ts';
import { readSbomSync, type ReadResult } from '../../shared/sbom/read-sbom.ts';
import { PackageBodies } from '../../shared/schemas/catalog.ts';
import { jsonProblem } from '../../shared/schemas/json-input.ts';
import { fixture } from '../support/sbom-documents.ts';

// The cases edit the parsed fixtures in place, at any depth.
type Json = Record<string, any>;

/** Each bad string, and the words of its reason after "holds". */
const BAD: readonly (readonly [string, string, string])[] = [
  ['an unpaired high surrogate', '\ud800x', 'an unpaired surrogate (U+D800)'],
  ['an unpaired low surrogate', 'x\udc00', 'an unpaired surrogate (U+DC00)'],
  ['a control character', 'a\u0007b', 'the control character U+0007'],
];

/** The document as an HTTP body carries it: JSON text, where a lone surrogate is the escape \ud800. */
function read(document: Json): ReadResult {
  return readSbomSync(Buffer.from(JSON.stringify(document)), 'application/json');
}

function inventoryOf(result: ReadResult): Inventory {
  if (!result.ok) throw new Error(`not read: ${JSON.stringify(result)}`);
  return result.inventory;
}

const cyclonedx = () => fixture('combined.cdx.json') as Json;
const spdx = () => fixture('small-2.2.spdx.json') as Json;
const spdxPackage = (document: Json, id: string) => (document.packages as Json[]).find((pkg) => pkg.SPDXID === id)!;

/** Each BAD value set by each case into a fresh `document()`: the 400 naming the case's JSON pointer. */
function refusedInMetadata(document: () => Json, cases: readonly [string, (document: Json, bad: string) => void, string][]): void {
  for (const [what, value, problem] of BAD) {
    it.each(cases)(`${what} in %s`, (_field, set, pointer) => {
      const bad = document();
      set(bad, value);
      expect(read(bad)).toEqual({ ok: false, status: 400, errors: { input_file: [`${pointer}: must not hold ${problem}`] } });
    });
  }
}

describe('CycloneDX JSON: a component holding such a string is skipped with its reason, the others imported', () => {
  const cases: [string, (component: Json, bad: string) => void, string][] = [
    ['name', (c, bad) => (c.name = bad), 'name'],
    ['version', (c, bad) => (c.version = bad), 'version'],
    ['purl', (c, bad) => (c.purl = `pkg:maven/org.example/lib-${bad}@1.0.0`), 'purl'],
    ['license name', (c, bad) => (c.licenses = [{ license: { name: `License ${bad}` } }]), 'licenses/0/license/name'],
    ['license expression', (c, bad) => (c.licenses = [{ expression: `MIT OR ${bad}` }]), 'licenses/0/expression'],
    ['group', (c, bad) => (c.group = bad), 'group'],
    // (A hash's content is refused by the schema before: a pattern of hex digits.)
    ['copyright', (c, bad) => (c.copyright = bad), 'copyright'],
    ['description', (c, bad) => (c.description = `text ${bad}`), 'description'],
    ['supplier', (c, bad) => (c.supplier = { name: bad }), 'supplier/name'],
    ['external reference', (c, bad) => (c.externalReferences = [{ type: 'website', url: `https://example.org/${bad}` }]), 'externalReferences/0/url'],
  ];
  for (const [what, value, problem] of BAD) {
    it.each(cases)(`${what} in its %s`, (_field, set, field) => {
      const document = cyclonedx();
      set(document.components[0], value);
      const inventory = inventoryOf(read(document));
      expect(inventory.skipped.map(({ component, reason }) => ({ component, reason }))).toEqual([{ component: 'lib-a', reason: `its ${field} holds ${problem}` }]);
      expect(inventory.components.map((component) => component.ref)).toEqual(['lib-b']);
    });
  }

  it('a component named by such a string is listed by its escapes, which can be stored', () => {
    const document = cyclonedx();
    document.components[0] = { type: 'library', name: '\ud800x', version: '1' };
    const inventory = inventoryOf(read(document));
    expect(inventory.skipped.map(({ component, reason }) => ({ component, reason }))).toEqual([{ component: '\\ud800x', reason: 'its name holds an unpaired surrogate (U+D800)' }]);
    // Its name for a person (name and version), escaped the same way.
    expect(inventory.skipped[0]!.name).toBe('\\ud800x 1');
    expect(inventory.components.map((component) => component.ref)).toEqual(['lib-b']);
  });

  it('a nested component is skipped alone; a percent-encoded control character in a purl is one too', () => {
    const document = cyclonedx();
    document.components[1].components = [{ type: 'library', 'bom-ref': 'inner', name: 'inner', purl: 'pkg:npm/inner%07@1' }];
    const inventory = inventoryOf(read(document));
    expect(inventory.skipped.map(({ component, reason }) => ({ component, reason }))).toEqual([{ component: 'inner', reason: 'its purl holds the control character U+0007' }]);
    expect(inventory.components.map((component) => component.ref)).toEqual(['lib-a', 'lib-b']);
  });

  it('free text keeps its component: tabs and line breaks read as spaces, any other control character skips it', () => {
    const document = cyclonedx();
    document.components[0].description = 'line one\r\nline two\tend';
    document.components[0].copyright = 'Copyright A\nCopyright B';
    document.components[1].description = 'bell\u0007';
    const inventory = inventoryOf(read(document));
    expect(inventory.components).toMatchObject([{ ref: 'lib-a', description: 'line one line two end', copyright: 'Copyright A Copyright B' }]);
    expect(inventory.skipped.map(({ component, reason }) => ({ component, reason }))).toEqual([{ component: 'lib-b', reason: 'its description holds the control character U+0007' }]);
  });

  it('a vulnerability holding such a string is left out with a warning, the others read', () => {
    const document = cyclonedx();
    document.vulnerabilities[0].description = 'x\udc00';
    const inventory = inventoryOf(read(document));
    expect(inventory.vulnerabilities.map((vulnerability) => vulnerability.id)).toEqual(['CVE-2099-20002']);
    expect(inventory.warnings).toContain('/vulnerabilities/0: vulnerability "CVE-2099-20001" was left out: its description holds an unpaired surrogate (U+DC00).');
  });
});

describe('CycloneDX JSON: such a string in the document\'s metadata is a 400, saying where', () => {
  const cases: [string, (document: Json, bad: string) => void, string][] = [
    ['the described product\'s name', (d, bad) => (d.metadata.component.name = bad), '/metadata/component/name'],
    ['the described product\'s version', (d, bad) => (d.metadata.component.version = bad), '/metadata/component/version'],
    ['the described product\'s bom-ref', (d, bad) => (d.metadata.component['bom-ref'] = bad), '/metadata/component/bom-ref'],
    ['a tool\'s name', (d, bad) => (d.metadata.tools = [{ vendor: 'x', name: bad }]), '/metadata/tools/0/name'],
  ];
  refusedInMetadata(cyclonedx, cases);

  it('line breaks in metadata free text are no reason to refuse it', () => {
    const document = cyclonedx();
    document.metadata.component.description = 'one\ntwo';
    expect(read(document).ok).toBe(true);
  });
});

describe('SPDX JSON: a package holding such a string is skipped with its reason, the others imported', () => {
  const cases: [string, (pkg: Json, bad: string) => void, string][] = [
    ['name', (p, bad) => (p.name = bad), 'name'],
    ['versionInfo', (p, bad) => (p.versionInfo = bad), 'versionInfo'],
    ['purl', (p, bad) => (p.externalRefs[1].referenceLocator = `pkg:generic/open${bad}ssl@3.0.13`), 'externalRefs/1/referenceLocator'],
    ['licenseDeclared', (p, bad) => (p.licenseDeclared = `LicenseRef-${bad}`), 'licenseDeclared'],
    ['checksum', (p, bad) => (p.checksums[1].checksumValue = bad), 'checksums/1/checksumValue'],
    ['supplier', (p, bad) => (p.supplier = `Organization: ${bad}`), 'supplier'],
    ['packageFileName', (p, bad) => (p.packageFileName = bad), 'packageFileName'],
  ];
  for (const [what, value, problem] of BAD) {
    it.each(cases)(`${what} in its %s`, (_field, set, field) => {
      const document = spdx();
      set(spdxPackage(document, 'SPDXRef-openssl'), value);
      const inventory = inventoryOf(read(document));
      expect(inventory.skipped.map(({ component, reason }) => ({ component, reason }))).toContainEqual({ component: 'SPDXRef-openssl', reason: `its ${field} holds ${problem}` });
      expect(inventory.components.map((component) => component.ref)).not.toContain('SPDXRef-openssl');
      expect(inventory.components.map((component) => component.ref)).toContain('SPDXRef-zlib');
    });
  }

  it('a multi-line copyright text is kept on one line', () => {
    const document = spdx();
    spdxPackage(document, 'SPDXRef-openssl').copyrightText = 'Copyright (c) 1998\nCopyright (c) 2024';
    const inventory = inventoryOf(read(document));
    expect(inventory.components.find((component) => component.ref === 'SPDXRef-openssl')?.copyright).toBe('Copyright (c) 1998 Copyright (c) 2024');
  });
});

describe('SPDX JSON: such a string in the document\'s own fields or its described product is a 400, saying where', () => {
  const cases: [string, (document: Json, bad: string) => void, string][] = [
    ['the document name', (d, bad) => (d.name = bad), '/name'],
    ['a creator', (d, bad) => (d.creationInfo.creators = [`Tool: ${bad}`]), '/creationInfo/creators/0'],
    ['the creation comment', (d, bad) => (d.creationInfo.comment = bad), '/creationInfo/comment'],
    [
      'the described product\'s name',
      (d, bad) => {
        d.documentDescribes = ['SPDXRef-app-one'];
        spdxPackage(d, 'SPDXRef-app-one').name = bad;
      },
      '/packages/0/name',
    ],
  ];
  refusedInMetadata(spdx, cases);

  it('the document namespace', () => {
    const document = spdx();
    document.documentNamespace = 'https://example.org/\ud800';
    expect(read(document)).toMatchObject({ ok: false, status: 400, errors: { input_file: ['/documentNamespace: must not hold an unpaired surrogate (U+D800)'] } });
  });
});

describe('purl.ts never throws: what it cannot encode is a reason', () => {
  it.each([
    ['pkg:npm/a\ud800@1', 'its purl holds an unpaired surrogate (U+D800)'],
    ['pkg:npm/a@1\udc00', 'its purl holds an unpaired surrogate (U+DC00)'],
    ['pkg:npm/a\u0007@1', 'its purl holds the control character U+0007'],
    ['pkg:npm/a%07@1', 'its purl holds the control character U+0007'],
    ['pkg:npm/a?x=%00', 'its purl holds the control character U+0000'],
  ])('purlFromString(%j)', (purl, reason) => {
    expect(purlFromString(purl)).toEqual({ ok: false, reason });
  });

  it('a purl whose escapes are not UTF-8 is invalid', () => {
    expect(purlFromString('pkg:npm/a%ED%A0%80@1')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid purl "pkg:npm\/a%ED%A0%80@1": /) });
  });

  it.each([
    [['generic', '', '\ud800x', ''], 'its name holds an unpaired surrogate (U+D800)'],
    [['generic', '', 'x', 'x\udc00'], 'its version holds an unpaired surrogate (U+DC00)'],
    [['generic', 'g\u0007', 'x', ''], 'its group holds the control character U+0007'],
  ] as const)('purlFromParts(%j)', ([type, namespace, name, version], reason) => {
    expect(purlFromParts(type, namespace, name, version)).toEqual({ ok: false, reason });
  });

  it('clip never cuts a surrogate pair in two, and writes what cannot be stored as escapes', () => {
    expect(clip(`${'x'.repeat(119)}😀`, 120)).toBe(`${'x'.repeat(119)}…`);
    expect(clip('a\u0007\ud800')).toBe('a\\u0007\\ud800');
  });
});

describe('the rule is the API\'s: the characters the catalog and the JSON bodies refuse', () => {
  it('a character is refused exactly when the package schema refuses it (control characters) or a body check does (unpaired surrogates)', () => {
    const units = [...Array.from({ length: 0x300 }, (_, i) => i), 0x2028, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfeff, 0xfffd];
    for (const unit of units) {
      const text = `a${String.fromCharCode(unit)}b`;
      const catalog = PackageBodies.create.safeParse({ description: text });
      const refusedByApi = jsonProblem({ description: text }) !== undefined || (!catalog.success && catalog.error.issues.some((issue) => issue.path[0] === 'description'));
      expect([unit.toString(16), storedTextProblem(text) !== undefined]).toEqual([unit.toString(16), refusedByApi]);
    }
  });
});
