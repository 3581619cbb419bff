/**
 * The evaluator: reads a product with everything its rules need (pages of data, never one call per
 * package), runs the rules at `now`, reconciles the violations (detected, still active, resolved,
 * re-activated) and commits them with their events in one transaction, retrying from a fresh read
 * when another evaluation of the same product won the race. A request older than the last
 * evaluation's read is already answered.
 */
import type { ComplianceAlert, Package } from '../domain/catalog.ts';
import { licenseCategory } from '../domain/license-index.ts';
import type { ReferenceLibrary } from '../domain/reference-license.ts';
import { scancodeLibrary } from '../reference/scancode-licensedb.ts';
import { evaluateRules, reconcile, waivedRules, type WaivedRule, type PackageFacts, type PolicyConfig, type RuleResult, type RuleType, type Violation } from '../domain/policy-rules.ts';
import type { PolicyWaiver } from '../domain/policy-waivers.ts';
import { isTransactionConflict, retryOnConflict } from '../store/dynamo.ts';
import type { CatalogStore } from '../store/catalog-store.ts';
import { createHash } from 'node:crypto';
import { ProductGoneError, StaleEvaluationError, type EvaluationData, type EvaluationState, type PolicyStore, type ViolationPackageList } from '../store/policy-store.ts';
import { logger } from '../observability/logger.ts';
import { violationDetected, violationResolved, type ProductOfEvent } from '../events/policy-events.ts';
import { correlated, type Envelope } from '../events/envelope.ts';
import { isoWithOffset } from '../domain/time.ts';
import { productUrl } from './products.ts';
import { gateOf } from '../domain/portfolio.ts';

export interface EvaluationDeps {
  readonly policy: PolicyStore;
  readonly catalog: CatalogStore;
  readonly now: () => Date;
  readonly newUuid: () => string;
  /** Base URL of the public API, for the product URLs in events. */
  readonly baseUrl: string;
  /** Where license categories come from when a dataspace license has none; the shipped library by default. */
  readonly library?: ReferenceLibrary;
}

export interface EvaluateOptions {
  /** When the change was seen: an evaluation that already started reading after it makes this one unnecessary. */
  readonly requestedAt?: string | undefined;
  /** The base of the events' links; the service's own by default. */
  readonly baseUrl?: string | undefined;
  /** The correlation id of the path that asked for the evaluation: its events carry it. */
  readonly correlationId?: string | undefined;
}

export type EvaluationOutcome =
  | {
      readonly outcome: 'evaluated';
      readonly violations: readonly Violation[];
      readonly events: readonly Envelope[];
      readonly evaluatedAt: string;
      /** The product's packages: what the evaluation cost (the evaluator sizes its batches by them). */
      readonly packages: number;
      /** What waivers held back, by rule, and the product's waivers (the violations answer shows those applied). */
      readonly waived: readonly WaivedRule[];
      readonly waivers: readonly PolicyWaiver[];
    }
  | { readonly outcome: 'skipped'; readonly reason: 'gone' | 'up to date' };

/**
 * How far behind an eventually consistent read may be: DynamoDB's replicas usually converge within a
 * second of a write. An evaluation that reads eventually consistent records that it reflects the
 * changes committed this long before it started, and no later (EvaluationState.coveredUntil).
 */
export const STALE_READ_MARGIN_MS = 1_000;

/**
 * Where an evaluation reads eventually consistent (half the read units of its packages and catalog
 * items): when it answers a queued request seen at least STALE_READ_MARGIN_MS before it started, as
 * every request is on AWS (the queue holds each EVALUATION_DELAY_SECONDS, 2 by default). A change
 * made so long before is in what it reads; a change it may have missed, made within the margin, is
 * newer than what it records as covered (started minus the margin), so that change's own request is
 * not skipped as answered: a later evaluation reads it. Strongly consistent otherwise: an evaluation
 * on demand (?wait=true answers what the user just changed), the drill-down, and requests younger
 * than the margin (a queue delay of 0).
 */
function readsEventually(requestedAt: string | undefined, started: Date): boolean {
  return requestedAt !== undefined && Date.parse(requestedAt) <= started.getTime() - STALE_READ_MARGIN_MS;
}

const isRace = (error: unknown) => error instanceof StaleEvaluationError || isTransactionConflict(error);

export class EvaluationService {
  constructor(private readonly deps: EvaluationDeps) {}

