/**
 * The import plan (shared/domain/sbom-import.ts): what an Inventory makes of a product's packages,
 * dependencies, vulnerabilities and analyses, and that planning again on the result writes nothing.
 * Inventories are built directly, shaped like cyclonedx-npm output.
 */
import { describe, expect, it } from 'vitest';
import { buildLicenseIndex } from '../../shared/domain/license-index.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';
import { effectiveImport, isEmptyPlan, planImport, type CurrentState, type ImportPlan, type PlanContext, type PreparedComponent } from '../../shared/domain/sbom-import.ts';
import type { Inventory, SbomComponent, SbomVulnerability } from '../../shared/sbom/inventory.ts';
import type { Package } from '../../shared/domain/catalog.ts';
import { canonicalPurl } from '../../shared/services/catalog.ts';

const index = buildLicenseIndex([{ key: 'acme-eula', spdxLicenseKey: '' }], scancodeLibrary());

function aComponent(purl: string, overrides: Partial<SbomComponent> = {}): SbomComponent {
  const [, type = 'npm', rest = ''] = /^pkg:([^/]+)\/(.*)$/.exec(purl) ?? [];
  const [path = '', version = ''] = rest.split('@');
  const segments = path.split('/');
  return {
    ref: `${purl}`,
    type,
    namespace: segments.length > 1 ? decodeURIComponent(segments[0]!) : '',
    name: segments.at(-1)!,
    version,
    qualifiers: {},
    subpath: '',
    purl,
    hadPurl: true,
    declaredLicense: 'MIT',
    concludedLicense: '',
    hashes: {},
    description: '',
    homepageUrl: '',
    downloadUrl: '',
    supplier: '',
    copyright: '',
    filename: '',
    ...overrides,
  };
}

function anInventory(components: SbomComponent[], extra: Partial<Inventory> = {}): Inventory {
  return {
    format: 'cyclonedx',
    specVersion: '1.6',
    subject: { name: 'shop', version: '1.0.0' },
    components,
    skipped: [],
    dependencies: new Map(),
    vulnerabilities: [],
    vexOnly: false,
    ...extra,
  };
}

const prepare = (inventory: Inventory): PreparedComponent[] =>
  inventory.components.map((component) => {
    const purl = canonicalPurl(component.purl);
    return purl ? { component, purl } : { component, purl: undefined, problem: `Invalid purl "${component.purl}".` };
  });

const emptyState = (): CurrentState => ({
  dataspace: 'acme',
  productUuid: 'product-1',
  productPackages: [],
  markedForRemoval: new Set(),
  analyses: [],
  packagesByPurl: new Map(),
  vulnerabilitiesById: new Map(),
});

let counter = 0;
const context = (overrides: Partial<PlanContext> = {}): PlanContext => ({
  index,
  now: '2026-11-01T10:00:00+00:00',
  newUuid: () => `uuid-${++counter}`,
  mode: 'replace',
  updateExistingPackages: false,
  canonicalPurl,
  ...overrides,
});

/** What the store makes of a plan: the state the next import reads. */
function apply(state: CurrentState, plan: ImportPlan): CurrentState {
  const packages = new Map([...state.packagesByPurl.values()].map((pkg) => [pkg.uuid, pkg]));
  for (const { after } of plan.packageWrites) packages.set(after.uuid, { ...after, rev: after.rev + 1 });
  const vulnerabilities = new Map(state.vulnerabilitiesById);
  for (const { after, links } of plan.vulnerabilityWrites) {
    vulnerabilities.set(after.vulnerabilityId, { ...after, rev: after.rev + 1 });
    for (const [uuid, link] of links) {
      const pkg = packages.get(uuid)!;
      packages.set(uuid, { ...pkg, rev: pkg.rev + 1, vulnerabilities: { ...pkg.vulnerabilities, [after.vulnerabilityId]: link } });
    }
  }
  const removed = new Set(plan.productPackageRemovals.map((pp) => pp.uuid));
  const productPackages = new Map(state.productPackages.filter((pp) => !removed.has(pp.uuid)).map((pp) => [pp.packageUuid, pp]));
  for (const { after } of plan.productPackageWrites) productPackages.set(after.packageUuid, after);
  const goneAnalyses = new Set(plan.analysisRemovals.map((a) => a.uuid));
  const analyses = new Map(state.analyses.filter((a) => !goneAnalyses.has(a.uuid)).map((a) => [a.uuid, a]));
  for (const { after } of plan.analysisWrites) analyses.set(after.uuid, { ...after, rev: after.rev + 1 });
  return {
    ...state,
    markedForRemoval: new Set(),
    packagesByPurl: new Map([...packages.values()].map((pkg) => [pkg.purl, pkg])),
    productPackages: [...productPackages.values()],
    analyses: [...analyses.values()],
    vulnerabilitiesById: vulnerabilities,
  };
}

