/**
 * SPDX tag-value → SPDX JSON (spdx-tag-value.ts): the SPDX project's own example, written in both
 * forms, converts to the content of its JSON form; real producers' tag-value documents convert to
 * schema-valid documents that hold what their text holds (counted from the text independently); and
 * malformed text is refused with the line it is on. The fixtures and their sources:
 * test/fixtures/sbom/README.md.
 */
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../shared/sbom/inventory.ts';
import { checkSpdx } from '../../shared/sbom/schema-validation.ts';
import { spdxInventory } from '../../shared/sbom/spdx.ts';
import { looksLikeSpdxTagValue, MAX_TAG_VALUE_MESSAGES, spdxTagValueDocument } from '../../shared/sbom/spdx-tag-value.ts';
import { fixture, fixtureText } from '../support/sbom-documents.ts';

type Json = Record<string, unknown>;
type Version = '2.2' | '2.3';

function convert(text: string): { document: Json; warnings: string[] } {
  const result = spdxTagValueDocument(text);
  if (!result.ok) throw new Error(`not converted:\n${result.errors.join('\n')}`);
  return result;
}

function errorsOf(text: string): string[] {
  const result = spdxTagValueDocument(text);
  if (result.ok) throw new Error('converted, but an error was expected');
  return result.errors;
}

const versionOf = (document: Json) => (document.spdxVersion as string).slice('SPDX-'.length) as Version;
const list = (value: unknown) => (value as Json[] | undefined) ?? [];
const bySpdxId = (elements: unknown) => [...list(elements)].sort((a, b) => String(a.SPDXID).localeCompare(String(b.SPDXID)));
const relationshipKey = (relationship: Json) => `${relationship.spdxElementId} ${relationship.relationshipType} ${relationship.relatedSpdxElement}`;

/** The head of a small valid 2.3 document: the tests add their lines after it (line 8 on). */
const HEAD = [
  'SPDXVersion: SPDX-2.3',
  'DataLicense: CC0-1.0',
  'SPDXID: SPDXRef-DOCUMENT',
  'DocumentName: test',
  'DocumentNamespace: https://example.org/spdxdocs/test',
  'Creator: Tool: hand-written',
  'Created: 2024-01-01T00:00:00Z',
];
const documentOf = (...lines: string[]) => [...HEAD, ...lines].join('\n');
const PACKAGE = ['PackageName: zlib', 'SPDXID: SPDXRef-zlib', 'PackageDownloadLocation: NOASSERTION'];

