/**
 * The policy API: the dataspace's rule configuration (superusers), a product's violations, the
 * packages behind one, its pass/warn/fail status, and evaluations on demand.
 */
import type * as z from 'zod';
import type { Caller } from '../domain/caller.ts';
import type { PolicyStatusSchema } from '../schemas/policy.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.ts';
import {
  RULES,
  RULE_TYPES,
  checkConfig,
  configFromRuleList,
  compareViolations,
  effectiveConfig,
  ruleReason,
  type PolicyConfig,
  type RuleType,
  type Violation,
  type WaivedRule,
} from '../domain/policy-rules.ts';
import type { PolicyWaiver } from '../domain/policy-waivers.ts';
import { waiverUrl } from '../events/waiver-events.ts';
import { isUuid } from '../domain/identifiers.ts';
import { retryOnConflict } from '../store/dynamo.ts';
import type { PolicyStore } from '../store/policy-store.ts';
import type { EvaluationQueue } from '../aws/evaluation-queue.ts';
import type { EvaluationService } from './evaluation.ts';
import { catalogUrl, type CatalogService } from './catalog.ts';
import { RECOMMENDED_USAGE_POLICIES, recommendedPlan, rulesToSet, type RecommendedPlan } from '../domain/recommended-policy.ts';
import { isoWithOffset } from '../domain/time.ts';
import type { ProductService } from './products.ts';
import { paginate } from './paginate.ts';

export interface PolicyServiceDeps {
  readonly policy: PolicyStore;
  /** The usage policies the recommended policy reads and creates. */
  readonly catalog: Pick<CatalogService, 'existingUsagePolicyLabels' | 'saveUsagePolicy'>;
  readonly products: ProductService;
  readonly evaluation: EvaluationService;
  readonly queue: EvaluationQueue;
  readonly now: () => Date;
}

class ConfigRaceError extends Error {}

/**
 * A violation as the API answers it, with the waivers that held back some of its packages in the
 * evaluation that recorded it (`waived`, kept with the evaluation state; `waivers`, the product's).
 */
export function violationView(violation: Violation, config: PolicyConfig, waived: readonly WaivedRule[] = [], waivers: readonly PolicyWaiver[] = [], baseUrl = '') {
  const rule = RULES[violation.ruleType];
  const ofRule = waived.find((entry) => entry.ruleType === violation.ruleType);
  const byUuid = new Map(waivers.map((waiver) => [waiver.uuid, waiver]));
  return {
    rule_type: violation.ruleType,
    rule_label: rule.label,
    rule_description: rule.description,
    rule_reason: ruleReason(violation.ruleType, effectiveConfig(config, violation.ruleType)),
    rule_severity: rule.severity,
    violation_count: violation.count,
    detected_date: violation.detectedDate,
    waived_count: ofRule?.waivedCount ?? 0,
    // A waiver revoked since that evaluation is left out; the evaluation its revocation queued follows within seconds.
    waivers: (ofRule?.waivers ?? []).flatMap((uuid) => {
      const waiver = byUuid.get(uuid);
      return waiver
        ? [{ uuid, api_url: waiverUrl(baseUrl, waiver.productUuid, uuid), package: waiver.packagePurl, reason: waiver.reason, expires_at: waiver.expiresDate }]
        : [];
    }),
  };
}

export class PolicyService {
  constructor(private readonly deps: PolicyServiceDeps) {}

  private requireSuperuser(caller: Caller): void {
    if (!caller.isSuperuser) throw new ForbiddenError();
  }

  private rulesView(config: PolicyConfig) {
    return RULE_TYPES.map((type) => {
      const rule = RULES[type];
      const effective = effectiveConfig(config, type);
      return {
        rule_type: type,
        label: rule.label,
        description: rule.description,
        reason: ruleReason(type, effective),
        severity: rule.severity,
        is_active: effective.is_active,
        threshold: effective.threshold,
        parameters: effective.parameters,
      };
    });
  }

  async rules(caller: Caller) {
    this.requireSuperuser(caller);
    return this.rulesView((await this.deps.policy.getConfig(caller.dataspace)).config);
  }