  /**
   * Evaluates the product. With `requestedAt` (when a change was seen), an evaluation that already
   * started reading after it makes this one unnecessary: bursts of changes coalesce.
   */
  async evaluate(productUuid: string, options: EvaluateOptions = {}): Promise<EvaluationOutcome> {
    try {
      return await retryOnConflict(() => this.once(productUuid, options), isRace, {
        // The evaluator's own waits, as before: a queue consumer whose message comes back if this fails.
        maxTries: 8,
        baseMs: 20,
        capMs: 2_560,
      });
    } catch (error) {
      if (error instanceof ProductGoneError) return { outcome: 'skipped', reason: 'gone' };
      throw error;
    }
  }

  private async once(productUuid: string, { requestedAt, baseUrl = this.deps.baseUrl, correlationId }: EvaluateOptions): Promise<EvaluationOutcome> {
    const started = this.deps.now();
    const evaluatedAt = isoWithOffset(started);
    const answered = (state: EvaluationState) => {
      const covered = state.coveredUntil ?? state.evaluatedAt;
      return requestedAt !== undefined && covered !== null && covered >= requestedAt;
    };
    // The small items first, strongly consistent: a request already answered, or a deleted product, reads no packages.
    const head = await this.deps.policy.readHead(productUuid);
    if (!head) return { outcome: 'skipped', reason: 'gone' };
    if (answered(head.state)) return { outcome: 'skipped', reason: 'up to date' };
    const consistent = !readsEventually(requestedAt, started);
    const data = await this.deps.policy.readForEvaluation(head, { consistent });
    const coveredUntil = consistent ? evaluatedAt : isoWithOffset(new Date(started.getTime() - STALE_READ_MARGIN_MS));
    const { config } = await this.deps.policy.getConfig(data.product.dataspace);
    const results = await this.results(data, config, started, consistent);
    const reconciled = reconcile(data.violations, results, started);
    const waived = waivedRules(results);
    const { detected, resolved } = reconciled;
    // The packages behind each active violation, stored for the drill-down; a list that did not change is kept.
    const listId = `${data.state.version + 1}.${this.deps.newUuid().slice(0, 8)}`;
    const lists = new Map<RuleType, ViolationPackageList>();
    const written: RuleType[] = [];
    for (const result of results) {
      if (!result.triggered) continue;
      const hash = createHash('sha256').update(JSON.stringify(result.offenders)).digest('base64url');
      const before = data.packageLists.get(result.type);
      if (before?.hash === hash) {
        lists.set(result.type, before);
      } else {
        lists.set(result.type, { id: listId, hash });
        written.push(result.type);
      }
    }
    // A violation whose list changed is written again to name it, even when its count did not change.
    const writes = [
      ...reconciled.writes,
      ...data.violations.filter((v) => v.resolvedDate === null && written.includes(v.ruleType) && !reconciled.writes.some((w) => w.ruleType === v.ruleType)),
    ];
    const product: ProductOfEvent = {
      uuid: data.product.uuid,
      name: data.product.name,
      version: data.product.version,
      api_url: productUrl(baseUrl, data.product.uuid),
    };
    const events: Envelope[] = [];
    if (detected.length > 0) {
      events.push(
        correlated(
          violationDetected(
            this.deps.newUuid(),
            evaluatedAt,
            product,
            data.product.dataspace,
            detected.map(({ violation, reactivated, expiredWaivers }) => ({ ruleType: violation.ruleType, count: violation.count, reactivated, expiredWaivers })),
          ),
          correlationId,
        ),
      );
    }
    if (resolved.length > 0) {
      events.push(correlated(violationResolved(this.deps.newUuid(), evaluatedAt, product, data.product.dataspace, resolved), correlationId));
    }
    const byRule = new Map(results.map((result) => [result.type, result.offenders]));
    const byType = new Map(data.violations.map((violation) => [violation.ruleType, violation]));
    for (const violation of writes) byType.set(violation.ruleType, violation);
    // The product's gate as policy_status will answer it from these violations (waivers already
    // applied by the rules), committed with them so the two never disagree.
    const gate = gateOf([...byType.values()].filter((violation) => violation.resolvedDate === null));
    for (const type of written) await this.deps.policy.writeViolationPackages(data.product, type, listId, byRule.get(type)!);
    try {
      await this.deps.policy.commitEvaluation(data.product, data.state, evaluatedAt, coveredUntil, writes, events, started, lists, waived, gate);
    } catch (error) {
      // Lists no violation names (the commit lost a race, or failed): remove them, as far as possible.
      await this.removeLists(data.product.uuid, written.map((type) => [type, listId]));
      throw error;
    }
    // The lists this commit replaced, and those of violations it resolved.
    await this.removeLists(
      data.product.uuid,
      [...data.packageLists].filter(([type, list]) => lists.get(type)?.id !== list.id).map(([type, list]) => [type, list.id]),
    );
    return { outcome: 'evaluated', violations: [...byType.values()], events, evaluatedAt, packages: data.productPackages.length, waived, waivers: data.waivers };
  }

