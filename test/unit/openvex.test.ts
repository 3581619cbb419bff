/**
 * OpenVEX 0.2.0 → a VEX-only Inventory (shared/sbom/openvex.ts): real documents (the OpenVEX project's
 * vexctl and go-vex, SUSE Rancher's and SUSE Observability's published VEX hubs) validate and read to
 * the vulnerabilities, purls and analyses a person reads off the file; the spec's timestamp rules; and
 * bad input (not OpenVEX, the older version, missing or unknown parts, non-purl products, `__proto__`
 * keys, deep nesting) gives clear errors or warnings and never a throw.
 */
import { describe, expect, it } from 'vitest';
import type { Inventory, SbomVulnerability } from '../../shared/sbom/inventory.ts';
import { checkOpenVex, isOpenVex, openVexInventory, openVexTextErrors, openVexVersion } from '../../shared/sbom/openvex.ts';
import { fixture } from '../support/sbom-documents.ts';

// The cases read and edit parsed documents at any depth.
type Json = Record<string, any>;

const REAL = [
  'vexctl-demo.openvex.json',
  'vexctl-document1.openvex.json',
  'examples-tutorial02-document2.openvex.json',
  'go-vex-v0.2.0.openvex.json',
  'rancher-neuvector-manager.openvex.json',
  'rancher-hardened-coredns.openvex.json',
  'stackvista-k8s-process-agent.openvex.json',
];

const real = (name: string): Json => fixture(`openvex/${name}`) as Json;
const copy = <T>(value: T): T => structuredClone(value);

/** What the front door will do with an OpenVEX document: sniff, version, schema, metadata text, read. */
function readOpenVex(document: Json): { ok: true; inventory: Inventory } | { ok: false; errors: readonly string[] } {
  if (!isOpenVex(document)) return { ok: false, errors: ['not OpenVEX'] };
  const version = openVexVersion(document);
  if ('error' in version) return { ok: false, errors: [version.error] };
  const check = checkOpenVex(document);
  if (check.errors.length > 0) return { ok: false, errors: check.errors };
  const unstorable = openVexTextErrors(document);
  if (unstorable.length > 0) return { ok: false, errors: unstorable };
  return { ok: true, inventory: openVexInventory(document, version.version) };
}

function read(document: Json): Inventory {
  const result = readOpenVex(document);
  if (!result.ok) throw new Error(`not read: ${JSON.stringify(result.errors)}`);
  return result.inventory;
}

/** A v0.2.0 document around the statements given (the metadata the schema requires). */
function document(statements: unknown, extra: Json = {}): Json {
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': 'https://openvex.dev/docs/example/vex-test',
    author: 'Test author',
    timestamp: '2023-01-09T09:08:42-06:00',
    version: 1,
    statements,
    ...extra,
  };
}

const entries = (inventory: Inventory, id: string): SbomVulnerability[] => inventory.vulnerabilities.filter((vulnerability) => vulnerability.id === id);