const sbom = () => {
  const express = aComponent('pkg:npm/express@4.19.2', {
    hashes: { sha512: 'AB'.repeat(64), sha1: 'not-hex' },
    description: 'Fast, unopinionated, minimalist web framework',
    homepageUrl: 'http://expressjs.com/',
    downloadUrl: 'https://registry.npmjs.org/express/-/express-4.19.2.tgz',
    supplier: 'TJ Holowaychuk',
  });
  const bodyParser = aComponent('pkg:npm/body-parser@1.20.2');
  const types = aComponent('pkg:npm/%40types/node@20.11.30', { declaredLicense: 'SEE LICENSE IN LICENSE.md', concludedLicense: 'mit OR Apache-2.0' });
  const generic = aComponent('pkg:generic/vendored-lib@2.0', { hadPurl: false, declaredLicense: 'GPL-2.0-only WITH Classpath-exception-2.0', homepageUrl: 'javascript:alert(1)' });
  return anInventory([express, bodyParser, types, generic], {
    dependencies: new Map([
      [express.ref, [bodyParser.ref, types.ref]],
      [bodyParser.ref, []],
    ]),
    skipped: [{ component: 'nameless', reason: 'The component has no name.' }],
  });
};

describe('an import plan', () => {
  it('creates the packages with their resolved licenses and details, the product packages with their dependencies, and counts every component', () => {
    const inventory = sbom();
    const plan = planImport(inventory, prepare(inventory), emptyState(), context());
    const byName = new Map(plan.packageWrites.map(({ after }) => [after.name, after]));
    expect(plan.packageWrites.every((write) => write.before === undefined)).toBe(true);
    expect(byName.get('express')).toMatchObject({
      purl: 'pkg:npm/express@4.19.2',
      licenseExpression: 'mit',
      declaredLicenseExpression: 'MIT',
      unknownLicenses: [],
      // Every key it names; none of them a dataspace license to count a use on.
      licenseKeys: ['mit'],
      countedLicenseKeys: [],
      sha512: 'ab'.repeat(64),
      sha1: '',
      description: 'Fast, unopinionated, minimalist web framework',
      homepageUrl: 'http://expressjs.com/',
      downloadUrl: 'https://registry.npmjs.org/express/-/express-4.19.2.tgz',
      supplier: 'TJ Holowaychuk',
    });
    expect(byName.get('node')).toMatchObject({
      namespace: '@types',
      licenseExpression: 'unknown-license-reference',
      declaredLicenseExpression: 'SEE LICENSE IN LICENSE.md',
      unknownLicenses: ['SEE LICENSE IN LICENSE.md'],
    });
    expect(byName.get('vendored-lib')).toMatchObject({ type: 'generic', licenseExpression: 'gpl-2.0 WITH classpath-exception-2.0', homepageUrl: '' });
    const pps = new Map(plan.productPackageWrites.map(({ after }) => [after.packageUuid, after]));
    expect(pps.get(byName.get('express')!.uuid)!.dependsOn).toEqual([byName.get('body-parser')!.uuid, byName.get('node')!.uuid].sort());
    expect(pps.get(byName.get('node')!.uuid)!.licenseExpression).toBe('mit OR apache-2.0');
    expect(pps.get(byName.get('express')!.uuid)!.licenseExpression).toBe('');
    expect(plan.summary).toMatchObject({ components: 5, packagesCreated: 4, packagesMatched: 0, packagesUpdated: 0, added: 4, removed: 0, unchanged: 0 });
    expect(plan.summary.skipped).toEqual([{ component: 'nameless', reason: 'The component has no name.' }]);
    expect(plan.summary.unknownLicenses).toEqual(['SEE LICENSE IN LICENSE.md']);
  });

  it('counts the dataspace licenses an expression names, the ones its counters track', () => {
    const inventory = anInventory([aComponent('pkg:npm/internal@1.0.0', { declaredLicense: 'ACME-EULA AND MIT' })]);
    const plan = planImport(inventory, prepare(inventory), emptyState(), context());
    expect(plan.packageWrites[0]!.after).toMatchObject({ licenseExpression: 'acme-eula AND mit', licenseKeys: ['acme-eula', 'mit'], countedLicenseKeys: ['acme-eula'] });
  });

  it('plans nothing when the same document is imported again', () => {
    const inventory = sbom();
    const first = planImport(inventory, prepare(inventory), emptyState(), context());
    const again = planImport(inventory, prepare(inventory), apply(emptyState(), first), context());
    expect(isEmptyPlan(again)).toBe(true);
    expect(again.summary).toMatchObject({ components: 5, packagesCreated: 0, packagesMatched: 4, added: 0, removed: 0, unchanged: 4 });
  });

  it('merges the same from the product packages its document names (read by key) as from the whole product', () => {
    const inventory = sbom();
    const state = apply(emptyState(), planImport(inventory, prepare(inventory), emptyState(), context()));
    const lodash = aComponent('pkg:npm/lodash@4.17.21');
    // Express again, its dependencies unstated: it keeps its edges, to packages the document does not name.
    const express = inventory.components[0]!;
    const smaller = anInventory([express, lodash]);
    const named = new Set([...state.packagesByPurl.values()].filter((pkg) => pkg.name === 'express').map((pkg) => pkg.uuid));
    const partial: CurrentState = {
      ...state,
      productPackages: state.productPackages.filter((pp) => named.has(pp.packageUuid)),
      othersCount: state.productPackages.length - named.size,
    };
    let uuids = 0;
    const whole = planImport(smaller, prepare(smaller), state, context({ mode: 'merge', newUuid: () => `merge-${++uuids}` }));
    uuids = 0;
    const byKey = planImport(smaller, prepare(smaller), partial, context({ mode: 'merge', newUuid: () => `merge-${++uuids}` }));
    expect(byKey).toEqual(whole);
    expect(byKey.summary).toMatchObject({ added: 1, removed: 0, unchanged: 4 });
    const expressAfter = byKey.productPackageWrites.find(({ after }) => named.has(after.packageUuid));
    expect(expressAfter).toBeUndefined(); // unchanged: edges and license as they were
    // A replace removes what the document does not name: it must have read them all.
    expect(() => planImport(smaller, prepare(smaller), partial, context({ mode: 'replace' }))).toThrow(/every product package/);
  });

  it('replaces the inventory (removing what the document no longer names, with its analyses), or merges into it', () => {
    const inventory = sbom();
    let state = apply(emptyState(), planImport(inventory, prepare(inventory), emptyState(), context()));
    const lodash = aComponent('pkg:npm/lodash@4.17.21');
    const smaller = anInventory([inventory.components[0]!, lodash]);
    const merged = planImport(smaller, prepare(smaller), state, context({ mode: 'merge' }));
    expect(merged.productPackageRemovals).toEqual([]);
    expect(merged.summary).toMatchObject({ added: 1, removed: 0, unchanged: 4 });
    const replaced = planImport(smaller, prepare(smaller), state, context({ mode: 'replace' }));
    expect(replaced.productPackageRemovals.map((pp) => pp.packageUuid).sort()).toEqual(
      ['body-parser', 'node', 'vendored-lib'].map((name) => [...state.packagesByPurl.values()].find((p) => p.name === name)!.uuid).sort(),
    );
    expect(replaced.summary).toMatchObject({ added: 1, removed: 3, unchanged: 1 });
    state = apply(state, replaced);
    // Express's edges to the removed packages go with them.
    const express = state.productPackages.find((pp) => pp.packageUuid === [...state.packagesByPurl.values()].find((p) => p.name === 'express')!.uuid)!;
    expect(express.dependsOn).toEqual([]);
  });

  it('matches existing packages without changing them, unless asked to fill their empty fields', () => {
    const existing: Package = {
      ...(planImport(anInventory([aComponent('pkg:npm/express@4.19.2', { declaredLicense: '' })]), prepare(anInventory([aComponent('pkg:npm/express@4.19.2', { declaredLicense: '' })])), emptyState(), context())
        .packageWrites[0]!.after),
      description: 'Curated description',
    };
    const state = { ...emptyState(), packagesByPurl: new Map([[existing.purl, existing]]) };
    const inventory = sbom();
    const matched = planImport(inventory, prepare(inventory), state, context());
    expect(matched.packageWrites.map((w) => w.after.name).sort()).toEqual(['body-parser', 'node', 'vendored-lib']);
    expect(matched.summary).toMatchObject({ packagesCreated: 3, packagesMatched: 1, packagesUpdated: 0 });
    const updating = planImport(inventory, prepare(inventory), state, context({ updateExistingPackages: true }));
    const update = updating.packageWrites.find((w) => w.before !== undefined)!;
    expect(update.after).toMatchObject({ description: 'Curated description', licenseExpression: 'mit', sha512: 'ab'.repeat(64), supplier: 'TJ Holowaychuk' });
    expect(updating.summary).toMatchObject({ packagesMatched: 1, packagesUpdated: 1 });
  });

  it('skips components without a usable purl, and takes a purl listed twice once', () => {
    const twice = aComponent('pkg:npm/left-pad@1.3.0');
    const inventory = anInventory([twice, { ...twice, ref: 'second' }, aComponent('pkg:npm/x@1', { purl: 'pkg:/missing-type' })]);
    const plan = planImport(inventory, prepare(inventory), emptyState(), context());
    expect(plan.packageWrites).toHaveLength(1);
    expect(plan.productPackageWrites).toHaveLength(1);
    expect(plan.summary).toMatchObject({ components: 3, packagesCreated: 1, packagesMatched: 1 });
    expect(plan.summary.skipped).toEqual([{ component: 'pkg:npm/x@1', name: 'pkg:/missing-type', reason: 'Invalid purl "pkg:/missing-type".' }]);
  });

  it('rewrites a product package a crashed import had marked for removal', () => {
    const inventory = sbom();
    const state = apply(emptyState(), planImport(inventory, prepare(inventory), emptyState(), context()));
    const marked = state.productPackages[0]!;
    const plan = planImport(inventory, prepare(inventory), { ...state, markedForRemoval: new Set([marked.packageUuid]) }, context());
    expect(plan.productPackageWrites).toEqual([{ before: marked, after: marked }]);
  });
});

