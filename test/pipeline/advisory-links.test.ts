/**
 * Published advisories through the real pipeline on the local stack: the Go vulnerability database's
 * records loaded as the admin command loads them, a real Go service's SBOM (proton-bridge 1.8.0)
 * imported through the API, and the stream → stream router → advisory link queue → linker → the
 * packages' links → evaluation: the service finds what is known, says what fixes it, and the
 * vulnerability rule sees it. A record withdrawn later takes its links back through the same path.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { AdvisoryLoader } from '../../shared/services/advisory-load.ts';

const GO = new URL('../fixtures/osv/go/', import.meta.url);
const SBOM = readFileSync(new URL('../fixtures/sbom/cyclonedx-gomod-proton-bridge-1.8.0.cdx.json', import.meta.url), 'utf8');

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;
let loader: AdvisoryLoader;
const { call, ok } = teamApi(() => stack.apiUrl, () => team.keys);

type InventoryPackage = { purl: string; affected_by_vulnerabilities: string[]; vulnerabilities: { vulnerability_id: string; fixed_versions: string[] }[] };
/**
 * Every page of the product's packages; none yet when the service answers that it is busy (a 503 with
 * Retry-After, which a loaded machine's DynamoDB Local may cause: a client asks again, as this poll does).
 */
async function inventory(product: string): Promise<InventoryPackage[]> {
  const packages: InventoryPackage[] = [];
  for (let page = 1; ; page++) {
    const answer = await call('GET', `/api/v2/products/${product}/packages/?page_size=100&page=${page}`);
    if (answer.status === 503) return [];
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    packages.push(...answer.json.results);
    if (!answer.json.next) return packages;
  }
}
const linkCount = (packages: InventoryPackage[]) => packages.reduce((total, pkg) => total + pkg.affected_by_vulnerabilities.length, 0);

beforeAll(async () => {
  stack = await startTestStack();
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true } } } });
  loader = new AdvisoryLoader({ advisories: new AdvisoryStore(stack.env.doc, stack.env.tableName), now: () => new Date() });
  const report = await loader.load(readdirSync(GO).map((file) => ({ source: file, record: JSON.parse(readFileSync(new URL(file, GO), 'utf8')) })));
  expect(report.refused).toEqual([]);
  await ok('PUT', '/api/v2/policy_rules/', { vulnerability_detected: { is_active: true } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('a real Go SBOM against the Go vulnerability database, through the pipeline', () => {
  let product: string;

  it('links every affected module with the versions that fix it, and the vulnerability rule counts them', async () => {
    product = (await ok('POST', '/api/v2/products/', { name: 'proton-bridge', version: '1.8.0' })).uuid;
    const response = await fetch(`${stack.apiUrl}/api/v2/products/${product}/load_sboms/`, {
      method: 'POST',
      headers: { Authorization: `Token ${team.keys.root}`, 'Content-Type': 'application/vnd.cyclonedx+json' },
      body: SBOM,
    });
    expect(response.status).toBe(200);
    // As test/unit/advisories.test.ts finds (and an independent evaluation confirms): 58 links on 14 modules.
    const linked = await eventually(() => inventory(product), (packages) => linkCount(packages) >= 58, 60_000);
    expect(linkCount(linked)).toBe(58);
    expect(linked.filter((pkg) => pkg.affected_by_vulnerabilities.length > 0)).toHaveLength(14);
    const gin = linked.find((pkg) => pkg.purl === 'pkg:golang/github.com/gin-gonic/gin@v1.4.0')!;
    expect(gin.vulnerabilities).toEqual([
      { vulnerability_id: 'GO-2020-0001', risk_score: null, linked_date: expect.any(String), fixed_versions: ['1.6.0'] },
      { vulnerability_id: 'GO-2021-0052', risk_score: null, linked_date: expect.any(String), fixed_versions: ['1.7.7'] },
      { vulnerability_id: 'GO-2023-1737', risk_score: null, linked_date: expect.any(String), fixed_versions: ['1.9.1'] },
    ]);
    const vulnerability = (await ok('GET', '/api/v2/vulnerabilities/?vulnerability_id=GO-2020-0001')).results[0];
    expect(vulnerability).toMatchObject({ source: 'osv', aliases: JSON.parse(readFileSync(new URL('GO-2020-0001.json', GO), 'utf8')).aliases });
    expect(vulnerability.affected_packages).toEqual([expect.objectContaining({ purl: gin.purl, fixed_versions: ['1.6.0'], matched_by: 'GO-2020-0001' })]);

    // The VEX export says what fixes it: the package's version affected, the fixing versions not.
    const vex = await ok('GET', `/api/v2/products/${product}/cyclonedx/?content=vex`);
    expect(vex.vulnerabilities.find((entry: { id: string }) => entry.id === 'GO-2020-0001')).toMatchObject({
      recommendation: 'Upgrade github.com/gin-gonic/gin v1.4.0 to 1.6.0.',
      affects: [{ ref: gin.purl, versions: [{ version: 'v1.4.0', status: 'affected' }, { version: '1.6.0', status: 'unaffected' }] }],
    });

    const violation = await eventually(
      () => ok('GET', `/api/v2/products/${product}/policy_violations/`),
      (list: { rule_type: string; violation_count: number }[]) => list.some((v) => v.rule_type === 'vulnerability_detected' && v.violation_count === 14),
      60_000,
    );
    expect(violation).toMatchObject([{ rule_type: 'vulnerability_detected', violation_count: 14 }]);
  }, 120_000);

  it('takes back the links of a record withdrawn later, and the rule counts one module fewer', async () => {
    const record = JSON.parse(readFileSync(new URL('GO-2022-0762.json', GO), 'utf8'));
    // bluemonday 1.0.2: GO-2022-0762 and GO-2022-0588 link it; withdrawing one keeps the module counted.
    const withdrawn = { ...record, modified: '2026-06-01T00:00:00Z', withdrawn: '2026-06-01T00:00:00Z' };
    expect(await loader.load([{ source: 'test', record: withdrawn }])).toMatchObject({ withdrawn: 1 });
    const after = await eventually(() => inventory(product), (packages) => linkCount(packages) === 57, 60_000);
    const bluemonday = after.find((pkg) => pkg.purl.startsWith('pkg:golang/github.com/microcosm-cc/bluemonday@'))!;
    expect(bluemonday.affected_by_vulnerabilities).not.toContain('GO-2022-0762');
    expect((await ok('GET', '/api/v2/vulnerabilities/?vulnerability_id=GO-2022-0762')).results[0].affected_packages).toEqual([]);
  }, 120_000);
});
