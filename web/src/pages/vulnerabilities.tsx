/**
 * Vulnerabilities: the published advisories the deployment holds (by ecosystem: records, last loaded,
 * last synced); the dataspace's vulnerabilities with their source, aliases and risk (score and band, in
 * words and colour); one vulnerability (#/vulnerabilities/<uuid>) with the packages it affects and the
 * versions that fix each, the products that hold them (by name) and the triage analyses recorded for it
 * in those products.
 */
import { useState } from 'preact/hooks';
import { ErrorSummary, LoadFailed, Loading, PageHeading, Pager, formatDate, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { lastSegment } from '../lib/catalog-display.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import type { AdvisorySource, Analysis, ProductPackage, Vulnerability } from './catalog-types.ts';
import type { Product } from './types.ts';
import { FixedIn, ProductLink, Purl, RiskBadge, useProducts } from './catalog-parts.tsx';

const PAGE_SIZE = 20;
/** A detail page follows at most this many affected packages, and products, each one call or two. */
const MAX_FOLLOWED = 10;

export function VulnerabilitiesPage({ session, segments, query }: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  const [, uuid] = segments;
  return uuid ? <VulnerabilityPage session={session} uuid={uuid} /> : <VulnerabilityList session={session} query={query} />;
}

function VulnerabilityList({ session, query }: { session: Session; query: URLSearchParams }) {
  const id = query.get('vulnerability_id') ?? undefined;
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(
    () => session.api.get<Page<Vulnerability>>('/api/v2/vulnerabilities/', { vulnerability_id: id, page, page_size: PAGE_SIZE }),
    query.toString(),
  );
  return (
    <>
      <PageHeading>Vulnerabilities</PageHeading>
      <AdvisorySources session={session} />
      <IdFilter key={id ?? ''} initial={id ?? ''} />
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !list.data && <Loading what="vulnerabilities" />}
      {list.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Vulnerabilities (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Vulnerabilities</caption>
              <thead>
                <tr>
                  <th scope="col">Vulnerability</th>
                  <th scope="col">Source</th>
                  <th scope="col">Summary</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Affected packages</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((vulnerability) => (
                  <tr key={vulnerability.uuid}>
                    <td>
                      <a href={href(['vulnerabilities', vulnerability.uuid])}>{vulnerability.vulnerability_id}</a>
                      {vulnerability.aliases.length > 0 && <span class="hint">{vulnerability.aliases.join(', ')}</span>}
                    </td>
                    <td>{SOURCE_WORDS[vulnerability.source]}</td>
                    <td>{vulnerability.summary || <span class="muted">none</span>}</td>
                    <td>
                      <RiskBadge score={vulnerability.risk_score} />
                    </td>
                    <td>{vulnerability.affected_packages.length}</td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={5}>
                      {id ? `No vulnerability ${id}.` : 'No vulnerabilities yet: a published advisory that matches a package, or an SBOM with vulnerabilities (or a VEX), adds them.'}
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={list.data} current={page} segments={['vulnerabilities']} query={{ vulnerability_id: id }} label="vulnerabilities" />
        </>
      )}
    </>
  );
}

/** Where a vulnerability came from (its `source`), in words. */
const SOURCE_WORDS: Record<Vulnerability['source'], string> = {
  osv: 'published advisory',
  sbom: 'SBOM or VEX',
  manual: 'typed in',
};

/** The published advisories the deployment holds: what a user needs to trust an empty list. */
function AdvisorySources({ session }: { session: Session }) {
  const sources = useLoad(() => session.api.get<Page<AdvisorySource>>('/api/v2/advisory_sources/', { page_size: 100 }), '');
  if (sources.error) return <ErrorSummary error={sources.error} title="The published advisories could not be read." />;
  if (!sources.data) return null;
  const list = sources.data.results;
  return (
    <section aria-labelledby="advisory-sources" class="advisory-sources">
      <h2 id="advisory-sources">Published advisories</h2>
      {list.length === 0 ? (
        <p>
          No published advisories are loaded: only vulnerabilities typed in or brought by SBOMs are known. An administrator loads them with{' '}
          <code>npm run admin -- vulnerabilities load</code>, or deploys the scheduled sync.
        </p>
      ) : (
        <ul class="plain">
          {list.map((source) => (
            <li key={source.ecosystem}>
              <strong>{source.ecosystem}</strong>: {source.records === null ? 'records not counted yet' : `${source.records.toLocaleString('en')} records`}, last{' '}
              {source.last_synced_date ? `synced ${formatDate(source.last_synced_date)}` : `loaded ${formatDate(source.last_loaded_date)} (not synced)`}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function IdFilter({ initial }: { initial: string }) {
  const [value, setValue] = useState(initial);
  return (
    <form
      role="search"
      aria-label="Vulnerabilities"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['vulnerabilities'], { vulnerability_id: value.trim() });
      }}
    >
      <div class="field">
        <label for="vulnerability-id">Vulnerability id (exact)</label>
        <input id="vulnerability-id" type="search" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
      </div>
      <div class="actions">
        <button type="submit">Find</button>
        {initial && <a href={href(['vulnerabilities'])}>Clear</a>}
      </div>
    </form>
  );
}

interface Affected {
  /** The product packages of the affected packages (those the caller may view). */
  readonly held: readonly ProductPackage[];
  /** The analyses of this vulnerability in the products that hold them. */
  readonly analyses: readonly Analysis[];
  /** Product packages and affected packages not followed (past MAX_FOLLOWED). */
  readonly more: number;
}

function VulnerabilityPage({ session, uuid }: { session: Session; uuid: string }) {
  const vulnerability = useLoad(() => session.api.get<Vulnerability>(`/api/v2/vulnerabilities/${encodeURIComponent(uuid)}/`), uuid);
  const affected = useLoad(async (): Promise<Affected | undefined> => {
    const v = vulnerability.data;
    if (!v) return undefined;
    const packages = v.affected_packages.slice(0, MAX_FOLLOWED).map((affected) => lastSegment(affected.package));
    const all = (
      await Promise.all(packages.map((pkg) => session.api.get<Page<ProductPackage>>('/api/v2/product_packages/', { package: pkg, page_size: 100 })))
    ).flatMap((page) => page.results);
    const productUuids = [...new Set(all.map((pp) => lastSegment(pp.product)))].slice(0, MAX_FOLLOWED);
    const followed = new Set(productUuids);
    const held = all.filter((pp) => followed.has(lastSegment(pp.product)));
    const analyses = (
      await Promise.all(productUuids.map((product) => session.api.get<Page<Analysis>>('/api/v2/vulnerability_analyses/', { product, page_size: 100 })))
    )
      .flatMap((page) => page.results)
      .filter((analysis) => analysis.vulnerability_id === v.vulnerability_id);
    return { held, analyses, more: all.length - held.length + Math.max(0, v.affected_packages.length - packages.length) };
  }, vulnerability.data ? `${uuid}\n${vulnerability.data.vulnerability_id}` : '');
  const products = useProducts(session, (affected.data?.held ?? []).map((pp) => lastSegment(pp.product)));

  if (vulnerability.error && !vulnerability.data) {
    return <LoadFailed title="Vulnerability" error={vulnerability.error} back={{ href: href(['vulnerabilities']), label: 'Back to the vulnerabilities' }} />;
  }
  if (!vulnerability.data) return <Loading what="the vulnerability" />;
  const v = vulnerability.data;
  const purlOf = new Map(v.affected_packages.map((affected) => [lastSegment(affected.package), affected.purl]));
  const heldBy = new Map((affected.data?.held ?? []).map((pp) => [pp.uuid, pp]));
  return (
    <>
      <p class="breadcrumb">
        <a href={href(['vulnerabilities'])}>Vulnerabilities</a> /
      </p>
      <PageHeading>{v.vulnerability_id}</PageHeading>
      <dl class="details">
        <dt>Risk</dt>
        <dd>
          <RiskBadge score={v.risk_score} />
        </dd>
        <dt>Source</dt>
        <dd>{SOURCE_WORDS[v.source]}</dd>
        <dt>Summary</dt>
        <dd>{v.summary || '—'}</dd>
        <dt>Aliases</dt>
        <dd>{v.aliases.length > 0 ? v.aliases.join(', ') : '—'}</dd>
      </dl>

      <section aria-labelledby="affected-packages">
        <h2 id="affected-packages">Affected packages</h2>
        {v.affected_packages.length === 0 ? (
          <p>It affects no package of the catalog.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Affected packages (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Packages affected by {v.vulnerability_id}</caption>
              <thead>
                <tr>
                  <th scope="col">Package</th>
                  <th scope="col">Fixed in</th>
                  <th scope="col">Linked</th>
                </tr>
              </thead>
              <tbody>
                {v.affected_packages.map((affected) => (
                  <tr key={affected.package}>
                    <td>
                      <a href={href(['packages', lastSegment(affected.package)])}>
                        <Purl purl={affected.purl} />
                      </a>
                    </td>
                    <td>{affected.fixed_versions.length > 0 ? <FixedIn versions={affected.fixed_versions} /> : <span class="muted">no fix known</span>}</td>
                    <td>
                      {formatDate(affected.linked_date)}
                      {affected.matched_by && <span class="hint">matched by {affected.matched_by}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="affected-products">
        <h2 id="affected-products">Affected products</h2>
        {affected.error && <ErrorSummary error={affected.error} />}
        {(affected.loading || products.loading) && !products.data && <Loading what="the affected products" />}
        {affected.data && products.data && (
          <AffectedProducts held={affected.data.held} products={products.data} purlOf={purlOf} />
        )}
        {affected.data && affected.data.more > 0 && (
          <p class="hint">
            The first {MAX_FOLLOWED} affected packages and products are shown: open an affected package for all the products that use it.
          </p>
        )}
      </section>

      <section aria-labelledby="analyses">
        <h2 id="analyses">Analyses</h2>
        {affected.data && products.data && (
          <Analyses analyses={affected.data.analyses} heldBy={heldBy} products={products.data} purlOf={purlOf} />
        )}
      </section>
    </>
  );
}

function AffectedProducts({ held, products, purlOf }: { held: readonly ProductPackage[]; products: ReadonlyMap<string, Product>; purlOf: ReadonlyMap<string, string> }) {
  if (held.length === 0) return <p>No product you can see holds an affected package.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="group" aria-label="Affected products (scrolls sideways)">
      <table>
        <caption class="visually-hidden">Products holding an affected package</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Package</th>
            <th scope="col">Deployed</th>
          </tr>
        </thead>
        <tbody>
          {held.map((pp) => {
            const product = products.get(lastSegment(pp.product));
            const pkg = lastSegment(pp.package);
            return (
              <tr key={pp.uuid}>
                <td>{product ? <ProductLink product={product} /> : <span class="muted">a product you cannot see</span>}</td>
                <td>
                  <a href={href(['packages', pkg])}>
                    <Purl purl={purlOf.get(pkg) ?? pkg} />
                  </a>
                </td>
                <td>{pp.is_deployed ? 'Yes' : 'No'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const words = (value: string | null) => (value ? value.replace(/_/g, ' ') : '—');

function Analyses({
  analyses,
  heldBy,
  products,
  purlOf,
}: {
  analyses: readonly Analysis[];
  heldBy: ReadonlyMap<string, ProductPackage>;
  products: ReadonlyMap<string, Product>;
  purlOf: ReadonlyMap<string, string>;
}) {
  if (analyses.length === 0) return <p>No analysis recorded yet in the products you can see.</p>;
  return (
    <div class="table-wrap" tabIndex={0} role="group" aria-label="Analyses (scrolls sideways)">
      <table>
        <caption class="visually-hidden">Analyses of this vulnerability</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Package</th>
            <th scope="col">State</th>
            <th scope="col">Justification</th>
            <th scope="col">Responses</th>
            <th scope="col">Detail</th>
            <th scope="col">Last modified</th>
          </tr>
        </thead>
        <tbody>
          {analyses.map((analysis) => {
            const pp = heldBy.get(lastSegment(analysis.product_package));
            const product = pp && products.get(lastSegment(pp.product));
            const pkg = pp && lastSegment(pp.package);
            return (
              <tr key={analysis.uuid}>
                <td>{product ? <ProductLink product={product} /> : '—'}</td>
                <td>{pkg ? <Purl purl={purlOf.get(pkg) ?? pkg} /> : '—'}</td>
                <td>{words(analysis.state)}</td>
                <td>{words(analysis.justification)}</td>
                <td>{analysis.responses.length > 0 ? analysis.responses.map(words).join(', ') : '—'}</td>
                <td class="pre">{analysis.detail || '—'}</td>
                <td>{formatDate(analysis.last_modified_date)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
