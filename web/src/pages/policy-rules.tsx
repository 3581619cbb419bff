/**
 * The dataspace configuration form for the policy rules (superusers): the eight rules with a toggle,
 * a threshold and their parameters, checked in the browser by the API's own check before PUT, and the
 * API's field errors (by key path) shown next to their fields.
 */
import { useEffect, useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, Notice, PageHeading, SeverityBadge, formatDate, invalidProps, useAction, useLoad } from '../components.tsx';
import type { ErrorReport, Page } from '../lib/api-client.ts';
import { href } from '../router.ts';
import { displayPurl } from '../lib/catalog-display.ts';
import {
  REFERENCE_CATEGORIES,
  RULES,
  RULE_TYPES,
  categoriesOf,
  checkForm,
  configFromForm,
  formFromRules,
  formReason,
  inputId,
  withCategory,
  type PolicyForm,
  type PolicyRule,
  type RuleInputs,
  type RuleType,
} from '../lib/policy-form.ts';
import type { Session } from '../session.ts';
import { UsagePolicies } from './usage-policies.tsx';
import { RecommendedPolicy } from './recommended-policy.tsx';

const PARAMETER_TEXT: Record<string, { label: string; hint: string }> = {
  min_risk_score: { label: 'Minimum risk score', hint: '0.0 to 10.0; only vulnerabilities scoring at least this count.' },
  max_days: { label: 'Maximum days', hint: 'Whole days (1 or more) a high-risk vulnerability may stay without a completed analysis.' },
  categories: { label: 'License categories', hint: 'Licenses of the categories ticked count as flagged, with or without a usage policy.' },
};

export function PolicyRules({ session }: { session: Session }) {
  const rules = useLoad(() => session.api.get<PolicyRule[]>('/api/v2/policy_rules/'), 'rules');
  const [form, setForm] = useState<PolicyForm | undefined>();
  const [errors, setErrors] = useState<ErrorReport | undefined>();
  const [saved, setSaved] = useState(false);
  // Bumped when the recommended policy is applied: the usage policies and the rules are read again.
  const [applied, setApplied] = useState(0);
  useEffect(() => {
    if (rules.data) setForm(formFromRules(rules.data));
  }, [rules.data]);
  const save = useAction(async (current: PolicyForm) => {
    const answer = await session.api.put<PolicyRule[]>('/api/v2/policy_rules/', configFromForm(current));
    setForm(formFromRules(answer));
    setSaved(true);
  });
  useEffect(() => {
    if (save.error) setErrors(save.error.report);
  }, [save.error]);

  if (rules.error) return <><PageHeading>Policy</PageHeading><ErrorSummary error={rules.error} /></>;
  if (!form) return <Loading what="the policy rules" />;
  const update = (type: RuleType, inputs: Partial<RuleInputs>) => {
    setSaved(false);
    setForm({ ...form, [type]: { ...form[type], ...inputs } });
  };
  const fieldNames = RULE_TYPES.flatMap((type) => [`${type}.is_active`, `${type}.threshold`, ...Object.keys(RULES[type].parameters).map((name) => `${type}.parameters.${name}`)]);

  return (
    <>
      <PageHeading>Policy</PageHeading>
      <RecommendedPolicy
        session={session}
        onApplied={() => {
          setApplied((n) => n + 1);
          rules.reload();
        }}
      />
      <UsagePolicies session={session} generation={applied} />
      <h2 id="rules-heading">Policy rules</h2>
      <p>
        Rules are evaluated per product. A violation is recorded when more packages than the threshold are in violation (0: any). Saving re-evaluates
        every product of the dataspace.
      </p>
      <form
        class="with-sticky-actions"
        aria-labelledby="rules-heading"
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          const check = checkForm(form);
          if (!check.ok) {
            setErrors({ general: [], fields: check.errors });
            const first = Object.keys(check.errors)[0];
            if (first) document.getElementById(inputId(first))?.focus();
            return;
          }
          setErrors(undefined);
          await save.run(form);
        }}
      >
        <ErrorSummary error={errors} fields={fieldNames} />
        {saved && <Notice kind="success">Policy rules saved. Every product of the dataspace will be re-evaluated.</Notice>}
        <div class="rules">
          {RULE_TYPES.map((type) => (
            <RuleFieldset key={type} type={type} inputs={form[type]} reason={formReason(form, type)} errors={errors} onChange={(inputs) => update(type, inputs)} />
          ))}
        </div>
        <div class="actions sticky-actions">
          <button type="submit" disabled={save.running}>
            {save.running ? 'Saving…' : 'Save policy rules'}
          </button>
        </div>
      </form>
      <Waivers session={session} />
    </>
  );
}

/** A waiver as GET /api/v2/policy_waivers/ answers it. */
interface ListedWaiver {
  readonly uuid: string;
  readonly product_uuid: string;
  readonly product_name: string;
  readonly product_version: string;
  readonly rule_label: string;
  readonly package: string | null;
  readonly reason: string;
  readonly expires_at: string;
  readonly is_expired: boolean;
  readonly created_by: string;
}

