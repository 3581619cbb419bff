/**
 * readSbomSync, the front door: format sniffing, the 400s and 415s, schema validation with JSON pointers,
 * the producer slips it repairs (and the garbage it does not), on the real producers' documents of
 * this repository (test/fixtures/sbom/README.md) and at the scale of a 10,000-component document.
 */
import { Validation } from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_MEDIA_TYPES, readSbomSync, type ReadResult } from '../../shared/sbom/read-sbom.ts';
import { checkSpdx, cyclonedxValidator, MAX_SCHEMA_ERRORS, type CycloneDxVersion } from '../../shared/sbom/schema-validation.ts';
import type { Inventory } from '../../shared/sbom/inventory.ts';
import { cyclonedxComponents, fixture, fixtureText, largeCycloneDx } from '../support/sbom-documents.ts';

function inventoryOf(result: ReadResult): Inventory {
  if (!result.ok) throw new Error(`not read: ${JSON.stringify(result)}`);
  return result.inventory;
}

function errorsOf(result: ReadResult, status: 400 | 415) {
  expect(result).toMatchObject({ ok: false, status });
  return (result as Extract<ReadResult, { ok: false }>).errors;
}

describe('readSbom: what real producers write is read', () => {
  it.each([
    ['cyclonedx-npm-1.6-full.cdx.json', 'cyclonedx', '1.6'],
    ['cyclonedx-npm-1.6-prod.cdx.json', 'cyclonedx', '1.6'],
    ['cyclonedx-npm-1.4-prod.cdx.json', 'cyclonedx', '1.4'],
    ['cyclonedx-npm-1.2-prod.cdx.json', 'cyclonedx', '1.2'],
    ['npm-sbom-full.cdx.json', 'cyclonedx', '1.5'],
    ['npm-sbom-prod.cdx.json', 'cyclonedx', '1.5'],
    ['npm-sbom-full.spdx.json', 'spdx', '2.3'],
    ['npm-sbom-prod.spdx.json', 'spdx', '2.3'],
  ])('%s is %s %s, sniffed from the body whatever the Content-Type', (name, format, specVersion) => {
    const body = Buffer.from(fixtureText(name));
    for (const contentType of [undefined, 'application/json', 'application/json; charset=utf-8', 'application/octet-stream']) {
      const inventory = inventoryOf(readSbomSync(body, contentType));
      expect(inventory).toMatchObject({ format, specVersion, vexOnly: false });
      expect(inventory.warnings).toBeUndefined();
    }
    const own = format === 'cyclonedx' ? 'application/vnd.cyclonedx+json' : 'Application/SPDX+JSON; charset=utf-8';
    expect(readSbomSync(body.toString('utf8'), own).ok).toBe(true);
  });

  it('reads a body that starts with a byte-order mark or white space', () => {
    const text = fixtureText('npm-sbom-prod.cdx.json');
    expect(readSbomSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])).ok).toBe(true);
    expect(readSbomSync(`\n\t  ${text}`).ok).toBe(true);
  });
});