  /** PUT replaces the configuration; PATCH merges it rule by rule. Saving re-evaluates every product (via the stream). */
  async saveRules(caller: Caller, readBody: () => unknown, merge: boolean) {
    this.requireSuperuser(caller);
    // The rule list GET answers may come back as it is (a DRF client's GET, change, PUT).
    const body = readBody();
    const fromList = Array.isArray(body) ? configFromRuleList(body) : { ok: true as const, raw: body };
    if (!fromList.ok) throw new ValidationError(fromList.errors);
    const checked = checkConfig(fromList.raw);
    if (!checked.ok) throw new ValidationError(checked.errors);
    const saved = await retryOnConflict(
      async () => {
        const { config, rev } = await this.deps.policy.getConfig(caller.dataspace);
        const next: PolicyConfig = merge ? { ...config, ...checked.config } : checked.config;
        if (!(await this.deps.policy.saveConfig(caller.dataspace, next, rev, isoWithOffset(this.deps.now())))) throw new ConfigRaceError();
        return next;
      },
      (error) => error instanceof ConfigRaceError,
    );
    return this.rulesView(saved);
  }

  /** What applying the recommended starting policy would change (superusers): GET .../recommended/. */
  async recommended(caller: Caller): Promise<RecommendedPlan> {
    this.requireSuperuser(caller);
    const [labels, { config }] = await Promise.all([this.recommendedLabels(caller.dataspace), this.deps.policy.getConfig(caller.dataspace)]);
    return recommendedPlan(labels, config);
  }

