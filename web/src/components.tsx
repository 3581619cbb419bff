/** Small pieces every page uses: loading data, error summaries, field errors, pagination, severity. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, pageOf, type ErrorReport, type Page } from './lib/api-client.ts';
import { href } from './router.ts';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
  /** Loads again; resolves once that load has settled (so a notice can wait for what it announces). */
  reload(): Promise<void>;
}

function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, { detail: error instanceof Error ? error.message : String(error) });
}

/** Loads `load()` whenever `key` changes; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  /** Who awaits the reload in progress. */
  const waiters = useRef<(() => void)[]>([]);
  useEffect(() => {
    const ticket = ++latest.current;
    const settled = () => {
      if (ticket !== latest.current) return;
      const waiting = waiters.current;
      waiters.current = [];
      for (const resolve of waiting) resolve();
    };
    setState((previous) => ({ ...previous, loading: true }));
    // A failed reload keeps what was loaded before: the page shows the error above it.
    Promise.resolve()
      .then(load)
      .then(
        (data) => ticket === latest.current && setState({ data, loading: false }),
        (error: unknown) => ticket === latest.current && setState((previous) => ({ data: previous.data, error: asApiError(error), loading: false })),
      )
      .then(settled);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, generation]);
  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiters.current.push(resolve);
        setGeneration((n) => n + 1);
      }),
    [],
  );
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action (a form's submit), keeping its error and whether it is running. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const run = async (...args: A): Promise<T | undefined> => {
    setRunning(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (caught) {
      setError(asApiError(caught));
      return undefined;
    } finally {
      setRunning(false);
    }
  };
  return { run, running, error, setError };
}

/**
 * The messages of an error that no field shows: `detail`, `non_field_errors`, and field errors of
 * fields the form does not have. Announced to screen readers.
 */
export function ErrorSummary({ error, fields = [], title }: { error: ApiError | ErrorReport | undefined; fields?: readonly string[]; title?: string }) {
  if (!error) return null;
  const report = error instanceof ApiError ? error.report : error;
  const shown = new Set(fields);
  const rest = Object.entries(report.fields).filter(([field]) => !shown.has(field));
  const lines = [...report.general, ...rest.map(([field, messages]) => `${field}: ${messages.join(' ')}`)];
  if (lines.length === 0 && Object.keys(report.fields).length > 0) lines.push('Correct the fields marked below.');
  return (
    <div class="notice notice-error" role="alert">
      {title && <strong>{title} </strong>}
      {lines.length === 1 ? lines[0] : <ul>{lines.map((line) => <li key={line}>{line}</li>)}</ul>}
    </div>
  );
}

export function fieldMessages(error: ApiError | ErrorReport | undefined, field: string): readonly string[] {
  if (!error) return [];
  const report = error instanceof ApiError ? error.report : error;
  return report.fields[field] ?? [];
}

/** A field's messages, tied to its input by `aria-describedby={errorId(id)}`. */
export function FieldError({ id, messages }: { id: string; messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <p class="field-error" id={errorId(id)}>
      <span aria-hidden="true">⚠ </span>
      {messages.join(' ')}
    </p>
  );
}

export const errorId = (id: string) => `${id}-error`;

/** Props that mark an input invalid and point it at its messages. */
export function invalidProps(id: string, messages: readonly string[]) {
  return messages.length > 0 ? { 'aria-invalid': true as const, 'aria-describedby': errorId(id) } : {};
}

/** The same for a fieldset (a group cannot be aria-invalid): it points at its messages. */
export function groupErrorProps(id: string, messages: readonly string[]) {
  return messages.length > 0 ? { 'aria-describedby': errorId(id) } : {};
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** Previous / next links of a DRF page, by page number in the console's own route. */
export function Pager({ page, current, segments, query, label }: { page: Page<unknown>; current: number; segments: readonly string[]; query: Record<string, string | undefined>; label: string }) {
  const previous = pageOf(page.previous);
  const next = pageOf(page.next);
  if (previous === undefined && next === undefined) return <p class="count">{countText(page.count, label)}</p>;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <span class="count">
        {countText(page.count, label)}, page {current}
      </span>
      {previous !== undefined ? <a href={href(segments, { ...query, page: previous })}>← Previous page</a> : <span aria-hidden="true" />}
      {next !== undefined && <a href={href(segments, { ...query, page: next })}>Next page →</a>}
    </nav>
  );
}

function countText(count: number, label: string): string {
  return `${count} ${count === 1 ? label.replace(/s$/, '') : label}`;
}

/** Severity in words and shape as well as colour (red error, yellow warning). */
export function SeverityBadge({ severity }: { severity: 'error' | 'warning' }) {
  return (
    <span class={`badge badge-${severity}`}>
      <span aria-hidden="true">{severity === 'error' ? '✖ ' : '▲ '}</span>
      {severity === 'error' ? 'Error' : 'Warning'}
    </span>
  );
}

export function Notice({ kind, children }: { kind: 'success' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role="status">
      {children}
    </div>
  );
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Moves focus to a page's heading when the page changes, so keyboard and screen-reader users follow. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  useEffect(() => {
    document.title = `${ref.current?.textContent?.trim() || 'Page'} – Compliance console`;
  });
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** A page whose object could not be loaded: its error, and the way back to its list. */
export function LoadFailed({ title, error, back }: { title: string; error: ApiError; back: { href: string; label: string } }) {
  return (
    <>
      <PageHeading>{title}</PageHeading>
      <ErrorSummary error={error} />
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    </>
  );
}

/** A product's gate (its last evaluation's policy status) in words and a symbol as well as colour. */
export const GATE_TEXT = { fail: 'Fail', warn: 'Warning', pass: 'Pass', none: 'Not evaluated' } as const;
export type GateValue = keyof typeof GATE_TEXT;
export function GateBadge({ gate }: { gate: GateValue | null }) {
  const value = gate ?? 'none';
  const symbol = { fail: '✖', warn: '▲', pass: '✔', none: '○' }[value];
  return (
    <span class={`badge gate-${value}`}>
      <span aria-hidden="true">{symbol} </span>
      {GATE_TEXT[value]}
    </span>
  );
}
