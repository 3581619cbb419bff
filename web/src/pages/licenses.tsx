/**
 * Licenses: the dataspace's licenses with the filters the API has (search, key, SPDX key, category,
 * exception), and the reference library (ScanCode LicenseDB) to search, with Adopt for superusers.
 */
import { useState } from 'preact/hooks';
import { ErrorSummary, Loading, Notice, PageHeading, Pager, useAction, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import { REFERENCE_CATEGORIES } from '../../../shared/domain/reference-license.ts';
import { AllRowsCheckbox, AssignPolicy, PolicyBadge, RowCheckbox, usePolicies, useSelection } from './catalog-parts.tsx';
import type { License, ReferenceLicense } from './catalog-types.ts';

const PAGE_SIZE = 20;
const FILTERS = ['search', 'key', 'spdx_license_key', 'category', 'is_exception'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]).filter(([, value]) => value)) as Filters;
}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function LicensesPage({ session, query }: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  const filters = filtersOf(query);
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(() => session.api.get<Page<License>>('/api/v2/licenses/', { ...filters, page, page_size: PAGE_SIZE }), query.toString());
  const policies = usePolicies(session);
  const filtered = Object.keys(filters).length > 0;
  // Superusers assign usage policies to the rows they tick.
  const selection = useSelection();
  const assigning = session.isSuperuser;
  const rows = list.data?.results ?? [];
  return (
    <>
      <PageHeading>Licenses</PageHeading>
      <LicenseFilters key={JSON.stringify(filters)} initial={filters} refSearch={query.get('ref') ?? undefined} />
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !list.data && <Loading what="licenses" />}
      {list.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Licenses of the dataspace (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Licenses of the dataspace</caption>
              <thead>
                <tr>
                  {assigning && (
                    <th scope="col">
                      <AllRowsCheckbox uuids={rows.map((license) => license.uuid)} selection={selection} what="license" />
                    </th>
                  )}
                  <th scope="col">Key</th>
                  <th scope="col">Name</th>
                  <th scope="col">SPDX id</th>
                  <th scope="col">Category</th>
                  <th scope="col">Usage policy</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((license) => (
                  <tr key={license.uuid}>
                    {assigning && (
                      <td>
                        <RowCheckbox uuid={license.uuid} name={license.key} selection={selection} />
                      </td>
                    )}
                    <td>
                      <code>{license.key}</code>
                    </td>
                    <td>
                      {license.name}
                      {license.is_exception && <span class="muted"> (exception)</span>}
                    </td>
                    <td>{license.spdx_license_key || <span class="muted">{license.license_expression_spdx}</span>}</td>
                    <td>{license.category || <span class="muted">none</span>}</td>
                    <td>
                      <PolicyBadge label={license.usage_policy} policies={policies} />
                    </td>
                  </tr>
                ))}
                {list.data.results.length === 0 && (
                  <tr>
                    <td colSpan={assigning ? 6 : 5}>{filtered ? 'No license matches these filters.' : 'No licenses yet: adopt some from the reference library below.'}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {assigning && <AssignPolicy session={session} kind="license" names={new Map(rows.map((license) => [license.uuid, license.key]))} selection={selection} onAssigned={list.reload} />}
          <Pager page={list.data} current={page} segments={['licenses']} query={{ ...filters, ref: query.get('ref') ?? undefined }} label="licenses" />
        </>
      )}
      <ReferenceLibrary session={session} query={query} onAdopted={list.reload} />
    </>
  );
}

function LicenseFilters({ initial, refSearch }: { initial: Filters; refSearch: string | undefined }) {
  const [values, setValues] = useState<Filters>(initial);
  const set = (name: keyof Filters) => (event: { currentTarget: { value: string } }) => setValues({ ...values, [name]: event.currentTarget.value });
  return (
    <form
      role="search"
      aria-label="Licenses"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['licenses'], { ...Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value?.trim()])), ref: refSearch });
      }}
    >
      <div class="field">
        <label for="license-search">Search licenses</label>
        <input id="license-search" type="search" value={values.search ?? ''} onInput={set('search')} />
      </div>
      <div class="field">
        <label for="license-key">Key (exact)</label>
        <input id="license-key" type="search" value={values.key ?? ''} onInput={set('key')} />
      </div>
      <div class="field">
        <label for="license-spdx">SPDX id</label>
        <input id="license-spdx" type="search" value={values.spdx_license_key ?? ''} onInput={set('spdx_license_key')} />
      </div>
      <div class="field">
        <label for="license-category">Category</label>
        <select id="license-category" value={values.category ?? ''} onChange={set('category')}>
          <option value="">Any</option>
          {REFERENCE_CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {category}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="license-exception">Exception</label>
        <select id="license-exception" value={values.is_exception ?? ''} onChange={set('is_exception')}>
          <option value="">Any</option>
          <option value="true">Exceptions only</option>
          <option value="false">Licenses only</option>
        </select>
      </div>
      <div class="actions">
        <button type="submit">Filter licenses</button>
        {Object.keys(initial).length > 0 && <a href={href(['licenses'], { ref: refSearch })}>Clear</a>}
      </div>
    </form>
  );
}

