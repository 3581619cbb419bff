/**
 * Pieces the catalog pages (licenses, packages, vulnerabilities) share: tone badges for usage policies
 * and risk, purls as people read them, and the names of products and packages a page would otherwise
 * show as UUIDs.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorSummary, Notice, useAction, useLoad } from '../components.tsx';
import { displayPurl, policyTone, riskBand, TONE_SYMBOL, type Tone } from '../lib/catalog-display.ts';
import { ApiError, type Page } from '../lib/api-client.ts';
import { href } from '../router.ts';
import type { Session } from '../session.ts';
import type { Product } from './types.ts';
import type { UsagePolicy } from './catalog-types.ts';

export function ToneBadge({ tone, children }: { tone: Tone; children: ComponentChildren }) {
  return (
    <span class={`badge plain-case badge-${tone}`}>
      <span aria-hidden="true">{TONE_SYMBOL[tone]} </span>
      {children}
    </span>
  );
}

/** The dataspace's usage policies by label (one call: a dataspace has a handful). */
export function usePolicies(session: Session): ReadonlyMap<string, UsagePolicy> {
  const policies = useLoad(() => session.api.get<Page<UsagePolicy>>('/api/v2/usage_policies/', { page_size: 100 }), 'policies');
  return new Map((policies.data?.results ?? []).map((policy) => [policy.label, policy]));
}

/** A usage policy by its label, in its colour (error red, warning yellow, none green), its alert said in words too. */
export function PolicyBadge({ label, policies }: { label: string | null; policies: ReadonlyMap<string, UsagePolicy> }) {
  if (!label) return <span class="muted">none</span>;
  const policy = policies.get(label);
  const alert = policy?.compliance_alert;
  return (
    <ToneBadge tone={policyTone(alert)}>
      {label}
      {alert ? <span class="visually-hidden"> ({alert})</span> : null}
    </ToneBadge>
  );
}

/** A risk score with its band in words ("7.5 High"), coloured by the band. */
export function RiskBadge({ score }: { score: number | null }) {
  const band = riskBand(score);
  return <ToneBadge tone={band.tone}>{score === null ? band.label : `${score.toFixed(1)} ${band.label}`}</ToneBadge>;
}

export function Purl({ purl }: { purl: string }) {
  return <code class="purl">{displayPurl(purl)}</code>;
}

/**
 * The products of these uuids, by uuid (a product the caller cannot see is left out): read one by one,
 * as the API answers products by uuid; the pages pass at most a page of them (10 or 20: within the
 * API's burst of 20 a key on AWS).
 */
export function useProducts(session: Session, uuids: readonly string[]) {
  const unique = [...new Set(uuids)].sort();
  return useLoad(async () => {
    const found = await Promise.all(
      unique.map((uuid) =>
        session.api.get<Product>(`/api/v2/products/${encodeURIComponent(uuid)}/`).catch((error: unknown) => {
          // Only "not found" means "not yours to see"; anything else (a 429, a 503) is shown, to try again.
          if (error instanceof ApiError && error.status === 404) return undefined;
          throw error;
        }),
      ),
    );
    return new Map(found.filter((product): product is Product => product !== undefined).map((product) => [product.uuid, product]));
  }, unique.join(','));
}

/** A product by name (and version), linking to its page. */
export function ProductLink({ product }: { product: Product }) {
  return (
    <a href={href(['products', product.uuid])}>
      {product.name}
      {product.version ? ` ${product.version}` : ''}
    </a>
  );
}

/** The versions that fix a package, oldest first, as the advisory gives them. */
export function FixedIn({ versions }: { versions: readonly string[] }) {
  return (
    <span class="fixed-in">{versions.flatMap((version, i) => [...(i > 0 ? [', '] : []), <code key={version}>{version}</code>])}</span>
  );
}

/** Rows ticked on a catalog page, by uuid, for a bulk action (kept while the page shows them). */
export function useSelection() {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  return {
    selected,
    toggle(uuid: string, ticked: boolean) {
      const next = new Set(selected);
      if (ticked) next.add(uuid);
      else next.delete(uuid);
      setSelected(next);
    },
    set(uuids: readonly string[]) {
      setSelected(new Set(uuids));
    },
    clear() {
      setSelected(new Set());
    },
  };
}

