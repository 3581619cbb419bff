/**
 * The dataspace's audit trail (superusers): who changed what and when, newest first, with the API's
 * filters (object type, object, user, action, since, until) kept in the address, and its cursor pages.
 * Objects are shown by the name the record carries (object_repr), never by their uuid, and the changes
 * as a readable diff (lib/audit-diff.ts); the object filter takes a name or purl as the API does.
 */
import { useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, PageHeading, fieldMessages, formatDate, invalidProps, useLoad } from '../components.tsx';
import { loadRequestChoices, choiceOptions } from '../lib/request-choices.ts';
import { href, navigate } from '../router.ts';
import { AUDIT_ACTIONS, AUDITED_OBJECT_TYPES, dayBound } from '../lib/audit-filters.ts';
import type { Session } from '../session.ts';
import { changeLines } from '../lib/audit-diff.ts';

interface AuditRecord {
  readonly uuid: string;
  readonly date: string;
  readonly action: string;
  readonly object_type: string;
  readonly object: string;
  readonly object_repr: string;
  readonly user: string | null;
  readonly api_key: string | null;
  readonly changes: Readonly<Record<string, readonly [unknown, unknown]>>;
}

interface AuditPage {
  readonly next: string | null;
  readonly previous: string | null;
  readonly results: readonly AuditRecord[];
}

const FILTERS = ['object_type', 'object', 'user', 'action', 'since', 'until'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const label = (type: string) => type.replaceAll('_', ' ');

export function AuditPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const filters: Filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]).filter(([, value]) => value));
  const cursor = query.get('cursor') ?? undefined;
  const list = useLoad(
    () =>
      session.api.get<AuditPage>('/api/v2/audit_events/', {
        ...filters,
        since: dayBound(filters.since, false),
        until: dayBound(filters.until, true),
        cursor,
        page_size: 25,
      }),
    query.toString(),
  );
  const users = useLoad(() => loadRequestChoices(session.api), 'choices');
  const cursorOf = (link: string | null) => (link === null ? undefined : (new URL(link, 'http://console.invalid').searchParams.get('cursor') ?? undefined));
  const older = list.data ? cursorOf(list.data.next) : undefined;
  const newer = list.data ? cursorOf(list.data.previous) : undefined;
  return (
    <>
      <PageHeading>Audit</PageHeading>
      <p>Every change to the dataspace's products, requests, catalog, policy, webhooks and API keys: who made it, when, and what changed. Newest first.</p>
      <FilterForm key={query.toString()} initial={filters} users={users.data?.users ?? []} errors={list.error} />
      {list.error && <ErrorSummary error={list.error} fields={[...FILTERS]} />}
      {list.loading && !list.data && <Loading what="the audit trail" />}
      {list.data && (
        <>
          <div class="table-wrap" role="region" aria-label="Audit events, scrollable" tabIndex={0}>
            <table aria-label="Audit events">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">User</th>
                  <th scope="col">Action</th>
                  <th scope="col">Object</th>
                  <th scope="col">Changes</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((record) => (
                  <tr key={record.uuid}>
                    <td>{formatDate(record.date)}</td>
                    <td>
                      {record.user ?? <span class="muted">the service</span>}
                      {record.api_key && <span class="muted"> (key {record.api_key})</span>}
                    </td>
                    <td>{record.action}</td>
                    <td class="reason">
                      <span class="muted">{label(record.object_type)}</span>{' '}
                      {record.object_type === 'product' && record.action !== 'delete' ? (
                        <a href={href(['products', record.object])}>{record.object_repr}</a>
                      ) : (
                        record.object_repr
                      )}
                    </td>
                    <td class="reason">
                      <ul class="plain">
                        {changeLines(record.action, record.changes).map((line) => (
                          <li key={line.field}>
                            <strong>{line.field}</strong>: {line.text}
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={5}>No audit events match.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {(older || newer) && (
            <nav class="pager" aria-label="Audit event pages">
              {newer !== undefined ? <a href={href(['audit'], { ...filters, cursor: newer })}>← Newer events</a> : <span aria-hidden="true" />}
              {older !== undefined && <a href={href(['audit'], { ...filters, cursor: older })}>Older events →</a>}
            </nav>
          )}
        </>
      )}
    </>
  );
}

function FilterForm({ initial, users, errors }: { initial: Filters; users: readonly string[]; errors: Parameters<typeof fieldMessages>[0] }) {
  const [values, setValues] = useState<Filters>(initial);
  const set = (name: keyof Filters, value: string) => setValues({ ...values, [name]: value });
  const select = (name: 'object_type' | 'user' | 'action', text: string, options: readonly string[], show: (value: string) => string = (value) => value) => {
    const id = `audit-${name}`;
    const messages = fieldMessages(errors, name);
    return (
      <div class="field">
        <label for={id}>{text}</label>
        <select id={id} value={values[name] ?? ''} onChange={(event) => set(name, event.currentTarget.value)} {...invalidProps(id, messages)}>
          <option value="">Any</option>
          {options.map((value) => (
            <option key={value} value={value}>
              {show(value)}
            </option>
          ))}
        </select>
        <FieldError id={id} messages={messages} />
      </div>
    );
  };
  const input = (name: 'object' | 'since' | 'until', text: string, type: 'text' | 'date') => {
    const id = `audit-${name}`;
    const messages = fieldMessages(errors, name);
    return (
      <div class="field">
        <label for={id}>{text}</label>
        {type === 'date' ? (
          <input id={id} type="date" value={values[name] ?? ''} onInput={(event) => set(name, event.currentTarget.value)} {...invalidProps(id, messages)} />
        ) : (
          <input id={id} type="text" value={values[name] ?? ''} onInput={(event) => set(name, event.currentTarget.value)} {...invalidProps(id, messages)} />
        )}
        <FieldError id={id} messages={messages} />
      </div>
    );
  };
  return (
    <form
      class="filters"
      aria-label="Filter the audit events"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['audit'], Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value?.trim()])));
      }}
    >
      {select('object_type', 'Object type', AUDITED_OBJECT_TYPES, label)}
      {input('object', 'Object (name, purl or uuid)', 'text')}
      {select('user', 'User', choiceOptions(users, values.user))}
      {select('action', 'Action', AUDIT_ACTIONS)}
      {input('since', 'Since', 'date')}
      {input('until', 'Until', 'date')}
      <div class="actions">
        <button type="submit">Apply</button>
        {Object.keys(initial).length > 0 && <a href={href(['audit'])}>Clear</a>}
      </div>
    </form>
  );
}