/**
 * The reference library, searched by `?ref=` in the console's route. A license already in the
 * dataspace (same key) shows "Adopted": the dataspace's licenses matching the same search are read once.
 */
function ReferenceLibrary({ session, query, onAdopted }: { session: Session; query: URLSearchParams; onAdopted: () => void }) {
  const search = query.get('ref') ?? '';
  const page = Number(query.get('ref_page') ?? 1);
  const [text, setText] = useState(search);
  const [adopted, setAdopted] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<string | undefined>();
  const references = useLoad(
    () =>
      search
        ? Promise.all([
            session.api.get<Page<ReferenceLicense>>('/api/v2/reference_licenses/', { search, page: page, page_size: 10 }),
            session.api.get<Page<License>>('/api/v2/licenses/', { search, page_size: 100 }),
          ])
        : Promise.resolve(undefined),
    `${search}\n${page}`,
  );
  const adopt = useAction(async (reference: ReferenceLicense) => {
    const license = await session.api.post<License>('/api/v2/licenses/', { key: reference.key });
    setAdopted(new Set([...adopted, license.key]));
    setNotice(`${license.name} (${license.key}) adopted into the dataspace.`);
    onAdopted();
  });
  const [found, own] = references.data ?? [];
  const ownKeys = new Set([...(own?.results ?? []).map((license) => license.key), ...adopted]);
  const otherQuery = Object.fromEntries([...query.entries()].filter(([name]) => name !== 'ref' && name !== 'ref_page'));
  return (
    <section aria-labelledby="reference-library">
      <h2 id="reference-library">Reference library</h2>
      <p class="hint">
        The {'ScanCode LicenseDB'} licenses every dataspace can use.{session.isSuperuser ? ' Adopt one to add it to the dataspace with its name, SPDX id and category.' : ''}
      </p>
      <form
        role="search"
        aria-label="Reference library"
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(['licenses'], { ...otherQuery, ref: text.trim() });
        }}
      >
        <div class="field">
          <label for="reference-search">Search the reference library</label>
          <input id="reference-search" type="search" value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </div>
        <div class="actions">
          <button type="submit">Search the library</button>
        </div>
      </form>
      {notice && <Notice kind="success">{notice}</Notice>}
      <ErrorSummary error={adopt.error} title="The license was not adopted." />
      {references.error && <ErrorSummary error={references.error} />}
      {search && references.loading && !references.data && <Loading what="reference licenses" />}
      {found && (
        <>
          <div class="table-wrap" tabIndex={0} role="group" aria-label="Reference licenses found (scrolls sideways)">
            <table>
              <caption class="visually-hidden">Reference licenses matching “{search}”</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Name</th>
                  <th scope="col">SPDX id</th>
                  <th scope="col">Category</th>
                  <th scope="col">In the dataspace</th>
                </tr>
              </thead>
              <tbody>
                {found.results.map((reference) => (
                  <tr key={reference.key}>
                    <td>
                      <code>{reference.key}</code>
                    </td>
                    <td>
                      {reference.name}
                      {reference.is_deprecated && <span class="muted"> (deprecated)</span>}
                    </td>
                    <td>{reference.spdx_license_key || <span class="muted">none</span>}</td>
                    <td>{reference.category}</td>
                    <td>
                      {ownKeys.has(reference.key) ? (
                        <span>
                          <span aria-hidden="true">✓ </span>Adopted
                        </span>
                      ) : reference.is_deprecated ? (
                        <span class="muted">Deprecated: not offered</span>
                      ) : session.isSuperuser ? (
                        <button type="button" class="secondary" disabled={adopt.running} onClick={() => void adopt.run(reference)}>
                          Adopt<span class="visually-hidden"> {reference.key}</span>
                        </button>
                      ) : (
                        <span class="muted">Not adopted</span>
                      )}
                    </td>
                  </tr>
                ))}
                {found.results.length === 0 && (
                  <tr>
                    <td colSpan={5}>No reference license matches “{search}”.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <RefPager page={found} current={page} query={{ ...otherQuery, ref: search }} />
        </>
      )}
    </section>
  );
}

/** The reference results' own pages (`ref_page`), beside the dataspace list's `page`. */
function RefPager({ page, current, query }: { page: Page<unknown>; current: number; query: Record<string, string> }) {
  const hasNext = page.next !== null;
  const hasPrevious = page.previous !== null;
  const count = `${page.count} reference ${page.count === 1 ? 'license' : 'licenses'}`;
  if (!hasNext && !hasPrevious) return <p class="count">{count}</p>;
  return (
    <nav class="pager" aria-label="Reference license pages">
      <span class="count">
        {count}, page {current}
      </span>
      {hasPrevious ? <a href={href(['licenses'], { ...query, ref_page: current - 1 })}>← Previous page</a> : <span aria-hidden="true" />}
      {hasNext && <a href={href(['licenses'], { ...query, ref_page: current + 1 })}>Next page →</a>}
    </nav>
  );
}
