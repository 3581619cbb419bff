/**
 * What the CycloneDX and SPDX readers share: turning the components a document lists into the
 * Inventory's components, skipping the ones that cannot be packages, folding duplicates, and
 * resolving the references that dependencies and vulnerabilities name. Pure.
 *
 * Choices (docs/sbom-formats.md):
 * - Every component of the document lands once in `components` or in `skipped`, never both, never
 *   neither, so the import summary counts each once (created, matched or skipped).
 * - A purl the document gives is the identity; without one the component becomes
 *   `pkg:generic/<group>/<name>@<version>`.
 * - The same canonical purl twice: the first wins; the later one is skipped as "duplicate of <ref>",
 *   and its own reference becomes another name of the first, so dependencies and vulnerabilities
 *   that name it still resolve.
 * - A reference (bom-ref, SPDXID) given to two components with different purls: the later one is
 *   skipped (which one a dependency names cannot be known).
 * - Dependencies keep only edges between two imported components (an edge from the described
 *   product, or to a skipped component, is dropped); an edge to itself after folding is dropped.
 * - Every string the service would store or use is text it can store (shared/domain/stored-text.ts):
 *   a component holding one that is not (an unpaired surrogate, a control character) in a field the
 *   reader reads is skipped, "its name holds an unpaired surrogate (U+D800)"; in the document's own
 *   metadata, the document is refused (documentTextErrors). Free text (descriptions, copyrights) has
 *   its tabs and line breaks read as spaces: the catalog refuses them too, and they are no reason to
 *   lose a component.
 */
import { wrapped, type LicenseHints } from '../domain/license-resolution.ts';
import { printable, storedTextProblem } from '../domain/stored-text.ts';
import type { Inventory, SbomComponent, SbomHashes, SkippedComponent, SbomVulnerability } from './inventory.ts';
import { clip, purlFromParts, purlFromString } from './purl.ts';

/** A component as a reader found it, before it is known whether it can be used. */
export interface ComponentCandidate {
  /** The document's reference (CycloneDX bom-ref, SPDX SPDXID), when it gives one. */
  readonly ref: string;
  /** Where the component sits in the document (a JSON pointer): its name when it has no other. */
  readonly pointer: string;
  /** The purl as written ('' when none). */
  readonly purl: string;
  /** CycloneDX group (the namespace of a generic purl); '' for SPDX. */
  readonly group: string;
  readonly name: string;
  readonly version: string;
  readonly declaredLicense: string;
  readonly concludedLicense: string;
  readonly licenseHints?: LicenseHints | undefined;
  readonly hashes: SbomHashes;
  readonly description: string;
  readonly homepageUrl: string;
  readonly downloadUrl: string;
  readonly supplier: string;
  readonly copyright: string;
  readonly filename: string;
  /** Why it cannot be used, found while reading it (a string the service cannot store): it is skipped. */
  readonly problem?: string | undefined;
}

export class InventoryBuilder {
  readonly #components: SbomComponent[] = [];
  readonly #skipped: SkippedComponent[] = [];
  /** Canonical purl → ref of the component that holds it. */
  readonly #byPurl = new Map<string, string>();
  /** Every name a component goes by in the document (its ref, a folded duplicate's ref) → its ref. */
  readonly #refs = new Map<string, string>();
  readonly #edges: (readonly [string, string])[] = [];
  readonly warnings: string[] = [];

