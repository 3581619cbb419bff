/**
 * The policy rules engine, pure: the nine built-in rule types, their per-dataspace configuration
 * (validated strictly), their evaluation over a product's packages at a given `now`, and the
 * violation lifecycle (detected, active, resolved, re-activated). No I/O, no clock.
 *
 * License expressions are judged by their meaning (docs/license-expressions.md): `A AND B` breaks a
 * license rule when A or B is flagged, `A OR B` only when every choice is, `A WITH E` when A or E is.
 */
import { isCompleteAnalysis, type AnalysisState, type ComplianceAlert } from './catalog.ts';
import { parseLicenseExpression, type LicenseExpression } from './license-expression.ts';
import { REFERENCE_CATEGORIES } from './reference-license.ts';
import { UNKNOWN_LICENSE_KEY } from './license-resolution.ts';
import { DAY_MS, isoWithOffset } from './time.ts';
import { expiredSince, isExpired, type WaiverFacts } from './policy-waivers.ts';

export const RULE_TYPES = [
  'usage_policy_error',
  'usage_policy_warning',
  'license_policy_error',
  'license_policy_warning',
  'license_coverage_gap',
  'vulnerability_detected',
  'vulnerability_unresolved',
  'vulnerability_stale',
  'license_unknown',
] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export type Severity = 'error' | 'warning';

/** A number (a risk score, a day count), or a list of reference license categories. */
type ParameterSpec = { readonly type: 'score' | 'days'; readonly default?: number } | { readonly type: 'categories' };

/** A parameter's value: a number, or (categories) a list of names. */
export type ParameterValue = number | readonly string[];

export interface RuleDefinition {
  readonly type: RuleType;
  readonly label: string;
  readonly description: string;
  readonly severity: Severity;
  readonly parameters: Readonly<Record<string, ParameterSpec>>;
}

export const RULES: Readonly<Record<RuleType, RuleDefinition>> = {
  usage_policy_error: {
    type: 'usage_policy_error',
    label: 'Usage Policy Error',
    description: 'Packages assigned a usage policy flagged with an error compliance alert.',
    severity: 'error',
    parameters: {},
  },
  usage_policy_warning: {
    type: 'usage_policy_warning',
    label: 'Usage Policy Warning',
    description: 'Packages assigned a usage policy flagged with a warning compliance alert.',
    severity: 'warning',
    parameters: {},
  },
  license_policy_error: {
    type: 'license_policy_error',
    label: 'License Policy Error',
    description: 'Packages whose licenses are assigned a usage policy flagged with an error compliance alert.',
    severity: 'error',
    parameters: { categories: { type: 'categories' } },
  },
  license_policy_warning: {
    type: 'license_policy_warning',
    label: 'License Policy Warning',
    description: 'Packages whose licenses are assigned a usage policy flagged with a warning compliance alert.',
    severity: 'warning',
    parameters: { categories: { type: 'categories' } },
  },
  license_coverage_gap: {
    type: 'license_coverage_gap',
    label: 'License Coverage Gap',
    description: 'Packages with no license expression.',
    severity: 'warning',
    parameters: {},
  },
  vulnerability_detected: {
    type: 'vulnerability_detected',
    label: 'Vulnerability Detected',
    description: 'Packages with at least one known vulnerability.',
    severity: 'error',
    parameters: { min_risk_score: { type: 'score' } },
  },
  vulnerability_unresolved: {
    type: 'vulnerability_unresolved',
    label: 'Vulnerability Unresolved',
    description: 'Packages with known vulnerabilities that have no completed triage analysis.',
    severity: 'warning',
    parameters: {},
  },
  vulnerability_stale: {
    type: 'vulnerability_stale',
    label: 'Vulnerability Stale',
    description: 'Packages with high-risk vulnerabilities unaddressed for more than a configurable number of days.',
    severity: 'error',
    parameters: { max_days: { type: 'days', default: 30 }, min_risk_score: { type: 'score', default: 8.0 } },
  },
  license_unknown: {
    type: 'license_unknown',
    label: 'License Unknown',
    description: 'Packages whose license expression contains an unknown license.',
    severity: 'warning',
    parameters: {},
  },
};