describe('readSbom: 415 for the formats it does not read, naming the ones it does', () => {
  const rdf = '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:spdx="http://spdx.org/rdf/terms#"><spdx:SpdxDocument rdf:about="#SPDXRef-DOCUMENT"/></rdf:RDF>';
  it.each([
    ['SPDX RDF/XML', rdf, 'An SPDX RDF/XML document'],
    ['SPDX YAML', '---\nspdxVersion: SPDX-2.3\nSPDXID: SPDXRef-DOCUMENT\n', 'A YAML document'],
  ])('%s', (_name, text, what) => {
    for (const contentType of [undefined, 'application/json', 'application/xml']) {
      const errors = errorsOf(readSbomSync(Buffer.from(text), contentType), 415);
      expect(errors).toEqual({ detail: expect.stringContaining(what) });
      for (const type of ACCEPTED_MEDIA_TYPES) expect((errors as { detail: string }).detail).toContain(type);
    }
  });

  it('an SPDX tag-value document is read (comment lines first too), and one with a malformed line is a 400 naming it', () => {
    const text = fixtureText('tag-value.spdx');
    expect(inventoryOf(readSbomSync(`# made by hand\n\n${text}`, 'text/spdx')).format).toBe('spdx');
    expect(errorsOf(readSbomSync(text.replace(/\nPackageName:/, '\nPackageName without a colon\nPackageName:')), 400)).toEqual({
      input_file: [expect.stringMatching(/^line \d+: /)],
    });
    // What the SPDX JSON schema misses, said in tag-value's terms.
    expect(errorsOf(readSbomSync('SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\n'), 400)).toEqual({
      input_file: [
        "The document has no SPDXID line: an SPDX document's creation information needs it.",
        "The document has no DocumentName line: an SPDX document's creation information needs it.",
        "The document has no Creator and Created lines: an SPDX document's creation information needs it.",
        "The document has no DocumentNamespace line: an SPDX document's creation information needs it.",
      ],
    });
    expect(errorsOf(readSbomSync(text, 'application/vnd.cyclonedx+json'), 400)).toEqual({
      input_file: ['The document is SPDX tag-value, but the Content-Type says CycloneDX (application/vnd.cyclonedx+json): send it as text/spdx.'],
    });
  });
});