/** The dataspace's waivers (of the products the caller may view), soonest expiry first. */
function Waivers({ session }: { session: Session }) {
  const waivers = useLoad(() => session.api.get<Page<ListedWaiver>>('/api/v2/policy_waivers/', { page_size: 100 }), 'waivers');
  return (
    <section aria-labelledby="waivers-heading">
      <h2 id="waivers-heading">Waivers</h2>
      <p>A waiver holds back one rule for one package of a product (or the whole rule for the product) until it expires. They are made on a product's Compliance tab.</p>
      <ErrorSummary error={waivers.error} />
      {!waivers.data && !waivers.error && <Loading what="the waivers" />}
      {waivers.data && (
        <>
          <p class="count">
            {waivers.data.count === 1 ? '1 waiver' : `${waivers.data.count} waivers`}
            {waivers.data.count > waivers.data.results.length && `, the ${waivers.data.results.length} expiring soonest shown`}
          </p>
          <div class="table-wrap" role="region" aria-label="Waivers, scrollable" tabIndex={0}>
            <table aria-labelledby="waivers-heading">
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Package</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {waivers.data.results.map((waiver) => (
                  <tr key={waiver.uuid} data-expired={waiver.is_expired ? 'true' : undefined}>
                    <td>
                      <a href={href(['products', waiver.product_uuid, 'compliance'])}>
                        {waiver.product_name}
                        {waiver.product_version && ` ${waiver.product_version}`}
                      </a>
                    </td>
                    <td>{waiver.rule_label}</td>
                    <td class="purl">{waiver.package === null ? 'All packages' : displayPurl(waiver.package)}</td>
                    <td>
                      {formatDate(waiver.expires_at)} {waiver.is_expired && <span class="badge badge-expired">Expired</span>}
                    </td>
                    <td class="reason">{waiver.reason}</td>
                  </tr>
                ))}
                {waivers.data.results.length === 0 && (
                  <tr>
                    <td colSpan={5}>No waivers.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function RuleFieldset({
  type,
  inputs,
  reason,
  errors,
  onChange,
}: {
  type: RuleType;
  inputs: RuleInputs;
  /** Why it fires as configured here (undefined while an input does not check). */
  reason: string | undefined;
  errors: ErrorReport | undefined;
  onChange: (inputs: Partial<RuleInputs>) => void;
}) {
  const rule = RULES[type];
  const messages = (path: string) => errors?.fields[path] ?? [];
  const ruleMessages = messages(type);
  const activeId = inputId(`${type}.is_active`);
  const thresholdId = inputId(`${type}.threshold`);
  return (
    <fieldset class={`rule rule-${rule.severity}`} data-rule-type={type}>
      <legend>
        <SeverityBadge severity={rule.severity} /> {rule.label}
      </legend>
      <p class="muted">{rule.description}</p>
      {reason && (
        <p class="rule-reason" data-reason>
          <strong>{inputs.is_active ? 'Fires when' : 'Would fire when'}:</strong> {reason}
        </p>
      )}
      <FieldError id={inputId(type)} messages={ruleMessages} />
      <label class="choice toggle" for={activeId}>
        <input id={activeId} type="checkbox" checked={inputs.is_active} onChange={(event) => onChange({ is_active: event.currentTarget.checked })} {...invalidProps(activeId, messages(`${type}.is_active`))} />{' '}
        Active
      </label>
      <FieldError id={activeId} messages={messages(`${type}.is_active`)} />
      <div class="field">
        <label for={thresholdId}>Threshold</label>
        <input
          id={thresholdId}
          inputMode="numeric"
          aria-describedby={messages(`${type}.threshold`).length > 0 ? undefined : `${thresholdId}-hint`}
          value={inputs.threshold}
          onInput={(event) => onChange({ threshold: event.currentTarget.value })}
          {...invalidProps(thresholdId, messages(`${type}.threshold`))}
        />
        <span class="hint" id={`${thresholdId}-hint`}>
          Whole number; record a violation only above this many packages.
        </span>
        <FieldError id={thresholdId} messages={messages(`${type}.threshold`)} />
      </div>
      {Object.entries(rule.parameters).map(([name, spec]) => {
        const path = `${type}.parameters.${name}`;
        const id = inputId(path);
        const text = PARAMETER_TEXT[name] ?? { label: name, hint: '' };
        if (spec.type === 'categories') {
          const ticked = new Set(categoriesOf(inputs.parameters[name] ?? ''));
          return (
            <fieldset class="categories" key={name} id={id} tabIndex={-1} aria-describedby={messages(path).length > 0 ? `${id}-error` : `${id}-hint`}>
              <legend>{text.label}</legend>
              <span class="hint" id={`${id}-hint`}>
                {text.hint}
              </span>
              <div class="category-choices">
                {REFERENCE_CATEGORIES.map((category) => (
                  <label key={category} class="choice">
                    <input
                      type="checkbox"
                      checked={ticked.has(category)}
                      onChange={(event) => onChange({ parameters: { ...inputs.parameters, [name]: withCategory(inputs.parameters[name] ?? '', category, event.currentTarget.checked) } })}
                    />{' '}
                    {category}
                  </label>
                ))}
              </div>
              <FieldError id={id} messages={messages(path)} />
            </fieldset>
          );
        }
        return (
          <div class="field" key={name}>
            <label for={id}>{text.label}</label>
            <input
              id={id}
              inputMode="decimal"
              placeholder={!('default' in spec) || spec.default === undefined ? 'not set' : `default ${spec.default}`}
              aria-describedby={messages(path).length > 0 ? undefined : `${id}-hint`}
              value={inputs.parameters[name] ?? ''}
              onInput={(event) => onChange({ parameters: { ...inputs.parameters, [name]: event.currentTarget.value } })}
              {...invalidProps(id, messages(path))}
            />
            <span class="hint" id={`${id}-hint`}>
              {text.hint}
            </span>
            <FieldError id={id} messages={messages(path)} />
          </div>
        );
      })}
    </fieldset>
  );
}