export interface RuleConfig {
  readonly is_active: boolean;
  readonly threshold: number;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
}

export type PolicyConfig = Readonly<Partial<Record<RuleType, RuleConfig>>>;

/** Names joined as a person lists them: "A", "A and B", "A, B and C". */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Why a rule fires in this dataspace, in the terms of its configuration (`rule_reason` of a violation,
 * the rule cards of the console): a usage policy's alert, the categories chosen, the risk score and
 * days, the threshold. `rule` is the effective configuration (effectiveConfig).
 */
export function ruleReason(type: RuleType, rule: RuleConfig): string {
  const number = (name: string) => {
    const value = rule.parameters[name];
    return typeof value === 'number' ? value : undefined;
  };
  const over = rule.threshold > 0 ? ` It fires when more than ${rule.threshold} ${rule.threshold === 1 ? 'package does' : 'packages do'}.` : '';
  const alert = RULES[type].severity;
  switch (type) {
    case 'usage_policy_error':
    case 'usage_policy_warning':
      return `A package's own usage policy has the ${alert} compliance alert.${over}`;
    case 'license_policy_error':
    case 'license_policy_warning': {
      const categories = Array.isArray(rule.parameters.categories) ? (rule.parameters.categories as readonly string[]) : [];
      const byCategory = categories.length > 0 ? `, or is in the ${categories.length === 1 ? 'category' : 'categories'} ${listed(categories)}` : '';
      return `A license the package needs has a usage policy with the ${alert} compliance alert${byCategory} (a choice, OR, fires only when every option does).${over}`;
    }
    case 'license_coverage_gap':
      return `A package has no license expression.${over}`;
    case 'vulnerability_detected': {
      const score = number('min_risk_score');
      return `A package has a known vulnerability${score !== undefined ? ` with a risk score of ${score} or more` : ''}.${over}`;
    }
    case 'vulnerability_unresolved':
      return `A package has a known vulnerability with no completed triage analysis for this product.${over}`;
    case 'vulnerability_stale':
      return `A package has had a vulnerability with a risk score of ${number('min_risk_score') ?? 8} or more for more than ${number('max_days') ?? 30} days, with no completed triage analysis.${over}`;
    case 'license_unknown':
      return `A package's license is unknown: what it says resolves to no license key, SPDX id or mapping.${over}`;
  }
}

/** A rule's configuration with the defaults filled in: inactive, threshold 0, each parameter's default. */
export function effectiveConfig(config: PolicyConfig, type: RuleType): RuleConfig {
  const given = config[type];
  const parameters: Record<string, ParameterValue> = {};
  for (const [name, spec] of Object.entries(RULES[type].parameters)) {
    const value = given?.parameters[name] ?? ('default' in spec ? spec.default : undefined);
    if (value !== undefined) parameters[name] = value;
  }
  return { is_active: given?.is_active === true, threshold: given?.threshold ?? 0, parameters };
}

/** Whether two configurations say the same (whatever the order of their keys). */
export function sameConfig(a: PolicyConfig, b: PolicyConfig): boolean {
  return RULE_TYPES.every((type) => {
    const [x, y] = [a[type], b[type]];
    if (!x || !y) return x === y;
    const parameters = new Set([...Object.keys(x.parameters), ...Object.keys(y.parameters)]);
    return x.is_active === y.is_active && x.threshold === y.threshold && [...parameters].every((name) => sameValue(x.parameters[name], y.parameters[name]));
  });
}

/** Numbers by value; category lists by their members, whatever their order. */
function sameValue(a: ParameterValue | undefined, b: ParameterValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
  return a === b;
}