describe('vulnerabilities of an import', () => {
  const vulnerability = (affects: string[], overrides: Partial<SbomVulnerability> = {}): SbomVulnerability => ({
    id: 'CVE-2024-29041',
    aliases: ['GHSA-rv95-896h-c2vc'],
    summary: 'Open redirect in malformed URLs',
    riskScore: 6.1,
    affects,
    analysis: { state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix'], detail: 'We never call res.location().' },
    ...overrides,
  });

  it('are created, linked to the affected packages, and their analyses recorded; once', () => {
    const base = sbom();
    const inventory = { ...base, vulnerabilities: [vulnerability([base.components[0]!.ref])] };
    const plan = planImport(inventory, prepare(inventory), emptyState(), context());
    expect(plan.vulnerabilityWrites).toHaveLength(1);
    const [write] = plan.vulnerabilityWrites;
    const express = plan.packageWrites.find((w) => w.after.name === 'express')!.after;
    expect(write!.after).toMatchObject({ vulnerabilityId: 'CVE-2024-29041', aliases: ['GHSA-rv95-896h-c2vc'], riskScore: 6.1, affectedPackages: [{ packageUuid: express.uuid, linkedDate: '2026-11-01T10:00:00+00:00' }] });
    expect([...write!.links.keys()]).toEqual([express.uuid]);
    expect(plan.analysisWrites).toHaveLength(1);
    expect(plan.analysisWrites[0]!.after).toMatchObject({ packageUuid: express.uuid, state: 'not_affected', justification: 'code_not_reachable', responses: ['will_not_fix'] });
    expect(plan.summary).toMatchObject({ vulnerabilities: 1, analyses: 1 });
    const again = planImport(inventory, prepare(inventory), apply(emptyState(), plan), context());
    expect(isEmptyPlan(again)).toBe(true);
  });

  it('from a VEX alone, update the analyses by purl and leave the inventory as it is', () => {
    const base = sbom();
    let state = apply(emptyState(), planImport(base, prepare(base), emptyState(), context()));
    const vex = anInventory([], { vexOnly: true, vulnerabilities: [vulnerability(['urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#pkg:npm/express@4.19.2', 'pkg:npm/not-in-product@1.0.0'])] });
    const plan = planImport(vex, [], state, context());
    expect(plan.packageWrites).toEqual([]);
    expect(plan.productPackageWrites).toEqual([]);
    expect(plan.productPackageRemovals).toEqual([]);
    expect(plan.analysisWrites).toHaveLength(1);
    // What it names that the product does not hold is said, and left alone.
    expect(plan.warnings).toEqual(['Vulnerability "CVE-2024-29041" names a package this product does not hold (nothing applied to it): pkg:npm/not-in-product@1.0.0.']);
    state = apply(state, plan);
    const updated = anInventory([], { vexOnly: true, vulnerabilities: [vulnerability(['pkg:npm/express@4.19.2'], { analysis: { state: 'exploitable', justification: null, responses: ['update'], detail: '' } })] });
    const change = planImport(updated, [], state, context());
    expect(change.vulnerabilityWrites).toEqual([]);
    expect(change.analysisWrites).toHaveLength(1);
    expect(change.analysisWrites[0]!.before).toBeDefined();
    expect(change.analysisWrites[0]!.after).toMatchObject({ state: 'exploitable', responses: ['update'], rev: 1 });
  });

  it('from a VEX published apart, resolve BOM-Links by the bom-ref the product package was imported with, and say what names nothing', () => {
    const SERIAL = '3e671687-395b-41f5-a30f-a58921a69b79';
    const express = aComponent('pkg:npm/express@4.19.2', { ref: 'express@4.19.2' });
    const qs = aComponent('pkg:npm/qs@6.11.0');
    const base = anInventory([express, qs], { serial: SERIAL });
    const first = planImport(base, prepare(base), emptyState(), context());
    // Recorded where the bom-ref says more than the purl; a bom-ref that is the purl needs no record.
    expect(first.productPackageWrites.map(({ after }) => [after.bomSerial, after.bomRef])).toEqual([
      [SERIAL, 'express@4.19.2'],
      [undefined, undefined],
    ]);
    let state = apply(emptyState(), first);
    expect(isEmptyPlan(planImport(base, prepare(base), state, context()))).toBe(true);
    const link = (serial: string, ref: string) => `urn:cdx:${serial}/2#${encodeURIComponent(ref)}`;
    const other = '00000000-0000-4000-8000-000000000000';
    const vex = anInventory([], {
      vexOnly: true,
      vulnerabilities: [
        vulnerability([link(SERIAL, 'express@4.19.2'), link(SERIAL, 'pkg:npm/qs@6.11.0'), link(SERIAL, 'left-pad@1.3.0'), link(other, 'express@4.19.2')]),
      ],
    });
    const plan = planImport(vex, [], state, context());
    expect(plan.analysisWrites.map(({ after }) => after.packageUuid).sort()).toEqual(state.productPackages.map((pp) => pp.packageUuid).sort());
    expect(plan.warnings).toEqual([
      `Vulnerability "CVE-2024-29041" affects "${link(SERIAL, 'left-pad@1.3.0')}": no package of this product has bom-ref "left-pad@1.3.0" in BOM urn:uuid:${SERIAL}: that part was not applied.`,
      `Vulnerability "CVE-2024-29041" affects "${link(other, 'express@4.19.2')}" names BOM urn:uuid:${other}, which was not imported into this product (or was imported before BOM-Links were recorded: import it again): that part was not applied.`,
    ]);
    // A document without a serial number cannot be linked to: nothing is recorded.
    state = apply(emptyState(), planImport({ ...base, serial: undefined }, prepare(base), emptyState(), context()));
    expect(state.productPackages.every((pp) => pp.bomRef === undefined && pp.bomSerial === undefined)).toBe(true);
  });

  it('from entries that repeat a vulnerability id (OpenVEX statements), one vulnerability and each entry\'s analysis for its own packages', () => {
    const base = sbom();
    const state = apply(emptyState(), planImport(base, prepare(base), emptyState(), context()));
    const [express, bodyParser, types] = ['pkg:npm/express@4.19.2', 'pkg:npm/body-parser@1.20.2', 'pkg:npm/%40types/node@20.11.30'];
    const notAffected = { state: 'not_affected' as const, justification: 'code_not_present' as const, responses: [], detail: 'Not shipped.' };
    const affected = { state: 'exploitable' as const, justification: null, responses: [], detail: 'Upgrade.' };
    const vex = anInventory([], {
      vexOnly: true,
      vulnerabilities: [
        vulnerability([express, bodyParser], { aliases: ['GHSA-a'], riskScore: null, summary: '', analysis: notAffected }),
        vulnerability([types], { aliases: ['GHSA-b'], riskScore: 8.1, analysis: affected }),
        // A later entry for a package a former one named: its analysis is the one kept.
        vulnerability([bodyParser], { aliases: [], riskScore: 5, analysis: affected }),
      ],
    });
    const plan = planImport(vex, [], state, context());
    expect(plan.vulnerabilityWrites).toHaveLength(1);
    expect(plan.vulnerabilityWrites[0]!.after).toMatchObject({ aliases: ['GHSA-a', 'GHSA-b'], riskScore: 8.1, summary: 'Open redirect in malformed URLs' });
    expect(plan.vulnerabilityWrites[0]!.after.affectedPackages).toHaveLength(3);
    const purlOf = new Map([...state.packagesByPurl.values()].map((pkg) => [pkg.uuid, pkg.purl]));
    expect(Object.fromEntries(plan.analysisWrites.map(({ after }) => [purlOf.get(after.packageUuid), after.state]))).toEqual({ [express]: 'not_affected', [bodyParser]: 'exploitable', [types]: 'exploitable' });
    expect(plan.summary).toMatchObject({ vulnerabilities: 1, analyses: 3 });
  });

  it('from a VEX naming a package without its version, every version of it the product holds', () => {
    const base = anInventory([aComponent('pkg:npm/express@4.19.2'), aComponent('pkg:npm/express@5.0.0', { ref: 'express-5' }), aComponent('pkg:npm/qs@6.11.0')]);
    const state = apply(emptyState(), planImport(base, prepare(base), emptyState(), context()));
    const vex = anInventory([], { vexOnly: true, vulnerabilities: [vulnerability(['pkg:npm/express'])] });
    const plan = planImport(vex, [], state, context());
    const purlOf = new Map([...state.packagesByPurl.values()].map((pkg) => [pkg.uuid, pkg.purl]));
    expect(plan.analysisWrites.map(({ after }) => purlOf.get(after.packageUuid)).sort()).toEqual(['pkg:npm/express@4.19.2', 'pkg:npm/express@5.0.0']);
    expect(plan.warnings).toEqual([]);
  });

  it('fill an existing vulnerability without overwriting it, and re-score every link when its score was empty', () => {
    const base = sbom();
    const first = { ...base, vulnerabilities: [vulnerability([base.components[0]!.ref], { riskScore: null, summary: '' })] };
    const state = apply(emptyState(), planImport(first, prepare(first), emptyState(), context()));
    const second = { ...base, vulnerabilities: [vulnerability([base.components[1]!.ref], { aliases: ['GHSA-other'], riskScore: 7.5 })] };
    const plan = planImport(second, prepare(second), state, context());
    const [write] = plan.vulnerabilityWrites;
    expect(write!.after).toMatchObject({ aliases: ['GHSA-rv95-896h-c2vc', 'GHSA-other'], summary: 'Open redirect in malformed URLs', riskScore: 7.5 });
    expect(write!.after.affectedPackages).toHaveLength(2);
    expect([...write!.links.values()].map((link) => link.riskScore)).toEqual([7.5, 7.5]);
  });

  it('with an id the catalog cannot hold, are left out and said so', () => {
    const base = sbom();
    const inventory = { ...base, vulnerabilities: [vulnerability([base.components[0]!.ref], { id: 'CVE 2024/1' })] };
    const plan = planImport(inventory, prepare(inventory), emptyState(), context());
    expect(plan.vulnerabilityWrites).toEqual([]);
    expect(plan.warnings).toEqual(['Vulnerability "CVE 2024/1" was not imported: an id uses letters, digits and . _ : - only, at most 100 characters.']);
  });
});

describe('an upload never made', () => {
  const queued = {
    uuid: 'i1',
    dataspace: 'acme',
    productUuid: 'p1',
    createdBy: 'alice',
    status: 'queued' as const,
    format: '' as const,
    specVersion: '',
    mode: 'replace' as const,
    updateExistingPackages: false,
    errors: [],
    createdDate: '2026-11-01T10:00:00+00:00',
    completedDate: null,
    summary: null,
    uploadExpiresAt: '2026-11-01T10:15:00+00:00',
  };

  it('is queued until a minute after its URL expired, then failed', () => {
    expect(effectiveImport(queued, new Date('2026-11-01T10:15:59Z')).status).toBe('queued');
    expect(effectiveImport(queued, new Date('2026-11-01T10:16:01Z'))).toMatchObject({ status: 'failed', errors: ['No document was uploaded before the upload URL expired.'] });
    expect(effectiveImport({ ...queued, status: 'running' }, new Date('2026-11-02T00:00:00Z')).status).toBe('running');
  });
});
