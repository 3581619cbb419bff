/**
 * SPDX 2.2/2.3 tag-value → the SPDX JSON document of the same content, so that a tag-value SBOM goes
 * through the same schema check (schema-validation.ts) and the same reader (spdx.ts) as a JSON one:
 * this module only changes the serialization, and leaves every judgement of content to the schema.
 * Pure, synchronous, linear in the text, and never throws, whatever the text.
 *
 * Converted (SPDX 2.3 clauses 6 to 12; the JSON names are spdx-schema.ts's): the document creation
 * fields, packages, files (a file after a package is listed in that package's `hasFiles`, as the
 * specification's clause 5.2.3 places it), snippets (byte and line ranges become `ranges` pointers
 * into the snippet's file), other licensing information, relationships, annotations (put on the
 * element their SPDXREF names; one naming no element of the document is left out with a warning) and
 * the deprecated review fields (`revieweds`). Left out with a warning: the deprecated file fields
 * FileDependency and ArtifactOf* (the JSON form wants SPDXIDs and objects the tag-value form does not
 * give), and unknown tags.
 *
 * Where the two forms differ, the JSON form is written: an ExternalRef category in the spelling the
 * version's own JSON schema has (PACKAGE_MANAGER in 2.2, PACKAGE-MANAGER in 2.3, whichever the text
 * used), a PrimaryPackagePurpose with underscores (OPERATING-SYSTEM → OPERATING_SYSTEM), FilesAnalyzed
 * as a boolean. Nothing else is changed: a relationship type, file type or checksum algorithm the
 * schema does not know is passed on for the schema to name.
 *
 * Syntax (the specification's tag-value rules): one `Tag: value` a line, tags case-sensitive, blank
 * lines and lines starting with `#` ignored. A value that starts with `<text>` runs to the first
 * `</text>`, across lines, and is kept verbatim (a line value is trimmed). Which package, file,
 * snippet or license a field belongs to is given by the last PackageName, FileName, SnippetSPDXID or
 * LicenseID before it; relationships and annotations may come anywhere.
 */

export type TagValueConversion =
  | { readonly ok: true; readonly document: Record<string, unknown>; readonly warnings: string[] }
  | { readonly ok: false; readonly errors: string[] };

/** At most this many errors, and this many warnings (then a count of the rest), are listed. */
export const MAX_TAG_VALUE_MESSAGES = 20;

type Scope = 'document' | 'creation' | 'element' | 'package' | 'file' | 'snippet' | 'license' | 'annotation' | 'review' | 'relationship';