/** At most this many categories: each known one once. */
const MAX_CATEGORIES = REFERENCE_CATEGORIES.length;

/** What is wrong with a `categories` parameter, or undefined: a list of distinct known category names. */
function categoriesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return 'Must be a list of license category names.';
  if (value.length > MAX_CATEGORIES) return `Ensure this list has no more than ${MAX_CATEGORIES} items.`;
  const unknown = value.filter((item) => !(REFERENCE_CATEGORIES as readonly string[]).includes(item));
  if (unknown.length > 0) return `Unknown categor${unknown.length === 1 ? 'y' : 'ies'} ${unknown.map((c) => JSON.stringify(c)).join(', ')}; choose from ${REFERENCE_CATEGORIES.join(', ')}.`;
  const twice = value.filter((item, i) => value.indexOf(item) !== i);
  if (twice.length > 0) return `${[...new Set(twice)].map((c) => JSON.stringify(c)).join(', ')} listed twice.`;
  return undefined;
}

export type ConfigCheck = { readonly ok: true; readonly config: PolicyConfig } | { readonly ok: false; readonly errors: Record<string, string[]> };

/** A risk score as vulnerabilities carry it: 0.0 to 10.0 in steps of 0.1 (which DynamoDB can also store). */
const isScore = (value: unknown) => typeof value === 'number' && value >= 0 && value <= 10 && value === Math.round(value * 10) / 10;
/** Thresholds and day counts stay well inside what JSON clients and DynamoDB numbers hold exactly. */
const MAX_THRESHOLD = 1_000_000;
const MAX_DAYS = 36_500;

/**
 * The configuration a rule list holds, as GET answers it and a DRF client sends it back (PUT/PATCH):
 * each rule's `rule_type` keys its options; its `label`, `description` and `severity` describe the
 * rule and are dropped; anything else stays for checkConfig to name.
 */
export function configFromRuleList(list: readonly unknown[]): { ok: true; raw: Record<string, unknown> } | { ok: false; errors: Record<string, string[]> } {
  const entries: [string, unknown][] = [];
  const errors: [string, string[]][] = [];
  const seen = new Set<string>();
  list.forEach((rule, i) => {
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule) || typeof (rule as { rule_type?: unknown }).rule_type !== 'string') {
      errors.push([`[${i}]`, ['Expected a rule object with a rule_type.']]);
      return;
    }
    const { rule_type: type, label: _label, description: _description, reason: _reason, severity: _severity, ...options } = rule as Record<string, unknown>;
    if (seen.has(type as string)) errors.push([`[${i}].rule_type`, [`"${String(type)}" is listed twice.`]]);
    seen.add(type as string);
    entries.push([type as string, options]);
  });
  // fromEntries defines own properties: a rule_type of "__proto__" stays a key, for checkConfig to refuse.
  return errors.length > 0 ? { ok: false, errors: Object.fromEntries(errors) } : { ok: true, raw: Object.fromEntries(entries) };
}

/**
 * Validates a policy configuration object (rule type → is_active, threshold, parameters). Every
 * problem is named by its key path (`vulnerability_stale.parameters.max_days`); nothing of an
 * invalid object is kept.
 */
