/** One request: its fields, its answers, its comments, and the add-comment box. */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorSummary, LoadFailed, FieldError, Loading, Notice, PageHeading, fieldMessages, formatDate, invalidProps, useAction, useLoad } from '../components.tsx';
import { apiPath, uuidOf } from '../lib/api-client.ts';
import type { RequestTemplate } from '../lib/template-form.ts';
import { href } from '../router.ts';
import type { Session } from '../session.ts';
import { mayUpdateRequest } from '../lib/abilities.ts';
import type { Product, ServiceRequest } from './types.ts';
import { choiceOptions, loadRequestChoices } from '../lib/request-choices.ts';

export function RequestPage({ session, uuid }: { session: Session; uuid: string }) {
  const path = `/api/v2/requests/${encodeURIComponent(uuid)}/`;
  const request = useLoad(() => session.api.get<ServiceRequest>(path), uuid);
  const [status, setStatus] = useState<string | undefined>();
  const update = useAction(async (next: string) => {
    await session.api.patch(path, { status: next });
    setStatus(undefined);
    request.reload();
  });
  if (request.error && !request.data) return <LoadFailed title="Request" error={request.error} back={{ href: href(['requests']), label: 'Back to the requests' }} />;
  if (!request.data) return <Loading what="the request" />;
  const data = request.data;
  // Status, priority and assignee change only for who may (the requester, the assignee, superusers).
  const may = mayUpdateRequest(data, session);
  return (
    <>
      <p class="breadcrumb">
        <a href={href(['requests'])}>Requests</a> /
      </p>
      <PageHeading>{data.title}</PageHeading>
      <ErrorSummary error={request.error} />
      <dl class="details">
        <dt>Status</dt>
        <dd>
          {may ? (
            <form
              class="inline"
              onSubmit={(event) => {
                event.preventDefault();
                if (status && status !== data.status) void update.run(status);
              }}
            >
              <label for="request-status" class="visually-hidden">
                Status
              </label>
              <select id="request-status" value={status ?? data.status} onChange={(event) => setStatus(event.currentTarget.value)}>
                <option value="open">open</option>
                <option value="closed">closed</option>
                <option value="draft">draft</option>
              </select>{' '}
              <button type="submit" class="secondary" disabled={update.running || !status || status === data.status}>
                Change status
              </button>
            </form>
          ) : (
            data.status
          )}
          <ErrorSummary error={update.error} />
        </dd>
        <dt>Template</dt>
        <dd>{data.request_template_name}</dd>
        <dt>Requester</dt>
        <dd>{data.requester}</dd>
        <dt>Assignee</dt>
        <dd>{data.assignee ?? '—'}</dd>
        <dt>Priority</dt>
        <dd>{data.priority ?? '—'}</dd>
        <dt>Product</dt>
        <dd>{data.product_context ? <ProductName session={session} link={data.product_context} /> : '—'}</dd>
        <dt>Private</dt>
        <dd>{data.is_private ? 'Yes' : 'No'}</dd>
        <dt>Created</dt>
        <dd>{formatDate(data.created_date)}</dd>
        <dt>Last modified</dt>
        <dd>{formatDate(data.last_modified_date)}</dd>
        {data.notes && (
          <>
            <dt>Notes</dt>
            <dd class="pre">{data.notes}</dd>
          </>
        )}
      </dl>
      {may && <Assignment session={session} request={data} path={path} onSaved={request.reload} />}
      {Object.keys(data.serialized_data).length > 0 && <Answers session={session} request={data} />}
      <Comments session={session} request={data} onAdded={request.reload} />
    </>
  );
}

/** The answers, in the order the template asks its questions (the stored object keeps no order). */
function Answers({ session, request }: { session: Session; request: ServiceRequest }) {
  const template = useLoad(() => session.api.get<RequestTemplate>(apiPath(request.request_template)), request.request_template);
  const order = template.data?.questions.map((question) => question.label) ?? [];
  const labels = Object.keys(request.serialized_data).sort((a, b) => rank(order, a) - rank(order, b));
  return (
    <section aria-labelledby="answers">
      <h2 id="answers">Answers</h2>
      <dl class="details">
        {labels.map((label) => {
          const value = request.serialized_data[label];
          return (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd>{typeof value === 'boolean' ? (value ? 'Yes' : 'No') : value}</dd>
            </Fragment>
          );
        })}
      </dl>
    </section>
  );
}

function rank(order: readonly string[], label: string): number {
  const index = order.indexOf(label);
  return index === -1 ? order.length : index;
}