  add(candidate: ComponentCandidate): void {
    const label = candidate.ref || candidate.purl || candidate.name || candidate.pointer;
    const named = [candidate.group, candidate.name].filter((part) => part.trim() !== '').join('/');
    const recognised = candidate.purl.trim() || (named === '' ? '' : `${named}${candidate.version.trim() === '' ? '' : ` ${candidate.version.trim()}`}`);
    const skip = (reason: string) => {
      const component = clip(label, 300);
      const name = recognised === '' ? '' : clip(recognised, 300);
      this.#skipped.push({ component, ...(name !== '' && name !== component ? { name } : {}), reason: printable(reason) });
    };
    if (candidate.problem !== undefined) return skip(candidate.problem);
    let identity;
    if (candidate.purl) {
      identity = purlFromString(candidate.purl);
    } else if (!candidate.name.trim()) {
      return skip('no name and no purl');
    } else {
      identity = purlFromParts('generic', candidate.group, candidate.name, candidate.version);
    }
    if (!identity.ok) return skip(identity.reason);
    const parts = identity.parts;

    const first = this.#byPurl.get(parts.purl);
    if (first !== undefined) {
      skip(`duplicate of ${first}`);
      // Its reference becomes another name of the first component: edges naming it still resolve.
      if (candidate.ref && !this.#refs.has(candidate.ref)) this.#refs.set(candidate.ref, first);
      return;
    }
    if (candidate.ref && this.#refs.has(candidate.ref)) {
      return skip(`its reference "${clip(candidate.ref)}" already names another component`);
    }
    // Without a reference of its own, the component is named by its purl (unique here); if an
    // earlier component's reference happens to be that very string, by its place in the document.
    let ref = candidate.ref || parts.purl;
    if (this.#refs.has(ref)) ref = `${parts.purl}#${candidate.pointer}`;
    this.#refs.set(ref, ref);
    this.#byPurl.set(parts.purl, ref);
    this.#components.push({
      ref,
      type: parts.type,
      namespace: parts.namespace,
      name: parts.name,
      version: parts.version,
      qualifiers: parts.qualifiers,
      subpath: parts.subpath,
      purl: parts.purl,
      hadPurl: candidate.purl !== '',
      declaredLicense: candidate.declaredLicense,
      concludedLicense: candidate.concludedLicense,
      ...(candidate.licenseHints && candidate.licenseHints.size > 0 ? { licenseHints: candidate.licenseHints } : {}),
      hashes: candidate.hashes,
      description: candidate.description,
      homepageUrl: candidate.homepageUrl,
      downloadUrl: candidate.downloadUrl,
      supplier: candidate.supplier,
      copyright: candidate.copyright,
      filename: candidate.filename,
    });
  }

  /** `from` depends on `to`, both as the document names them. Resolved when the inventory is built. */
  depend(from: string, to: string): void {
    this.#edges.push([from, to]);
  }

  /**
   * The ref of the component a document reference names: a reference it gave a component (or a
   * folded duplicate), else a purl of one of the components in any spelling. Undefined otherwise.
   */
  resolve(name: string): string | undefined {
    const byRef = this.#refs.get(name);
    if (byRef !== undefined) return byRef;
    if (!name.startsWith('pkg:')) return undefined;
    const purl = purlFromString(name);
    return purl.ok ? this.#byPurl.get(purl.parts.purl) : undefined;
  }

  /** The canonical form of a purl that names no component here (a VEX's `affects`), or undefined. */
  canonicalPurl(name: string): string | undefined {
    if (!name.startsWith('pkg:')) return undefined;
    const purl = purlFromString(name);
    return purl.ok ? purl.parts.purl : undefined;
  }

  build(header: {
    readonly serial?: string;
    readonly format: Inventory['format'];
    readonly specVersion: string;
    readonly subject: Inventory['subject'];
    readonly vulnerabilities: readonly SbomVulnerability[];
    readonly vexOnly: boolean;
  }): Inventory {
    const dependencies = new Map<string, string[]>();
    for (const [from, to] of this.#edges) {
      const source = this.resolve(from);
      const target = this.resolve(to);
      if (source === undefined || target === undefined || source === target) continue;
      const targets = dependencies.get(source);
      if (targets === undefined) dependencies.set(source, [target]);
      else if (!targets.includes(target)) targets.push(target);
    }
    return {
      ...header,
      components: this.#components,
      skipped: this.#skipped,
      dependencies,
      // A warning may quote the document: what it says must be storable too.
      ...(this.warnings.length > 0 ? { warnings: this.warnings.map(printable) } : {}),
    };
  }
}

