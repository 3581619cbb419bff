/**
 * The SBOM reader (readSbomSync, what the import calls to turn a document into an Inventory) under hostile
 * strings, property-based with fast-check and the route fuzz's own generators (test/fuzz/arbitraries.ts):
 * lone surrogates, control characters, 100 KB strings, prototype-named strings and keys, put into the
 * string fields of small real-shaped CycloneDX and SPDX documents (test/fixtures/sbom/).
 *
 * Properties: readSbomSync never throws; it fails only as a 400 or 415 (the import's ValidationError and
 * UnsupportedMediaTypeError, 4xx), whose messages are storable text; and everything it returns (each
 * component, skipped entry, warning, vulnerability, the subject) holds only storable strings: no
 * unpaired surrogate, no control character. Pure: here in the unit project, not in test/fuzz/, whose
 * files run with the stack's stand-ins. First every string field of each document, one at a time, set
 * to a lone surrogate or a control character; then RUNS random documents per format (FUZZ_SBOM_RUNS),
 * seeded (FUZZ_SEED) so a failure replays.
 */
import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { storedTextProblem } from '../../shared/domain/stored-text.ts';
import { purlFromParts, purlFromString } from '../../shared/sbom/purl.ts';
import { readSbomSync, type ReadResult } from '../../shared/sbom/read-sbom.ts';
import { LONG_STRINGS, ODD_STRINGS, PROTOTYPE_KEYS, hostileValue } from '../fuzz/arbitraries.ts';
import { fixture } from '../support/sbom-documents.ts';

const RUNS = Number(process.env.FUZZ_SBOM_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_125);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = readonly (string | number)[];

const withSubject = (document: Record<string, unknown>) => ({ ...document, documentDescribes: ['SPDXRef-app-one'] });
const DOCUMENTS = {
  cyclonedx: [fixture('edge-cases.cdx.json'), fixture('combined.cdx.json'), fixture('vex.cdx.json')] as Json[],
  // Two described packages (no subject: both are components), and one (the subject).
  spdx: [fixture('small-2.2.spdx.json'), withSubject(fixture('small-2.2.spdx.json'))] as Json[],
};

/** Every path to a string of the document, and to each object (where a key can be added). */
function pathsOf(value: Json, prefix: Path = []): { strings: Path[]; objects: Path[] } {
  const strings: Path[] = [];
  const objects: Path[] = [];
  const walk = (current: Json, at: Path) => {
    if (typeof current === 'string') strings.push(at);
    else if (Array.isArray(current)) current.forEach((item, i) => walk(item, [...at, i]));
    else if (current !== null && typeof current === 'object') {
      objects.push(at);
      for (const [key, item] of Object.entries(current)) walk(item, [...at, key]);
    }
  };
  walk(value, prefix);
  return { strings, objects };
}

const clone = (value: Json): Json => JSON.parse(JSON.stringify(value)) as Json;

function at(document: Json, path: Path): Json {
  let current = document;
  for (const step of path) current = (current as Record<string | number, Json>)[step]!;
  return current;
}

/** Sets the string at `path`, or defines an own key (so "__proto__" is a key, as JSON.parse makes it). */
function set(document: Json, path: Path, value: Json): void {
  const parent = at(document, path.slice(0, -1)) as Record<string | number, Json>;
  Object.defineProperty(parent, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}

/** The strings of the route fuzz: odd ones (lone surrogates, controls, separators), 100 KB ones, prototype names, random UTF-16. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
);

type Mutation =
  | { readonly kind: 'replace'; readonly path: Path; readonly value: Json }
  | { readonly kind: 'splice'; readonly path: Path; readonly value: string; readonly offset: number }
  | { readonly kind: 'key'; readonly path: Path; readonly key: string; readonly value: Json };

function mutation(document: Json): fc.Arbitrary<Mutation> {
  const { strings, objects } = pathsOf(document);
  return fc.oneof(
    // A string field replaced by a hostile string, or (rarely) by any hostile JSON value.
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('replace' as const), path: fc.constantFrom(...strings), value: hostileString }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), path: fc.constantFrom(...strings), value: hostileValue(['pkg:npm/x@1', 'SPDXRef-x']) }) },
    // A hostile string inside the field's own value: a purl stays a purl, a name a name, and the reader goes deeper.
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('splice' as const), path: fc.constantFrom(...strings), value: hostileString, offset: fc.nat() }) },
    // A prototype-named (or hostile) key in any object.
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('key' as const), path: fc.constantFrom(...objects), key: fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), hostileString), value: hostileString }) },
  );
}

function apply(document: Json, mutations: readonly Mutation[]): Json {
  const copy = clone(document);
  for (const change of mutations) {
    if (change.kind === 'key') {
      set(copy, [...change.path, change.key], change.value);
      continue;
    }
    const current = at(copy, change.path);
    // An earlier mutation may have replaced this field by a non-string value.
    if (typeof current !== 'string') continue;
    const offset = change.kind === 'splice' ? change.offset % (current.length + 1) : 0;
    set(copy, change.path, change.kind === 'splice' ? current.slice(0, offset) + change.value + current.slice(offset) : change.value);
  }
  return copy;
}

/** Every string of a value, object keys and Map entries included. */
function* stringsOf(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (value instanceof Map) for (const [key, item] of value) yield* stringsOf([key, item]);
  else if (Array.isArray(value)) for (const item of value) yield* stringsOf(item);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      yield key;
      yield* stringsOf(item);
    }
  }
}