describe('real documents', () => {
  it.each(REAL)('%s is OpenVEX 0.2.0, valid, with storable metadata', (name) => {
    const doc = real(name);
    expect(isOpenVex(doc)).toBe(true);
    expect(openVexVersion(doc)).toEqual({ version: '0.2.0' });
    expect(checkOpenVex(doc)).toEqual({ errors: [] });
    expect(openVexTextErrors(doc)).toEqual([]);
  });

  it.each(REAL)('%s: a VEX-only inventory of every vulnerability named, nothing else', (name) => {
    const doc = real(name);
    const inventory = read(doc);
    expect(inventory).toMatchObject({ format: 'openvex', specVersion: '0.2.0', subject: null, components: [], skipped: [], vexOnly: true });
    expect(inventory.dependencies.size).toBe(0);
    expect(inventory.warnings).toBeUndefined();
    const named = new Set((doc.statements as Json[]).map((statement) => statement.vulnerability.name as string));
    expect(new Set(inventory.vulnerabilities.map((vulnerability) => vulnerability.id))).toEqual(named);
    for (const vulnerability of inventory.vulnerabilities) {
      expect(vulnerability.riskScore).toBeNull();
      expect(vulnerability.affects.length).toBeGreaterThan(0);
      expect(vulnerability.analysis?.responses).toEqual([]);
    }
  });

  it('vexctl demo: fixed, for both architectures of the product', () => {
    const doc = real('vexctl-demo.openvex.json');
    const inventory = read(doc);
    expect(inventory.vulnerabilities).toEqual([
      {
        id: 'CVE-2014-123456',
        aliases: [],
        summary: '',
        riskScore: null,
        affects: (doc.statements[0].products as Json[]).map((product) => product['@id']),
        analysis: { state: 'resolved', justification: null, responses: [], detail: '' },
      },
    ]);
    expect(inventory.vulnerabilities[0]!.affects).toEqual(['pkg:apk/distro/git@2.39.0-r1?arch=armv7', 'pkg:apk/distro/git@2.39.0-r1?arch=x86_64']);
  });

  it('vexctl: under_investigation is in_triage; affected is exploitable, its action statement the detail', () => {
    expect(read(real('vexctl-document1.openvex.json')).vulnerabilities).toEqual([
      { id: 'CVE-1234-5678', aliases: [], summary: '', riskScore: null, affects: ['pkg:apk/wolfi/bash@1.0.0'], analysis: { state: 'in_triage', justification: null, responses: [], detail: '' } },
    ]);
    const affected = real('examples-tutorial02-document2.openvex.json');
    expect(read(affected).vulnerabilities).toEqual([
      {
        id: 'CVE-1234-5678',
        aliases: [],
        summary: '',
        riskScore: null,
        affects: ['pkg:generic/product@1.0.0'],
        analysis: { state: 'exploitable', justification: null, responses: [], detail: `Action statement: ${affected.statements[0].action_statement}` },
      },
    ]);
  });

  it('go-vex: the subcomponents of an OCI image are what the statements affect, not the image', () => {
    const doc = real('go-vex-v0.2.0.openvex.json');
    const inventory = read(doc);
    expect(inventory.vulnerabilities.map((vulnerability) => vulnerability.id)).toEqual(['CVE-2023-1255', 'CVE-2023-2650', 'CVE-2023-2975', 'CVE-2023-3446', 'CVE-2023-3817']);
    for (const statement of doc.statements as Json[]) {
      const [entry] = entries(inventory, statement.vulnerability.name);
      // Taken from the file: the subcomponents' ids (already canonical purls there).
      expect(entry!.affects).toEqual((statement.products[0].subcomponents as Json[]).map((subcomponent) => subcomponent['@id']));
      expect(entry!.affects).toEqual(['pkg:apk/alpine/libssl3@3.0.8-r3', 'pkg:apk/alpine/libcrypto3@3.0.8-r3']);
    }
    expect(entries(inventory, 'CVE-2023-1255')[0]!.analysis).toEqual({ state: 'resolved', justification: null, responses: [], detail: '' });
    expect(entries(inventory, 'CVE-2023-3446')[0]!.analysis).toEqual({
      state: 'not_affected',
      justification: 'code_not_present',
      responses: [],
      detail: 'OpenVEX justification: vulnerable_code_not_present | Impact statement: affected functions were removed before packaging',
    });
    expect(inventory.vulnerabilities.flatMap((vulnerability) => vulnerability.affects).some((purl) => purl.startsWith('pkg:oci/'))).toBe(false);
  });

  it('Rancher neuvector/manager: one advisory, two packages, two justifications: two entries of the same id', () => {
    const doc = real('rancher-neuvector-manager.openvex.json');
    const inventory = read(doc);
    const advisory = entries(inventory, 'SUSE-SU-2026:2464-1');
    expect(advisory.map((entry) => [entry.affects, entry.analysis?.justification])).toEqual([
      [['pkg:rpm/suse/libpython3_13-1_0'], 'code_not_present'],
      [['pkg:rpm/suse/python313'], 'code_not_reachable'],
    ]);
    // Each statement's package, justification and impact statement, as the file says them.
    for (const statement of doc.statements as Json[]) {
      const purl = statement.products[0].subcomponents[0]['@id'] as string;
      const entry = entries(inventory, statement.vulnerability.name).find((candidate) => candidate.affects.includes(purl));
      expect(entry?.analysis).toEqual({
        state: 'not_affected',
        justification: { vulnerable_code_not_present: 'code_not_present', vulnerable_code_not_in_execute_path: 'code_not_reachable' }[statement.justification as string],
        responses: [],
        detail: `OpenVEX justification: ${statement.justification} | Impact statement: ${statement.impact_statement}`,
      });
    }
    expect(inventory.vulnerabilities).toHaveLength(4);
  });

  it('Rancher hardened-coredns: cannot_be_controlled_by_adversary is requires_environment, the label kept in the detail', () => {
    const inventory = read(real('rancher-hardened-coredns.openvex.json'));
    expect(entries(inventory, 'SUSE-SU-2025:01702-1')).toEqual([
      {
        id: 'SUSE-SU-2025:01702-1',
        aliases: [],
        summary: '',
        riskScore: null,
        affects: ['pkg:rpm/suse/glibc'],
        analysis: { state: 'not_affected', justification: 'requires_environment', responses: [], detail: 'OpenVEX justification: vulnerable_code_cannot_be_controlled_by_adversary' },
      },
    ]);
    expect(entries(inventory, 'SUSE-SU-2026:2054-1')[0]).toMatchObject({ affects: ['pkg:rpm/suse/busybox'], analysis: { justification: 'code_not_reachable' } });
  });

  it('SUSE Observability process-agent: aliases, four images holding one package, impact and action statements and notes', () => {
    const doc = real('stackvista-k8s-process-agent.openvex.json');
    const inventory = read(doc);
    expect(inventory.vulnerabilities.map((vulnerability) => [vulnerability.id, vulnerability.aliases])).toEqual([
      ['CVE-2026-50195', ['GHSA-cvxm-645q-p574']],
      ['CVE-2026-53492', ['GHSA-33vj-92qq-66hc']],
      ['CVE-2026-53489', ['GHSA-rgh6-rfwx-v388']],
    ]);
    for (const statement of doc.statements as Json[]) {
      // Four products (the image in three registries and unqualified), one subcomponent each: the same package.
      expect(new Set((statement.products as Json[]).map((product) => product.subcomponents[0]['@id']))).toEqual(new Set(['pkg:golang/github.com/containerd/containerd@v1.7.33']));
      expect(entries(inventory, statement.vulnerability.name)).toEqual([
        {
          id: statement.vulnerability.name,
          aliases: statement.vulnerability.aliases,
          summary: '',
          riskScore: null,
          affects: ['pkg:golang/github.com/containerd/containerd@v1.7.33'],
          analysis: {
            state: 'not_affected',
            justification: 'code_not_present',
            responses: [],
            detail: `OpenVEX justification: vulnerable_code_not_present | Impact statement: ${statement.impact_statement} | Action statement: ${statement.action_statement} | Status notes: ${statement.status_notes}`,
          },
        },
      ]);
    }
  });

  it('vexctl merge output: refused for its document id, which is not an IRI; read, the later statement wins', () => {
    const merged = real('examples-tutorial02-merged.openvex.json');
    expect(merged['@id']).toMatch(/^merged-vex-/);
    expect(checkOpenVex(merged)).toEqual({ errors: ['/@id: must match format "iri"'] });
    // The reader (handed it anyway): under_investigation at 11:47:29, then affected at 11:48:20.
    const inventory = openVexInventory(merged, '0.2.0');
    expect(inventory.vulnerabilities.map((vulnerability) => vulnerability.analysis?.state)).toEqual(['exploitable']);
    // Time, not place in the document: the statements the other way round say the same.
    const reversed = copy(merged);
    reversed.statements.reverse();
    expect(openVexInventory(reversed, '0.2.0').vulnerabilities.map((vulnerability) => vulnerability.analysis?.state)).toEqual(['exploitable']);
  });
});