/** A value its field cannot hold, and why (a class, so that no parsed value is taken for one). */
class Invalid {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

interface Field {
  readonly scope: Scope;
  /** The JSON property it fills. */
  readonly key: string;
  /** Opens a new section of its scope (PackageName, FileName, …). */
  readonly opens?: boolean;
  /** May be given several times: the values are listed under `key`. */
  readonly many?: boolean;
  /** The JSON value of the written one (a plain string when absent), or why there is none. */
  readonly parse?: (value: string) => unknown;
}

/** What each kind of section is called in messages, and the tag that opens it. */
const SECTION_NAMES: Readonly<Record<Scope, string>> = {
  document: 'document',
  creation: 'document',
  element: 'package or file',
  package: 'package (PackageName opens one)',
  file: 'file (FileName opens one)',
  snippet: 'snippet (SnippetSPDXID opens one)',
  license: 'license (LicenseID opens one)',
  annotation: 'annotation (Annotator opens one)',
  review: 'review (Reviewer opens one)',
  relationship: 'relationship (Relationship opens one)',
};

const FIELDS = new Map<string, Field>([
  ['SPDXVersion', { scope: 'document', key: 'spdxVersion' }],
  ['DataLicense', { scope: 'document', key: 'dataLicense' }],
  ['DocumentName', { scope: 'document', key: 'name' }],
  ['DocumentNamespace', { scope: 'document', key: 'documentNamespace' }],
  ['DocumentComment', { scope: 'document', key: 'comment' }],
  ['ExternalDocumentRef', { scope: 'document', key: 'externalDocumentRefs', many: true, parse: externalDocumentRef }],
  ['Creator', { scope: 'creation', key: 'creators', many: true }],
  ['Created', { scope: 'creation', key: 'created' }],
  ['CreatorComment', { scope: 'creation', key: 'comment' }],
  ['LicenseListVersion', { scope: 'creation', key: 'licenseListVersion' }],
  // The document's, a package's or a file's, by where it stands.
  ['SPDXID', { scope: 'element', key: 'SPDXID' }],

  ['PackageName', { scope: 'package', key: 'name', opens: true }],
  ['PackageVersion', { scope: 'package', key: 'versionInfo' }],
  ['PackageFileName', { scope: 'package', key: 'packageFileName' }],
  ['PackageSupplier', { scope: 'package', key: 'supplier' }],
  ['PackageOriginator', { scope: 'package', key: 'originator' }],
  ['PackageDownloadLocation', { scope: 'package', key: 'downloadLocation' }],
  ['FilesAnalyzed', { scope: 'package', key: 'filesAnalyzed', parse: filesAnalyzed }],
  ['PackageVerificationCode', { scope: 'package', key: 'packageVerificationCode', parse: verificationCode }],
  ['PackageChecksum', { scope: 'package', key: 'checksums', many: true, parse: checksum }],
  ['PackageHomePage', { scope: 'package', key: 'homepage' }],
  ['PackageSourceInfo', { scope: 'package', key: 'sourceInfo' }],
  ['PackageLicenseConcluded', { scope: 'package', key: 'licenseConcluded' }],
  ['PackageLicenseInfoFromFiles', { scope: 'package', key: 'licenseInfoFromFiles', many: true }],
  ['PackageLicenseDeclared', { scope: 'package', key: 'licenseDeclared' }],
  ['PackageLicenseComments', { scope: 'package', key: 'licenseComments' }],
  ['PackageCopyrightText', { scope: 'package', key: 'copyrightText' }],
  ['PackageSummary', { scope: 'package', key: 'summary' }],
  ['PackageDescription', { scope: 'package', key: 'description' }],
  ['PackageComment', { scope: 'package', key: 'comment' }],
  ['ExternalRef', { scope: 'package', key: 'externalRefs', many: true, parse: externalRef }],
  // The comment of the ExternalRef before it (handled in `apply`).
  ['ExternalRefComment', { scope: 'package', key: 'comment' }],
  ['PackageAttributionText', { scope: 'package', key: 'attributionTexts', many: true }],
  ['PrimaryPackagePurpose', { scope: 'package', key: 'primaryPackagePurpose', parse: packagePurpose }],
  ['ReleaseDate', { scope: 'package', key: 'releaseDate' }],
  ['BuiltDate', { scope: 'package', key: 'builtDate' }],
  ['ValidUntilDate', { scope: 'package', key: 'validUntilDate' }],

  ['FileName', { scope: 'file', key: 'fileName', opens: true }],
  ['FileType', { scope: 'file', key: 'fileTypes', many: true }],
  ['FileChecksum', { scope: 'file', key: 'checksums', many: true, parse: checksum }],
  ['LicenseConcluded', { scope: 'file', key: 'licenseConcluded' }],
  ['LicenseInfoInFile', { scope: 'file', key: 'licenseInfoInFiles', many: true }],
  ['LicenseComments', { scope: 'file', key: 'licenseComments' }],
  ['FileCopyrightText', { scope: 'file', key: 'copyrightText' }],
  ['FileComment', { scope: 'file', key: 'comment' }],
  ['FileNotice', { scope: 'file', key: 'noticeText' }],
  ['FileContributor', { scope: 'file', key: 'fileContributors', many: true }],
  ['FileAttributionText', { scope: 'file', key: 'attributionTexts', many: true }],

  ['SnippetSPDXID', { scope: 'snippet', key: 'SPDXID', opens: true }],
  ['SnippetFromFileSPDXID', { scope: 'snippet', key: 'snippetFromFile' }],
  ['SnippetByteRange', { scope: 'snippet', key: 'ranges', many: true, parse: (value) => range(value, 'offset') }],
  ['SnippetLineRange', { scope: 'snippet', key: 'ranges', many: true, parse: (value) => range(value, 'lineNumber') }],
  ['SnippetLicenseConcluded', { scope: 'snippet', key: 'licenseConcluded' }],
  ['LicenseInfoInSnippet', { scope: 'snippet', key: 'licenseInfoInSnippets', many: true }],
  ['SnippetLicenseComments', { scope: 'snippet', key: 'licenseComments' }],
  ['SnippetCopyrightText', { scope: 'snippet', key: 'copyrightText' }],
  ['SnippetComment', { scope: 'snippet', key: 'comment' }],
  ['SnippetName', { scope: 'snippet', key: 'name' }],
  ['SnippetAttributionText', { scope: 'snippet', key: 'attributionTexts', many: true }],

  ['LicenseID', { scope: 'license', key: 'licenseId', opens: true }],
  ['ExtractedText', { scope: 'license', key: 'extractedText' }],
  ['LicenseName', { scope: 'license', key: 'name' }],
  ['LicenseCrossReference', { scope: 'license', key: 'seeAlsos', many: true, parse: crossReferences }],
  ['LicenseComment', { scope: 'license', key: 'comment' }],

  ['Annotator', { scope: 'annotation', key: 'annotator', opens: true }],
  ['AnnotationDate', { scope: 'annotation', key: 'annotationDate' }],
  ['AnnotationType', { scope: 'annotation', key: 'annotationType' }],
  ['AnnotationComment', { scope: 'annotation', key: 'comment' }],
  // Which element the annotation is about: kept beside it, not in it (handled in `apply`).
  ['SPDXREF', { scope: 'annotation', key: 'SPDXREF' }],

  ['Reviewer', { scope: 'review', key: 'reviewer', opens: true }],
  ['ReviewDate', { scope: 'review', key: 'reviewDate' }],
  ['ReviewComment', { scope: 'review', key: 'comment' }],

  // Fills spdxElementId, relationshipType and relatedSpdxElement (handled in `open`).
  ['Relationship', { scope: 'relationship', key: 'relationshipType', opens: true, parse: relationship }],
  ['RelationshipComment', { scope: 'relationship', key: 'comment' }],
]);

/**
 * The fields by a hash of their tag, so that a line's tag is found without copying it out of the text
 * (a 10,000-package document has 130,000 lines); a tag named __proto__ is simply not among them.
 */
const FIELDS_BY_HASH = new Map<number, { readonly tag: string; readonly field: Field }[]>();
for (const [tag, field] of FIELDS) {
  const hash = tagHash(tag, 0, tag.length);
  FIELDS_BY_HASH.set(hash, [...(FIELDS_BY_HASH.get(hash) ?? []), { tag, field }]);
}

/** The field of the tag from start to end of the text, when it is one of FIELDS. */
function knownField(text: string, start: number, end: number, hash: number): { readonly tag: string; readonly field: Field } | undefined {
  const candidates = FIELDS_BY_HASH.get(hash);
  if (candidates === undefined) return undefined;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index]!;
    if (candidate.tag.length === end - start && text.startsWith(candidate.tag, start)) return candidate;
  }
  return undefined;
}

