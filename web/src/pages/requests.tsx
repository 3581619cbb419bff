/** The request list with the API's ordering and filters, and its pages. */
import { useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, PageHeading, Pager, fieldMessages, formatDate, invalidProps, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import type { RequestTemplate } from '../lib/template-form.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import type { ServiceRequest } from './types.ts';
import { choiceOptions, loadRequestChoices, type RequestChoices } from '../lib/request-choices.ts';

const ORDERING_FIELDS = [
  ['last_modified_date', 'Last modified'],
  ['created_date', 'Created'],
  ['title', 'Title'],
  ['request_template', 'Template'],
  ['status', 'Status'],
  ['priority', 'Priority'],
  ['assignee', 'Assignee'],
  ['requester', 'Requester'],
] as const;

const FILTERS = ['status', 'request_template', 'priority', 'assignee', 'requester', 'last_modified_date'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number] | 'ordering', string>>;

export function RequestList({ session, query }: { session: Session; query: URLSearchParams }) {
  const filters: Filters = Object.fromEntries([...FILTERS, 'ordering'].map((name) => [name, query.get(name) ?? undefined]).filter(([, v]) => v));
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(() => session.api.get<Page<ServiceRequest>>('/api/v2/requests/', { ...filters, page, page_size: 20 }), query.toString());
  const templates = useLoad(() => session.api.get<Page<RequestTemplate>>('/api/v2/request_templates/', { page_size: 100 }), 'templates');
  const choices = useLoad(() => loadRequestChoices(session.api), 'choices');
  return (
    <>
      <PageHeading>Requests</PageHeading>
      <p>
        <a class="button" href={href(['requests', 'new'])}>
          New request
        </a>
      </p>
      <FilterForm key={query.toString()} initial={filters} templates={templates.data?.results ?? []} choices={choices.data} errors={list.error} />
      {list.error && <ErrorSummary error={list.error} fields={[...FILTERS]} />}
      {list.loading && !list.data && <Loading what="requests" />}
      {list.data && (
        <>
          <div class="table-wrap" role="region" aria-label="Requests, scrollable" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Template</th>
                  <th scope="col">Status</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Requester</th>
                  <th scope="col">Last modified</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((request) => (
                  <tr key={request.uuid}>
                    <td>
                      <a href={href(['requests', request.uuid])}>{request.title}</a>
                      {request.is_private && <span class="muted"> (private)</span>}
                    </td>
                    <td>{request.request_template_name}</td>
                    <td>{request.status}</td>
                    <td>{request.priority ?? '—'}</td>
                    <td>{request.assignee ?? '—'}</td>
                    <td>{request.requester}</td>
                    <td>{formatDate(request.last_modified_date)}</td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={7}>No requests match.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={list.data} current={page} segments={['requests']} query={filters} label="requests" />
        </>
      )}
    </>
  );
}

function FilterForm({
  initial,
  templates,
  choices,
  errors,
}: {
  initial: Filters;
  templates: readonly RequestTemplate[];
  choices: RequestChoices | undefined;
  errors: Parameters<typeof fieldMessages>[0];
}) {
  const [values, setValues] = useState<Filters>(initial);
  const set = (name: keyof Filters, value: string) => setValues({ ...values, [name]: value });
  const text = (name: (typeof FILTERS)[number], label: string, type: 'text' | 'date' = 'text') => {
    const id = `filter-${name}`;
    const messages = fieldMessages(errors, name);
    const props = { id, value: values[name] ?? '', onInput: (event: { currentTarget: HTMLInputElement }) => set(name, event.currentTarget.value), ...invalidProps(id, messages) };
    return (
      <div class="field">
        <label for={id}>{label}</label>
        {type === 'date' ? <input type="date" {...props} /> : <input type="text" {...props} />}
        <FieldError id={id} messages={messages} />
      </div>
    );
  };
  const choice = (name: 'priority' | 'assignee' | 'requester', label: string, known: readonly string[]) => {
    const id = `filter-${name}`;
    const messages = fieldMessages(errors, name);
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <select id={id} value={values[name] ?? ''} onChange={(event) => set(name, event.currentTarget.value)} {...invalidProps(id, messages)}>
          <option value="">Any</option>
          {choiceOptions(known, values[name]).map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <FieldError id={id} messages={messages} />
      </div>
    );
  };
  const ordering = values.ordering ?? '-last_modified_date';
  return (
    <form
      class="filters"
      aria-label="Filter and order the requests"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['requests'], Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v?.trim()])));
      }}
    >
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" value={values.status ?? ''} onChange={(event) => set('status', event.currentTarget.value)} {...invalidProps('filter-status', fieldMessages(errors, 'status'))}>
          <option value="">Any</option>
          <option value="open">open</option>
          <option value="closed">closed</option>
          <option value="draft">draft</option>
        </select>
        <FieldError id="filter-status" messages={fieldMessages(errors, 'status')} />
      </div>
      <div class="field">
        <label for="filter-request_template">Template</label>
        <select id="filter-request_template" value={values.request_template ?? ''} onChange={(event) => set('request_template', event.currentTarget.value)} {...invalidProps('filter-request_template', fieldMessages(errors, 'request_template'))}>
          <option value="">Any</option>
          {templates.map((template) => (
            <option key={template.uuid} value={template.uuid}>
              {template.name}
            </option>
          ))}
        </select>
        <FieldError id="filter-request_template" messages={fieldMessages(errors, 'request_template')} />
      </div>
      {choice('priority', 'Priority', choices?.priorities ?? [])}
      {choice('assignee', 'Assignee', choices?.users ?? [])}
      {choice('requester', 'Requester', choices?.users ?? [])}
      {text('last_modified_date', 'Modified on or after', 'date')}
      <div class="field">
        <label for="ordering">Order by</label>
        <select id="ordering" value={ordering} onChange={(event) => set('ordering', event.currentTarget.value)}>
          {ORDERING_FIELDS.flatMap(([field, label]) => [
            <option key={`-${field}`} value={`-${field}`}>
              {label}, descending
            </option>,
            <option key={field} value={field}>
              {label}, ascending
            </option>,
          ])}
        </select>
      </div>
      <div class="actions">
        <button type="submit">Apply</button>
        {Object.keys(initial).length > 0 && <a href={href(['requests'])}>Clear</a>}
      </div>
    </form>
  );
}
