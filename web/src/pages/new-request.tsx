/** Create a request from a template, with a form built from the template's questions. */
import { useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, PageHeading, fieldMessages, groupErrorProps, invalidProps, useAction, useLoad } from '../components.tsx';
import type { ErrorReport, Page } from '../lib/api-client.ts';
import { emptyAnswers, serializeAnswers, type Answers, type RequestTemplate } from '../lib/template-form.ts';
import { choiceOptions, loadRequestChoices } from '../lib/request-choices.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import type { Product, ServiceRequest } from './types.ts';

const FIELDS = ['title', 'request_template', 'priority', 'assignee', 'product_context', 'notes', 'is_private', 'serialized_data'];

export function NewRequest({ session }: { session: Session }) {
  const templates = useLoad(() => session.api.get<Page<RequestTemplate>>('/api/v2/request_templates/', { page_size: 100 }), 'templates');
  const products = useLoad(() => session.api.get<Page<Product>>('/api/v2/products/', { page_size: 100 }), 'products');
  const choices = useLoad(() => loadRequestChoices(session.api), 'choices');
  const [templateUuid, setTemplateUuid] = useState('');
  const [fields, setFields] = useState({ title: '', priority: '', assignee: '', product_context: '', notes: '' });
  const [isPrivate, setIsPrivate] = useState(false);
  const [answers, setAnswers] = useState<Answers>({});
  const [local, setLocal] = useState<ErrorReport | undefined>();
  const create = useAction((body: Record<string, unknown>) => session.api.post<ServiceRequest>('/api/v2/requests/', body));

  if (templates.error) return <ErrorSummary error={templates.error} />;
  if (!templates.data) return <Loading what="the request templates" />;
  const active = templates.data.results.filter((template) => template.is_active);
  const template = active.find((candidate) => candidate.uuid === templateUuid);
  const errors = local ?? create.error?.report;
  const messages = (field: string) => fieldMessages(errors, field);
  const text = (name: keyof typeof fields, label: string, required = false) => {
    const id = `request-${name}`;
    return (
      <div class="field">
        <label for={id}>
          {label}
          {required && <span aria-hidden="true"> *</span>}
        </label>
        <input id={id} required={required} value={fields[name]} onInput={(event) => setFields({ ...fields, [name]: event.currentTarget.value })} {...invalidProps(id, messages(name))} />
        <FieldError id={id} messages={messages(name)} />
      </div>
    );
  };

  const choice = (name: 'priority' | 'assignee', label: string, known: readonly string[], none: string) => {
    const id = `request-${name}`;
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <select id={id} value={fields[name]} onChange={(event) => setFields({ ...fields, [name]: event.currentTarget.value })} {...invalidProps(id, messages(name))}>
          <option value="">{none}</option>
          {choiceOptions(known, fields[name]).map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <FieldError id={id} messages={messages(name)} />
      </div>
    );
  };

  return (
    <>
      <p class="breadcrumb">
        <a href={href(['requests'])}>Requests</a> /
      </p>
      <PageHeading>New request</PageHeading>
      <form
        class="stacked"
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setLocal(undefined);
          if (!template) {
            setLocal({ general: [], fields: { request_template: ['Choose a template.'] } });
            return;
          }
          const checked = serializeAnswers(template.questions, answers);
          if (!checked.ok) {
            setLocal({ general: [], fields: { serialized_data: checked.errors } });
            return;
          }
          const body: Record<string, unknown> = { title: fields.title, request_template: template.uuid, serialized_data: checked.data, is_private: isPrivate };
          if (fields.priority.trim()) body.priority = fields.priority.trim();
          if (fields.assignee.trim()) body.assignee = fields.assignee.trim();
          if (fields.product_context) body.product_context = fields.product_context;
          if (fields.notes.trim()) body.notes = fields.notes;
          const created = await create.run(body);
          if (created) navigate(['requests', created.uuid]);
        }}
      >
        <ErrorSummary error={errors} fields={FIELDS} />
        <div class="field">
          <label for="request-template">
            Template<span aria-hidden="true"> *</span>
          </label>
          <select
            id="request-template"
            required
            value={templateUuid}
            onChange={(event) => {
              const chosen = active.find((candidate) => candidate.uuid === event.currentTarget.value);
              setTemplateUuid(event.currentTarget.value);
              setAnswers(chosen ? emptyAnswers(chosen.questions) : {});
            }}
            {...invalidProps('request-template', messages('request_template'))}
          >
            <option value="">Choose a template</option>
            {active.map((candidate) => (
              <option key={candidate.uuid} value={candidate.uuid}>
                {candidate.name}
              </option>
            ))}
          </select>
          <FieldError id="request-template" messages={messages('request_template')} />
          {template?.description && <p class="hint">{template.description}</p>}
        </div>
        {text('title', 'Title', true)}
        {choice('priority', 'Priority', choices.data?.priorities ?? [], 'No priority')}
        {choice('assignee', 'Assignee', choices.data?.users ?? [], 'Unassigned')}
        {choices.error && <ErrorSummary error={choices.error} title="The priorities and users could not be loaded." />}
        <div class="field">
          <label for="request-product_context">Product</label>
          <select id="request-product_context" value={fields.product_context} onChange={(event) => setFields({ ...fields, product_context: event.currentTarget.value })} {...invalidProps('request-product_context', messages('product_context'))}>
            <option value="">None</option>
            {(products.data?.results ?? []).map((product) => (
              <option key={product.uuid} value={product.uuid}>
                {product.name} {product.version}
              </option>
            ))}
          </select>
          <FieldError id="request-product_context" messages={messages('product_context')} />
        </div>
        <div class="field">
          <label for="request-notes">Notes</label>
          <textarea id="request-notes" rows={3} value={fields.notes} onInput={(event) => setFields({ ...fields, notes: event.currentTarget.value })} />
        </div>
        <label class="choice">
          <input type="checkbox" checked={isPrivate} onChange={(event) => setIsPrivate(event.currentTarget.checked)} /> Private (only the requester, the assignee and
          superusers see it)
        </label>
        {template && template.questions.length > 0 && (
          <fieldset {...groupErrorProps('request-answers', messages('serialized_data'))}>
            <legend>{template.name}: questions</legend>
            <FieldError id="request-answers" messages={messages('serialized_data')} />
            {template.questions.map((question, index) => {
              const id = `question-${index}`;
              const value = answers[question.label];
              if (question.input_type === 'BooleanField') {
                return (
                  <label class="choice" key={question.label}>
                    <input id={id} type="checkbox" checked={value === true} onChange={(event) => setAnswers({ ...answers, [question.label]: event.currentTarget.checked })} /> {question.label}
                  </label>
                );
              }
              const common = {
                id,
                required: question.is_required,
                value: typeof value === 'string' ? value : '',
                onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => setAnswers({ ...answers, [question.label]: event.currentTarget.value }),
              };
              return (
                <div class="field" key={question.label}>
                  <label for={id}>
                    {question.label}
                    {question.is_required && <span aria-hidden="true"> *</span>}
                    {question.is_required && <span class="visually-hidden"> (required)</span>}
                  </label>
                  {question.input_type === 'TextField' ? <textarea rows={3} {...common} /> : question.input_type === 'DateField' ? <input type="date" {...common} /> : <input type="text" {...common} />}
                </div>
              );
            })}
          </fieldset>
        )}
        <button type="submit" disabled={create.running}>
          {create.running ? 'Creating…' : 'Create request'}
        </button>
      </form>
    </>
  );
}
