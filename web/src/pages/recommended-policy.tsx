/**
 * "Start from the recommended policy" (superusers, on the Policy page): shows what applying it would
 * change (GET /api/v2/policy_rules/recommended/), then applies it on a second click (POST). Nothing the
 * dataspace already set is changed; once applied, it says so and offers nothing.
 */
import type * as z from 'zod';
import { useState } from 'preact/hooks';
import { ErrorSummary, Loading, Notice, useAction, useLoad } from '../components.tsx';
import type { Session } from '../session.ts';
import type { RecommendedPlanSchema } from '../../../shared/schemas/policy.ts';

type Plan = z.output<typeof RecommendedPlanSchema>;

const ALERT: Record<string, string> = { '': 'no alert', warning: 'warning', error: 'error' };

export function RecommendedPolicy({ session, onApplied }: { session: Session; onApplied: () => void }) {
  const [open, setOpen] = useState(false);
  const [applied, setApplied] = useState<Plan | undefined>();
  const plan = useLoad(() => (open ? session.api.get<Plan>('/api/v2/policy_rules/recommended/') : Promise.resolve(undefined)), `${open}:${applied ? 'applied' : ''}`);
  const apply = useAction(async () => {
    const done = await session.api.post<Plan>('/api/v2/policy_rules/recommended/', {});
    setApplied(done);
    onApplied();
  });
  const shown = plan.data;
  return (
    <section aria-labelledby="recommended-heading" class="recommended">
      <h2 id="recommended-heading">Recommended starting policy</h2>
      <p>
        Three license usage policies (Approved, Caution, Prohibited) and the rules configured as the README explains. It never changes a usage policy or a
        rule you already set.
      </p>
      {!open && (
        <button type="button" class="secondary" onClick={() => setOpen(true)}>
          Start from the recommended policy
        </button>
      )}
      <div aria-live="polite">
        {applied && (
          <Notice kind="success">
            Recommended policy applied: {applied.changes} {applied.changes === 1 ? 'change' : 'changes'}. Every product of the dataspace will be re-evaluated.
          </Notice>
        )}
      </div>
      <ErrorSummary error={apply.error ?? plan.error} />
      {open && !shown && !plan.error && <Loading what="what the recommended policy would change" />}
      {open && shown && (
        <>
          {shown.changes === 0 ? (
            <p>The dataspace already has everything the recommended policy sets, or set those parts itself: nothing to change.</p>
          ) : (
            <p>
              Applying it makes <strong>{shown.changes}</strong> {shown.changes === 1 ? 'change' : 'changes'}:
            </p>
          )}
          <h3>Usage policies</h3>
          <ul class="plan" aria-label="Usage policies of the recommended policy">
            {shown.usage_policies.map((policy) => (
              <li key={policy.label} data-action={policy.action}>
                <strong>{policy.label}</strong> (licenses, {ALERT[policy.compliance_alert]}):{' '}
                {policy.action === 'create' ? 'will be created' : 'already in the dataspace, kept as it is'}. <span class="muted">{policy.description}</span>
              </li>
            ))}
          </ul>
          <h3>Rules</h3>
          <ul class="plan" aria-label="Rules of the recommended policy">
            {shown.rules.map((rule) => (
              <li key={rule.rule_type} data-action={rule.action} data-rule-type={rule.rule_type}>
                <strong>{rule.label}</strong>:{' '}
                {rule.action === 'set'
                  ? rule.is_active
                    ? 'will be turned on'
                    : 'will stay off'
                  : rule.action === 'keep'
                    ? 'you configured it: kept as it is'
                    : rule.is_active
                      ? 'already on as recommended'
                      : 'stays off'}
                . {rule.is_active && rule.action !== 'keep' && <span>{rule.reason} </span>}
                <span class="muted">Why: {rule.why}</span>
              </li>
            ))}
          </ul>
          {shown.changes > 0 && (
            <div class="actions">
              <button type="button" disabled={apply.running} onClick={() => void apply.run()}>
                {apply.running ? 'Applying…' : `Apply ${shown.changes} ${shown.changes === 1 ? 'change' : 'changes'}`}
              </button>
              <button type="button" class="secondary" disabled={apply.running} onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