describe('the SPDX specification\'s example, written in tag-value and in JSON', () => {
  // spdx/spdx-spec examples/: the 2.3 pair from support/2.3.1, the 2.2 pair from support/2.3.
  it.each([
    ['2.3', 'tag-value/SPDXTagExample-v2.3.spdx', 'tag-value/SPDXJSONExample-v2.3.spdx.json'],
    ['2.2', 'tag-value/SPDXTagExample-v2.2.spdx', 'tag-value/SPDXJSONExample-v2.2.spdx.json'],
  ] as const)('%s: schema-valid, the same inventory as the JSON form, and the same document', (version, tagValue, json) => {
    const { document, warnings } = convert(fixtureText(tagValue));
    const expected = fixture(json);
    expect(warnings).toEqual([]);
    expect(versionOf(document)).toBe(version);
    expect(checkSpdx(document, version).errors).toEqual([]);
    expect(checkSpdx(expected, version).errors).toEqual([]);

    const converted = spdxInventory(document, version);
    const fromJson = spdxInventory(expected, version);
    expect(converted).toEqual(fromJson);
    expect(converted.components.map((component) => component.purl)).toContain('pkg:maven/org.apache.jena/apache-jena@3.12.0');
    expect(converted.subject).toEqual({ name: 'glibc', version: '2.11.1' });

    // The whole document, after the ways in which the JSON form (written by the SPDX project's
    // tools-java) says the same content differently from the tag-value text:
    // 1. It lists what DESCRIBES relationships name in documentDescribes (2.3 then drops those
    //    relationships; 2.2 keeps them too). The converter keeps the relationships as written.
    const relationships = new Set(list(document.relationships).map(relationshipKey));
    for (const described of expected.documentDescribes as string[]) expect(relationships).toContain(`SPDXRef-DOCUMENT DESCRIBES ${described}`);
    delete expected.documentDescribes;
    // 2. It writes the default FilesAnalyzed (true) where the text leaves it out (glibc).
    const glibc = list(expected.packages).find((pkg) => pkg.SPDXID === 'SPDXRef-Package')!;
    expect(list(document.packages).find((pkg) => pkg.SPDXID === 'SPDXRef-Package')!.filesAnalyzed).toBeUndefined();
    expect(glibc.filesAnalyzed).toBe(true);
    delete glibc.filesAnalyzed;
    // 3. It writes the ExternalRef type LocationRef-acmeforge as `<document namespace>#LocationRef-acmeforge`.
    for (const reference of list(glibc.externalRefs)) {
      reference.referenceType = String(reference.referenceType).replace(`${expected.documentNamespace}#`, '');
    }
    // 4. 2.3: its hasFiles names a file several times (each once here), and it folds
    //    `SPDXRef-Package CONTAINS SPDXRef-JenaLib` (a file of the package) into hasFiles.
    glibc.hasFiles = [...new Set(glibc.hasFiles as string[])];
    const jsonRelationships = new Set(list(expected.relationships).map(relationshipKey));
    for (const key of relationships) {
      if (jsonRelationships.has(key)) continue;
      const [from, type, to] = key.split(' ');
      const contained = from === 'SPDXRef-Package' && type === 'CONTAINS' && (glibc.hasFiles as string[]).includes(to!);
      expect(type === 'DESCRIBES' || contained, key).toBe(true);
    }
    expect([...jsonRelationships].filter((key) => !relationships.has(key))).toEqual([]);

    const comparable = (from: Json) => ({
      ...from,
      packages: bySpdxId(from.packages),
      files: bySpdxId(from.files),
      snippets: bySpdxId(from.snippets),
      relationships: undefined,
    });
    expect(comparable(document)).toEqual(comparable(expected));
  });

  it('2.3: text values verbatim, across lines, with blank lines and "<" and ":" inside', () => {
    const { document } = convert(fixtureText('tag-value/SPDXTagExample-v2.3.spdx'));
    const cyberNeko = list(document.hasExtractedLicensingInfos).find((license) => license.licenseId === 'LicenseRef-3')!;
    expect(cyberNeko.extractedText).toMatch(/^The CyberNeko Software License, Version 1.0\n\n \n\(C\) Copyright 2002-2005, Andy Clark\./);
    expect(cyberNeko.seeAlsos).toEqual(['http://people.apache.org/~andyc/neko/LICENSE', 'http://justasample.url.com']);
    const foo = list(document.files).find((file) => file.SPDXID === 'SPDXRef-File')!;
    expect(foo.noticeText).toContain('subject to the following conditions: \nThe above copyright notice');
    expect(list(document.snippets)[0]!.ranges).toEqual([
      { startPointer: { offset: 310, reference: 'SPDXRef-DoapSource' }, endPointer: { offset: 420, reference: 'SPDXRef-DoapSource' } },
      { startPointer: { lineNumber: 5, reference: 'SPDXRef-DoapSource' }, endPointer: { lineNumber: 23, reference: 'SPDXRef-DoapSource' } },
    ]);
  });
});

/** What the text says, read with line patterns of its own (not the converter). */
function fromText(text: string) {
  const lines = text.split(/\r?\n/);
  const matching = (pattern: RegExp) => lines.flatMap((line) => pattern.exec(line)?.slice(1) ?? []);
  return {
    packages: matching(/^PackageName: (.*)$/),
    files: matching(/^FileName: (.*)$/),
    purls: matching(/^ExternalRef: PACKAGE[-_]MANAGER purl (\S+)$/),
    relationships: matching(/^Relationship: (\S+ \S+ \S+)$/),
  };
}

const purlsOf = (document: Json) =>
  list(document.packages).flatMap((pkg) => list(pkg.externalRefs).filter((reference) => reference.referenceType === 'purl').map((reference) => reference.referenceLocator as string));

function inventoryOf(document: Json): Inventory {
  expect(checkSpdx(document, versionOf(document)).errors).toEqual([]);
  return spdxInventory(document, versionOf(document));
}