/** The hash FIELDS_BY_HASH is keyed by: the text's tag characters from start to end. */
function tagHash(text: string, start: number, end: number): number {
  let hash = 0;
  for (let index = start; index < end; index++) hash = (Math.imul(hash, 31) + text.charCodeAt(index)) | 0;
  return hash;
}

/** Deprecated fields the JSON form has no place for from what the tag-value form gives. */
const LEFT_OUT = new Set(['FileDependency', 'ArtifactOfProjectName', 'ArtifactOfProjectHomePage', 'ArtifactOfProjectURI']);

/** The document creation tags: what a tag-value document opens with. */
const DOCUMENT_TAGS = new Set(['SPDXVersion', 'DataLicense', 'SPDXID', 'DocumentName', 'DocumentNamespace', 'DocumentComment', 'ExternalDocumentRef', 'Creator', 'Created', 'CreatorComment', 'LicenseListVersion']);

interface Section {
  readonly scope: Scope;
  /** The line of the tag that opened it (1 for the document's own). */
  readonly line: number;
  readonly object: Record<string, unknown>;
  /** An annotation's SPDXREF and its line. */
  target?: { readonly id: string; readonly line: number };
  /** A file's package: the one before it (clause 5.2.3). */
  readonly owner: Section | undefined;
}