describe('readSbom: 400 saying why', () => {
  it.each([
    ['not JSON', '{"bomFormat": "CycloneDX", ', /^Not valid JSON: /],
    ['plain text', 'hello', /^Not valid JSON: /],
    ['an array', '[{"bomFormat": "CycloneDX"}]', /^The document is not a JSON object/],
    ['a string', '"CycloneDX"', /^The document is not a JSON object/],
    ['neither format', '{"name": "my-app", "packages": []}', /^Neither CycloneDX, SPDX nor OpenVEX: .*OpenVEX one an "@context"/],
    ['another bomFormat', '{"bomFormat": "SWID", "specVersion": "1.0"}', /^bomFormat is "SWID"/],
    ['CycloneDX without specVersion', '{"bomFormat": "CycloneDX"}', /needs its specVersion/],
    ['CycloneDX 1.1 (no JSON form)', '{"bomFormat": "CycloneDX", "specVersion": "1.1"}', /specVersion "1.1" is not read here: 1.2 to 1.6 are/],
    ['CycloneDX 1.7', fixtureText('unsupported-version.cdx.json'), /specVersion "1.7" is not read here: 1.2 to 1.6 are/],
    ['SPDX 2.1', '{"spdxVersion": "SPDX-2.1", "SPDXID": "SPDXRef-DOCUMENT"}', /spdxVersion "SPDX-2.1" is not read here: SPDX-2.2 and SPDX-2.3 are/],
    ['SPDX without prefix', '{"spdxVersion": "2.3"}', /spdxVersion "2.3" is not read here/],
    ['SPDX 3.1 JSON-LD', '{"@context": "https://spdx.org/rdf/3.1/spdx-context.jsonld", "@graph": []}', /is not read here: SPDX 3.0.0 and 3.0.1 are/],
  ])('%s', (_what, body, message) => {
    const errors = errorsOf(readSbomSync(body), 400) as Record<string, string[]>;
    expect(Object.keys(errors)).toEqual(['input_file']);
    expect(errors.input_file).toHaveLength(1);
    expect(errors.input_file![0]).toMatch(message);
  });

  it('an item nested 100,000 deep: a 400, not a stack overflow (the linear uniqueItems compares no item past 256 levels)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = `{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"components":[{"type":"library","name":"a","version":"1","x":${deep}}]}`;
    expect(errorsOf(readSbomSync(body), 400)).toEqual({ input_file: ['/components/0: must NOT have additional properties: "x"'] });
  });

  it('a body that is not UTF-8', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"bomFormat":"CycloneDX"}', 'utf16le')]);
    expect(errorsOf(readSbomSync(utf16), 400)).toEqual({ input_file: ['The document is UTF-16: send it as UTF-8.'] });
    const latin1 = Buffer.from('{"bomFormat":"CycloneDX","specVersion":"1.6","metadata":{"component":{"type":"library","name":"caf\xe9"}}}', 'latin1');
    expect(errorsOf(readSbomSync(latin1), 400)).toEqual({ input_file: ['The document is not valid UTF-8.'] });
  });

  it('a Content-Type naming the other format', () => {
    const spdx = fixtureText('npm-sbom-prod.spdx.json');
    const cyclonedx = fixtureText('npm-sbom-prod.cdx.json');
    expect(errorsOf(readSbomSync(spdx, 'application/vnd.cyclonedx+json'), 400)).toEqual({
      input_file: [expect.stringMatching(/^The document is SPDX, but the Content-Type says CycloneDX/)],
    });
    expect(errorsOf(readSbomSync(cyclonedx, 'application/spdx+json; charset=utf-8'), 400)).toEqual({
      input_file: [expect.stringMatching(/^The document is CycloneDX, but the Content-Type says SPDX/)],
    });
  });

  it('a CycloneDX document that fails its schema: every error with its JSON pointer', () => {
    expect(errorsOf(readSbomSync(fixtureText('schema-invalid.cdx.json')), 400)).toEqual({
      input_file: [
        '/components/1/purl: must be string',
        expect.stringMatching(/^\/components\/2\/type: must be equal to one of the allowed values: "application", "framework", .* \(\d+ values\)$/),
        "/components/3: must have required property 'name'",
      ],
    });
  });

  it('a real document broken in many places lists the first 20 errors', () => {
    const document = fixture('cyclonedx-npm-1.6-prod.cdx.json');
    const components = document.components as Record<string, unknown>[];
    for (const component of components.slice(0, 30)) component.version = 1;
    const errors = (errorsOf(readSbomSync(JSON.stringify(document)), 400) as Record<string, string[]>).input_file!;
    expect(errors).toHaveLength(MAX_SCHEMA_ERRORS);
    expect(errors.slice(0, 3)).toEqual(['/components/0/version: must be string', '/components/1/version: must be string', '/components/2/version: must be string']);
  });

  it('an SPDX document that fails its schema: pointers into packages and relationships', () => {
    const document = fixture('npm-sbom-prod.spdx.json');
    const packages = document.packages as Record<string, unknown>[];
    delete packages[2]!.downloadLocation;
    packages[3]!.checksums = [{ algorithm: 'SHA999', checksumValue: 'x' }];
    packages[4]!.licenseFound = 'MIT';
    (document.relationships as Record<string, unknown>[])[1]!.relationshipType = 'DEPENDS_UPON';
    delete (document.creationInfo as Record<string, unknown>).created;
    expect(errorsOf(readSbomSync(JSON.stringify(document), 'application/spdx+json'), 400)).toEqual({
      input_file: expect.arrayContaining([
        "/creationInfo: must have required property 'created'",
        "/packages/2: must have required property 'downloadLocation'",
        expect.stringMatching(/^\/packages\/3\/checksums\/0\/algorithm: must be equal to one of the allowed values: "SHA1", /),
        '/packages/4: must NOT have additional properties: "licenseFound"',
        expect.stringMatching(/^\/relationships\/1\/relationshipType: must be equal to one of the allowed values/),
      ]),
    });
  });

  it('SPDX 2.2 requires what 2.3 made optional', () => {
    const document = fixture('small-2.2.spdx.json');
    delete (document.packages as Record<string, unknown>[])[3]!.licenseDeclared;
    expect(errorsOf(readSbomSync(JSON.stringify(document)), 400)).toEqual({ input_file: ["/packages/3: must have required property 'licenseDeclared'"] });
    const as23 = { ...document, spdxVersion: 'SPDX-2.3' };
    expect(readSbomSync(JSON.stringify(as23)).ok).toBe(true);
  });
});