export function checkConfig(raw: unknown): ConfigCheck {
  const errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const problem = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, errors: { non_field_errors: ['Expected an object: rule type → options.'] } };
  }
  const config: Partial<Record<RuleType, RuleConfig>> = {};
  for (const [type, options] of Object.entries(raw)) {
    if (!(RULE_TYPES as readonly string[]).includes(type)) {
      problem(type, `Unknown rule type; choose from ${RULE_TYPES.join(', ')}.`);
      continue;
    }
    const rule = RULES[type as RuleType];
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      problem(type, 'Expected an object with is_active, threshold and parameters.');
      continue;
    }
    const { is_active: isActive = false, threshold = 0, parameters = {}, ...unknown } = options as Record<string, unknown>;
    for (const key of Object.keys(unknown)) problem(`${type}.${key}`, 'Unknown option; use is_active, threshold or parameters.');
    if (typeof isActive !== 'boolean') problem(`${type}.is_active`, 'Must be true or false.');
    if (typeof threshold !== 'number' || !Number.isInteger(threshold) || threshold < 0 || threshold > MAX_THRESHOLD) {
      problem(`${type}.threshold`, `Must be a whole number from 0 to ${MAX_THRESHOLD}.`);
    }
    const checked: Record<string, ParameterValue> = {};
    if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
      problem(`${type}.parameters`, 'Must be an object.');
    } else {
      for (const [name, value] of Object.entries(parameters)) {
        // Own parameters only: "constructor" or "__proto__" must not find Object.prototype's members.
        const spec = Object.hasOwn(rule.parameters, name) ? rule.parameters[name] : undefined;
        const at = `${type}.parameters.${name}`;
        if (!spec) {
          const known = Object.keys(rule.parameters);
          problem(at, known.length > 0 ? `Unknown parameter; ${type} takes ${known.join(', ')}.` : `Unknown parameter; ${type} takes none.`);
        } else if (spec.type === 'categories') {
          const problems = categoriesProblem(value);
          if (problems) problem(at, problems);
          else checked[name] = [...(value as string[])];
        } else if (spec.type === 'score' && !isScore(value)) {
          problem(at, 'Must be a number from 0.0 to 10.0 with at most one decimal place.');
        } else if (spec.type === 'days' && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DAYS)) {
          problem(at, `Must be a whole number of days from 1 to ${MAX_DAYS}.`);
        } else {
          checked[name] = value as number;
        }
      }
    }
    config[type as RuleType] = { is_active: isActive === true, threshold: typeof threshold === 'number' ? threshold : 0, parameters: checked };
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, config };
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** What the rules know of one license key: its usage policy's alert and its category. */
export interface LicenseFacts {
  readonly key: string;
  /** The alert of the dataspace license's usage policy ('' when none, or when the key is no dataspace license). */
  readonly alert: ComplianceAlert;
  /** Its category: the dataspace license's, else the reference license's (licenseCategory), else ''. */
  readonly category: string;
}

/** What the rules know of one package of the product. */
export interface PackageFacts {
  readonly uuid: string;
  readonly purl: string;
  /**
   * The effective license expression, canonical over keys: the product package's concluded
   * expression when set, else the package's; '' when it has none.
   */
  readonly licenseExpression: string;
  /** Whether `licenseExpression` is the product's concluded one (for the drill-down). */
  readonly concluded: boolean;
  /** Each key of the expression (exceptions included). */
  readonly licenses: readonly LicenseFacts[];
  /** The unknown licenses of the expression as written ('' → the key `unknown-license-reference` alone). */
  readonly unknownLicenses: readonly string[];
  /** The package's own usage policy alert ('' when none). */
  readonly usagePolicyAlert: ComplianceAlert;
  readonly vulnerabilities: readonly {
    readonly id: string;
    readonly riskScore: number | null;
    readonly linkedDate: string;
    /** The product's analysis of this vulnerability for this package, if any. */
    readonly analysisState: AnalysisState | null;
  }[];
}

/** Why a package is in violation: the license keys or vulnerability ids that put it there. */
export interface Offender {
  readonly uuid: string;
  readonly purl: string;
  readonly reasons: readonly string[];
  /** License rules: the expression judged, and whether an OR of it left no compliant choice. */
  readonly license?: { readonly expression: string; readonly concluded: boolean; readonly noCompliantChoice: boolean };
}