  /**
   * Applies the recommended starting policy (superusers): creates the usage policies whose labels are
   * free, then sets the rules the dataspace left as they come, on the configuration as it is at the
   * write (a rule set meanwhile is kept). Answers the plan as it stood, so `action` says what was done;
   * a second call changes nothing. Saving rules re-evaluates every product, as any rule change does.
   */
  async applyRecommended(caller: Caller, readBody: () => unknown, baseUrl: string): Promise<RecommendedPlan> {
    this.requireSuperuser(caller);
    // No options: the body (none, or {}) is checked once access is granted, as DRF does.
    readBody();
    const plan = recommendedPlan(await this.recommendedLabels(caller.dataspace), (await this.deps.policy.getConfig(caller.dataspace)).config);
    for (const policy of plan.usage_policies.filter((candidate) => candidate.action === 'create')) {
      const { action: _action, ...body } = policy;
      try {
        await this.deps.catalog.saveUsagePolicy(caller, undefined, () => body, baseUrl);
      } catch (error) {
        // Created meanwhile under the same label: it is the dataspace's now, and kept.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    await retryOnConflict(
      async () => {
        const { config, rev } = await this.deps.policy.getConfig(caller.dataspace);
        const toSet = rulesToSet(recommendedPlan(new Set(), config));
        if (Object.keys(toSet).length === 0) return;
        if (!(await this.deps.policy.saveConfig(caller.dataspace, { ...config, ...toSet }, rev, isoWithOffset(this.deps.now())))) throw new ConfigRaceError();
      },
      (error) => error instanceof ConfigRaceError,
    );
    return plan;
  }

  private recommendedLabels(dataspace: string): Promise<Set<string>> {
    return this.deps.catalog.existingUsagePolicyLabels(
      dataspace,
      RECOMMENDED_USAGE_POLICIES.map((policy) => policy.label),
    );
  }

  private async activeViolations(caller: Caller, productUuid: string, waivers = false) {
    const product = await this.deps.products.authorize(caller, productUuid, 'view');
    const data = await this.deps.policy.readViolations(product.uuid, { waivers });
    return { data, active: data.violations.filter((violation) => violation.resolvedDate === null).sort(compareViolations) };
  }

  async violations(caller: Caller, productUuid: string, baseUrl: string) {
    const [{ data, active }, { config }] = await Promise.all([this.activeViolations(caller, productUuid, true), this.deps.policy.getConfig(caller.dataspace)]);
    return active.map((violation) => violationView(violation, config, data.state.waived, data.waivers, baseUrl));
  }

  /** The gate: errors and warnings count active violations; the rules waivers alone keep from them are counted apart. */
  async status(caller: Caller, productUuid: string): Promise<z.output<typeof PolicyStatusSchema>> {
    const { data, active } = await this.activeViolations(caller, productUuid);
    const errors = active.filter((v) => RULES[v.ruleType].severity === 'error').length;
    const warnings = active.length - errors;
    const waivedOff = data.state.waived.filter((entry) => entry.waivedOff);
    const waivedErrors = waivedOff.filter((entry) => RULES[entry.ruleType].severity === 'error').length;
    return {
      status: errors > 0 ? 'fail' : warnings > 0 ? 'warn' : 'pass',
      errors,
      warnings,
      waived_errors: waivedErrors,
      waived_warnings: waivedOff.length - waivedErrors,
      evaluated_at: data.state.evaluatedAt,
    };
  }

  /**
   * The packages behind an active violation as the evaluation that recorded it found them (stored
   * with it, so a page reads one or two list items, never the product), with the license keys or vulnerability ids that put each
   * there; for the license rules also the expression judged, whether it is the product's concluded
   * one, and whether an OR in it left no compliant choice.
   */
  async violationPackages(caller: Caller, productUuid: string, ruleType: string, query: Record<string, string | undefined>, url: URL, baseUrl: string) {
    if (!(RULE_TYPES as readonly string[]).includes(ruleType)) throw new NotFoundError();
    const { active, data } = await this.activeViolations(caller, productUuid);
    const violation = active.find((v) => v.ruleType === ruleType);
    if (!violation) throw new NotFoundError();
    const uuid = productUuid.toLowerCase();
    const list = data.packageLists.get(violation.ruleType);
    // The list the evaluation stored with the violation, a page at a time; a violation recorded before
    // lists were stored has none, and is answered by running the rules again.
    const page = list
      ? async (offset: number, limit: number) => ({ count: violation.count, items: await this.deps.policy.readViolationPackages(uuid, violation.ruleType, list, offset, limit) })
      : async (offset: number, limit: number) => {
        const results = await this.deps.evaluation.currentResults(uuid, this.deps.now());
        const offenders = results?.find((result) => result.type === violation.ruleType)?.offenders ?? [];
        return { count: offenders.length, items: offenders.slice(offset, offset + limit) };
      };
    return paginate(
      query,
      url,
      page,
      (offender) => ({
        uuid: offender.uuid,
        api_url: catalogUrl(baseUrl, 'packages', offender.uuid),
        purl: offender.purl,
        reasons: offender.reasons,
        ...(offender.license
          ? { license_expression: offender.license.expression, concluded: offender.license.concluded, no_compliant_choice: offender.license.noCompliantChoice }
          : {}),
      }),
    );
  }

  /** The re-evaluate button: queued (202), or with `wait` evaluated now and the active violations answered. */
  async evaluateProduct(caller: Caller, productUuid: string, wait: boolean, baseUrl: string) {
    const product = await this.deps.products.authorize(caller, productUuid, 'change');
    if (!wait) {
      await this.deps.queue.send([{ dataspace: product.dataspace, product: product.uuid, requestedAt: isoWithOffset(this.deps.now()) }]);
      return { statusCode: 202 as const, body: { status: 'evaluation queued' } };
    }
    const [outcome, { config }] = await Promise.all([this.deps.evaluation.evaluate(product.uuid, { baseUrl }), this.deps.policy.getConfig(product.dataspace)]);
    if (outcome.outcome === 'skipped') throw new NotFoundError();
    return {
      statusCode: 200 as const,
      body: outcome.violations
        .filter((v) => v.resolvedDate === null)
        .sort(compareViolations)
        .map((violation) => violationView(violation, config, outcome.waived, outcome.waivers, baseUrl)),
    };
  }

  /** The bulk action: superusers queue the evaluation of products of their dataspace. */
  async evaluateProducts(caller: Caller, readBody: () => { products: string[] }) {
    this.requireSuperuser(caller);
    const { products } = readBody();
    const unknown: string[] = [];
    const found: string[] = [];
    for (const uuid of new Set(products)) {
      try {
        if (!isUuid(uuid)) throw new NotFoundError();
        found.push((await this.deps.products.authorize(caller, uuid, 'view')).uuid);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        unknown.push(uuid);
      }
    }
    if (unknown.length > 0) throw new ValidationError({ products: [`No such product(s) in this dataspace: ${unknown.join(', ')}.`] });
    const requestedAt = isoWithOffset(this.deps.now());
    await this.deps.queue.send(found.map((product) => ({ dataspace: caller.dataspace, product, requestedAt })));
    return { status: 'evaluation queued', products: found.length };
  }
}