/** The tick box of one row, named by what the row shows. */
export function RowCheckbox({ uuid, name, selection }: { uuid: string; name: string; selection: ReturnType<typeof useSelection> }) {
  return (
    <input type="checkbox" aria-label={`Select ${name}`} checked={selection.selected.has(uuid)} onChange={(event) => selection.toggle(uuid, event.currentTarget.checked)} />
  );
}

/** The header tick box: every row of the page, or none. */
export function AllRowsCheckbox({ uuids, selection, what }: { uuids: readonly string[]; selection: ReturnType<typeof useSelection>; what: string }) {
  const all = uuids.length > 0 && uuids.every((uuid) => selection.selected.has(uuid));
  return <input type="checkbox" aria-label={`Select every ${what} of this page`} checked={all} onChange={(event) => (event.currentTarget.checked ? selection.set(uuids) : selection.clear())} />;
}

/**
 * Assign a usage policy (or none) to the rows ticked (superusers): one PATCH of `usage_policy` each
 * through the API, four at a time; what failed is said by name with the API's message.
 */
export function AssignPolicy({
  session,
  kind,
  names,
  selection,
  onAssigned,
}: {
  session: Session;
  kind: 'license' | 'package';
  /** The rows' names by uuid, for the messages. */
  names: ReadonlyMap<string, string>;
  selection: ReturnType<typeof useSelection>;
  /** Reads the rows again; the outcome is said once it resolves (the table then shows it). */
  onAssigned: () => Promise<void>;
}) {
  const policies = useLoad(() => session.api.get<Page<UsagePolicy>>('/api/v2/usage_policies/', { page_size: 100 }), `assign:${kind}`);
  const choices = (policies.data?.results ?? []).filter((policy) => policy.content_type === kind);
  const [label, setLabel] = useState('');
  const [outcome, setOutcome] = useState<{ done: string; failed: string[] } | undefined>();
  const path = kind === 'license' ? '/api/v2/licenses/' : '/api/v2/packages/';
  const assign = useAction(async () => {
    setOutcome(undefined);
    const queue = [...selection.selected];
    const failed: string[] = [];
    let assigned = 0;
    await Promise.all(
      Array.from({ length: Math.min(4, queue.length) }, async () => {
        for (let uuid = queue.shift(); uuid !== undefined; uuid = queue.shift()) {
          try {
            await session.api.patch(`${path}${uuid}/`, { usage_policy: label === '' ? null : label });
            assigned++;
          } catch (error) {
            const message = error instanceof ApiError ? [...error.report.general, ...Object.values(error.report.fields).flat()].join(' ') : String(error);
            failed.push(`${names.get(uuid) ?? uuid}: ${message}`);
          }
        }
      }),
    );
    const policy = label === '' ? 'no usage policy' : `usage policy ${label}`;
    selection.clear();
    await onAssigned();
    setOutcome({ done: `${assigned} ${kind === 'license' ? (assigned === 1 ? 'license' : 'licenses') : assigned === 1 ? 'package' : 'packages'} now ${assigned === 1 ? 'has' : 'have'} ${policy}.`, failed });
  });
  const count = selection.selected.size;
  return (
    <form
      class="assign-policy inline-form"
      aria-label={`Assign a usage policy to the ${kind === 'license' ? 'licenses' : 'packages'} selected`}
      onSubmit={(event) => {
        event.preventDefault();
        void assign.run();
      }}
    >
      <div class="field">
        <label for={`assign-${kind}-policy`}>Usage policy for the {count === 1 ? `${kind} selected` : `${count} ${kind === 'license' ? 'licenses' : 'packages'} selected`}</label>
        <select id={`assign-${kind}-policy`} value={label} onChange={(event) => setLabel(event.currentTarget.value)}>
          <option value="">None</option>
          {choices.map((policy) => (
            <option key={policy.uuid} value={policy.label}>
              {policy.label}
              {policy.compliance_alert ? ` (${policy.compliance_alert})` : ''}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={count === 0 || assign.running}>
        {assign.running ? 'Assigning…' : 'Assign usage policy'}
      </button>
      <div aria-live="polite" class="assign-outcome">
        {outcome && <Notice kind="success">{outcome.done}</Notice>}
        {outcome && outcome.failed.length > 0 && <ErrorSummary error={{ general: outcome.failed, fields: {} }} title="Not assigned:" />}
      </div>
      <ErrorSummary error={policies.error} />
    </form>
  );
}
