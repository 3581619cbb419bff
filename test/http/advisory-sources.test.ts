/**
 * GET /api/v2/advisory_sources/: the published advisories the deployment holds, by ecosystem, as any
 * user of any dataspace reads them (the console's "records held, last synced"), after the loads that
 * the admin command and the sync make (real OSV records: test/fixtures/osv).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { AdvisoryStore } from '../../shared/store/advisory-store.ts';
import { AdvisoryLoader } from '../../shared/services/advisory-load.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true }, alice: {} } }, other: { users: { bob: {} } } });
const FIXTURES = fileURLToPath(new URL('../fixtures/osv/', import.meta.url));
const records = (ecosystem: string, count: number) =>
  readdirSync(`${FIXTURES}${ecosystem}`)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .slice(0, count)
    .map((name) => ({ source: name, record: JSON.parse(readFileSync(`${FIXTURES}${ecosystem}/${name}`, 'utf8')) }));

beforeAll(async () => {
  const advisories = new AdvisoryStore(http.env.doc, http.env.tableName);
  const loader = new AdvisoryLoader({ advisories, now: () => new Date('2026-11-02T00:00:00Z') });
  // As the admin command loads (no sync state), then as the sync notes a run (with what it synced until).
  await loader.load(records('go', 5));
  await advisories.noteLoaded(['Go'], new Date('2026-11-02T00:00:00Z'));
  await loader.load(records('pypi', 7));
  await advisories.noteLoaded(['PyPI'], new Date('2026-11-03T00:00:00Z'), '2026-10-30T12:00:00Z');
  // A record of a release of a distribution (`Debian:12`) counts under its ecosystem, as loads report it.
  const [go] = records('go', 1);
  const debian = { ...go!.record, id: 'DEBIAN-CVE-2099-0001', affected: [{ package: { ecosystem: 'Debian:12', name: 'openssl' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }] }] }] };
  const report = await loader.load([{ source: 'debian.json', record: debian }]);
  expect(report).toMatchObject({ new: 1, ecosystems: ['Debian'] });
  await advisories.noteLoaded(report.ecosystems, new Date('2026-11-04T00:00:00Z'));
});

describe('the advisory sources', () => {
  it('are read by every user of every dataspace, by ecosystem, with the records held', async () => {
    for (const user of ['alice', 'root', 'bob']) {
      const answer = await http.call(user, 'GET', '/api/v2/advisory_sources/');
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({
        count: 3,
        next: null,
        previous: null,
        results: [
          { ecosystem: 'Debian', records: 1, last_loaded_date: '2026-11-04T00:00:00.000Z', last_synced_date: null, synced_until: null },
          { ecosystem: 'Go', records: 5, last_loaded_date: '2026-11-02T00:00:00.000Z', last_synced_date: null, synced_until: null },
          { ecosystem: 'PyPI', records: 7, last_loaded_date: '2026-11-03T00:00:00.000Z', last_synced_date: '2026-11-03T00:00:00.000Z', synced_until: '2026-10-30T12:00:00Z' },
        ],
      });
    }
  });

  it('page as every list, and answer 401 without a key', async () => {
    const first = await http.call('alice', 'GET', '/api/v2/advisory_sources/?page_size=1');
    expect(first.json).toMatchObject({ count: 3, previous: null, results: [{ ecosystem: 'Debian' }] });
    expect(first.json.next).toMatch(/\/api\/v2\/advisory_sources\/\?page_size=1&page=2$/);
    expect((await http.call('alice', 'GET', '/api/v2/advisory_sources/?page=4&page_size=1')).status).toBe(404);
    expect((await http.call(undefined, 'GET', '/api/v2/advisory_sources/')).status).toBe(401);
  });
});
