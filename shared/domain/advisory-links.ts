/**
 * Keeping the links between a dataspace's packages and the published advisories true, in both
 * directions: which links a package's advisories call for (planLinks), and what a vulnerability
 * becomes when an advisory links to it or leaves it (linkedVulnerability); which table changes call
 * for relinking at all is shared/domain/link-targets.ts. Links made by matching say so (`matchedBy`):
 * only those are ever taken back, so what a person typed or an SBOM brought stays. Pure.
 */
import type { AffectedPackage, PackageVulnerability, Vulnerability } from './catalog.ts';
import { advisoriesAffecting, type MatchableAdvisory } from './advisory-matching.ts';
import { versionScheme } from './versions/index.ts';

/** An advisory as linking needs it: what matching reads, and what a vulnerability made from it shows. */
export interface LinkableAdvisory extends MatchableAdvisory {
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly riskScore: number | null;
}

/** A package as linking reads it. */
export interface LinkablePackage {
  readonly uuid: string;
  readonly dataspace: string;
  readonly version: string;
  /** Its links, by vulnerability id (Package.vulnerabilities). */
  readonly vulnerabilities: Readonly<Record<string, PackageVulnerability>>;
}

/** What one advisory's links in one dataspace must become. */
export interface AdvisoryLinkPlan {
  readonly advisory: LinkableAdvisory;
  readonly dataspace: string;
  /** Packages to link (or whose fixing versions changed), with the versions that fix each. */
  readonly link: readonly { readonly packageUuid: string; readonly fixedVersions: readonly string[] }[];
  /** Packages whose link made by this advisory must go (it no longer affects them, or is withdrawn or gone). */
  readonly unlink: readonly string[];
  /** The vulnerability id the advisory's links are under in this dataspace, when any package holds one. */
  readonly linkedAs: string | undefined;
  /**
   * Every id the vulnerability may go by in the dataspace already: the ids and aliases of every record of
   * the group the advisory stands for (a `GO-…` typed in is found through the `GHSA-…` that stands for it).
   */
  readonly ids: readonly string[];
}

/**
 * The link changes the advisories of one package key call for on these packages (all of that key,
 * or of no key any more: then every link matching made goes). An advisory whose links are all as
 * they should be appears only when `refresh` names it (its record changed: its vulnerabilities may
 * need its new summary or score). `problems`: what matching could not judge, once each.
 */