describe('versions', () => {
  it('v0.0.1 (go-vex test data) is OpenVEX but not read, the error naming the version read', () => {
    const old = real('go-vex-v0.0.1.openvex.json');
    expect(isOpenVex(old)).toBe(true);
    expect(openVexVersion(old)).toEqual({
      error: 'OpenVEX v0.0.1 ("@context": "https://openvex.dev/ns/v0.0.1") is not read here: OpenVEX v0.2.0 ("@context": "https://openvex.dev/ns/v0.2.0") is. v0.0.1 names vulnerabilities and products as plain strings.',
    });
    // The spec: a context without a version is v0.0.1.
    expect(openVexVersion({ ...old, '@context': 'https://openvex.dev/ns' })).toEqual({
      error: 'OpenVEX v0.0.1 ("@context": "https://openvex.dev/ns") is not read here: OpenVEX v0.2.0 ("@context": "https://openvex.dev/ns/v0.2.0") is. v0.0.1 names vulnerabilities and products as plain strings.',
    });
    // Its shape is not 0.2.0's: the schema says so too.
    expect(checkOpenVex(old).errors).toEqual(['/version: must be integer', '/statements/0/vulnerability: must be object', '/statements/0/products/0: must be object', '/statements/0/products/1: must be object']);
  });

  it('a version not known here, or a context that is not a string', () => {
    expect(openVexVersion(document([], { '@context': 'https://openvex.dev/ns/v0.3.0' }))).toEqual({
      error: 'OpenVEX "@context" "https://openvex.dev/ns/v0.3.0" is not a version read here: OpenVEX v0.2.0 ("@context": "https://openvex.dev/ns/v0.2.0") is.',
    });
    expect(openVexVersion({ '@context': ['https://openvex.dev/ns/v0.2.0'] })).toEqual({ error: expect.stringContaining('a string') });
  });

  it('not OpenVEX', () => {
    expect(isOpenVex({ bomFormat: 'CycloneDX', specVersion: '1.6' })).toBe(false);
    expect(isOpenVex({ spdxVersion: 'SPDX-2.3' })).toBe(false);
    expect(isOpenVex({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld' })).toBe(false);
    expect(isOpenVex({ '@context': ['https://openvex.dev/ns/v0.2.0'] })).toBe(false);
    expect(isOpenVex({ '@context': 42 })).toBe(false);
    expect(isOpenVex({})).toBe(false);
  });
});

describe('time: the latest statement about a vulnerability and a package wins (the spec, "Inheritance Flow")', () => {
  const statement = (status: string, products: string[], extra: Json = {}) => ({
    vulnerability: { name: 'CVE-2023-12345' },
    products: products.map((purl) => ({ '@id': purl })),
    status,
    ...(status === 'affected' ? { action_statement: 'Upgrade.' } : {}),
    ...extra,
  });
  const states = (inventory: Inventory) => inventory.vulnerabilities.map((vulnerability) => [vulnerability.affects, vulnerability.analysis?.state]);
  const git = 'pkg:apk/wolfi/git@2.39.0-r1?arch=armv7';

  it("the spec's example: a statement without a timestamp takes the document's, later than the dated one", () => {
    // "Updating Statements with Inherited Data" of OPENVEX-SPEC.md (its trailing commas left out).
    const spec = document([statement('under_investigation', [git], { timestamp: '2023-01-08T18:02:03-06:00' }), statement('fixed', [git])]);
    expect(checkOpenVex(spec).errors).toEqual([]);
    expect(states(read(spec))).toEqual([[[git], 'resolved']]);
    const reversed = document([...copy(spec.statements)].reverse());
    expect(states(read(reversed))).toEqual([[[git], 'resolved']]);
  });

  it('time zones and nanoseconds compare as instants', () => {
    const zones = document([statement('fixed', [git], { timestamp: '2023-01-09T01:00:00+02:00' }), statement('affected', [git], { timestamp: '2023-01-08T23:30:00Z' })]);
    expect(states(read(zones))).toEqual([[[git], 'exploitable']]);
    const nanos = document([statement('fixed', [git], { timestamp: '2023-01-08T23:30:00.000000002Z' }), statement('affected', [git], { timestamp: '2023-01-08T23:30:00.000000001Z' })]);
    expect(states(read(nanos))).toEqual([[[git], 'resolved']]);
  });

  it('a later statement about some of the products: each package keeps its own latest analysis', () => {
    const x86 = 'pkg:apk/wolfi/git@2.39.0-r1?arch=x86_64';
    const doc = document([statement('affected', [git, x86], { timestamp: '2023-01-08T00:00:00Z' }), statement('fixed', [git], { timestamp: '2023-01-09T00:00:00Z' })]);
    const inventory = read(doc);
    expect(states(inventory)).toEqual([
      [[git], 'resolved'],
      [[x86], 'exploitable'],
    ]);
    expect(inventory.vulnerabilities.every((vulnerability) => vulnerability.id === 'CVE-2023-12345')).toBe(true);
  });

  it('statements of the same time that disagree: the later one in the document, with a warning', () => {
    const doc = document([statement('affected', [git]), statement('fixed', [git])]);
    const inventory = read(doc);
    expect(states(inventory)).toEqual([[[git], 'resolved']]);
    expect(inventory.warnings).toEqual([`Statements of the same time disagree about CVE-2023-12345 on ${git} (/statements/0 and /statements/1): the later one in the document is used.`]);
  });

  it('statements of one vulnerability, aliases and description gathered; vulnerability @id is not an alias', () => {
    // The Spring Boot example of OPENVEX-SPEC.md, its trailing commas left out.
    const spring = document([
      {
        vulnerability: { '@id': 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228', name: 'CVE-2021-44228', description: 'Remote code injection in Log4j', aliases: ['GHSA-jfh8-c2jp-5v3q'] },
        products: [
          {
            '@id': 'pkg:maven/org.springframework.boot/spring-boot@2.6.0-M3',
            identifiers: { purl: 'pkg:maven/org.springframework.boot/spring-boot@2.6.0-M3' },
            hashes: { 'sha-256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
          },
        ],
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'Spring Boot users are only affected by this vulnerability if they have switched the default logging system to Log4J2.',
      },
    ]);
    const [entry, ...more] = read(spring).vulnerabilities;
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ id: 'CVE-2021-44228', aliases: ['GHSA-jfh8-c2jp-5v3q'], summary: 'Remote code injection in Log4j', affects: ['pkg:maven/org.springframework.boot/spring-boot@2.6.0-M3'] });
    expect(entry!.analysis?.justification).toBe('code_not_reachable');
  });
});

describe('the justification table', () => {
  it.each([
    ['component_not_present', 'code_not_present'],
    ['vulnerable_code_not_present', 'code_not_present'],
    ['vulnerable_code_not_in_execute_path', 'code_not_reachable'],
    ['vulnerable_code_cannot_be_controlled_by_adversary', 'requires_environment'],
    ['inline_mitigations_already_exist', 'protected_by_mitigating_control'],
  ])('%s → %s', (label, justification) => {
    const doc = document([{ vulnerability: { name: 'CVE-2023-1' }, products: [{ '@id': 'pkg:npm/a@1.0.0' }], status: 'not_affected', justification: label }]);
    expect(read(doc).vulnerabilities[0]!.analysis).toEqual({ state: 'not_affected', justification, responses: [], detail: `OpenVEX justification: ${label}` });
  });
});

describe('bad input: clear errors or warnings, never a throw', () => {
  const valid = () => real('go-vex-v0.2.0.openvex.json');

  it('statements missing, or none', () => {
    const { statements: _, ...without } = valid();
    expect(checkOpenVex(without).errors).toEqual(["/: must have required property 'statements'"]);
    expect(openVexInventory(without, '0.2.0')).toMatchObject({ vulnerabilities: [], vexOnly: true, warnings: ['/statements: the document has no statements.'] });
    expect(checkOpenVex({ ...valid(), statements: [] }).errors).toEqual(['/statements: must NOT have fewer than 1 items']);
  });

  it('a status OpenVEX does not define', () => {
    const doc = valid();
    doc.statements[0].status = 'false_positive';
    expect(checkOpenVex(doc).errors).toEqual(['/statements/0/status: must be equal to one of the allowed values: "not_affected", "affected", "fixed", "under_investigation"']);
    const inventory = openVexInventory(doc, '0.2.0');
    expect(inventory.vulnerabilities.map((vulnerability) => vulnerability.id)).not.toContain('CVE-2023-1255');
    expect(inventory.warnings).toEqual(['/statements/0: CVE-2023-1255: status "false_positive" is not an OpenVEX status (not_affected, affected, fixed, under_investigation); statement left out.']);
  });

  it('not_affected without a justification or an impact statement: the spec\'s MUST, so an error; the reader warns', () => {
    const doc = valid();
    delete doc.statements[3].justification;
    delete doc.statements[3].impact_statement;
    expect(checkOpenVex(doc).errors).toEqual(['/statements/3: a "not_affected" statement must give a justification or an impact_statement']);
    const inventory = openVexInventory(doc, '0.2.0');
    expect(entries(inventory, 'CVE-2023-3446')[0]!.analysis).toEqual({ state: 'not_affected', justification: null, responses: [], detail: '' });
    expect(inventory.warnings).toEqual(['/statements/3: CVE-2023-3446: not_affected without a justification or an impact statement (the spec requires one); read as given.']);
    // Either one is enough.
    const impactOnly = valid();
    delete impactOnly.statements[3].justification;
    expect(checkOpenVex(impactOnly).errors).toEqual([]);
  });

  it('affected without an action statement: the same', () => {
    const doc = valid();
    doc.statements[0].status = 'affected';
    expect(checkOpenVex(doc).errors).toEqual(['/statements/0: an "affected" statement must give an action_statement']);
    expect(openVexInventory(doc, '0.2.0').warnings).toEqual(['/statements/0: CVE-2023-1255: affected without an action statement (the spec requires one); read as given.']);
  });

  it('products without a purl are left out, named in one warning; identifiers.purl counts', () => {
    const doc = document([
      {
        vulnerability: { name: 'CVE-2023-2' },
        products: [
          { '@id': 'https://example.com/products/appliance' },
          { '@id': 'cpe:2.3:a:apache:log4j:2.4:-:*:*:*:*:*:*' },
          { identifiers: { cpe23: 'cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*' } },
          { '@id': 'https://example.com/products/with-purl', identifiers: { purl: 'pkg:npm/%40acme/widget@1.0.0' } },
          { '@id': 'pkg:oci/alpine@sha256%3A124c7d2707904eea7431fffe91522a01e5a861a624ee31d03372cc1d138a3126', subcomponents: [{ '@id': 'sha256:124c7d27' }] },
        ],
        status: 'fixed',
      },
    ]);
    expect(checkOpenVex(doc).errors).toEqual([]);
    const inventory = read(doc);
    expect(inventory.vulnerabilities).toMatchObject([{ id: 'CVE-2023-2', affects: ['pkg:npm/%40acme/widget@1.0.0'] }]);
    expect(inventory.warnings).toEqual([
      '4 product or subcomponent ids are not a purl and left out (packages are matched by purl): "https://example.com/products/appliance", "cpe:2.3:a:apache:log4j:2.4:-:*:*:*:*:*:*", "cpe:2.3:a:acme:widget:1.0:*:*:*:*:*:*:*", "sha256:124c7d27".',
    ]);
    // A product named by its hashes alone is no product to the schema.
    const hashesOnly = document([{ vulnerability: { name: 'CVE-2023-2' }, products: [{ hashes: { 'sha-256': 'e3b0c442' } }], status: 'fixed' }]);
    expect(checkOpenVex(hashesOnly).errors).toEqual(['/statements/0/products/0: must have one of the properties "@id", "identifiers"']);
    expect(openVexInventory(hashesOnly, '0.2.0').warnings).toEqual(['1 product or subcomponent id is not a purl and left out (packages are matched by purl): "sha-256:e3b0c442".']);
  });

  it('a statement without products (an encapsulating document may name them): warned', () => {
    const doc = document([{ vulnerability: { name: 'CVE-2023-3' }, status: 'fixed' }]);
    expect(checkOpenVex(doc).errors).toEqual([]);
    const inventory = read(doc);
    expect(inventory.vulnerabilities).toEqual([]);
    expect(inventory.warnings).toEqual(['/statements/0: no products; left out (OpenVEX lets an encapsulating document, such as an in-toto attestation, name them: not read here).']);
  });

  it('strings the service cannot store: in the metadata the document is refused, in a statement the statement is left out', () => {
    expect(openVexTextErrors({ ...valid(), author: 'Wolfi \ud800' })).toEqual(['/author: must not hold an unpaired surrogate (U+D800)']);
    expect(openVexTextErrors({ ...valid(), '\u0007': 'x' })).toEqual(['/: a key must not hold the control character U+0007']);
    const doc = valid();
    doc.statements[4].impact_statement = 'removed\u0007';
    expect(openVexTextErrors(doc)).toEqual([]);
    const inventory = openVexInventory(doc, '0.2.0');
    expect(entries(inventory, 'CVE-2023-3817')).toEqual([]);
    expect(inventory.warnings).toEqual(['/statements/4: statement on "CVE-2023-3817" left out: its impact_statement holds the control character U+0007.']);
  });

  it('__proto__ keys are properties like any other: refused by the schema, ignored by the reader, nothing polluted', () => {
    const text = JSON.stringify(valid()).replace('"status":"fixed"', '"status":"fixed","__proto__":{"polluted":true,"status":"affected"}').replace('"name":"CVE-2023-1255"', '"name":"CVE-2023-1255","__proto__":{"name":"CVE-0000-0000"}');
    const doc = JSON.parse(text) as Json;
    expect(Object.hasOwn(doc.statements[0], '__proto__')).toBe(true);
    expect(checkOpenVex(doc).errors).toEqual(['/statements/0: must NOT have additional properties: "__proto__"', '/statements/0/vulnerability: must NOT have additional properties: "__proto__"']);
    const inventory = openVexInventory(doc, '0.2.0');
    expect(entries(inventory, 'CVE-2023-1255')[0]!.analysis?.state).toBe('resolved');
    expect(inventory.vulnerabilities.map((vulnerability) => vulnerability.id)).not.toContain('CVE-0000-0000');
    expect(({} as Json).polluted).toBeUndefined();
    // A vulnerability called __proto__ is just a name (the import refuses it as an id).
    const named = document([{ vulnerability: { name: '__proto__' }, products: [{ '@id': 'pkg:npm/a@1.0.0' }], status: 'fixed' }]);
    expect(read(named).vulnerabilities.map((vulnerability) => vulnerability.id)).toEqual(['__proto__']);
  });

  it('deep nesting, in a statement and in the metadata: errors, no stack overflow', () => {
    const depth = 100_000;
    const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
    const doc = valid();
    doc.statements[0].products = deep;
    doc.statements[1].vulnerability.aliases = [deep];
    doc.tooling = deep;
    const errors = checkOpenVex(doc).errors;
    expect(errors).toContain('/tooling: must be string');
    expect(errors).toContain('/statements/1/vulnerability/aliases/0: must be string');
    expect(() => openVexTextErrors(doc)).not.toThrow();
    const inventory = openVexInventory(doc, '0.2.0');
    expect(entries(inventory, 'CVE-2023-3817')[0]!.affects).toEqual(['pkg:apk/alpine/libssl3@3.0.8-r3', 'pkg:apk/alpine/libcrypto3@3.0.8-r3']);
    // The same deep value in two statements: no crash comparing them for uniqueItems either.
    expect(() => checkOpenVex({ ...valid(), statements: [{ x: deep }, { x: deep }] })).not.toThrow();
  });

  it('at most 20 errors, repeated statements named', () => {
    const many = document(Array.from({ length: 50 }, (_, index) => ({ vulnerability: { name: `CVE-2023-${index}` }, products: [{ '@id': 'pkg:npm/a@1.0.0' }], status: 'unknown' })));
    expect(checkOpenVex(many).errors).toHaveLength(20);
    const repeated = valid();
    repeated.statements.push(copy(repeated.statements[0]));
    expect(checkOpenVex(repeated).errors).toEqual(['/statements: must NOT have duplicate items (items ## 0 and 5 are identical)']);
  });

  it('any value anywhere in a real document: no throw from any of the four', () => {
    const replacements: unknown[] = [null, 0, -1.5, true, '', 'pkg:', '\ud800', [], {}, [null], { '@id': 7 }, { __proto__: null }];
    const paths: (string | number)[][] = [];
    const walk = (value: unknown, at: (string | number)[]) => {
      paths.push(at);
      if (Array.isArray(value)) value.forEach((item, index) => walk(item, [...at, index]));
      else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, [...at, key]);
    };
    const base = real('stackvista-k8s-process-agent.openvex.json');
    walk(base, []);
    let runs = 0;
    for (const path of paths) {
      for (const replacement of replacements) {
        const doc = copy(base);
        if (path.length === 0) continue;
        let parent: any = doc;
        for (const key of path.slice(0, -1)) parent = parent[key];
        parent[path.at(-1)!] = copy(replacement);
        isOpenVex(doc);
        const version = openVexVersion(doc);
        checkOpenVex(doc);
        openVexTextErrors(doc);
        const inventory = openVexInventory(doc, 'version' in version ? version.version : '0.2.0');
        expect(inventory.vexOnly).toBe(true);
        runs++;
      }
    }
    expect(runs).toBeGreaterThan(1_000);
  });
});
