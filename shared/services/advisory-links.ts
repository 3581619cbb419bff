/**
 * The advisory linker: keeps each dataspace's packages linked to the published advisories that affect
 * them (shared/domain/advisory-links.ts plans it), without scanning any catalog. A package written
 * (created, or its purl changed) is matched against its package key's advisories: one Query. An
 * advisory loaded, changed, withdrawn or dropping a package is matched against the packages of that
 * key in every dataspace: one keys-only Query of their index entries, then those packages by key.
 *
 * Each dataspace's links of one advisory are one vulnerability write (CatalogStore.writeVulnerability:
 * the packages' links, the link items, the vulnerability), so the stream carries the packages'
 * changes to the evaluation pipeline as for a link typed in: the vulnerability rules, the portfolio
 * and the webhooks see it.
 */
import { ConflictError } from '../domain/errors.ts';
import { linkedVulnerability, planLinks, type AdvisoryLinkPlan, type LinkablePackage } from '../domain/advisory-links.ts';
import type { Package, Vulnerability } from '../domain/catalog.ts';
import { isoWithOffset } from '../domain/time.ts';
import { keys } from '../keys.ts';
import { CATALOG_SPECS, isCatalogRace, type CatalogStore } from '../store/catalog-store.ts';
import { partitionQueryInput, queryAll, retryOnConflict } from '../store/dynamo.ts';
import type { AdvisoryStore } from '../store/advisory-store.ts';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface PackageRef {
  readonly dataspace: string;
  readonly uuid: string;
}

export interface AdvisoryLinkerDeps {
  readonly advisories: Pick<AdvisoryStore, 'ofPackage' | 'ofPackageKey'>;
  readonly catalog: CatalogStore;
  /** For the packages of a key: their index entries (keys.packagesOfAdvisoryKey). */
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly now: () => Date;
  readonly newUuid: () => string;
}

export interface LinkReport {
  /** Vulnerabilities written (created, linked, unlinked or refreshed), one per dataspace and advisory. */
  readonly written: number;
  /** Links made and taken back. */
  readonly linked: number;
  readonly unlinked: number;
  /** What matching could not judge (a version its ecosystem cannot read), once each. */
  readonly problems: readonly string[];
}

/** The package key a package is indexed under now (none: its purl names no covered ecosystem). */
const keyOf = (pkg: Package) => CATALOG_SPECS.packages.advisoryKey!(pkg);

export class AdvisoryLinker {
  constructor(private readonly deps: AdvisoryLinkerDeps) {}

  /** Relinks these packages (new, or with a new purl) against the advisories of their key now. */
  async linkPackages(refs: readonly PackageRef[]): Promise<LinkReport> {
    const packages = await this.deps.catalog.packages.getMany([...new Set(refs.map((ref) => ref.uuid))], true);
    const byKey = new Map<string | undefined, Package[]>();
    for (const pkg of packages) byKey.set(keyOf(pkg), [...(byKey.get(keyOf(pkg)) ?? []), pkg]);
    const reports: LinkReport[] = [];
    for (const [packageKey, ofKey] of byKey) {
      // A package of no key any more keeps no link that matching made.
      const advisories = packageKey === undefined ? [] : await this.deps.advisories.ofPackageKey(packageKey);
      reports.push(await this.apply(planLinks(advisories, ofKey.map(linkable))));
    }
    return sum(reports);
  }

  /**
   * Relinks every package of the key, in every dataspace, against its advisories now; `changed`: the
   * advisories whose records changed (their vulnerabilities take their new summary and score).
   */
  async linkKey(packageKey: string, changed: readonly string[] = []): Promise<LinkReport> {
    const entries = await queryAll(this.deps.doc, partitionQueryInput(this.deps.tableName, keys.packagesOfAdvisoryKey(packageKey)));
    const uuids = entries.map((entry) => String(entry.PK).slice('PACKAGE#'.length));
    // An entry read before its package changed (the index lags) no longer counts.
    const packages = (await this.deps.catalog.packages.getMany(uuids, true)).filter((pkg) => keyOf(pkg) === packageKey);
    const advisories = await this.deps.advisories.ofPackageKey(packageKey);
    return this.apply(planLinks(advisories, packages.map(linkable), new Set(changed)));
  }

  private async apply({ plans, problems }: { plans: AdvisoryLinkPlan[]; problems: string[] }): Promise<LinkReport> {
    let written = 0;
    let linked = 0;
    let unlinked = 0;
    for (const plan of plans) {
      const outcome = await retryOnConflict(() => this.applyPlan(plan), (error) => isCatalogRace(error) || error instanceof ConflictError);
      if (outcome) {
        written += 1;
        linked += outcome.linked;
        unlinked += outcome.unlinked;
      }
    }
    return { written, linked, unlinked, problems };
  }

  /** One advisory's links in one dataspace: one vulnerability write, or none when nothing changes. */
  private async applyPlan(plan: AdvisoryLinkPlan): Promise<{ linked: number; unlinked: number } | undefined> {
    const vulnerabilities = this.deps.catalog.vulnerabilities;
    const ids = [...new Set([...(plan.linkedAs ? [plan.linkedAs] : []), ...plan.ids])];
    const found = await vulnerabilities.getByUnique(plan.dataspace, ids, true);
    const before: Vulnerability | undefined = ids.map((id) => found.get(id)).find((vulnerability) => vulnerability !== undefined);
    if (!before && plan.link.length === 0) return undefined;
    const after = linkedVulnerability(plan, before, { uuid: this.deps.newUuid(), now: isoWithOffset(this.deps.now()) });
    if (before && sameVulnerability(before, after)) return undefined;
    await this.deps.catalog.writeVulnerability(before, after);
    const was = new Set((before?.affectedPackages ?? []).map((affected) => affected.packageUuid));
    const now = new Set(after.affectedPackages.map((affected) => affected.packageUuid));
    return { linked: [...now].filter((uuid) => !was.has(uuid)).length, unlinked: [...was].filter((uuid) => !now.has(uuid)).length };
  }
}

function linkable(pkg: Package): LinkablePackage {
  return { uuid: pkg.uuid, dataspace: pkg.dataspace, version: pkg.version, vulnerabilities: pkg.vulnerabilities };
}

function sameVulnerability(a: Vulnerability, b: Vulnerability): boolean {
  return JSON.stringify({ ...a, rev: 0 }) === JSON.stringify({ ...b, rev: 0 });
}

function sum(reports: readonly LinkReport[]): LinkReport {
  return {
    written: reports.reduce((total, report) => total + report.written, 0),
    linked: reports.reduce((total, report) => total + report.linked, 0),
    unlinked: reports.reduce((total, report) => total + report.unlinked, 0),
    problems: [...new Set(reports.flatMap((report) => report.problems))],
  };
}
