/** Webhook subscriptions (superusers): list and create, then per subscription its delivery log, ping and redeliver. */
import { useState } from 'preact/hooks';
import { ErrorSummary, LoadFailed, FieldError, Loading, Notice, PageHeading, Pager, fieldMessages, groupErrorProps, formatDate, invalidProps, useAction, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import { WEBHOOK_EVENT_TYPES as EVENT_TYPES, type Delivery, type PingResult, type Webhook } from './types.ts';

export function WebhookList({ session, query }: { session: Session; query: URLSearchParams }) {
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(() => session.api.get<Page<Webhook>>('/api/v2/webhooks/', { page, page_size: 20 }), String(page));
  const [created, setCreated] = useState<Webhook | undefined>();
  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      {query.get('deleted') === '1' && !created && <Notice kind="success">Subscription deleted.</Notice>}
      {created?.secret && (
        <Notice kind="success">
          Subscription created. Its signing secret is shown this once: <code class="secret">{created.secret}</code>
        </Notice>
      )}
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !list.data && <Loading what="webhooks" />}
      {list.data && (
        <>
          <div class="table-wrap" role="region" aria-label="Subscriptions, scrollable" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Target</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((webhook) => (
                  <tr key={webhook.uuid}>
                    <td>
                      <a href={href(['webhooks', webhook.uuid])}>{webhook.target_url}</a>
                    </td>
                    <td>{webhook.events.join(', ')}</td>
                    <td>{webhook.is_active ? 'Enabled' : 'Disabled'}</td>
                    <td>{webhook.description || '—'}</td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={4}>No subscriptions yet.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={list.data} current={page} segments={['webhooks']} query={{}} label="subscriptions" />
        </>
      )}
      <CreateWebhook
        session={session}
        onCreated={(webhook) => {
          setCreated(webhook);
          list.reload();
        }}
      />
    </>
  );
}

function CreateWebhook({ session, onCreated }: { session: Session; onCreated: (webhook: Webhook) => void }) {
  const [targetUrl, setTargetUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<ReadonlySet<string>>(new Set(['policy.violation_detected', 'policy.violation_resolved']));
  const create = useAction(async () => {
    const webhook = await session.api.post<Webhook>('/api/v2/webhooks/', { target_url: targetUrl.trim(), events: [...events], description });
    setTargetUrl('');
    setDescription('');
    onCreated(webhook);
  });
  const messages = (field: string) => fieldMessages(create.error, field);
  return (
    <section aria-labelledby="create-webhook">
      <h2 id="create-webhook">Subscribe</h2>
      <form
        class="stacked"
        onSubmit={async (event) => {
          event.preventDefault();
          await create.run();
        }}
      >
        <ErrorSummary error={create.error} fields={['target_url', 'events', 'description']} />
        <div class="field">
          <label for="webhook-target">Target URL (https)</label>
          <input id="webhook-target" type="url" required value={targetUrl} onInput={(event) => setTargetUrl(event.currentTarget.value)} {...invalidProps('webhook-target', messages('target_url'))} />
          <FieldError id="webhook-target" messages={messages('target_url')} />
        </div>
        <fieldset {...groupErrorProps('webhook-events', messages('events'))}>
          <legend>Events</legend>
          {EVENT_TYPES.map((type) => (
            <label class="choice" key={type}>
              <input
                type="checkbox"
                checked={events.has(type)}
                onChange={(event) => {
                  const next = new Set(events);
                  if (event.currentTarget.checked) next.add(type);
                  else next.delete(type);
                  setEvents(next);
                }}
              />{' '}
              {type}
            </label>
          ))}
          <FieldError id="webhook-events" messages={messages('events')} />
        </fieldset>
        <div class="field">
          <label for="webhook-description">Description</label>
          <input id="webhook-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} {...invalidProps('webhook-description', messages('description'))} />
          <FieldError id="webhook-description" messages={messages('description')} />
        </div>
        <button type="submit" disabled={create.running}>
          {create.running ? 'Subscribing…' : 'Subscribe'}
        </button>
      </form>
    </section>
  );
}

export function WebhookPage({ session, uuid, query }: { session: Session; uuid: string; query: URLSearchParams }) {
  const path = `/api/v2/webhooks/${encodeURIComponent(uuid)}/`;
  const page = Number(query.get('page') ?? 1);
  const webhook = useLoad(() => session.api.get<Webhook>(path), uuid);
  const deliveries = useLoad(() => session.api.get<Page<Delivery>>(`${path}deliveries/`, { page, page_size: 20 }), `${uuid}:${page}`);
  // One outcome at a time: whichever action ran last says how it went.
  const [message, setMessage] = useState<string | undefined>();
  const ping = useAction(async () => {
    const result = await session.api.post<PingResult>(`${path}ping/`);
    setMessage(
      result.delivered
        ? `Ping delivered: ${result.response_status} in ${result.duration_ms} ms.`
        : `Ping not delivered${result.response_status ? ` (${result.response_status})` : ''}: ${result.response || 'no answer'}.`,
    );
    deliveries.reload();
  });
  const toggle = useAction(async (isActive: boolean) => {
    await session.api.patch(path, { is_active: isActive });
    setMessage(isActive ? 'Subscription enabled.' : 'Subscription disabled: no events are delivered to it.');
    webhook.reload();
  });
  const [secret, setSecret] = useState<string | undefined>();
  const rotate = useAction(async () => {
    const rotated = await session.api.post<Webhook>(`${path}rotate_secret/`);
    setSecret(rotated.secret ?? undefined);
    setMessage('Secret rotated: the old secret no longer signs deliveries.');
  });
  const [confirming, setConfirming] = useState(false);
  const remove = useAction(async () => {
    await session.api.delete(path);
    navigate(['webhooks'], { deleted: '1' });
  });
  const redeliver = useAction(async (delivery: Delivery) => {
    await session.api.post(`${path}deliveries/${encodeURIComponent(delivery.id)}/redeliver/`);
    setMessage(`Delivery of ${delivery.event_type} queued again.`);
    deliveries.reload();
  });
  type ActionName = 'ping' | 'toggle' | 'redeliver' | 'rotate' | 'remove';
  const [last, setLast] = useState<ActionName | undefined>();
  const lastError = last === undefined ? undefined : { ping, toggle, redeliver, rotate, remove }[last].error;
  const begin = (name: ActionName) => {
    setMessage(undefined);
    setSecret(undefined);
    setLast(name);
  };
  if (webhook.error && !webhook.data) return <LoadFailed title="Webhook" error={webhook.error} back={{ href: href(['webhooks']), label: 'Back to the webhooks' }} />;
  if (!webhook.data) return <Loading what="the subscription" />;
  const data = webhook.data;
  return (
    <>
      <p class="breadcrumb">
        <a href={href(['webhooks'])}>Webhooks</a> /
      </p>
      <PageHeading>{data.description || data.target_url}</PageHeading>
      <ErrorSummary error={webhook.error} />
      <dl class="details">
        <dt>Target</dt>
        <dd>
          <code>{data.target_url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{data.events.join(', ')}</dd>
        <dt>State</dt>
        <dd>{data.is_active ? 'Enabled' : 'Disabled'}</dd>
        <dt>Created</dt>
        <dd>{formatDate(data.created_date)}</dd>
      </dl>
      <div class="toolbar">
        <button type="button" disabled={ping.running} onClick={() => {
            begin('ping');
            void ping.run();
          }}>
          {ping.running ? 'Pinging…' : 'Send a ping'}
        </button>
        <button type="button" class="secondary" disabled={toggle.running} onClick={() => {
            begin('toggle');
            void toggle.run(!data.is_active);
          }}>
          {data.is_active ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" disabled={rotate.running} onClick={() => {
            begin('rotate');
            void rotate.run();
          }}>
          Rotate secret
        </button>
        <button type="button" class="secondary danger" aria-expanded={confirming} onClick={() => {
            begin('remove');
            setConfirming(true);
          }}>
          Delete
        </button>
      </div>
      {confirming && (
        <div id="delete-webhook" class="notice notice-error" role="group" aria-labelledby="delete-webhook-question">
          <p id="delete-webhook-question">Delete this subscription? Its delivery log goes with it, and no event is delivered to it any more.</p>
          <div class="actions">
            <button type="button" class="danger-solid" disabled={remove.running} onClick={() => void remove.run()}>
              {remove.running ? 'Deleting…' : 'Yes, delete'}
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {lastError ? (
        <ErrorSummary error={lastError} />
      ) : (
        message && (
          <Notice kind={secret ? 'success' : 'info'}>
            {message}
            {secret && (
              <>
                {' '}
                The new signing secret is shown this once: <code class="secret">{secret}</code>
              </>
            )}
          </Notice>
        )
      )}
      <h2>Delivery log</h2>
      {deliveries.error && <ErrorSummary error={deliveries.error} />}
      {deliveries.data && (
        <>
          <div class="table-wrap" role="region" aria-label="Delivery log, scrollable" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Answer</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions (a ping is not redelivered)</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.results.map((delivery) => (
                  <tr key={`${delivery.id}:${delivery.attempt}`}>
                    <td>{formatDate(delivery.attempted_at)}</td>
                    <td>{delivery.event_type}</td>
                    <td>{delivery.attempt}</td>
                    <td>{delivery.outcome}</td>
                    <td>
                      {delivery.response_status ?? '—'}
                      {delivery.duration_ms !== null && <span class="muted"> ({delivery.duration_ms} ms)</span>}
                    </td>
                    <td>
                      {delivery.event_type !== 'webhook.ping' && (
                      <button type="button" class="secondary" disabled={redeliver.running} onClick={() => {
                            begin('redeliver');
                            void redeliver.run(delivery);
                          }} aria-label={`Redeliver ${delivery.event_type} of ${formatDate(delivery.attempted_at)}`}>
                        Redeliver
                      </button>
                      )}
                    </td>
                  </tr>
                ))}
                {deliveries.data.results.length === 0 && (
                  <tr>
                    <td colSpan={6}>Nothing delivered yet.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={deliveries.data} current={page} segments={['webhooks', uuid]} query={{}} label="attempts" />
        </>
      )}
    </>
  );
}
