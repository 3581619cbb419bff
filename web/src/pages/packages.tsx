/**
 * Packages: the dataspace's packages with the filters the API has, purls decoded for reading; and one
 * package (#/packages/<uuid>) with its fields, licenses, vulnerabilities and the products that use it.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorSummary, LoadFailed, Loading, PageHeading, Pager, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { displayPurl, expressionKeys, lastSegment } from '../lib/catalog-display.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import type { Package } from './types.ts';
import type { ProductPackage, Vulnerability } from './catalog-types.ts';
import { AllRowsCheckbox, AssignPolicy, PolicyBadge, ProductLink, Purl, RiskBadge, RowCheckbox, usePolicies, useProducts, useSelection } from './catalog-parts.tsx';

const PAGE_SIZE = 20;
/** Each product of a page of "Used in products" is one more call, for its name. */
const USED_IN_PAGE_SIZE = 10;
const FILTERS = ['search', 'name', 'version', 'type', 'purl', 'has_unknown_license', 'unknown_license'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

export function PackagesPage({ session, segments, query }: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  const [, uuid] = segments;
  return uuid ? <PackagePage session={session} uuid={uuid} query={query} /> : <PackageList session={session} query={query} />;
}

function PackageList({ session, query }: { session: Session; query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]).filter(([, value]) => value)) as Filters;
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(() => session.api.get<Page<Package>>('/api/v2/packages/', { ...filters, page, page_size: PAGE_SIZE }), query.toString());
  const policies = usePolicies(session);
  // Superusers assign usage policies to the rows they tick.
  const selection = useSelection();
  const assigning = session.isSuperuser;
  const rows = list.data?.results ?? [];
  return (
    <>
      <PageHeading>Packages</PageHeading>
      <PackageFilters key={JSON.stringify(filters)} initial={filters} />
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !list.data && <Loading what="packages" />}
      {list.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Packages (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Packages</caption>
              <thead>
                <tr>
                  {assigning && (
                    <th scope="col">
                      <AllRowsCheckbox uuids={rows.map((pkg) => pkg.uuid)} selection={selection} what="package" />
                    </th>
                  )}
                  <th scope="col">Package</th>
                  <th scope="col">License expression</th>
                  <th scope="col">Usage policy</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Vulnerabilities</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((pkg) => (
                  <tr key={pkg.uuid}>
                    {assigning && (
                      <td>
                        <RowCheckbox uuid={pkg.uuid} name={displayPurl(pkg.purl)} selection={selection} />
                      </td>
                    )}
                    <td>
                      <a href={href(['packages', pkg.uuid])}>
                        <Purl purl={pkg.purl} />
                      </a>
                    </td>
                    <td>
                      <LicenseText pkg={pkg} />
                    </td>
                    <td>
                      <PolicyBadge label={pkg.usage_policy} policies={policies} />
                    </td>
                    <td>{pkg.risk_score === null && pkg.affected_by_vulnerabilities.length === 0 ? <span class="muted">—</span> : <RiskBadge score={pkg.risk_score} />}</td>
                    <td>{pkg.affected_by_vulnerabilities.length || <span class="muted">0</span>}</td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={assigning ? 6 : 5}>{Object.keys(filters).length > 0 ? 'No package matches these filters.' : 'No packages yet: load an SBOM into a product.'}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {assigning && (
            <AssignPolicy session={session} kind="package" names={new Map(rows.map((pkg) => [pkg.uuid, displayPurl(pkg.purl)]))} selection={selection} onAssigned={list.reload} />
          )}
          <Pager page={list.data} current={page} segments={['packages']} query={filters} label="packages" />
        </>
      )}
    </>
  );
}

/** The effective license expression, and a word when it holds licenses nothing resolved. */
function LicenseText({ pkg }: { pkg: Package }) {
  if (!pkg.license_expression) return <span class="muted">none</span>;
  return (
    <>
      <code>{pkg.license_expression_spdx || pkg.license_expression}</code>
      {pkg.unknown_licenses.length > 0 && <span class="hint">unknown: {pkg.unknown_licenses.join(', ')}</span>}
    </>
  );
}