  /** Best effort: a list left behind costs storage, never a wrong answer (no violation names it). */
  private async removeLists(productUuid: string, lists: readonly (readonly [RuleType, string])[]): Promise<void> {
    for (const [type, listId] of lists) {
      try {
        await this.deps.policy.deleteViolationPackages(productUuid, type, listId);
      } catch (error) {
        logger.warn('Could not delete a superseded violation package list', { product: productUuid, ruleType: type, listId, error: error as Error });
      }
    }
  }

  /**
   * The rules' results for the product as it is now (writes nothing): the drill-down's answer for a
   * violation recorded before violations stored their package lists.
   */
  async currentResults(productUuid: string, now: Date): Promise<RuleResult[] | undefined> {
    const head = await this.deps.policy.readHead(productUuid);
    if (!head) return undefined;
    const data = await this.deps.policy.readForEvaluation(head, { consistent: true });
    const { config } = await this.deps.policy.getConfig(data.product.dataspace);
    return this.results(data, config, now, true);
  }

  private async results(data: EvaluationData, config: PolicyConfig, now: Date, consistent: boolean): Promise<RuleResult[]> {
    if (!Object.values(config).some((rule) => rule?.is_active)) return [];
    // Waivers judged at `now`; those expired since the last evaluation say why packages came back.
    return evaluateRules(config, await this.facts(data, consistent), now, { waivers: data.waivers, lastEvaluatedAt: data.state.evaluatedAt });
  }

  /**
   * What the rules know of each package: packages, their licenses and policies, read in batches,
   * consistent or not as the evaluation reads its partition (see readsEventually). Each package is
   * judged by its effective expression: the product package's concluded one when set, else the package's own.
   */
  async facts(data: EvaluationData, consistent = true): Promise<PackageFacts[]> {
    const { catalog } = this.deps;
    const library = this.deps.library ?? scancodeLibrary();
    const dataspace = data.product.dataspace;
    const packages = new Map<string, Package>(
      (await catalog.packages.getMany(data.productPackages.map((pp) => pp.packageUuid), consistent)).map((pkg) => [pkg.uuid, pkg]),
    );
    const effective = data.productPackages.flatMap((pp) => {
      const pkg = packages.get(pp.packageUuid);
      if (!pkg) return [];
      const concluded = pp.licenseExpression !== '';
      return [{ pkg, concluded, license: concluded ? pp : pkg }];
    });
    const licenses = await catalog.licenses.getByUnique(dataspace, [...new Set(effective.flatMap(({ license }) => license.licenseKeys))], consistent);
    const labels = new Set<string>();
    for (const { pkg } of effective) if (pkg.usagePolicy) labels.add(pkg.usagePolicy);
    for (const license of licenses.values()) if (license.usagePolicy) labels.add(license.usagePolicy);
    const policies = await catalog.usagePolicies.getByUnique(dataspace, [...labels], consistent);
    const alert = (label: string | null, contentType: 'package' | 'license'): ComplianceAlert => {
      const policy = label === null ? undefined : policies.get(label);
      return policy?.contentType === contentType ? policy.complianceAlert : '';
    };
    const analysis = new Map(data.analyses.map((a) => [`${a.packageUuid}|${a.vulnerabilityId}`, a.state]));
    return effective.map(({ pkg, concluded, license }) => ({
      uuid: pkg.uuid,
      purl: pkg.purl,
      licenseExpression: license.licenseExpression,
      concluded,
      licenses: license.licenseKeys.map((key) => ({
        key,
        alert: alert(licenses.get(key)?.usagePolicy ?? null, 'license'),
        category: licenseCategory(key, licenses.get(key), library),
      })),
      unknownLicenses: license.unknownLicenses,
      usagePolicyAlert: alert(pkg.usagePolicy, 'package'),
      vulnerabilities: Object.entries(pkg.vulnerabilities).map(([id, link]) => ({
        id,
        riskScore: link.riskScore,
        linkedDate: link.linkedDate,
        analysisState: analysis.get(`${pkg.uuid}|${id}`) ?? null,
      })),
    }));
  }
}

export type { RuleType };