describe('real producers\' tag-value documents (spdx/ntia-conformance-checker test data)', () => {
  it.each([
    // file, version, the described package (the subject), purls of components
    ['tag-value/sbom4python-cve-bin-tool.spdx', '2.3', 'cve-bin-tool', ['pkg:pypi/aiohttp@3.9.4', 'pkg:pypi/urllib3@2.2.1']],
    ['tag-value/tern-alpine.spdx', '2.2', 'alpine', ['pkg:apk/alpine/musl@1.2.3-r4?arch=aarch64', 'pkg:apk/alpine/busybox@1.35.0-r29?arch=aarch64']],
    ['tag-value/source-auditor-app-bom-ination.spdx', '2.2', 'App-BOM-ination', ['pkg:maven/org.hamcrest/hamcrest-core@1.3']],
    ['tag-value/zephyr-west-build.spdx', '2.2', 'zephyr_final', []],
  ] as const)('%s: schema-valid, every package, purl, file and relationship of the text', (name, version, subject, purls) => {
    const text = fixtureText(name);
    const written = fromText(text);
    const { document, warnings } = convert(text);
    expect(warnings).toEqual([]);
    expect(versionOf(document)).toBe(version);
    const inventory = inventoryOf(document);

    expect(list(document.packages).map((pkg) => pkg.name)).toEqual(written.packages);
    expect(list(document.files).map((file) => file.fileName)).toEqual(written.files);
    expect(purlsOf(document)).toEqual(written.purls);
    expect(list(document.relationships).map(relationshipKey)).toEqual(written.relationships);

    expect(inventory.subject?.name).toBe(subject);
    expect(inventory.components.length + inventory.skipped.length).toBe(written.packages.length - 1);
    const componentPurls = inventory.components.map((component) => component.purl);
    for (const purl of purls) expect(componentPurls).toContain(purl);
    // No value keeps a line end's CR (the Source Auditor document has CRLF line ends).
    expect(JSON.stringify(document)).not.toContain('\\r');
    if (name.startsWith('tag-value/source-auditor')) expect(text).toContain('\r\n');
  });

  it('the ExternalRef category in the spelling of the version\'s JSON schema, whichever the text used', () => {
    // sbom4python writes PACKAGE_MANAGER in a 2.3 document, Tern PACKAGE-MANAGER in a 2.2 one.
    expect(fixtureText('tag-value/sbom4python-cve-bin-tool.spdx')).toContain('ExternalRef: PACKAGE_MANAGER purl');
    expect(fixtureText('tag-value/tern-alpine.spdx')).toContain('ExternalRef: PACKAGE-MANAGER purl');
    const categories = (name: string) => new Set(list(convert(fixtureText(name)).document.packages).flatMap((pkg) => list(pkg.externalRefs).map((reference) => reference.referenceCategory)));
    expect(categories('tag-value/sbom4python-cve-bin-tool.spdx')).toEqual(new Set(['PACKAGE-MANAGER', 'SECURITY']));
    expect(categories('tag-value/tern-alpine.spdx')).toEqual(new Set(['PACKAGE_MANAGER']));
  });

  it('sbom4python: every DEPENDS_ON between components is a dependency', () => {
    const text = fixtureText('tag-value/sbom4python-cve-bin-tool.spdx');
    const inventory = inventoryOf(convert(text).document);
    const root = 'SPDXRef-Package-1-cve-bin-tool';
    const edges = new Set(fromText(text).relationships.filter((relationship) => relationship.includes(' DEPENDS_ON ') && !relationship.includes(root)));
    expect(edges.size).toBeGreaterThan(50);
    const read = new Set([...inventory.dependencies].flatMap(([from, targets]) => targets.map((to) => `${from} DEPENDS_ON ${to}`)));
    expect(read).toEqual(edges);
  });

  it('Zephyr: the files after a package are in its hasFiles (clause 5.2.3), each once', () => {
    const text = fixtureText('tag-value/zephyr-west-build.spdx');
    // The SPDXID line after each PackageName and FileName line tells which files follow which package.
    const expected = new Map<string, string[]>();
    let opened: 'package' | 'file' | undefined;
    let pkg: string | undefined;
    for (const line of text.split('\n')) {
      if (line.startsWith('PackageName:')) opened = 'package';
      else if (line.startsWith('FileName:')) opened = 'file';
      else if (line.startsWith('SPDXID: ') && opened === 'package') expected.set((pkg = line.slice('SPDXID: '.length)), []);
      else if (line.startsWith('SPDXID: ') && opened === 'file') expected.get(pkg!)!.push(line.slice('SPDXID: '.length));
    }
    const { document } = convert(text);
    const hasFiles = new Map(list(document.packages).map((pkg) => [pkg.SPDXID as string, (pkg.hasFiles as string[] | undefined) ?? []]));
    expect(hasFiles).toEqual(expected);
    expect([...hasFiles.values()].flat()).toHaveLength(list(document.files).length);
    // The builder writes three generated sources after the first package's library.
    expect(hasFiles.get('SPDXRef-..--modules--hal--stm32--stm32cube')).toEqual(['SPDXRef-File-lib..--modules--hal--stm32--stm32cube.a', 'SPDXRef-File-dev-handles.c', 'SPDXRef-File-isr-tables.c', 'SPDXRef-File-configs.c']);
  });

  it('the service\'s own 415 fixture (tag-value.spdx) converts: zlib is the subject', () => {
    const inventory = inventoryOf(convert(fixtureText('tag-value.spdx')).document);
    expect(inventory.subject).toEqual({ name: 'zlib', version: '1.3.1' });
    expect(inventory.components).toEqual([]);
  });
});