function PackageFilters({ initial }: { initial: Filters }) {
  const [values, setValues] = useState<Filters>(initial);
  const set = (name: keyof Filters) => (event: { currentTarget: { value: string } }) => setValues({ ...values, [name]: event.currentTarget.value });
  const text = (name: keyof Filters, label: string) => (
    <div class="field">
      <label for={`package-${name}`}>{label}</label>
      <input id={`package-${name}`} type="search" value={values[name] ?? ''} onInput={set(name)} />
    </div>
  );
  return (
    <form
      role="search"
      aria-label="Packages"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['packages'], Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value?.trim()])));
      }}
    >
      {text('search', 'Search packages')}
      {text('name', 'Name (exact)')}
      {text('version', 'Version (exact)')}
      {text('type', 'Type')}
      {text('purl', 'Package URL')}
      <div class="field">
        <label for="package-has_unknown_license">Unknown license</label>
        <select id="package-has_unknown_license" value={values.has_unknown_license ?? ''} onChange={set('has_unknown_license')}>
          <option value="">Any</option>
          <option value="true">With an unknown license</option>
          <option value="false">Without</option>
        </select>
      </div>
      {text('unknown_license', 'Unknown license text (exact)')}
      <div class="actions">
        <button type="submit">Filter packages</button>
        {Object.keys(initial).length > 0 && <a href={href(['packages'])}>Clear</a>}
      </div>
    </form>
  );
}

function PackagePage({ session, uuid, query }: { session: Session; uuid: string; query: URLSearchParams }) {
  const pkg = useLoad(() => session.api.get<Package>(`/api/v2/packages/${encodeURIComponent(uuid)}/`), uuid);
  const policies = usePolicies(session);
  if (pkg.error && !pkg.data) return <LoadFailed title="Package" error={pkg.error} back={{ href: href(['packages']), label: 'Back to the packages' }} />;
  if (!pkg.data) return <Loading what="the package" />;
  const p = pkg.data;
  const title = `${p.namespace ? `${p.namespace}/` : ''}${p.name}${p.version ? ` ${p.version}` : ''}`;
  return (
    <>
      <p class="breadcrumb">
        <a href={href(['packages'])}>Packages</a> /
      </p>
      <PageHeading>{title}</PageHeading>
      <dl class="details">
        <dt>Package URL</dt>
        <dd>
          <Purl purl={p.purl} />
        </dd>
        <dt>Type</dt>
        <dd>{p.type || '—'}</dd>
        <dt>Usage policy</dt>
        <dd>
          <PolicyBadge label={p.usage_policy} policies={policies} />
        </dd>
        <dt>Risk</dt>
        <dd>{p.risk_score === null ? 'No scored vulnerability' : <RiskBadge score={p.risk_score} />}</dd>
        {p.supplier && (
          <>
            <dt>Supplier</dt>
            <dd>{p.supplier}</dd>
          </>
        )}
        {p.description && (
          <>
            <dt>Description</dt>
            <dd>{p.description}</dd>
          </>
        )}
        {p.homepage_url && (
          <>
            <dt>Homepage</dt>
            <dd>
              <a href={p.homepage_url} rel="noopener noreferrer">
                {p.homepage_url}
              </a>
            </dd>
          </>
        )}
        {p.download_url && (
          <>
            <dt>Download</dt>
            <dd>
              <a href={p.download_url} rel="noopener noreferrer">
                {p.download_url}
              </a>
            </dd>
          </>
        )}
        {p.filename && (
          <>
            <dt>File name</dt>
            <dd>{p.filename}</dd>
          </>
        )}
        {p.copyright && (
          <>
            <dt>Copyright</dt>
            <dd class="pre">{p.copyright}</dd>
          </>
        )}
        {(['sha256', 'sha1', 'md5', 'sha512'] as const)
          .filter((hash) => p[hash])
          .map((hash) => (
            <Fragment key={hash}>
              <dt>{hash.toUpperCase()}</dt>
              <dd>
                <code>{p[hash]}</code>
              </dd>
            </Fragment>
          ))}
      </dl>

      <section aria-labelledby="package-licenses">
        <h2 id="package-licenses">Licenses</h2>
        <dl class="details">
          <dt>License expression</dt>
          <dd>{p.license_expression ? <code>{p.license_expression}</code> : <span class="muted">none</span>}</dd>
          <dt>As SPDX</dt>
          <dd>{p.license_expression_spdx ? <code>{p.license_expression_spdx}</code> : '—'}</dd>
          <dt>Declared</dt>
          <dd>{p.declared_license_expression || '—'}</dd>
          {p.unknown_licenses.length > 0 && (
            <>
              <dt>Unknown licenses</dt>
              <dd>{p.unknown_licenses.join(', ')}</dd>
            </>
          )}
          {expressionKeys(p.license_expression).some((key) => key !== 'unknown-license-reference') && (
            <>
              <dt>License keys</dt>
              <dd>
                <ul class="inline-list">
                  {expressionKeys(p.license_expression)
                    .filter((key) => key !== 'unknown-license-reference')
                    .map((key) => (
                      <li key={key}>
                        <a href={href(['licenses'], { key })}>{key}</a>
                      </li>
                    ))}
                </ul>
              </dd>
            </>
          )}
        </dl>
      </section>

      <section aria-labelledby="package-vulnerabilities">
        <h2 id="package-vulnerabilities">Vulnerabilities</h2>
        {p.affected_by_vulnerabilities.length === 0 ? <p>No known vulnerability affects this package.</p> : <VulnerabilityLinks session={session} ids={p.affected_by_vulnerabilities} />}
      </section>

      <UsedInProducts session={session} pkg={p} page={Number(query.get('page') ?? 1)} />
    </>
  );
}