export interface RuleResult {
  readonly type: RuleType;
  /** Distinct packages in violation, waived ones left out. */
  readonly count: number;
  /** The packages in violation that no waiver holds back. */
  readonly offenders: readonly Offender[];
  /** count > threshold: a violation is recorded. */
  readonly triggered: boolean;
  /** The packages in violation that waivers hold back (not counted). */
  readonly waived?: readonly Offender[];
  /** The uuids of the waivers holding back some of them (or, with no package, the whole rule). */
  readonly waivers?: readonly string[];
  /** The rule would trigger but for its waivers. */
  readonly waivedOff?: boolean;
  /**
   * Waivers that expired since the last evaluation and would hold back a package counted now: why
   * packages came back into the count (policy.violation_detected says so).
   */
  readonly expiredWaivers?: readonly string[];
}

/** What an evaluation knows besides the packages: the product's waivers, and when it was last evaluated. */
export interface EvaluationInputs {
  /** The product's waivers that are not revoked; those expired at `now` do not apply. */
  readonly waivers?: readonly WaiverFacts[];
  /** When the last evaluation of the product ran (null: never): waivers expired since make `expiredWaivers`. */
  readonly lastEvaluatedAt?: string | null;
}

const numberParameter = (parameters: Readonly<Record<string, ParameterValue>>, name: string): number | undefined => {
  const value = parameters[name];
  return typeof value === 'number' ? value : undefined;
};

/**
 * How an expression stands against a set of flagged licenses: `A AND B` breaks when either does,
 * `A OR B` only when every choice does, `A WITH E` when A or E is flagged. `causes` are the flagged
 * keys behind a break (for OR, those of every choice); `noCompliantChoice` says an OR took part.
 */
export interface LicenseJudgement {
  readonly breaks: boolean;
  readonly causes: readonly string[];
  readonly noCompliantChoice: boolean;
}

export function judgeExpression(expression: LicenseExpression, flagged: (key: string) => boolean): LicenseJudgement {
  if (expression.kind === 'license') {
    const causes = [expression.key, ...(expression.exception !== undefined ? [expression.exception] : [])].filter(flagged);
    return { breaks: causes.length > 0, causes, noCompliantChoice: false };
  }
  const parts = expression.operands.map((operand) => judgeExpression(operand, flagged));
  const breaking = parts.filter((part) => part.breaks);
  if (expression.kind === 'and') {
    return { breaks: breaking.length > 0, causes: breaking.flatMap((part) => part.causes), noCompliantChoice: breaking.some((part) => part.noCompliantChoice) };
  }
  const breaks = breaking.length === parts.length;
  return { breaks, causes: breaks ? parts.flatMap((part) => part.causes) : [], noCompliantChoice: breaks };
}

/** A package's expression as a tree: parsed once per evaluation; a stored one that does not parse is judged as the AND of its keys. */
function expressionOf(pkg: PackageFacts): LicenseExpression | undefined {
  if (pkg.licenseExpression === '') return undefined;
  const parsed = parseLicenseExpression(pkg.licenseExpression);
  if (parsed.ok) return parsed.expression;
  if (pkg.licenses.length === 0) return undefined;
  return pkg.licenses.length === 1 ? { kind: 'license', key: pkg.licenses[0]!.key } : { kind: 'and', operands: pkg.licenses.map((l) => ({ kind: 'license' as const, key: l.key })) };
}

/** An OR operator, in any case, between spaces or parentheses (keys hold neither). */
const CHOICE = /(?:^|[\s()])or(?:[\s()]|$)/i;

/**
 * The license rules' verdict on a package: the flagged licenses (by alert, or by category) judged over
 * its expression. `licenses` lists every key
 * of the expression, so the tree is needed only for a choice (OR) with some keys flagged and others
 * not: none flagged never breaks; without OR any flagged one breaks; all flagged always breaks, and
 * an OR in it then had no compliant choice.
 */
