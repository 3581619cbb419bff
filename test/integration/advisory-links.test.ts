/**
 * The advisory linker on DynamoDB Local, with the Go vulnerability database's real records and real
 * module versions of proton-bridge 1.8.0's SBOM: packages are linked to what affects them with the
 * versions that fix them, a typed-in vulnerability named by an alias is completed instead of twinned,
 * and a record that is withdrawn, or a package moved to a fixed version, takes back exactly the links
 * matching made.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { AdvisoryLoader } from '../../shared/services/advisory-load.ts';
import { AdvisoryLinker } from '../../shared/services/advisory-links.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { CatalogService } from '../../shared/services/catalog.ts';
import type { Caller } from '../../shared/domain/caller.ts';

const GO = new URL('../fixtures/osv/go/', import.meta.url);
const record = (id: string) => JSON.parse(readFileSync(new URL(`${id}.json`, GO), 'utf8')) as Record<string, any>;

let env: Awaited<ReturnType<typeof useTestTable>>;
let advisories: AdvisoryStore;
let catalog: CatalogStore;
let service: CatalogService;
let linker: AdvisoryLinker;
const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };
const other: Caller = { username: 'olga', email: '', dataspace: 'other', isSuperuser: true, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { root: { superuser: true } } }, other: { users: { olga: { superuser: true } } } });
  advisories = new AdvisoryStore(env.doc, env.tableName);
  catalog = new CatalogStore(env.doc, env.tableName);
  service = new CatalogService({ catalog, productPackages: new ProductPackageStore(env.doc, env.tableName), now: () => new Date(), newUuid: randomUUID });
  linker = new AdvisoryLinker({ advisories, catalog, doc: env.doc, tableName: env.tableName, now: () => new Date(), newUuid: randomUUID });
  const loader = new AdvisoryLoader({ advisories, now: () => new Date() });
  await loader.load(readdirSync(GO).map((file) => ({ source: file, record: JSON.parse(readFileSync(new URL(file, GO), 'utf8')) })));
});

const aPackage = async (caller: Caller, purl: string) => (await service.savePackage(caller, undefined, () => ({ purl }), 'https://api.test')) as { uuid: string };
const vulnerability = async (dataspace: string, id: string) => (await catalog.vulnerabilities.getByUnique(dataspace, [id], true)).get(id);
const linksOf = async (uuid: string) => (await catalog.packages.get(uuid))!.vulnerabilities;

describe('linking packages to published advisories', () => {
  it('links a written package to every advisory that affects its version, with the versions that fix it', async () => {
    const gin = await aPackage(root, 'pkg:golang/github.com/gin-gonic/gin@v1.4.0');
    const net = await aPackage(root, 'pkg:golang/golang.org/x/net@v0.0.0-20210405180319-a5a99cb37ef4');
    const bbolt = await aPackage(root, 'pkg:golang/go.etcd.io/bbolt@v1.3.5');
    const report = await linker.linkPackages([gin, net, bbolt].map((pkg) => ({ dataspace: 'acme', uuid: pkg.uuid })));
    expect(report.problems).toEqual([]);
    // As the unit test's independent evaluation finds for these modules of proton-bridge 1.8.0.
    expect(Object.keys(await linksOf(gin.uuid)).sort()).toEqual(['GO-2020-0001', 'GO-2021-0052', 'GO-2023-1737']);
    expect((await linksOf(gin.uuid))['GO-2020-0001']).toMatchObject({ fixedVersions: ['1.6.0'], matchedBy: 'GO-2020-0001' });
    // bbolt's only record (GO-2026-4923) was withdrawn: nothing.
    expect(await linksOf(bbolt.uuid)).toEqual({});
    const made = (await vulnerability('acme', 'GO-2020-0001'))!;
    expect(made).toMatchObject({ source: 'osv', aliases: record('GO-2020-0001').aliases, summary: record('GO-2020-0001').summary });
    expect(made.affectedPackages).toEqual([{ packageUuid: gin.uuid, linkedDate: expect.any(String), fixedVersions: ['1.6.0'], matchedBy: 'GO-2020-0001' }]);
    expect(Object.keys(await linksOf(net.uuid)).length).toBeGreaterThan(5);
    expect(report.linked).toBe(Object.keys(await linksOf(gin.uuid)).length + Object.keys(await linksOf(net.uuid)).length);

    // Again: nothing to write.
    expect(await linker.linkPackages([gin, net, bbolt].map((pkg) => ({ dataspace: 'acme', uuid: pkg.uuid })))).toMatchObject({ written: 0, linked: 0, unlinked: 0 });
  });

  it('completes a vulnerability the dataspace typed in under an alias, and keeps its own fields and links', async () => {
    const jwt = await aPackage(other, 'pkg:golang/github.com/dgrijalva/jwt-go@v3.2.0');
    const typed = record('GO-2020-0017').aliases as string[];
    const manual = await service.saveVulnerability(other, undefined, () => ({ vulnerability_id: typed[0]!, aliases: [], summary: 'Our own words', risk_score: 7.5, affected_packages: [] }), 'https://api.test');
    await linker.linkPackages([{ dataspace: 'other', uuid: jwt.uuid }]);
    expect(await vulnerability('other', 'GO-2020-0017')).toBeUndefined();
    const completed = (await vulnerability('other', typed[0]!))!;
    expect(completed).toMatchObject({ uuid: (manual as { uuid: string }).uuid, summary: 'Our own words', riskScore: 7.5, source: 'manual' });
    expect(completed.aliases).toContain('GO-2020-0017');
    expect(completed.affectedPackages).toEqual([expect.objectContaining({ packageUuid: jwt.uuid, matchedBy: 'GO-2020-0017' })]);
    // The other dataspace's gin is not linked to acme's vulnerabilities, nor the reverse.
    expect((await vulnerability('acme', 'GO-2020-0017'))).toBeUndefined();
  });

  it('takes back the links of a withdrawn record, and of a package moved to a fixed version, and only those', async () => {
    const gin = await aPackage(root, 'pkg:golang/github.com/gin-gonic/gin@v1.5.0');
    await linker.linkPackages([{ dataspace: 'acme', uuid: gin.uuid }]);
    expect(Object.keys(await linksOf(gin.uuid))).toContain('GO-2020-0001');
    // A person links it to a vulnerability of their own too.
    await service.saveVulnerability(root, undefined, () => ({ vulnerability_id: 'INTERNAL-1', aliases: [], summary: '', risk_score: null, affected_packages: [{ package: gin.uuid }] }), 'https://api.test');

    const withdrawn = { ...record('GO-2020-0001'), modified: '2026-06-01T00:00:00Z', withdrawn: '2026-06-01T00:00:00Z' };
    await new AdvisoryLoader({ advisories, now: () => new Date() }).load([{ source: 'changed', record: withdrawn }]);
    const report = await linker.linkKey('Go#github.com/gin-gonic/gin', ['GO-2020-0001']);
    // Both gin packages of acme lose it (1.4.0 and 1.5.0); the vulnerability stays, with no package.
    expect(report).toMatchObject({ unlinked: 2 });
    expect(Object.keys(await linksOf(gin.uuid)).sort()).toEqual(['GO-2021-0052', 'GO-2023-1737', 'INTERNAL-1']);
    expect((await vulnerability('acme', 'GO-2020-0001'))!.affectedPackages).toEqual([]);

    // The package's purl moves to a version that fixes the rest (gin 1.9.1).
    await service.savePackage(root, gin.uuid, () => ({ purl: 'pkg:golang/github.com/gin-gonic/gin@v1.9.1' }), 'https://api.test');
    await linker.linkPackages([{ dataspace: 'acme', uuid: gin.uuid }]);
    expect(Object.keys(await linksOf(gin.uuid))).toEqual(['INTERNAL-1']);
  });
});

describe('the migration', () => {
  it('gives packages written before advisories were matched their package key entry, once, and they are linked like new ones', async () => {
    const { migrateData } = await import('../../shared/store/migrations.ts');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const text = await aPackage(root, 'pkg:golang/golang.org/x/text@v0.3.5');
    // As an earlier version wrote it: no entry; and the dataspace not marked.
    await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key: { PK: `PACKAGE#${text.uuid}`, SK: 'PACKAGE' }, UpdateExpression: 'REMOVE GSI11PK, GSI11SK, osvKey' }));
    await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key: { PK: 'DATASPACES', SK: 'DS#acme' }, UpdateExpression: 'REMOVE advisoryKeysIndexed' }));
    expect(await linker.linkKey('Go#golang.org/x/text')).toMatchObject({ linked: 0 });
    expect((await migrateData(env.doc, env.tableName)).advisoryKeysWritten).toBe(1);
    expect((await migrateData(env.doc, env.tableName)).advisoryKeysWritten).toBe(0);
    // What the stream then asks of the linker (test/pipeline/advisory-links.test.ts goes that way):
    expect((await linker.linkKey('Go#golang.org/x/text')).linked).toBeGreaterThan(0);
    expect(Object.keys(await linksOf(text.uuid))).toContain('GO-2021-0113');
  });
});