/**
 * Reads the strings of one component (or vulnerability) as text() and asserted() do, noting the first
 * that the service cannot store, with the field it is in ("its licenses/0/license/name holds the
 * control character U+0007"): the reader then skips the component with that reason. Fields are named
 * as the document names them, relative to the component.
 */
export class TextCheck {
  #problem: string | undefined;

  /** The first problem found, or undefined. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** A string property, or '' (text()); noted when it cannot be stored. */
  text(value: unknown, field: string): string {
    if (typeof value !== 'string') return '';
    if (this.#problem === undefined) {
      const problem = storedTextProblem(value);
      if (problem !== undefined) this.#problem = `its ${field} holds ${problem}`;
    }
    return value;
  }

  /** asserted(), checked. */
  asserted(value: unknown, field: string): string {
    return asserted(this.text(value, field));
  }

  /** Free text (a description, a copyright): tabs and line breaks become spaces; any other control character is noted. */
  prose(value: unknown, field: string): string {
    return this.text(typeof value === 'string' ? foldLines(value) : value, field);
  }
}

/** Tabs and line breaks (CR, LF) as one space: free text as the catalog can hold it. */
export function foldLines(value: string): string {
  return value.replace(/[\t\n\r]+/g, ' ');
}

/** JSON pointer escaping of one key (RFC 6901). */
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Why a part of the document's own metadata (not a component) cannot be read, as "<JSON pointer>:
 * <message>" like the schema's errors, at most `max`: every string and key under `value` is checked,
 * tabs and line breaks allowed (free text the service never stores), and the strings at `strict`
 * (pointers the reader uses: names, versions, references) as the catalog checks a name. `skip`: pointers
 * of subtrees that are not metadata (the described product's own components, checked as components).
 * An explicit stack: a document's nesting is the writer's choice.
 */
export function documentTextErrors(value: unknown, pointer: string, options: { strict?: readonly string[]; skip?: readonly string[]; max?: number } = {}): string[] {
  const strict = new Set(options.strict ?? []);
  const skip = new Set(options.skip ?? []);
  const max = options.max ?? 20;
  const errors: string[] = [];
  const pending: [unknown, string][] = [[value, pointer]];
  while (pending.length > 0 && errors.length < max) {
    const [current, at] = pending.pop()!;
    if (skip.has(at)) continue;
    if (typeof current === 'string') {
      const problem = storedTextProblem(strict.has(at) ? current : foldLines(current));
      if (problem !== undefined) errors.push(`${printable(at)}: must not hold ${problem}`);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const entries: [string, unknown][] = Array.isArray(current) ? current.map((item, index) => [String(index), item]) : Object.entries(current);
    // Pushed in reverse: the errors come in document order.
    for (const [key, item] of entries.reverse()) {
      const problem = storedTextProblem(key);
      if (problem !== undefined) {
        errors.push(`${printable(at)}: a key must not hold ${problem}`);
        continue;
      }
      pending.push([item, `${at}/${pointerKey(key)}`]);
    }
  }
  return errors;
}

/** A URL if it is an absolute http(s) one, else ''. */
export function httpUrl(value: unknown): string {
  if (typeof value !== 'string') return '';
  const text = value.trim();
  if (!/^https?:\/\//i.test(text)) return '';
  try {
    new URL(text);
    return text;
  } catch {
    return '';
  }
}

/** A string property, or ''. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * License parts joined as one expression: one part as written; several joined with AND, each part
 * that is itself an AND/OR expression in parentheses (WITH binds tighter than AND, so it needs none).
 * Repeated parts are kept once.
 */
export function joinLicenses(parts: readonly string[]): string {
  const unique = [...new Set(parts.map((part) => part.trim()).filter((part) => part !== ''))];
  if (unique.length <= 1) return unique[0] ?? '';
  return unique.map((part) => (/\s(and|or)\s/i.test(part) && !wrapped(part) ? `(${part})` : part)).join(' AND ');
}

/** SPDX's "no information" and "nothing" markers read as empty. */
export function asserted(value: unknown): string {
  const written = text(value).trim();
  return written === 'NOASSERTION' || written === 'NONE' ? '' : written;
}