const section = (scope: Scope, line: number, owner?: Section, object: Record<string, unknown> = {}): Section => ({ scope, line, object, owner, target: undefined });

/** The errors and warnings, the first MAX_TAG_VALUE_MESSAGES of each kind listed and all of them counted. */
class Messages {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  errorCount = 0;
  warningCount = 0;

  error(line: number, message: string): void {
    this.errorCount++;
    if (this.errors.length < MAX_TAG_VALUE_MESSAGES) this.errors.push(`line ${line}: ${message}`);
  }

  warn(line: number, message: string): void {
    this.warningCount++;
    if (this.warnings.length < MAX_TAG_VALUE_MESSAGES) this.warnings.push(`line ${line}: ${message}`);
  }

  listedWarnings(): string[] {
    const more = this.warningCount - this.warnings.length;
    return more > 0 ? [...this.warnings, `${more} more warning${more === 1 ? '' : 's'} not listed`] : this.warnings;
  }
}

/** The state of one conversion: the sections read so far, in document order. */
class Converter {
  readonly messages = new Messages();
  readonly document = section('document', 1);
  readonly creation = section('creation', 1);
  readonly packages: Section[] = [];
  readonly files: Section[] = [];
  readonly snippets: Section[] = [];
  readonly licenses: Section[] = [];
  readonly annotations: Section[] = [];
  readonly reviews: Section[] = [];
  readonly relationships: Section[] = [];
  /** The last package, file, snippet or license opened: where their fields go. */
  element: Section | undefined;
  lastPackage: Section | undefined;
  annotation: Section | undefined;
  review: Section | undefined;
  relationship: Section | undefined;

  /** One `Tag: value` of the text (its field, when the tag is known), its value trimmed (a line) or verbatim (a <text>). */
  apply(field: Field | undefined, tag: string, value: string, line: number): void {
    if (field === undefined) {
      if (LEFT_OUT.has(tag)) this.messages.warn(line, `${tag} (deprecated) left out`);
      else this.messages.warn(line, `unknown tag "${tag.length > 60 ? `${tag.slice(0, 60)}…` : tag}" ignored`);
      return;
    }
    const written = field.parse ? field.parse(value) : value;
    if (written instanceof Invalid) return this.messages.error(line, `${tag}: ${written.reason}`);

    if (field.opens) return this.open(field, written, line);
    const target = this.sectionFor(field, tag, line);
    if (target === undefined) return;

    if (tag === 'SPDXREF') {
      if (target.target) return this.twice(target, tag, line);
      target.target = { id: String(written).trim(), line };
      return;
    }
    if (tag === 'ExternalRefComment') {
      const references = target.object.externalRefs as Record<string, unknown>[] | undefined;
      const reference = references?.[references.length - 1];
      if (reference === undefined) return this.messages.error(line, `${tag} before any ExternalRef of the package that starts on line ${target.line}`);
      return this.set(target, reference, 'comment', written, tag, line);
    }
    if (field.many) {
      const list = ((target.object[field.key] as unknown[] | undefined) ??= []);
      // A loop, not push(...): a cross-reference line may hold more values than a call takes arguments.
      if (Array.isArray(written)) for (const item of written) list.push(item);
      else list.push(written);
      return;
    }
    this.set(target, target.object, field.key, written, tag, line);
  }

  /** A single-valued field: a second one is an error (which of the two is meant is not for the converter to guess). */
  private set(target: Section, object: Record<string, unknown>, key: string, value: unknown, tag: string, line: number): void {
    if (Object.hasOwn(object, key)) return this.twice(target, tag, line);
    object[key] = value;
  }

  private twice(target: Section, tag: string, line: number): void {
    const where = target.scope === 'document' || target.scope === 'creation' ? 'the document' : `the ${target.scope} that starts on line ${target.line}`;
    this.messages.error(line, `${tag} given twice in ${where}`);
  }