function Comments({ session, request, onAdded }: { session: Session; request: ServiceRequest; onAdded: () => void }) {
  const [text, setText] = useState('');
  const [added, setAdded] = useState(false);
  const add = useAction(async () => {
    await session.api.post(`/api/v2/requests/${request.uuid}/add_comment/`, { text });
    setText('');
    setAdded(true);
    onAdded();
  });
  const messages = fieldMessages(add.error, 'text');
  return (
    <section aria-labelledby="comments">
      <h2 id="comments">Comments ({request.comment_count})</h2>
      {request.comment_count > request.comments.length && (
        <p class="muted">The latest {request.comments.length} are shown, oldest first.</p>
      )}
      {request.comments.length === 0 ? (
        <p>No comments yet.</p>
      ) : (
        <ol class="comments">
          {request.comments.map((comment) => (
            <li key={comment.uuid}>
              <p class="muted">
                <strong>{comment.username}</strong>, {formatDate(comment.created_date)}
              </p>
              <p class="pre">{comment.text}</p>
            </li>
          ))}
        </ol>
      )}
      <form
        class="stacked"
        onSubmit={async (event) => {
          event.preventDefault();
          setAdded(false);
          await add.run();
        }}
      >
        <ErrorSummary error={add.error} fields={['text']} />
        {added && <Notice kind="success">Comment added.</Notice>}
        <div class="field">
          <label for="comment-text">Add a comment</label>
          <textarea id="comment-text" rows={4} value={text} onInput={(event) => setText(event.currentTarget.value)} {...invalidProps('comment-text', messages)} />
          <FieldError id="comment-text" messages={messages} />
        </div>
        <button type="submit" disabled={add.running}>
          {add.running ? 'Adding…' : 'Add comment'}
        </button>
      </form>
    </section>
  );
}

/** A product the request names, by its name and version (never its uuid); a link to its page. */
export function ProductName({ session, link }: { session: Session; link: string }) {
  const uuid = uuidOf(link);
  const product = useLoad(() => session.api.get<Product>(apiPath(link)), link);
  const name = product.data ? `${product.data.name}${product.data.version ? ` ${product.data.version}` : ''}` : product.error ? 'A product you cannot see' : 'Loading…';
  return <a href={href(['products', uuid])}>{name}</a>;
}

/** Priority and assignee, chosen from the dataspace's priorities and users (PATCH; requester, assignee and superusers). */
function Assignment({ session, request, path, onSaved }: { session: Session; request: ServiceRequest; path: string; onSaved: () => void }) {
  const choices = useLoad(() => loadRequestChoices(session.api), 'choices');
  const [priority, setPriority] = useState<string | undefined>();
  const [assignee, setAssignee] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const currentPriority = priority ?? request.priority ?? '';
  const currentAssignee = assignee ?? request.assignee ?? '';
  const save = useAction(async () => {
    await session.api.patch(path, { priority: currentPriority || null, assignee: currentAssignee || null });
    setPriority(undefined);
    setAssignee(undefined);
    setSaved(true);
    onSaved();
  });
  const changed = currentPriority !== (request.priority ?? '') || currentAssignee !== (request.assignee ?? '');
  return (
    <section aria-labelledby="assignment">
      <h2 id="assignment">Priority and assignee</h2>
      <form
        class="stacked"
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          await save.run();
        }}
      >
        <ErrorSummary error={save.error ?? choices.error} fields={['priority', 'assignee']} />
        {saved && <Notice kind="success">Priority and assignee saved.</Notice>}
        <div class="field">
          <label for="request-edit-priority">Priority</label>
          <select id="request-edit-priority" value={currentPriority} onChange={(event) => setPriority(event.currentTarget.value)} {...invalidProps('request-edit-priority', fieldMessages(save.error, 'priority'))}>
            <option value="">No priority</option>
            {choiceOptions(choices.data?.priorities ?? [], currentPriority).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
          <FieldError id="request-edit-priority" messages={fieldMessages(save.error, 'priority')} />
        </div>
        <div class="field">
          <label for="request-edit-assignee">Assignee</label>
          <select id="request-edit-assignee" value={currentAssignee} onChange={(event) => setAssignee(event.currentTarget.value)} {...invalidProps('request-edit-assignee', fieldMessages(save.error, 'assignee'))}>
            <option value="">Unassigned</option>
            {choiceOptions(choices.data?.users ?? [], currentAssignee).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
          <FieldError id="request-edit-assignee" messages={fieldMessages(save.error, 'assignee')} />
        </div>
        <button type="submit" class="secondary" disabled={save.running || !changed}>
          {save.running ? 'Saving…' : 'Save priority and assignee'}
        </button>
      </form>
    </section>
  );
}