describe('readSbom: slips of real producers that are repaired, and said', () => {
  it('repeated dependencies entries and dependsOn refs (npm 10 npm sbom, Trivy) are merged', () => {
    const document = fixture('npm-sbom-prod.cdx.json');
    const dependencies = document.dependencies as { ref: string; dependsOn?: string[] }[];
    const withTargets = dependencies.find((entry) => (entry.dependsOn?.length ?? 0) > 1)!;
    // As npm/cli issue 6967 shows them: the same entry twice, and a target twice.
    const copy = structuredClone(withTargets);
    dependencies.push(copy);
    withTargets.dependsOn!.push(withTargets.dependsOn![0]!);
    const clean = inventoryOf(readSbomSync(fixtureText('npm-sbom-prod.cdx.json')));
    const repaired = inventoryOf(readSbomSync(JSON.stringify(document)));
    // The copy's targets all repeat the first entry's, and the first entry names one target twice.
    const dropped = copy.dependsOn!.length + 1;
    expect(repaired.warnings).toEqual([`/dependencies: 1 repeated entry merged and ${dropped} repeated dependsOn refs dropped (the schema wants them unique).`]);
    expect([...repaired.dependencies]).toEqual([...clean.dependencies]);
    // Without the repair the library's own validator refuses it.
    return expect(new Validation.JsonValidator('1.5' as never).validate(JSON.stringify(document))).resolves.not.toBeNull();
  });

  it('a license id that is not an SPDX id is read as a license name', () => {
    const document = fixture('cyclonedx-npm-1.6-prod.cdx.json');
    const component = (document.components as Record<string, unknown>[])[5]!;
    component.licenses = [{ license: { id: 'Apache 2.0', acknowledgement: 'declared' } }, { license: { id: 'MIT' } }];
    const inventory = inventoryOf(readSbomSync(JSON.stringify(document)));
    expect(inventory.warnings).toEqual(['/components/5/licenses/0/license/id: "Apache 2.0" is not an SPDX license id of the schema\'s list; read as a license name.']);
    expect(inventory.components.find((c) => c.ref === component['bom-ref'])!.declaredLicense).toBe('Apache 2.0 AND MIT');
  });

  it('garbage is still refused', () => {
    const document = fixture('npm-sbom-prod.cdx.json');
    for (const broken of [
      { ...document, components: 'none' },
      { ...document, dependencies: [{ dependsOn: ['x'] }] },
      { ...document, components: [{ type: 'library', name: 'x', licenses: [{ license: { id: 'MIT', name: 'MIT' } }] }] },
      { ...document, extra: true },
    ]) {
      expect(readSbomSync(JSON.stringify(broken))).toMatchObject({ ok: false, status: 400 });
    }
  });
});

describe('CycloneDX validation agrees with @cyclonedx/cyclonedx-library', () => {
  // The service compiles the library's schemas itself, with a linear-time uniqueItems
  // (schema-validation.ts). Its verdict must be the library's JsonValidator's, document for document.
  const sources: [CycloneDxVersion, string][] = [
    ['1.2', 'cyclonedx-npm-1.2-prod.cdx.json'],
    ['1.4', 'cyclonedx-npm-1.4-prod.cdx.json'],
    ['1.5', 'npm-sbom-prod.cdx.json'],
    ['1.6', 'cyclonedx-npm-1.6-prod.cdx.json'],
    ['1.6', 'combined.cdx.json'],
    ['1.6', 'vex.cdx.json'],
  ];

  it.each(sources)('CycloneDX %s: %s and 150 mutations of it', async (version, name) => {
    const base = fixture(name);
    base.specVersion = version;
    const library = new Validation.JsonValidator(version as never);
    const ours = cyclonedxValidator(version);
    let seed = [...name].reduce((sum, char) => sum + char.charCodeAt(0), 0);
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let invalid = 0;
    for (let round = 0; round <= 150; round++) {
      const document = structuredClone(base);
      if (round > 0) mutate(document, random);
      const verdict = (await library.validate(JSON.stringify(document))) === null;
      expect(ours(document), `round ${round}`).toBe(verdict);
      if (!verdict) invalid++;
    }
    expect(invalid).toBeGreaterThan(30);
  });
});

