/**
 * License expressions as the SBOM writers put them in a document: every symbol an SPDX license list
 * id (in its listed letter case) or a `LicenseRef-…`, and each `LicenseRef-…` with the name and text
 * SPDX asks for in `hasExtractedLicensingInfos`. One instance per document: it remembers the refs the
 * document used and renders each distinct expression once. Pure (no I/O, no clock).
 */
import { fixupSpdxId, isSupportedSpdxId } from '@cyclonedx/cyclonedx-library/SPDX';
import { parseLicenseExpression, type LicenseExpression } from '../domain/license-expression.ts';

/** An expression ready for a document. */
export interface DocumentLicense {
  /** A valid SPDX 2.3 license expression ('' for none). */
  readonly expression: string;
  /** The SPDX license list id when the expression is that one license alone (no WITH), else null. */
  readonly listedId: string | null;
}

/** What SPDX's ExtractedLicensingInfo needs for one `LicenseRef-…`. */
export interface ExtractedLicense {
  readonly licenseId: string;
  readonly name: string;
  readonly extractedText: string;
}

/** What the caller knows of a `LicenseRef-…` (a reference license's name and text, an unknown license's verbatim text). */
export type LicenseRefInfo = { readonly name: string; readonly text: string };

const NONE: DocumentLicense = { expression: '', listedId: null };
const LICENSE_REF = /^licenseref-/i;
/** What the SPDX idstring allows after `LicenseRef-`: letters, digits, `.` and `-`. */
const NOT_IDSTRING = /[^A-Za-z0-9.-]+/g;
/** Free text can be long: its ref keeps the first characters (the whole text is the extracted text). */
const MAX_ID_STRING = 64;

export class DocumentLicenses {
  readonly #known: ReadonlyMap<string, LicenseRefInfo>;
  readonly #rendered = new Map<string, DocumentLicense>();
  /** ref id → what it stands for, in order of first use. */
  readonly #refs = new Map<string, ExtractedLicense>();
  /** The text each ref stands for, lower-cased (SPDX matches ids in any case) → its id. */
  readonly #refBySource = new Map<string, string>();
  /** The ids taken, lower-cased: two refs must differ in more than letter case. */
  readonly #takenIds = new Set<string>();

  constructor(known: ReadonlyMap<string, LicenseRefInfo> = new Map()) {
    this.#known = known;
  }

  /** The document form of an SPDX-form expression from the service ('' when there is none). */
  license(expression: string): DocumentLicense {
    const text = expression.trim();
    if (text === '' || text === 'NOASSERTION' || text === 'NONE') return NONE;
    let rendered = this.#rendered.get(text);
    if (rendered === undefined) {
      rendered = this.#render(text);
      this.#rendered.set(text, rendered);
    }
    return rendered;
  }

  /** Every `LicenseRef-…` the rendered expressions used, in order of first use. */
  extractedLicenses(): ExtractedLicense[] {
    return [...this.#refs.values()];
  }

  #render(text: string): DocumentLicense {
    const parsed = parseLicenseExpression(text);
    // Not an expression at all (free text that reached the export): one LicenseRef standing for the whole text.
    if (!parsed.ok) return { expression: this.#ref(text, text), listedId: null };
    const expression = this.#symbols(parsed.expression);
    const listedId = expression.kind === 'license' && expression.exception === undefined && isSupportedSpdxId(expression.key) ? expression.key : null;
    return { expression: render(expression, true), listedId };
  }

  /** The expression with each symbol in document form; `L WITH E` whose E is not a listed exception becomes `L AND LicenseRef-E`. */
  #symbols(expression: LicenseExpression): LicenseExpression {
    if (expression.kind !== 'license') return { kind: expression.kind, operands: expression.operands.map((operand) => this.#symbols(operand)) };
    const key = this.#symbol(expression.key);
    if (expression.exception === undefined) return { kind: 'license', key };
    const exception = fixupSpdxId(expression.exception);
    if (exception !== undefined) return { kind: 'license', key, exception };
    // SPDX 2.3 allows only listed exceptions after WITH: keep the license and name the exception's terms beside it.
    return { kind: 'and', operands: [{ kind: 'license', key }, { kind: 'license', key: this.#symbol(expression.exception) }] };
  }

  #symbol(symbol: string): string {
    const listed = fixupSpdxId(symbol);
    if (listed !== undefined) return listed;
    return this.#ref(symbol, LICENSE_REF.test(symbol) ? symbol.slice('LicenseRef-'.length) : symbol);
  }

  /** The `LicenseRef-…` standing for `source` (a symbol or a whole text), registered on first use. */
  #ref(source: string, idText: string): string {
    const existing = this.#refBySource.get(source.toLowerCase());
    if (existing !== undefined) return existing;
    const cleaned = idText.replace(NOT_IDSTRING, '-').replace(/^-+|-+$/g, '');
    // A ref the service wrote keeps its id whole; one made here from other text is kept short.
    const idString = LICENSE_REF.test(source) && cleaned === idText ? cleaned : cleaned.slice(0, MAX_ID_STRING).replace(/-+$/, '');
    const base = `LicenseRef-${idString || 'unnamed'}`;
    let id = base;
    for (let n = 2; this.#takenIds.has(id.toLowerCase()); n++) id = `${base}-${n}`;
    this.#takenIds.add(id.toLowerCase());
    this.#refBySource.set(source.toLowerCase(), id);
    this.#refs.set(id, { licenseId: id, ...this.#describe(source, id) });
    return id;
  }

  /** Name and text for a ref: what the caller knows, else what the document itself can honestly say. */
  #describe(source: string, id: string): { name: string; extractedText: string } {
    const known = this.#known.get(source) ?? this.#known.get(id);
    if (known !== undefined) return { name: known.name || id, extractedText: known.text || 'NOASSERTION' };
    const scancode = /^LicenseRef-scancode-(.+)$/i.exec(source);
    if (scancode) {
      const key = scancode[1]!.toLowerCase();
      return { name: key, extractedText: `See the ScanCode LicenseDB entry ${key}: https://scancode-licensedb.aboutcode.org/${key}.html` };
    }
    // A LicenseRef the caller did not describe: its name is all the document knows.
    if (LICENSE_REF.test(source)) return { name: source.slice('LicenseRef-'.length) || source, extractedText: 'NOASSERTION' };
    // A symbol or text that is not on the SPDX list: the text itself is what was found.
    return { name: source, extractedText: source };
  }
}

function render(expression: LicenseExpression, top: boolean): string {
  if (expression.kind === 'license') return expression.exception ? `${expression.key} WITH ${expression.exception}` : expression.key;
  const text = expression.operands.map((operand) => render(operand, false)).join(expression.kind === 'and' ? ' AND ' : ' OR ');
  return top ? text : `(${text})`;
}
