/**
 * Planning the links of published advisories (shared/domain/advisory-links.ts): records of one
 * vulnerability link once, under the group's first id, and a link made under another record of the
 * group is taken over, or taken back when none of them affects the package any more.
 */
import { describe, expect, it } from 'vitest';
import { linkedVulnerability, planLinks, type LinkableAdvisory } from '../../shared/domain/advisory-links.ts';
import type { Vulnerability } from '../../shared/domain/catalog.ts';

const entry = (fixed: string) => ({ ecosystem: 'Go', name: 'example.com/mod', ranges: [{ type: 'SEMVER' as const, events: [{ introduced: '0' }, { fixed }] }], versions: [] });
const advisory = (id: string, aliases: string[], fixed: string, withdrawn: string | null = null): LinkableAdvisory => ({ id, aliases, summary: id, riskScore: null, withdrawn, entries: [entry(fixed)] });

describe('planLinks', () => {
  it('links records that name each other once, under the smallest id, with the fixes of both', () => {
    const go = advisory('GO-2024-0001', ['CVE-2024-1', 'GHSA-aaaa-bbbb-cccc'], '1.2.0');
    const ghsa = advisory('GHSA-aaaa-bbbb-cccc', ['CVE-2024-1'], '1.3.0');
    const { plans } = planLinks([go, ghsa], [{ uuid: 'p', dataspace: 'acme', version: '1.1.0', vulnerabilities: {} }]);
    // Found in the dataspace by any id of the group (a GO-… typed in is not twinned).
    expect(plans).toEqual([{ advisory: ghsa, dataspace: 'acme', link: [{ packageUuid: 'p', fixedVersions: ['1.2.0', '1.3.0'] }], unlink: [], linkedAs: undefined, ids: ['GHSA-aaaa-bbbb-cccc', 'CVE-2024-1', 'GO-2024-0001'] }]);
  });

  it('takes over a link an earlier record of the group made, and takes it back when none affects the package', () => {
    const go = advisory('GO-2024-0001', ['CVE-2024-1'], '1.2.0');
    const ghsa = advisory('GHSA-aaaa-bbbb-cccc', ['CVE-2024-1'], '1.2.0');
    const linked = { uuid: 'p', dataspace: 'acme', version: '1.1.0', vulnerabilities: { 'GO-2024-0001': { riskScore: null, linkedDate: 'd', fixedVersions: ['1.2.0'], matchedBy: 'GO-2024-0001' } } };
    // The GHSA record came later and stands for the group now: the link is re-made under it.
    expect(planLinks([go, ghsa], [linked]).plans).toMatchObject([{ advisory: { id: 'GHSA-aaaa-bbbb-cccc' }, link: [{ packageUuid: 'p' }], unlink: [], linkedAs: 'GO-2024-0001' }]);
    // The package moved past the fix: the group's link goes, whichever record made it.
    const moved = { ...linked, version: '1.2.0' };
    const [plan] = planLinks([go, ghsa], [moved]).plans;
    expect(plan).toMatchObject({ advisory: { id: 'GHSA-aaaa-bbbb-cccc' }, link: [], unlink: ['p'], linkedAs: 'GO-2024-0001' });
    const before: Vulnerability = {
      uuid: 'v',
      dataspace: 'acme',
      rev: 1,
      vulnerabilityId: 'GO-2024-0001',
      aliases: ['CVE-2024-1'],
      summary: '',
      riskScore: null,
      source: 'osv',
      affectedPackages: [
        { packageUuid: 'p', linkedDate: 'd', fixedVersions: ['1.2.0'], matchedBy: 'GO-2024-0001' },
        { packageUuid: 'typed', linkedDate: 'd' },
      ],
    };
    // The link typed in stays; the one matching made goes.
    expect(linkedVulnerability(plan!, before, { uuid: 'new', now: 'n' }).affectedPackages).toEqual([{ packageUuid: 'typed', linkedDate: 'd' }]);
  });

  it('a withdrawn record links nothing and takes back what it linked', () => {
    const withdrawn = advisory('GO-2024-0002', [], '9.0.0', '2026-01-01T00:00:00Z');
    const linked = { uuid: 'p', dataspace: 'acme', version: '1.0.0', vulnerabilities: { 'GO-2024-0002': { riskScore: null, linkedDate: 'd', matchedBy: 'GO-2024-0002' } } };
    expect(planLinks([withdrawn], [linked]).plans).toMatchObject([{ advisory: { id: 'GO-2024-0002' }, link: [], unlink: ['p'] }]);
    expect(planLinks([withdrawn], [{ ...linked, vulnerabilities: {} }]).plans).toEqual([]);
  });
});