/** One random change: a property removed, added or retyped, an array item repeated (uniqueItems), an enum value broken. */
function mutate(document: Record<string, unknown>, random: (n: number) => number) {
  const objects: Record<string, unknown>[] = [];
  const arrays: unknown[][] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) {
      arrays.push(value);
      value.forEach(walk);
    } else if (typeof value === 'object' && value !== null) {
      objects.push(value as Record<string, unknown>);
      Object.values(value).forEach(walk);
    }
  };
  walk(document);
  const target = objects[random(objects.length)]!;
  const keys = Object.keys(target);
  const key = keys[random(keys.length)];
  switch (random(6)) {
    case 0:
      if (key) delete target[key];
      break;
    case 1:
      target[`x-${random(3)}`] = 'extra';
      break;
    case 2:
      if (key) target[key] = 7;
      break;
    case 3:
      if (key) target[key] = 'not-an-allowed-value';
      break;
    case 4: {
      // Repeat an item, as it is or with its keys in another order: uniqueItems must see both.
      const array = arrays[random(arrays.length)];
      if (array && array.length > 0) {
        const item = structuredClone(array[random(array.length)]);
        array.push(typeof item === 'object' && item !== null && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).reverse()) : item);
      }
      break;
    }
    default:
      if (key) target[key] = [];
  }
}

describe('scale', () => {
  // How long reading takes at 10,000 components (the quadratic uniqueItems took 10-22 s) is the
  // benchmark's to measure (`npm run bench -- sbom`), not a timed test's.
  it('a 2,000-component CycloneDX document is read whole, every component and edge accounted for', () => {
    const document = largeCycloneDx(2_000);
    const inventory = inventoryOf(readSbomSync(Buffer.from(JSON.stringify(document)), 'application/vnd.cyclonedx+json'));
    expect(inventory.components.length + inventory.skipped.length).toBe(cyclonedxComponents(document).length);
    expect(inventory.components).toHaveLength(2_000);
    const edges = (document.dependencies as { dependsOn: string[] }[]).reduce((sum, entry) => sum + entry.dependsOn.length, 0);
    expect([...inventory.dependencies.values()].reduce((sum, targets) => sum + targets.length, 0)).toBe(edges);
  });

  it('a repeated component far down a large document is still found by uniqueItems', () => {
    const document = largeCycloneDx(3_000);
    const components = document.components as Record<string, unknown>[];
    components.push(Object.fromEntries(Object.entries(components[17]!).reverse()));
    const errors = (errorsOf(readSbomSync(JSON.stringify(document)), 400) as Record<string, string[]>).input_file!;
    expect(errors).toEqual(['/components: must NOT have duplicate items (items ## 17 and 3000 are identical)']);
  });
});

describe('SPDX validation', () => {
  it('compiles once per version and takes both referenceCategory spellings', () => {
    const document = fixture('small-2.2.spdx.json');
    expect(checkSpdx(document, '2.2').errors).toEqual([]);
    expect(checkSpdx({ ...document, spdxVersion: 'SPDX-2.3' }, '2.3').errors).toEqual([]);
    const wrong = structuredClone(document);
    ((wrong.packages as Record<string, unknown>[])[0]!.externalRefs as Record<string, unknown>[])[0]!.referenceCategory = 'PACKAGE MANAGER';
    expect(checkSpdx(wrong, '2.2').errors).toEqual([
      expect.stringMatching(/^\/packages\/0\/externalRefs\/0\/referenceCategory: must be equal to one of the allowed values: "SECURITY", "PACKAGE-MANAGER", "PACKAGE_MANAGER"/),
    ]);
  });
});
