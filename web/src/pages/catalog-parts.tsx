/**
 * Pieces the catalog pages (licenses, packages, vulnerabilities) share: tone badges for usage policies
 * and risk, purls as people read them, and the names of products and packages a page would otherwise
 * show as UUIDs.
 */
import type { ComponentChildren } from 'preact';
import { useLoad } from '../components.tsx';
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