export function planLinks(
  advisories: readonly LinkableAdvisory[],
  packages: readonly LinkablePackage[],
  refresh: ReadonlySet<string> = new Set(),
): { plans: AdvisoryLinkPlan[]; problems: string[] } {
  const groups = aliasGroups(advisories);
  const idsOf = (canonical: LinkableAdvisory) => [
    ...new Set([canonical, ...advisories.filter((other) => other !== canonical && groups.get(other.id) === canonical)].flatMap(candidateIds)),
  ];
  const plans = new Map<string, { advisory: LinkableAdvisory; dataspace: string; link: { packageUuid: string; fixedVersions: readonly string[] }[]; unlink: string[]; linkedAs: string | undefined; ids: string[]; touched: boolean }>();
  const planFor = (advisory: LinkableAdvisory, dataspace: string) => {
    const key = `${dataspace}\u0000${advisory.id}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = { advisory, dataspace, link: [], unlink: [], linkedAs: undefined, ids: idsOf(advisory), touched: false };
      plans.set(key, plan);
    }
    return plan;
  };
  const problems = new Set<string>();
  for (const pkg of packages) {
    const { matches, problems: found } = advisoriesAffecting(advisories, pkg.version);
    for (const problem of found) problems.add(problem);
    // Records of one vulnerability (GO-… and GHSA-… naming each other) link once, as their group's first.
    const affecting = new Map<string, { advisory: LinkableAdvisory; fixedVersions: readonly string[] }>();
    for (const { advisory, fixedVersions } of matches) {
      const canonical = groups.get(advisory.id)!;
      const known = affecting.get(canonical.id);
      affecting.set(canonical.id, { advisory: canonical, fixedVersions: known ? mergeFixed(known.fixedVersions, fixedVersions, advisory.entries[0]?.ecosystem) : fixedVersions });
    }
    const matched = new Map<string, { vulnerabilityId: string; link: PackageVulnerability }>();
    for (const [vulnerabilityId, link] of Object.entries(pkg.vulnerabilities)) {
      if (link.matchedBy) matched.set(groups.get(link.matchedBy)?.id ?? link.matchedBy, { vulnerabilityId, link });
    }
    for (const { advisory, fixedVersions } of affecting.values()) {
      const plan = planFor(advisory, pkg.dataspace);
      const current = matched.get(advisory.id);
      if (current) plan.linkedAs ??= current.vulnerabilityId;
      if (!current || current.link.matchedBy !== advisory.id || JSON.stringify(current.link.fixedVersions ?? []) !== JSON.stringify(fixedVersions)) {
        plan.link.push({ packageUuid: pkg.uuid, fixedVersions });
        plan.touched = true;
      }
      matched.delete(advisory.id);
    }
    // What matching linked before and no longer calls for: a changed range, a withdrawn or removed record.
    for (const [advisoryId, { vulnerabilityId, link }] of matched) {
      const advisory = groups.get(advisoryId) ?? { id: link.matchedBy!, withdrawn: null, entries: [], aliases: [], summary: '', riskScore: null };
      const plan = planFor(advisory, pkg.dataspace);
      plan.linkedAs ??= vulnerabilityId;
      plan.unlink.push(pkg.uuid);
      plan.touched = true;
    }
  }
  const refreshed = new Set([...refresh].map((id) => groups.get(id)?.id ?? id));
  return {
    plans: [...plans.values()]
      .filter((plan) => plan.touched || refreshed.has(plan.advisory.id))
      .map(({ touched: _touched, ...plan }) => plan),
    problems: [...problems],
  };
}

/**
 * Each advisory's group: the advisories that name each other (by id or alias, transitively), as the
 * one that stands for them all (the smallest id, so every run picks the same). Withdrawn ones join no
 * group but their own.
 */
function aliasGroups(advisories: readonly LinkableAdvisory[]): Map<string, LinkableAdvisory> {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    let root = id;
    while (parent.get(root) !== undefined && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(id, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const [x, y] = [find(a), find(b)];
    if (x !== y) parent.set(x < y ? y : x, x < y ? x : y);
  };
  const live = advisories.filter((advisory) => advisory.withdrawn === null);
  const owner = new Map<string, string>();
  for (const advisory of live) {
    parent.set(advisory.id, parent.get(advisory.id) ?? advisory.id);
    for (const name of candidateIds(advisory)) {
      const seen = owner.get(name);
      if (seen) union(seen, advisory.id);
      else owner.set(name, advisory.id);
    }
  }
  const byId = new Map(advisories.map((advisory) => [advisory.id, advisory]));
  return new Map(advisories.map((advisory) => [advisory.id, advisory.withdrawn === null ? byId.get(find(advisory.id))! : advisory]));
}

/** Two lists of fixing versions as one, oldest first in the ecosystem's order. */
function mergeFixed(a: readonly string[], b: readonly string[], ecosystem: string | undefined): readonly string[] {
  const all = [...new Set([...a, ...b])];
  const scheme = ecosystem === undefined ? undefined : versionScheme(ecosystem);
  if (!scheme) return all;
  const parsed = all.map((text) => ({ text, value: scheme.parse(text) }));
  return parsed.sort((x, y) => (x.value === undefined || y.value === undefined ? 0 : scheme.compare(x.value, y.value))).map((entry) => entry.text);
}

/** The ids a dataspace's vulnerability may already go by for this advisory: its own, then its aliases. */
export function candidateIds(advisory: Pick<LinkableAdvisory, 'id' | 'aliases'>): string[] {
  return [advisory.id, ...advisory.aliases];
}

/** A vulnerability holds at most this many aliases (as the API takes them). */
const MAX_ALIASES = 100;

/**
 * The vulnerability once the plan is applied to it: `before` (found by the advisory's id or an alias,
 * or holding its links), or a new one made from the advisory. One made from an advisory follows its
 * record (summary, score, aliases); one typed in or imported is completed, never overwritten: aliases
 * added, an empty summary or a missing score filled. A package it already affects through a link that
 * matching did not make keeps that link, with the fixing versions added when it had none.
 */
export function linkedVulnerability(
  plan: Pick<AdvisoryLinkPlan, 'advisory' | 'dataspace' | 'link' | 'unlink'> & Partial<Pick<AdvisoryLinkPlan, 'ids'>>,
  before: Vulnerability | undefined,
  made: { readonly uuid: string; readonly now: string },
): Vulnerability {
  const { advisory } = plan;
  const base: Vulnerability = before ?? {
    uuid: made.uuid,
    dataspace: plan.dataspace,
    rev: 0,
    vulnerabilityId: advisory.id,
    aliases: [],
    summary: '',
    riskScore: null,
    affectedPackages: [],
    source: 'osv',
  };
  const fromAdvisory = base.source === 'osv';
  const aliases = [...base.aliases];
  for (const alias of plan.ids ?? candidateIds(advisory)) {
    if (alias !== base.vulnerabilityId && !aliases.includes(alias) && aliases.length < MAX_ALIASES) aliases.push(alias);
  }
  const unlink = new Set(plan.unlink);
  const link = new Map(plan.link.map((entry) => [entry.packageUuid, entry.fixedVersions]));
  const affectedPackages: AffectedPackage[] = [];
  for (const affected of base.affectedPackages) {
    // Matching made it (this record, or another of the same vulnerability that stood for the group when
    // it linked), and no record of the group affects the package now.
    if (affected.matchedBy !== undefined && unlink.has(affected.packageUuid)) continue;
    const fixedVersions = link.get(affected.packageUuid);
    link.delete(affected.packageUuid);
    if (fixedVersions === undefined) affectedPackages.push(affected);
    // Typed in or imported: the link stays the person's (never taken back by a sync); it learns what fixes it.
    else if (affected.matchedBy === undefined) affectedPackages.push({ ...affected, fixedVersions });
    // Made by this advisory, or by another record of the same vulnerability: this one stands for them now.
    else affectedPackages.push({ ...affected, fixedVersions, matchedBy: advisory.id });
  }
  for (const [packageUuid, fixedVersions] of link) {
    affectedPackages.push({ packageUuid, linkedDate: made.now, fixedVersions, matchedBy: advisory.id });
  }
  return {
    ...base,
    aliases,
    summary: fromAdvisory || base.summary === '' ? advisory.summary.slice(0, 10_000) : base.summary,
    riskScore: fromAdvisory || base.riskScore === null ? advisory.riskScore : base.riskScore,
    affectedPackages,
  };
}