/** The package's vulnerabilities by id, each found by `?vulnerability_id=` to link to its page. */
function VulnerabilityLinks({ session, ids }: { session: Session; ids: readonly string[] }) {
  const shown = ids.slice(0, 20);
  const found = useLoad(
    () => Promise.all(shown.map((id) => session.api.get<Page<Vulnerability>>('/api/v2/vulnerabilities/', { vulnerability_id: id }).then((page) => page.results[0]))),
    shown.join(','),
  );
  return (
    <>
      {found.error && <ErrorSummary error={found.error} />}
      <ul class="plain">
        {shown.map((id, index) => {
          const vulnerability = found.data?.[index];
          return (
            <li key={id}>
              {vulnerability ? <a href={href(['vulnerabilities', vulnerability.uuid])}>{id}</a> : id}{' '}
              {vulnerability && <RiskBadge score={vulnerability.risk_score} />}
              {vulnerability?.summary && <span class="hint">{vulnerability.summary}</span>}
            </li>
          );
        })}
      </ul>
      {ids.length > shown.length && <p class="hint">And {ids.length - shown.length} more.</p>}
    </>
  );
}

/** "Used in products": the products holding the package that the caller may view, by name. */
function UsedInProducts({ session, pkg, page }: { session: Session; pkg: Package; page: number }) {
  const held = useLoad(
    () => session.api.get<Page<ProductPackage>>('/api/v2/product_packages/', { package: pkg.uuid, page, page_size: USED_IN_PAGE_SIZE }),
    `${pkg.uuid}\n${page}`,
  );
  const products = useProducts(session, (held.data?.results ?? []).map((pp) => lastSegment(pp.product)));
  return (
    <section aria-labelledby="used-in-products">
      <h2 id="used-in-products">Used in products</h2>
      {held.error && <ErrorSummary error={held.error} />}
      {(held.loading || products.loading) && !products.data && <Loading what="the products" />}
      {held.data && products.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Products that use the package (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Products that use {displayPurl(pkg.purl)}</caption>
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Concluded license</th>
                  <th scope="col">Deployed</th>
                  <th scope="col">Modified</th>
                </tr>
              </thead>
              <tbody>
                {held.data.results.map((pp) => {
                  const product = products.data!.get(lastSegment(pp.product));
                  return (
                    <tr key={pp.uuid}>
                      <td>{product ? <ProductLink product={product} /> : <span class="muted">a product you cannot see</span>}</td>
                      <td>{pp.license_expression ? <code>{pp.license_expression}</code> : <span class="muted">the package's own</span>}</td>
                      <td>{pp.is_deployed ? 'Yes' : 'No'}</td>
                      <td>{pp.is_modified ? 'Yes' : 'No'}</td>
                    </tr>
                  );
                })}
                {held.data.results.length === 0 && (
                  <tr>
                    <td colSpan={4}>No product you can see uses this package.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={held.data} current={page} segments={['packages', pkg.uuid]} query={{}} label="products" />
        </>
      )}
    </section>
  );
}