describe('values', () => {
  it('a <text> value spans lines verbatim, ":" and "<" and tag-like lines inside; the lines after it are counted right', () => {
    const { document } = convert(
      documentOf(
        ...PACKAGE,
        'PackageDescription: <text>First line: with a colon',
        '<b>not markup</b> and a < sign',
        'PackageVersion: 9.9 (inside the text, not a tag)',
        '',
        '# not a comment here',
        '  indented</text>',
        'PackageVersion: 1.3.1',
      ),
    );
    const zlib = list(document.packages)[0]!;
    expect(zlib.description).toBe('First line: with a colon\n<b>not markup</b> and a < sign\nPackageVersion: 9.9 (inside the text, not a tag)\n\n# not a comment here\n  indented');
    expect(zlib.versionInfo).toBe('1.3.1');
    // Lines are counted on through a text block: the line after this one (11 to 13) is line 14.
    expect(errorsOf(documentOf(...PACKAGE, 'PackageComment: <text>a', 'b', 'c</text>', 'no tag here'))).toEqual(['line 14: not a "Tag: value" line (nor blank, nor a # comment)']);
  });

  it('a <text> opening and closing on the tag\'s line; spaces inside kept, around a line value trimmed; an empty one', () => {
    const { document } = convert(documentOf(...PACKAGE, 'PackageSummary: <text>GNU C library.</text>', 'PackageComment:   <text> padded </text>  ', 'PackageSourceInfo: <text></text>', 'PackageVersion:   1.3.1   '));
    expect(list(document.packages)[0]).toMatchObject({ summary: 'GNU C library.', comment: ' padded ', sourceInfo: '', versionInfo: '1.3.1' });
  });

  it('more after </text> on its line is an error naming the line of </text>', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'PackageComment: <text>one', 'two</text> three'))).toEqual(['line 12: PackageComment: more after </text> on its line (a value ends at </text>)']);
    expect(errorsOf(documentOf(...PACKAGE, 'PackageComment: <text>one</text>three'))).toEqual(['line 11: PackageComment: more after </text> on its line (a value ends at </text>)']);
  });

  it('checksums, verification codes with excluded files, external references and their comments, purposes, dates', () => {
    const { document } = convert(
      documentOf(
        ...PACKAGE,
        'PackageChecksum: SHA256: 11b6d3ee554eedf79299905a98f9b9a04e498210b59f15094c916c91d150efcd',
        'PackageChecksum: BLAKE2b-384:aaab',
        'PackageVerificationCode: d6a770ba38583ed4bb4525bd96e50461655d2758 (excludes: ./package.spdx, ./other.spdx)',
        'ExternalRef: PACKAGE-MANAGER purl pkg:generic/zlib@1.3.1',
        'ExternalRefComment: <text>From the',
        'distribution.</text>',
        'ExternalRef: PERSISTENT_ID swh swh:1:cnt:94a9ed024d3859793618152ea559a168bbcbb5e2',
        'PrimaryPackagePurpose: OPERATING-SYSTEM',
        'ReleaseDate: 2024-01-22T00:00:00Z',
        'FilesAnalyzed: false',
        'Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-zlib',
        'RelationshipComment: the whole product',
        'Relationship: SPDXRef-zlib DEPENDS_ON DocumentRef-other:SPDXRef-libc',
        'Relationship: SPDXRef-zlib GENERATED_FROM NOASSERTION',
        'Relationship: SPDXRef-zlib DYNAMIC_LINK NONE',
      ),
    );
    expect(checkSpdx(document, '2.3').errors).toEqual([]);
    expect(list(document.packages)[0]).toMatchObject({
      checksums: [
        { algorithm: 'SHA256', checksumValue: '11b6d3ee554eedf79299905a98f9b9a04e498210b59f15094c916c91d150efcd' },
        { algorithm: 'BLAKE2b-384', checksumValue: 'aaab' },
      ],
      packageVerificationCode: { packageVerificationCodeValue: 'd6a770ba38583ed4bb4525bd96e50461655d2758', packageVerificationCodeExcludedFiles: ['./package.spdx', './other.spdx'] },
      externalRefs: [
        { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:generic/zlib@1.3.1', comment: 'From the\ndistribution.' },
        { referenceCategory: 'PERSISTENT-ID', referenceType: 'swh', referenceLocator: 'swh:1:cnt:94a9ed024d3859793618152ea559a168bbcbb5e2' },
      ],
      primaryPackagePurpose: 'OPERATING_SYSTEM',
      releaseDate: '2024-01-22T00:00:00Z',
      filesAnalyzed: false,
    });
    expect(document.relationships).toEqual([
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-zlib', comment: 'the whole product' },
      { spdxElementId: 'SPDXRef-zlib', relationshipType: 'DEPENDS_ON', relatedSpdxElement: 'DocumentRef-other:SPDXRef-libc' },
      { spdxElementId: 'SPDXRef-zlib', relationshipType: 'GENERATED_FROM', relatedSpdxElement: 'NOASSERTION' },
      { spdxElementId: 'SPDXRef-zlib', relationshipType: 'DYNAMIC_LINK', relatedSpdxElement: 'NONE' },
    ]);
  });

  it('annotations go to the element they name; one naming no element is left out with a warning; reviews become revieweds', () => {
    const { document, warnings } = convert(
      documentOf(
        'Reviewer: Person: Joe Reviewer',
        'ReviewDate: 2010-02-10T00:00:00Z',
        'ReviewComment: <text>Looks right.</text>',
        ...PACKAGE,
        'Annotator: Person: Jane Doe',
        'AnnotationDate: 2010-01-29T18:30:22Z',
        'AnnotationType: OTHER',
        'AnnotationComment: <text>About the package</text>',
        'SPDXREF: SPDXRef-zlib',
        'Annotator: Tool: scanner',
        'AnnotationDate: 2010-01-29T18:30:22Z',
        'AnnotationType: REVIEW',
        'AnnotationComment: About the document',
        'SPDXREF: SPDXRef-DOCUMENT',
        'Annotator: Tool: scanner',
        'AnnotationDate: 2010-01-29T18:30:22Z',
        'AnnotationType: OTHER',
        'AnnotationComment: About another document',
        'SPDXREF: DocumentRef-other:SPDXRef-DOCUMENT',
      ),
    );
    expect(warnings).toEqual(['line 28: annotation of "DocumentRef-other:SPDXRef-DOCUMENT" left out: no package, file or snippet of this document has that SPDXID']);
    expect(checkSpdx(document, '2.3').errors).toEqual([]);
    expect(list(document.packages)[0]!.annotations).toEqual([{ annotator: 'Person: Jane Doe', annotationDate: '2010-01-29T18:30:22Z', annotationType: 'OTHER', comment: 'About the package' }]);
    expect(document.annotations).toEqual([{ annotator: 'Tool: scanner', annotationDate: '2010-01-29T18:30:22Z', annotationType: 'REVIEW', comment: 'About the document' }]);
    expect(document.revieweds).toEqual([{ reviewer: 'Person: Joe Reviewer', reviewDate: '2010-02-10T00:00:00Z', comment: 'Looks right.' }]);
  });
});