  private open(field: Field, value: unknown, line: number): void {
    switch (field.scope) {
      case 'package': {
        const opened = section('package', line);
        opened.object.name = value;
        this.packages.push(opened);
        this.element = this.lastPackage = opened;
        return;
      }
      case 'file': {
        const opened = section('file', line, this.lastPackage);
        opened.object.fileName = value;
        this.files.push(opened);
        this.element = opened;
        return;
      }
      case 'snippet': {
        const opened = section('snippet', line);
        opened.object.SPDXID = value;
        this.snippets.push(opened);
        this.element = opened;
        return;
      }
      case 'license': {
        const opened = section('license', line);
        opened.object.licenseId = value;
        this.licenses.push(opened);
        this.element = opened;
        return;
      }
      case 'annotation': {
        const opened = section('annotation', line);
        opened.object.annotator = value;
        this.annotations.push(opened);
        this.annotation = opened;
        return;
      }
      case 'review': {
        const opened = section('review', line);
        opened.object.reviewer = value;
        this.reviews.push(opened);
        this.review = opened;
        return;
      }
      case 'relationship': {
        const opened = section('relationship', line, undefined, value as Record<string, unknown>);
        this.relationships.push(opened);
        this.relationship = opened;
        return;
      }
    }
  }

  /** The section a field of this scope goes to here, or undefined (and an error) when there is none. */
  private sectionFor(field: Field, tag: string, line: number): Section | undefined {
    switch (field.scope) {
      case 'document':
        return this.document;
      case 'creation':
        return this.creation;
      case 'element':
        if (this.element === undefined) return this.document;
        if (this.element.scope === 'package' || this.element.scope === 'file') return this.element;
        return this.misplaced(field, tag, line, this.element);
      case 'annotation':
        return this.annotation ?? this.misplaced(field, tag, line, undefined);
      case 'review':
        return this.review ?? this.misplaced(field, tag, line, undefined);
      case 'relationship':
        return this.relationship ?? this.misplaced(field, tag, line, undefined);
      default:
        return this.element?.scope === field.scope ? this.element : this.misplaced(field, tag, line, this.element);
    }
  }

  private misplaced(field: Field, tag: string, line: number, open: Section | undefined): undefined {
    const here = open ? `here is the ${open.scope} that starts on line ${open.line}` : `none has started`;
    this.messages.error(line, `${tag} belongs to a ${SECTION_NAMES[field.scope]}, but ${here}`);
    return undefined;
  }

  /** The JSON document, or undefined when an error was found on the way. */
  build(): Record<string, unknown> | undefined {
    const version = this.document.object.spdxVersion;

    for (const pkg of this.packages) {
      for (const reference of (pkg.object.externalRefs as Record<string, unknown>[] | undefined) ?? []) {
        reference.referenceCategory = category(reference.referenceCategory as string, version);
      }
    }
    // A file after a package is in it (clause 5.2.3): the JSON form says so with hasFiles.
    const hasFiles = new Map<Section, Set<string>>();
    for (const file of this.files) {
      const id = file.object.SPDXID;
      if (file.owner === undefined || typeof id !== 'string') continue;
      let ids = hasFiles.get(file.owner);
      if (ids === undefined) hasFiles.set(file.owner, (ids = new Set()));
      ids.add(id);
    }
    for (const [pkg, ids] of hasFiles) pkg.object.hasFiles = [...ids];
    for (const snippet of this.snippets) {
      const reference = snippet.object.snippetFromFile;
      const ranges = snippet.object.ranges as { startPointer: Record<string, unknown>; endPointer: Record<string, unknown> }[] | undefined;
      if (typeof reference !== 'string' || ranges === undefined) continue;
      for (const { startPointer, endPointer } of ranges) {
        startPointer.reference = reference;
        endPointer.reference = reference;
      }
    }

    // The elements by SPDXID, for the annotations (the first of an SPDXID given twice).
    const byId = new Map<string, Record<string, unknown>>();
    if (this.annotations.length > 0) {
      for (const element of [...this.packages, ...this.files, ...this.snippets]) {
        const id = element.object.SPDXID;
        if (typeof id === 'string' && !byId.has(id)) byId.set(id, element.object);
      }
    }
    const documentAnnotations: unknown[] = [];
    for (const annotation of this.annotations) {
      const target = annotation.target;
      if (target === undefined) {
        this.messages.error(annotation.line, 'annotation without SPDXREF: which element it is about is not said');
        continue;
      }
      if (target.id === this.document.object.SPDXID) {
        documentAnnotations.push(annotation.object);
        continue;
      }
      const element = byId.get(target.id);
      if (element === undefined) {
        this.messages.warn(target.line, `annotation of "${clipped(target.id)}" left out: no package, file or snippet of this document has that SPDXID`);
        continue;
      }
      ((element.annotations as unknown[] | undefined) ??= []).push(annotation.object);
    }
    if (this.messages.errorCount > 0) return undefined;

    const { spdxVersion, dataLicense, SPDXID, name, documentNamespace, externalDocumentRefs, comment } = this.document.object;
    const document: Record<string, unknown> = {};
    const put = (key: string, value: unknown) => {
      if (value !== undefined && !(Array.isArray(value) && value.length === 0)) document[key] = value;
    };
    put('spdxVersion', spdxVersion);
    put('dataLicense', dataLicense);
    put('SPDXID', SPDXID);
    put('name', name);
    put('documentNamespace', documentNamespace);
    put('externalDocumentRefs', externalDocumentRefs);
    put('creationInfo', Object.keys(this.creation.object).length > 0 ? this.creation.object : undefined);
    put('comment', comment);
    put('packages', this.packages.map((pkg) => pkg.object));
    put('files', this.files.map((file) => file.object));
    put('snippets', this.snippets.map((snippet) => snippet.object));
    put('hasExtractedLicensingInfos', this.licenses.map((license) => license.object));
    put('relationships', this.relationships.map((relationship) => relationship.object));
    put('annotations', documentAnnotations);
    put('revieweds', this.reviews.map((review) => review.object));
    return document;
  }
}

