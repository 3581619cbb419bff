/**
 * Usage policies (superusers, on the Policy page): list, create, edit and delete through
 * /api/v2/usage_policies/. A policy still assigned is the API's 409, shown as it says. Assigning one to
 * licenses or packages is on their pages (AssignPolicy, catalog-parts.tsx).
 */
import { useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, Notice, fieldMessages, groupErrorProps, invalidProps, useAction, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import type { Session } from '../session.ts';
import { PolicyBadge } from './catalog-parts.tsx';
import type { UsagePolicy } from './catalog-types.ts';

type Draft = { label: string; content_type: UsagePolicy['content_type']; compliance_alert: UsagePolicy['compliance_alert']; description: string };

const EMPTY: Draft = { label: '', content_type: 'license', compliance_alert: '', description: '' };
const ALERT_TEXT: Record<UsagePolicy['compliance_alert'], string> = { '': 'None (approved)', warning: 'Warning', error: 'Error' };
const FIELDS = ['label', 'content_type', 'compliance_alert', 'description'] as const;

export function UsagePolicies({ session, generation = 0 }: { session: Session; generation?: number }) {
  const list = useLoad(() => session.api.get<Page<UsagePolicy>>('/api/v2/usage_policies/', { page_size: 100 }), String(generation));
  const shown = list.data;
  // A write's notice comes once the table shows it.
  const refresh = () => list.reload();
  const [editing, setEditing] = useState<UsagePolicy | undefined>();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [done, setDone] = useState<string | undefined>();
  const save = useAction(async () => {
    setDone(undefined);
    const body = { ...draft, label: draft.label.trim() };
    const saved = editing
      ? await session.api.patch<UsagePolicy>(`/api/v2/usage_policies/${editing.uuid}/`, body)
      : await session.api.post<UsagePolicy>('/api/v2/usage_policies/', body);
    await refresh();
    setDone(`Usage policy ${saved.label} ${editing ? 'saved' : 'created'}.`);
    setEditing(undefined);
    setDraft(EMPTY);
  });
  const remove = useAction(async (policy: UsagePolicy) => {
    setDone(undefined);
    await session.api.delete(`/api/v2/usage_policies/${policy.uuid}/`);
    await refresh();
    setDone(`Usage policy ${policy.label} deleted.`);
    if (editing?.uuid === policy.uuid) {
      setEditing(undefined);
      setDraft(EMPTY);
    }
  });
  const policies = new Map((shown?.results ?? []).map((policy) => [policy.label, policy]));
  const messages = (field: (typeof FIELDS)[number]) => fieldMessages(save.error, field);
  return (
    <section aria-labelledby="usage-policies-heading">
      <h2 id="usage-policies-heading">Usage policies</h2>
      <p>
        A usage policy says how a license or a package may be used. The usage-policy rules below fire on the policies whose alert is Error or
        Warning; assign policies on the Licenses and Packages pages.
      </p>
      <div aria-live="polite">{done && <Notice kind="success">{done}</Notice>}</div>
      <ErrorSummary error={remove.error} title="The usage policy was not deleted." />
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !shown && <Loading what="usage policies" />}
      {shown && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Usage policies (scrolls sideways)">
          <table aria-labelledby="usage-policies-heading">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Applies to</th>
                <th scope="col">Description</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.results.map((policy) => (
                <tr key={policy.uuid} data-policy={policy.label}>
                  <td>
                    <PolicyBadge label={policy.label} policies={policies} />
                  </td>
                  <td>{policy.content_type === 'license' ? 'Licenses' : 'Packages'}</td>
                  <td>{policy.description || <span class="muted">none</span>}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => {
                        setDone(undefined);
                        setEditing(policy);
                        setDraft({ label: policy.label, content_type: policy.content_type, compliance_alert: policy.compliance_alert, description: policy.description });
                        document.getElementById('usage-policy-label')?.focus();
                      }}
                    >
                      Edit<span class="visually-hidden"> {policy.label}</span>
                    </button>
                    <button type="button" class="secondary" disabled={remove.running} onClick={() => void remove.run(policy)}>
                      Delete<span class="visually-hidden"> {policy.label}</span>
                    </button>
                  </td>
                </tr>
              ))}
              {shown.results.length === 0 && (
                <tr>
                  <td colSpan={4}>No usage policies yet: create some below, or start from the recommended policy.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
      <form
        class="stacked"
        aria-labelledby="usage-policy-form-heading"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <h3 id="usage-policy-form-heading">{editing ? `Edit ${editing.label}` : 'New usage policy'}</h3>
        <ErrorSummary error={save.error} fields={FIELDS} />
        <div class="field">
          <label for="usage-policy-label">Label</label>
          <input
            id="usage-policy-label"
            required
            maxLength={50}
            value={draft.label}
            onInput={(event) => setDraft({ ...draft, label: event.currentTarget.value })}
            {...invalidProps('usage-policy-label', messages('label'))}
          />
          <FieldError id="usage-policy-label" messages={messages('label')} />
        </div>
        <fieldset {...groupErrorProps('usage-policy-type', messages('content_type'))}>
          <legend>Applies to</legend>
          {(['license', 'package'] as const).map((type) => (
            <label key={type} class="choice">
              <input type="radio" name="usage-policy-type" checked={draft.content_type === type} onChange={() => setDraft({ ...draft, content_type: type })} />{' '}
              {type === 'license' ? 'Licenses' : 'Packages'}
            </label>
          ))}
          <FieldError id="usage-policy-type" messages={messages('content_type')} />
        </fieldset>
        <fieldset {...groupErrorProps('usage-policy-alert', messages('compliance_alert'))}>
          <legend>Compliance alert</legend>
          {(['', 'warning', 'error'] as const).map((alert) => (
            <label key={alert || 'none'} class="choice">
              <input type="radio" name="usage-policy-alert" checked={draft.compliance_alert === alert} onChange={() => setDraft({ ...draft, compliance_alert: alert })} />{' '}
              {ALERT_TEXT[alert]}
            </label>
          ))}
          <FieldError id="usage-policy-alert" messages={messages('compliance_alert')} />
        </fieldset>
        <div class="field">
          <label for="usage-policy-description">Description</label>
          <textarea
            id="usage-policy-description"
            rows={2}
            value={draft.description}
            onInput={(event) => setDraft({ ...draft, description: event.currentTarget.value })}
            {...invalidProps('usage-policy-description', messages('description'))}
          />
          <FieldError id="usage-policy-description" messages={messages('description')} />
        </div>
        <div class="actions">
          <button type="submit" disabled={save.running}>
            {editing ? 'Save usage policy' : 'Create usage policy'}
          </button>
          {editing && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setEditing(undefined);
                setDraft(EMPTY);
              }}
            >
              Cancel
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