describe('errors and warnings, each naming its line', () => {
  it('a line that is not "Tag: value"', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'this line has no tag', 'PackageVersion 1.0'))).toEqual([
      'line 11: not a "Tag: value" line (nor blank, nor a # comment)',
      'line 12: not a "Tag: value" line (nor blank, nor a # comment)',
    ]);
  });

  it('an unterminated <text>, named by the line it opens on', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'PackageVersion: 1.3.1', 'PackageComment: <text>never', 'closed', '', 'PackageLicenseDeclared: Zlib'))).toEqual([
      'line 12: PackageComment: <text> opened here is never closed by </text>',
    ]);
  });

  it('a package field before any PackageName, and one in a file\'s section', () => {
    expect(errorsOf(documentOf('PackageVersion: 1.0', ...PACKAGE))).toEqual(['line 8: PackageVersion belongs to a package (PackageName opens one), but none has started']);
    expect(errorsOf(documentOf(...PACKAGE, 'FileName: ./zlib.h', 'SPDXID: SPDXRef-zlib-h', 'FileChecksum: SHA1: 85ed0817af83a24ad8da68c2b5094de69833983c', 'PackageVersion: 1.3.1'))).toEqual([
      'line 14: PackageVersion belongs to a package (PackageName opens one), but here is the file that starts on line 11',
    ]);
    expect(errorsOf(documentOf(...PACKAGE, 'ExternalRefComment: orphan'))).toEqual(['line 11: ExternalRefComment before any ExternalRef of the package that starts on line 8']);
    expect(errorsOf(documentOf('RelationshipComment: orphan'))).toEqual(['line 8: RelationshipComment belongs to a relationship (Relationship opens one), but none has started']);
  });

  it('a value its field cannot hold', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'FilesAnalyzed: yes'))).toEqual(['line 11: FilesAnalyzed: "yes" is neither true nor false']);
    expect(errorsOf(documentOf(...PACKAGE, 'PackageChecksum: 11b6d3ee554eedf79299905a98f9b9a04e498210'))[0]).toMatch(/^line 11: PackageChecksum: a checksum is written/);
    expect(errorsOf(documentOf(...PACKAGE, 'ExternalRef: PACKAGE-MANAGER pkg:generic/zlib@1.3.1'))[0]).toMatch(/^line 11: ExternalRef: an external reference is written/);
    expect(errorsOf(documentOf(...PACKAGE, 'PackageVerificationCode: d6a7 (excludes: ./a'))[0]).toMatch(/^line 11: PackageVerificationCode: a verification code is written/);
    expect(errorsOf(documentOf('ExternalDocumentRef: DocumentRef-x https://example.org/x'))[0]).toMatch(/^line 8: ExternalDocumentRef: an external document reference is written/);
    expect(errorsOf(documentOf('SnippetSPDXID: SPDXRef-s', 'SnippetByteRange: 10-20'))[0]).toMatch(/^line 9: SnippetByteRange: a range is written/);
  });

  it('FilesAnalyzed in any case (Tern writes "False")', () => {
    expect(list(convert(documentOf(...PACKAGE, 'FilesAnalyzed: False')).document.packages)[0]!.filesAnalyzed).toBe(false);
  });

  it('a malformed Relationship', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'Relationship: SPDXRef-DOCUMENT DESCRIBES', 'Relationship: SPDXRef-a DEPENDS_ON SPDXRef-b SPDXRef-c'))).toEqual([
      'line 11: Relationship: a relationship is written "<SPDXID> <TYPE> <SPDXID>" (SPDXRef-A DEPENDS_ON SPDXRef-B)',
      'line 12: Relationship: a relationship is written "<SPDXID> <TYPE> <SPDXID>" (SPDXRef-A DEPENDS_ON SPDXRef-B)',
    ]);
  });

  it('a single-valued field given twice', () => {
    expect(errorsOf(documentOf(...PACKAGE, 'PackageVersion: 1', 'PackageVersion: 2'))).toEqual(['line 12: PackageVersion given twice in the package that starts on line 8']);
    expect(errorsOf(documentOf('Created: 2024-01-02T00:00:00Z'))).toEqual(['line 8: Created given twice in the document']);
    expect(errorsOf(documentOf(...PACKAGE, 'ExternalRef: SECURITY cpe23Type cpe:2.3:a:zlib:zlib:1.3.1:*:*:*:*:*:*:*', 'ExternalRefComment: one', 'ExternalRefComment: two'))).toEqual([
      'line 13: ExternalRefComment given twice in the package that starts on line 8',
    ]);
  });

  it('an annotation without SPDXREF, named by its Annotator line', () => {
    expect(errorsOf(documentOf('Annotator: Person: Jane', 'AnnotationDate: 2010-01-29T18:30:22Z', 'AnnotationType: OTHER', 'AnnotationComment: x'))).toEqual([
      'line 8: annotation without SPDXREF: which element it is about is not said',
    ]);
  });

  it('an unknown tag is a warning, case matters; deprecated fields are left out with one; at most 20 listed, then a count', () => {
    const { document, warnings } = convert(documentOf(...PACKAGE, 'Foo: bar', 'packageVersion: 1.0', 'FileName: ./a.c', 'SPDXID: SPDXRef-a', 'FileChecksum: SHA1: 85ed0817af83a24ad8da68c2b5094de69833983c', 'ArtifactOfProjectName: Jena'));
    expect(warnings).toEqual(['line 11: unknown tag "Foo" ignored', 'line 12: unknown tag "packageVersion" ignored', 'line 16: ArtifactOfProjectName (deprecated) left out']);
    expect(list(document.packages)[0]!.versionInfo).toBeUndefined();

    const many = convert(documentOf(...Array.from({ length: 25 }, (_, index) => `Unknown${index}: x`)));
    expect(many.warnings).toHaveLength(MAX_TAG_VALUE_MESSAGES + 1);
    expect(many.warnings[0]).toBe('line 8: unknown tag "Unknown0" ignored');
    expect(many.warnings.at(-1)).toBe('5 more warnings not listed');
  });

  it('at most 20 errors are listed', () => {
    const errors = errorsOf(documentOf(...Array.from({ length: 30 }, () => 'garbage')));
    expect(errors).toHaveLength(MAX_TAG_VALUE_MESSAGES);
    expect(errors[0]).toBe('line 8: not a "Tag: value" line (nor blank, nor a # comment)');
    expect(errors.at(-1)).toBe('line 27: not a "Tag: value" line (nor blank, nor a # comment)');
  });

  it('no SPDXVersion, an empty text, a blank one', () => {
    expect(errorsOf(HEAD.slice(1).join('\n'))).toEqual(['line 1: no SPDXVersion tag: an SPDX tag-value document opens with one (SPDXVersion: SPDX-2.3)']);
    const empty = 'line 1: the document is empty: an SPDX tag-value document opens with SPDXVersion (SPDXVersion: SPDX-2.3)';
    expect(errorsOf('')).toEqual([empty]);
    expect(errorsOf(' \n\t\r\n\n')).toEqual([empty]);
  });

  it('binary garbage', () => {
    // A PNG signature, then bytes of a fixed pseudo-random sequence, read as Latin-1 text.
    let seed = 42;
    const bytes = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 20_000 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256)];
    const errors = errorsOf(Buffer.from(bytes).toString('latin1'));
    expect(errors[0]).toBe('line 1: not a "Tag: value" line (nor blank, nor a # comment)');
    expect(errors.length).toBeLessThanOrEqual(MAX_TAG_VALUE_MESSAGES);
    for (const error of errors) expect(error).toMatch(/^line \d+: /);
  });

  it('a 1 MB single line: as a value it is kept, as a line without a tag it is an error', () => {
    const long = 'x'.repeat(1 << 20);
    expect(list(convert(documentOf(...PACKAGE, `PackageComment: ${long}`)).document.packages)[0]!.comment).toBe(long);
    expect(errorsOf(documentOf(...PACKAGE, long))).toEqual(['line 11: not a "Tag: value" line (nor blank, nor a # comment)']);
    expect(errorsOf(long)).toEqual(['line 1: not a "Tag: value" line (nor blank, nor a # comment)', 'line 1: no SPDXVersion tag: an SPDX tag-value document opens with one (SPDXVersion: SPDX-2.3)']);
  });

  it('__proto__ and constructor as tags are unknown tags; as values and SPDXREFs, plain text', () => {
    const { document, warnings } = convert(
      documentOf('__proto__: {"polluted": true}', 'constructor: x', 'PackageName: __proto__', 'SPDXID: SPDXRef-p', 'PackageDownloadLocation: NONE', 'Annotator: Tool: x', 'AnnotationDate: 2010-01-29T18:30:22Z', 'AnnotationType: OTHER', 'AnnotationComment: x', 'SPDXREF: __proto__'),
    );
    expect(warnings).toEqual([
      'line 8: unknown tag "__proto__" ignored',
      'line 9: unknown tag "constructor" ignored',
      'line 17: annotation of "__proto__" left out: no package, file or snippet of this document has that SPDXID',
    ]);
    expect(Object.getPrototypeOf(document)).toBe(Object.prototype);
    expect(Object.hasOwn(document, '__proto__')).toBe(false);
    expect(({} as Json).polluted).toBeUndefined();
    expect(list(document.packages)[0]!.name).toBe('__proto__');
    expect(checkSpdx(document, '2.3').errors).toEqual([]);
  });

  it('never throws on mangled real documents; what it refuses it names by line', () => {
    const lines = fixtureText('tag-value/SPDXTagExample-v2.3.spdx').split('\n');
    let seed = 7;
    const next = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    const cuts = ['<text>', '</text>', ':', '', '#', '\r', '\u0000', 'PackageName: x', 'SPDXREF: SPDXRef-File', 'Relationship: a b'];
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const mangled = [...lines];
      for (let edit = 0; edit < 3; edit++) {
        const at = next(mangled.length);
        const line = mangled[at]!;
        const cut = next(line.length + 1);
        mangled[at] = line.slice(0, cut) + cuts[next(cuts.length)]! + line.slice(cut + next(3));
      }
      const result = spdxTagValueDocument(mangled.join('\n'));
      if (result.ok) {
        expect(() => checkSpdx(result.document, '2.3')).not.toThrow();
        continue;
      }
      refused++;
      expect(result.errors.length).toBeGreaterThan(0);
      expect(result.errors.length).toBeLessThanOrEqual(MAX_TAG_VALUE_MESSAGES);
      for (const error of result.errors) {
        const line = Number(/^line (\d+): /.exec(error)?.[1]);
        expect(line).toBeGreaterThanOrEqual(1);
        expect(line).toBeLessThanOrEqual(mangled.length);
      }
    }
    expect(refused).toBeGreaterThan(30);
  });
});