/**
 * Converts an SPDX tag-value document to the SPDX JSON document of the same content. Errors (at most
 * MAX_TAG_VALUE_MESSAGES, each "line N: …"): a line that is neither blank, a comment nor `Tag: value`;
 * a <text> never closed (named by the line it opens on) or followed by more on its closing line; a
 * field outside its section; a value its field cannot hold; a second value of a single-valued field;
 * an annotation without SPDXREF; no SPDXVersion. Warnings: unknown tags and what is left out.
 */
export function spdxTagValueDocument(text: string): TagValueConversion {
  if (typeof text !== 'string') return { ok: false, errors: ['line 1: not text'] };
  const converter = new Converter();
  const messages = converter.messages;
  // CRLF is a line end like LF; a lone CR is left as it is (a blank, trimmed from a line value).
  const source = text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text;
  const length = source.length;
  let blank = true;

  // Indices into the text rather than a copy of each line: a 10,000-package document is 130,000 lines.
  let position = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (position < length) {
    let end = source.indexOf('\n', position);
    if (end < 0) end = length;
    let next = end + 1;
    let nextLine = line + 1;

    let start = position;
    while (start < end && isBlank(source.charCodeAt(start))) start++;
    if (start === end || source.charCodeAt(start) === 35 /* # */) {
      if (start !== end) blank = false;
      position = next;
      line = nextLine;
      continue;
    }
    blank = false;
    let colon = start;
    let hash = 0;
    while (colon < end) {
      const code = source.charCodeAt(colon);
      if (!isTagCharacter(code)) break;
      hash = (Math.imul(hash, 31) + code) | 0;
      colon++;
    }
    const tagEnd = colon;
    while (colon < end && isBlank(source.charCodeAt(colon))) colon++;
    if (tagEnd === start || source.charCodeAt(colon) !== 58 /* : */) {
      messages.error(line, 'not a "Tag: value" line (nor blank, nor a # comment)');
      position = next;
      line = nextLine;
      continue;
    }
    const known = knownField(source, start, tagEnd, hash);
    const tag = known ? known.tag : source.slice(start, tagEnd);
    let valueStart = colon + 1;
    while (valueStart < end && isBlank(source.charCodeAt(valueStart))) valueStart++;
    let value: string;
    if (source.startsWith('<text>', valueStart)) {
      const opened = valueStart + '<text>'.length;
      const close = source.indexOf('</text>', opened);
      if (close < 0) {
        messages.error(line, `${tag}: <text> opened here is never closed by </text>`);
        break;
      }
      value = source.slice(opened, close);
      const closeLine = line + newlines(value);
      const after = close + '</text>'.length;
      let closeEnd = source.indexOf('\n', after);
      if (closeEnd < 0) closeEnd = length;
      let rest = after;
      while (rest < closeEnd && isBlank(source.charCodeAt(rest))) rest++;
      if (rest < closeEnd) messages.error(closeLine, `${tag}: more after </text> on its line (a value ends at </text>)`);
      next = closeEnd + 1;
      nextLine = closeLine + 1;
    } else {
      value = source.slice(valueStart, end).trim();
    }
    converter.apply(known?.field, tag, value, line);
    position = next;
    line = nextLine;
  }

  if (!Object.hasOwn(converter.document.object, 'spdxVersion')) {
    messages.error(1, blank ? 'the document is empty: an SPDX tag-value document opens with SPDXVersion (SPDXVersion: SPDX-2.3)' : 'no SPDXVersion tag: an SPDX tag-value document opens with one (SPDXVersion: SPDX-2.3)');
  }
  const document = converter.build();
  if (document === undefined || messages.errorCount > 0) return { ok: false, errors: messages.errors };
  return { ok: true, document, warnings: messages.listedWarnings() };
}