const unstorable = (value: unknown) => [...stringsOf(value)].filter((text) => storedTextProblem(text) !== undefined);

/** The properties of every answer: a 4xx saying why in storable text, or an inventory of storable strings. */
function expectSound(result: ReadResult): void {
  if (!result.ok) {
    expect([400, 415]).toContain(result.status);
    expect(Object.values(result.errors).flat().length).toBeGreaterThan(0);
    expect(unstorable(result.errors)).toEqual([]);
    return;
  }
  const { inventory } = result;
  expect(unstorable(inventory.components)).toEqual([]);
  expect(unstorable(inventory.skipped)).toEqual([]);
  expect(unstorable(inventory.warnings ?? [])).toEqual([]);
  expect(unstorable(inventory.vulnerabilities)).toEqual([]);
  expect(unstorable(inventory.subject)).toEqual([]);
  expect(unstorable(inventory.dependencies)).toEqual([]);
}

/** The document as an HTTP body carries it: JSON text (a lone surrogate as its escape \ud800). */
const read = (document: Json) => readSbomSync(Buffer.from(JSON.stringify(document)), 'application/json');

describe.each(Object.entries(DOCUMENTS))('readSbomSync on hostile %s documents', (_format, documents) => {
  it('every string field, one at a time, as a lone high or low surrogate or a control character (in turn)', () => {
    const values = ['\ud800x', 'x\udc00', 'a\u0007'];
    let skipped = 0;
    let refused = 0;
    for (const document of documents) {
      pathsOf(document).strings.forEach((path, i) => {
        const result = read(apply(document, [{ kind: 'replace', path, value: values[i % values.length]! }]));
        expectSound(result);
        if (result.ok && result.inventory.skipped.some((entry) => /holds (an unpaired surrogate|the control character)/.test(entry.reason))) skipped++;
        if (!result.ok) refused++;
      });
    }
    // The sweep reaches both outcomes: components skipped, documents refused (by the schema or the text check).
    expect(skipped).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it(`${RUNS} random documents: never a throw, never an unstorable string`, () => {
    const cases = fc.constantFrom(...documents).chain((document) => fc.tuple(fc.constant(document), fc.array(mutation(document), { minLength: 1, maxLength: 6 })));
    fc.assert(
      fc.property(cases, ([document, mutations]) => {
        expectSound(read(apply(document, mutations)));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('purl.ts under hostile strings', () => {
  it('purlFromString and purlFromParts never throw, and their reasons are storable', () => {
    const purlish = fc.oneof(hostileString, fc.tuple(fc.constantFrom('pkg:npm/', 'pkg:maven/g/', 'pkg:generic/', 'pkg:npm/a@1?q='), hostileString).map(([head, tail]) => head + tail));
    fc.assert(
      fc.property(purlish, fc.tuple(hostileString, hostileString, hostileString, hostileString), (text, [type, namespace, name, version]) => {
        for (const result of [purlFromString(text), purlFromParts(type, namespace, name, version), purlFromParts('generic', namespace, name, version)]) {
          expect(unstorable(result)).toEqual([]);
        }
      }),
      { numRuns: RUNS * 2, seed: SEED },
    );
  });
});