function licenseVerdict(
  pkg: PackageFacts,
  treeOf: (pkg: PackageFacts) => LicenseExpression | undefined,
  alert: 'error' | 'warning',
  categories: ReadonlySet<string>,
): Pick<Offender, 'reasons' | 'license'> | undefined {
  const flaggedKeys: string[] = [];
  for (const license of pkg.licenses) {
    if (license.alert === alert || (license.category !== '' && categories.has(license.category))) flaggedKeys.push(license.key);
  }
  if (flaggedKeys.length === 0 || pkg.licenseExpression === '') return undefined;
  const hasChoice = CHOICE.test(pkg.licenseExpression);
  let judgement: LicenseJudgement;
  if (!hasChoice || flaggedKeys.length === pkg.licenses.length) {
    // Without OR every license is required (AND, WITH): a single flagged one breaks it.
    judgement = { breaks: true, causes: flaggedKeys, noCompliantChoice: hasChoice };
  } else {
    const tree = treeOf(pkg);
    if (!tree) return undefined;
    judgement = judgeExpression(tree, (key) => flaggedKeys.includes(key));
  }
  if (!judgement.breaks) return undefined;
  return { reasons: judgement.causes, license: { expression: pkg.licenseExpression, concluded: pkg.concluded, noCompliantChoice: judgement.noCompliantChoice } };
}

/** A vulnerability without a completed (terminal) analysis for this product. */
const unresolved = (v: PackageFacts['vulnerabilities'][number]) => !(v.analysisState !== null && isCompleteAnalysis({ state: v.analysisState }));

/** The reasons a package breaks a rule that does not read licenses (empty when it does not). */
function reasons(type: Exclude<RuleType, LicenseRule>, pkg: PackageFacts, parameters: Readonly<Record<string, ParameterValue>>, now: Date): string[] {
  switch (type) {
    case 'usage_policy_error':
      return pkg.usagePolicyAlert === 'error' ? ['usage policy'] : [];
    case 'usage_policy_warning':
      return pkg.usagePolicyAlert === 'warning' ? ['usage policy'] : [];
    case 'license_coverage_gap':
      // An unknown license (free text included) is a license statement: not a gap (license_unknown tells it).
      return pkg.licenseExpression === '' ? ['no license expression'] : [];
    case 'vulnerability_detected': {
      const minimum = numberParameter(parameters, 'min_risk_score');
      return pkg.vulnerabilities.filter((v) => minimum === undefined || (v.riskScore !== null && v.riskScore >= minimum)).map((v) => v.id);
    }
    case 'vulnerability_unresolved':
      return pkg.vulnerabilities.filter(unresolved).map((v) => v.id);
    case 'vulnerability_stale': {
      const minimum = numberParameter(parameters, 'min_risk_score') ?? 8.0;
      const maxDays = numberParameter(parameters, 'max_days') ?? 30;
      return pkg.vulnerabilities
        .filter((v) => v.riskScore !== null && v.riskScore >= minimum)
        .filter((v) => now.getTime() - Date.parse(v.linkedDate) > maxDays * DAY_MS)
        .filter(unresolved)
        .map((v) => v.id);
    }
  }
}

/** The rules that judge a package's license expression; their offenders carry it for the drill-down. */
type LicenseRule = 'license_policy_error' | 'license_policy_warning' | 'license_unknown';

/** license_unknown: the expression holds the unknown key; the reasons are the unknown licenses as written. */
function unknownVerdict(pkg: PackageFacts): Pick<Offender, 'reasons' | 'license'> | undefined {
  if (!pkg.licenses.some((license) => license.key === UNKNOWN_LICENSE_KEY)) return undefined;
  return {
    reasons: pkg.unknownLicenses.length > 0 ? pkg.unknownLicenses : [UNKNOWN_LICENSE_KEY],
    license: { expression: pkg.licenseExpression, concluded: pkg.concluded, noCompliantChoice: false },
  };
}

/**
 * Runs every active rule over the product's packages. A waiver that has not expired at `now` holds
 * back its package from its rule's count, or (with no package) every package of its rule; a rule whose
 * remaining count does not pass its threshold does not trigger.
 */