/**
 * Whether a text (its first few KB) is SPDX tag-value: after blank and # comment lines, its first line
 * is `SPDXVersion: …`, or another document creation tag when an `SPDXVersion:` line follows.
 */
export function looksLikeSpdxTagValue(start: string): boolean {
  // What read-sbom.ts sniffed before, kept as it was: it answers yes to all it answered yes to.
  if (/^(?:#[^\n]*\n\s*)*SPDXVersion\s*:/.test(start.trimStart())) return true;
  let position = start.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (position < start.length) {
    let end = start.indexOf('\n', position);
    if (end < 0) end = start.length;
    const content = start.slice(position, end).trim();
    if (content !== '' && !content.startsWith('#')) {
      const tag = tagOf(content);
      if (tag === undefined || !DOCUMENT_TAGS.has(tag.name)) return false;
      return tag.name === 'SPDXVersion' || /^[ \t]*SPDXVersion[ \t]*:/m.test(start.slice(end));
    }
    position = end + 1;
  }
  return false;
}

/** The tag of a `Tag: value` line (its leading blanks removed) and where its colon is, or undefined. */
function tagOf(content: string): { name: string; colon: number } | undefined {
  let index = 0;
  while (index < content.length && isTagCharacter(content.charCodeAt(index))) index++;
  if (index === 0) return undefined;
  const name = content.slice(0, index);
  while (content[index] === ' ' || content[index] === '\t') index++;
  return content[index] === ':' ? { name, colon: index } : undefined;
}

/** A-Z, a-z, 0-9, _ . - : wider than the specification's tags, so that a misspelt one is a warning, not an error. */
const TAG_CHARACTERS = new Uint8Array(128).map((_, code) => Number(/[A-Za-z0-9_.-]/.test(String.fromCharCode(code))));

function isTagCharacter(code: number): boolean {
  return code < 128 && TAG_CHARACTERS[code] === 1;
}

/** Space, tab, CR, form feed, vertical tab: what may stand around a tag and its value. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 12 || code === 11;
}

function newlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

const clipped = (text: string): string => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

/** The whitespace-separated words of a value, at most `limit` + 1 of them (enough to tell that there are too many). */
function words(value: string, limit: number): string[] {
  const found: string[] = [];
  let index = 0;
  while (found.length <= limit) {
    while (index < value.length && isSpace(value.charCodeAt(index))) index++;
    if (index === value.length) break;
    const start = index;
    while (index < value.length && !isSpace(value.charCodeAt(index))) index++;
    found.push(value.slice(start, index));
  }
  return found;
}

/** Whitespace between the words of a value: the blanks, and line ends (a <text> value may hold them). */
function isSpace(code: number): boolean {
  return isBlank(code) || code === 10;
}

/** `SHA1: 85ed…` → {algorithm, checksumValue}. */
function checksum(value: string): unknown {
  const colon = value.indexOf(':');
  const algorithm = colon < 0 ? '' : value.slice(0, colon).trim();
  const checksumValue = colon < 0 ? '' : value.slice(colon + 1).trim();
  if (algorithm === '' || checksumValue === '' || /\s/.test(algorithm) || /\s/.test(checksumValue)) {
    return new Invalid('a checksum is written "ALGORITHM: value" (SHA256: 11b6d3ee…)');
  }
  return { algorithm, checksumValue };
}

/** `DocumentRef-x <document namespace> SHA1: d6a7…` → {externalDocumentId, spdxDocument, checksum}. */
function externalDocumentRef(value: string): unknown {
  const parts = words(value, 4);
  const sum = parts.length >= 3 ? checksum(parts.slice(2).join(' ')) : undefined;
  if (sum === undefined || sum instanceof Invalid) return new Invalid('an external document reference is written "DocumentRef-<id> <document namespace> SHA1: <checksum>"');
  return { externalDocumentId: parts[0], spdxDocument: parts[1], checksum: sum };
}

/** `true` or `false`, in any case (Tern writes `False`). */
function filesAnalyzed(value: string): unknown {
  const lower = value.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return new Invalid(`"${clipped(value.trim())}" is neither true nor false`);
}

/** `d6a7… (excludes: ./a, ./b)`, or the form without "excludes:" (the specification's 2.2 and 2.3 examples). */
function verificationCode(value: string): unknown {
  const written = value.trim();
  const open = written.indexOf('(');
  const code = (open < 0 ? written : written.slice(0, open)).trim();
  const malformed = new Invalid('a verification code is written "<code>" or "<code> (excludes: <file>, …)"');
  if (code === '' || /\s/.test(code)) return malformed;
  if (open < 0) return { packageVerificationCodeValue: code };
  if (!written.endsWith(')')) return malformed;
  const excluded = written
    .slice(open + 1, -1)
    .replace(/^\s*excludes\s*:/i, '')
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '');
  return { packageVerificationCodeValue: code, ...(excluded.length > 0 ? { packageVerificationCodeExcludedFiles: excluded } : {}) };
}

/** `<category> <type> <locator>`: the category is put in its version's spelling once the version is known. */
function externalRef(value: string): unknown {
  const parts = words(value, 3);
  if (parts.length !== 3) return new Invalid('an external reference is written "<category> <type> <locator>" (PACKAGE-MANAGER purl pkg:npm/x@1.0.0)');
  return { referenceCategory: parts[0], referenceType: parts[1], referenceLocator: parts[2] };
}

/** The SPDX project's JSON schema of 2.2 spells these categories with an underscore, that of 2.3 with a hyphen; tag-value documents of both versions are written either way. */
function category(written: string, version: unknown): string {
  const v22 = version === 'SPDX-2.2';
  const v23 = version === 'SPDX-2.3';
  switch (written) {
    case 'PACKAGE-MANAGER':
    case 'PACKAGE_MANAGER':
      return v22 ? 'PACKAGE_MANAGER' : v23 ? 'PACKAGE-MANAGER' : written;
    case 'PERSISTENT-ID':
    case 'PERSISTENT_ID':
      return v22 ? 'PERSISTENT_ID' : v23 ? 'PERSISTENT-ID' : written;
    default:
      return written;
  }
}

/** OPERATING-SYSTEM (the tag-value form) → OPERATING_SYSTEM (the JSON one). */
function packagePurpose(value: string): unknown {
  return value.trim().replaceAll('-', '_');
}

/** `310:420` → a range of two pointers (their file reference is set once the snippet's file is known). */
function range(value: string, unit: 'offset' | 'lineNumber'): unknown {
  const match = /^(\d{1,15}):(\d{1,15})$/.exec(value.trim());
  if (!match) return new Invalid('a range is written "<start>:<end>" (310:420)');
  return { startPointer: { [unit]: Number(match[1]) }, endPointer: { [unit]: Number(match[2]) } };
}

/** One or more URLs, separated by whitespace (and a comma, as in the specification's 2.3 example). */
function crossReferences(value: string): unknown {
  return words(value, Infinity)
    .map((url) => (url.endsWith(',') ? url.slice(0, -1) : url))
    .filter((url) => url !== '');
}

/** `<element> <TYPE> <related element>` → the three JSON properties. */
function relationship(value: string): unknown {
  const parts = words(value, 3);
  if (parts.length !== 3) return new Invalid('a relationship is written "<SPDXID> <TYPE> <SPDXID>" (SPDXRef-A DEPENDS_ON SPDXRef-B)');
  return { spdxElementId: parts[0], relationshipType: parts[1], relatedSpdxElement: parts[2] };
}