describe('looksLikeSpdxTagValue', () => {
  it.each([
    'tag-value.spdx',
    'tag-value/SPDXTagExample-v2.3.spdx',
    'tag-value/SPDXTagExample-v2.2.spdx',
    'tag-value/sbom4python-cve-bin-tool.spdx',
    'tag-value/tern-alpine.spdx',
    'tag-value/source-auditor-app-bom-ination.spdx',
    'tag-value/zephyr-west-build.spdx',
  ])('%s: yes', (name) => {
    expect(looksLikeSpdxTagValue(fixtureText(name).slice(0, 4096))).toBe(true);
  });

  it.each(['npm-sbom-prod.spdx.json', 'cyclonedx-npm-1.6-prod.cdx.xml', 'small-2.2.spdx.json'])('%s: no', (name) => {
    expect(looksLikeSpdxTagValue(fixtureText(name).slice(0, 4096))).toBe(false);
  });

  it('what read-sbom.ts sniffed before, and a BOM, blank lines, CRLF, another document tag first', () => {
    const before = /^(?:#[^\n]*\n\s*)*SPDXVersion\s*:/;
    const yes = ['SPDXVersion: SPDX-2.3', 'SPDXVersion\n: SPDX-2.3', '# SBOM\n## made by x\n\nSPDXVersion:SPDX-2.2', '\ufeffSPDXVersion: SPDX-2.3', '\r\n  SPDXVersion : SPDX-2.3\r\n', 'DataLicense: CC0-1.0\nSPDXVersion: SPDX-2.3', 'DocumentName: x\n# c\nSPDXVersion: SPDX-2.3'];
    for (const start of yes) expect(looksLikeSpdxTagValue(start), JSON.stringify(start)).toBe(true);
    const no = ['', '{"spdxVersion": "SPDX-2.3"}', 'spdxVersion: SPDX-2.3', 'bomFormat: CycloneDX', 'PackageName: x\nSPDXVersion: SPDX-2.3', 'DataLicense: CC0-1.0', 'SPDXVersion', '# only a comment'];
    for (const start of no) expect(looksLikeSpdxTagValue(start), JSON.stringify(start)).toBe(false);
    for (const start of [...yes, ...no]) if (before.test(start.trimStart())) expect(looksLikeSpdxTagValue(start)).toBe(true);
  });
});