export function evaluateRules(config: PolicyConfig, packages: readonly PackageFacts[], now: Date, inputs: EvaluationInputs = {}): RuleResult[] {
  const results: RuleResult[] = [];
  // Each distinct expression is parsed once, and only when it must be judged part by part.
  const trees = new Map<string, LicenseExpression | undefined>();
  const treeOf = (pkg: PackageFacts) => {
    if (!trees.has(pkg.licenseExpression)) trees.set(pkg.licenseExpression, expressionOf(pkg));
    return trees.get(pkg.licenseExpression);
  };
  for (const type of RULE_TYPES) {
    const rule = effectiveConfig(config, type);
    if (!rule.is_active) continue;
    const offenders: Offender[] = [];
    if (type === 'license_policy_error' || type === 'license_policy_warning' || type === 'license_unknown') {
      const categories = new Set(Array.isArray(rule.parameters.categories) ? (rule.parameters.categories as readonly string[]) : []);
      const alert = type === 'license_policy_error' ? 'error' : 'warning';
      for (const pkg of packages) {
        const found = type === 'license_unknown' ? unknownVerdict(pkg) : licenseVerdict(pkg, treeOf, alert, categories);
        if (found) offenders.push({ uuid: pkg.uuid, purl: pkg.purl, reasons: [...new Set(found.reasons)].sort(), license: found.license! });
      }
    } else {
      for (const pkg of packages) {
        const why = reasons(type, pkg, rule.parameters, now);
        if (why.length > 0) offenders.push({ uuid: pkg.uuid, purl: pkg.purl, reasons: [...new Set(why)].sort() });
      }
    }
    results.push(applyWaivers(type, offenders, rule.threshold, inputs, now));
  }
  return results;
}

/** A rule's result once its waivers are applied (without waivers: every offender counts). */
function applyWaivers(type: RuleType, offenders: readonly Offender[], threshold: number, inputs: EvaluationInputs, now: Date): RuleResult {
  const ofRule = (inputs.waivers ?? []).filter((waiver) => waiver.ruleType === type);
  if (ofRule.length === 0) return { type, count: offenders.length, offenders, triggered: offenders.length > threshold };
  const current = ofRule.filter((waiver) => !isExpired(waiver, now));
  const wholeRule = current.filter((waiver) => waiver.packageUuid === null);
  const byPackage = new Map<string, string[]>();
  for (const waiver of current) if (waiver.packageUuid !== null) byPackage.set(waiver.packageUuid, [...(byPackage.get(waiver.packageUuid) ?? []), waiver.uuid]);
  const counted = wholeRule.length > 0 ? [] : offenders.filter((offender) => !byPackage.has(offender.uuid));
  const waived = wholeRule.length > 0 ? offenders : offenders.filter((offender) => byPackage.has(offender.uuid));
  const applied = [
    ...(waived.length > 0 ? wholeRule.map((waiver) => waiver.uuid) : []),
    ...waived.flatMap((offender) => byPackage.get(offender.uuid) ?? []),
  ];
  const countedUuids = new Set(counted.map((offender) => offender.uuid));
  const expired = ofRule
    .filter((waiver) => expiredSince(waiver, inputs.lastEvaluatedAt ?? null, now))
    .filter((waiver) => (waiver.packageUuid === null ? counted.length > 0 : countedUuids.has(waiver.packageUuid)))
    .map((waiver) => waiver.uuid);
  const triggered = counted.length > threshold;
  return {
    type,
    count: counted.length,
    offenders: counted,
    triggered,
    waived,
    waivers: [...new Set(applied)].sort(),
    waivedOff: !triggered && offenders.length > threshold,
    expiredWaivers: expired.sort(),
  };
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

export interface Violation {
  readonly ruleType: RuleType;
  readonly count: number;
  /** When first recorded; never changes. */
  readonly detectedDate: string;
  /** Set while resolved; null while active. */
  readonly resolvedDate: string | null;
  readonly lastEvaluatedAt: string;
}

export interface Reconciliation {
  /** The violation records to write (new, changed, resolved, re-activated). */
  readonly writes: readonly Violation[];
  /**
   * Violations active after this run that were not active before it, and active ones whose count
   * rose because waivers expired (`expiredWaivers`: those waivers, when any brought packages back).
   */
  readonly detected: readonly { readonly violation: Violation; readonly reactivated: boolean; readonly expiredWaivers?: readonly string[] }[];
  readonly resolved: readonly Violation[];
}

/**
 * The violation lifecycle: a triggered rule creates its violation (detected) or keeps it (active,
 * count updated) or re-activates it in place (the original detected date kept); an active violation
 * whose rule no longer triggers, or is off, is resolved. An active violation whose count rises because
 * waivers expired is reported as detected again (not re-activated), with those waivers.
 */
export function reconcile(existing: readonly Violation[], results: readonly RuleResult[], now: Date): Reconciliation {
  const at = isoWithOffset(now);
  const byType = new Map(existing.map((violation) => [violation.ruleType, violation]));
  const triggered = new Map(results.filter((result) => result.triggered).map((result) => [result.type, result]));
  const writes: Violation[] = [];
  const detected: { violation: Violation; reactivated: boolean; expiredWaivers?: readonly string[] }[] = [];
  const resolved: Violation[] = [];
  for (const [type, result] of triggered) {
    const before = byType.get(type);
    const expired = result.expiredWaivers && result.expiredWaivers.length > 0 ? { expiredWaivers: result.expiredWaivers } : {};
    if (!before) {
      const violation: Violation = { ruleType: type, count: result.count, detectedDate: at, resolvedDate: null, lastEvaluatedAt: at };
      writes.push(violation);
      detected.push({ violation, reactivated: false, ...expired });
    } else if (before.resolvedDate !== null) {
      const violation: Violation = { ...before, count: result.count, resolvedDate: null, lastEvaluatedAt: at };
      writes.push(violation);
      detected.push({ violation, reactivated: true, ...expired });
    } else if (before.count !== result.count) {
      const violation: Violation = { ...before, count: result.count, lastEvaluatedAt: at };
      writes.push(violation);
      // Packages a waiver held back are counted again now that it expired: the violation is back at full size.
      if ('expiredWaivers' in expired && result.count > before.count) detected.push({ violation, reactivated: false, ...expired });
    }
  }
  for (const before of existing) {
    if (before.resolvedDate === null && !triggered.has(before.ruleType)) {
      const violation: Violation = { ...before, resolvedDate: at, lastEvaluatedAt: at };
      writes.push(violation);
      resolved.push(violation);
    }
  }
  return { writes, detected, resolved };
}

/** What waivers did to one rule in an evaluation: kept with the product's evaluation state (policy_status, policy_violations). */
export interface WaivedRule {
  readonly ruleType: RuleType;
  /** Packages in violation that waivers held back. */
  readonly waivedCount: number;
  /** The waivers that held them back. */
  readonly waivers: readonly string[];
  /** The rule would have triggered but for them. */
  readonly waivedOff: boolean;
}

/** The rules of an evaluation that waivers held packages back from. */
export function waivedRules(results: readonly RuleResult[]): WaivedRule[] {
  return results
    .filter((result) => (result.waived?.length ?? 0) > 0)
    .map((result) => ({ ruleType: result.type, waivedCount: result.waived!.length, waivers: result.waivers ?? [], waivedOff: result.waivedOff === true }));
}

/** Errors first, then warnings; by label within a severity. */
export function compareViolations(a: Pick<Violation, 'ruleType'>, b: Pick<Violation, 'ruleType'>): number {
  const rank = (type: RuleType) => (RULES[type].severity === 'error' ? 0 : 1);
  return rank(a.ruleType) - rank(b.ruleType) || RULES[a.ruleType].label.localeCompare(RULES[b.ruleType].label);
}
