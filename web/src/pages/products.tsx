/** The product list: filters (name, version, gate), pages, each product's gate, selection with the bulk action "Evaluate policy rules", and create. */
import { useEffect, useState } from 'preact/hooks';
import { ErrorSummary, FieldError, GATE_TEXT, GateBadge, Loading, Notice, PageHeading, Pager, fieldMessages, formatDate, invalidProps, useAction, useLoad, type GateValue } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';
import type { Product } from './types.ts';

export function ProductList({ session, query }: { session: Session; query: URLSearchParams }) {
  const gate = query.get('gate');
  const filters = {
    name: query.get('name') ?? undefined,
    version: query.get('version') ?? undefined,
    // Only the API's values reach it (an address edited by hand shows every product rather than a 400).
    gate: gate !== null && gate in GATE_TEXT ? gate : undefined,
  };
  const page = Number(query.get('page') ?? 1);
  const list = useLoad(
    () => session.api.get<Page<Product>>('/api/v2/products/', { ...filters, page, page_size: 20 }),
    query.toString(),
  );
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // A selection belongs to one search: new filters start a new one (pages of the same search keep it).
  const search = `${filters.name ?? ''}\n${filters.version ?? ''}\n${filters.gate ?? ''}`;
  useEffect(() => setSelected(new Set()), [search]);
  const [queued, setQueued] = useState<string | undefined>();
  const bulk = useAction(async () => {
    const answer = await session.api.post<{ status: string; products: number }>('/api/v2/products/evaluate_policy_rules/', { products: [...selected] });
    setQueued(`Evaluation queued for ${answer.products} ${answer.products === 1 ? 'product' : 'products'}.`);
    setSelected(new Set());
  });
  const onPage = list.data?.results ?? [];
  const selectedHere = onPage.filter((product) => selected.has(product.uuid)).length;
  const allSelected = onPage.length > 0 && selectedHere === onPage.length;
  const elsewhere = selected.size - selectedHere;
  const toggle = (uuid: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(uuid);
    else next.delete(uuid);
    setSelected(next);
  };

  return (
    <>
      <PageHeading>Products</PageHeading>
      <SearchForm key={search} initial={filters} />
      {list.error && <ErrorSummary error={list.error} />}
      {list.loading && !list.data && <Loading what="products" />}
      {list.data && (
        <form
          aria-label="Selected products"
          onSubmit={async (event) => {
            event.preventDefault();
            setQueued(undefined);
            await bulk.run();
          }}
        >
          {session.isSuperuser && (
            <div class="toolbar">
              <button type="submit" disabled={selected.size === 0 || bulk.running}>
                {bulk.running ? 'Queuing…' : 'Evaluate policy rules'}
              </button>
              <span class="hint" aria-live="polite">
                {selected.size} selected{elsewhere > 0 && ` (${elsewhere} on other pages)`}
              </span>
              {selected.size > 0 && (
                <button type="button" class="secondary" onClick={() => setSelected(new Set())}>
                  Clear selection
                </button>
              )}
            </div>
          )}
          {queued && <Notice kind="success">{queued}</Notice>}
          <ErrorSummary error={bulk.error} />
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Products</caption>
              <thead>
                <tr>
                  {session.isSuperuser && (
                    <th scope="col" class="select">
                      <input
                        type="checkbox"
                        aria-label="Select all products on this page"
                        checked={allSelected}
                        indeterminate={selectedHere > 0 && !allSelected}
                        onChange={(event) => {
                          const next = new Set(selected);
                          for (const product of onPage) event.currentTarget.checked ? next.add(product.uuid) : next.delete(product.uuid);
                          setSelected(next);
                        }}
                      />
                    </th>
                  )}
                  <th scope="col">Name</th>
                  <th scope="col">Version</th>
                  <th scope="col">Gate</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Last modified</th>
                </tr>
              </thead>
              <tbody>
                {onPage.map((product) => (
                  <tr key={product.uuid}>
                    {session.isSuperuser && (
                      <td class="select">
                        <input
                          type="checkbox"
                          aria-label={`Select ${product.name} ${product.version}`}
                          checked={selected.has(product.uuid)}
                          onChange={(event) => toggle(product.uuid, event.currentTarget.checked)}
                        />
                      </td>
                    )}
                    <td>
                      <a href={href(['products', product.uuid])}>{product.name}</a>
                    </td>
                    <td>{product.version || '—'}</td>
                    <td>
                      <GateBadge gate={product.gate} />
                    </td>
                    <td>{product.created_by}</td>
                    <td>{formatDate(product.last_modified_date)}</td>
                  </tr>
                ))}
                {onPage.length === 0 && (
                  <tr>
                    <td colSpan={session.isSuperuser ? 6 : 5}>No products{filters.name || filters.version || filters.gate ? ' match these filters' : ' yet'}.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={list.data} current={page} segments={['products']} query={filters} label="products" />
        </form>
      )}
      <CreateProduct session={session} />
    </>
  );
}

function SearchForm({ initial }: { initial: { name: string | undefined; version: string | undefined; gate: string | undefined } }) {
  const [name, setName] = useState(initial.name ?? '');
  const [version, setVersion] = useState(initial.version ?? '');
  const [gate, setGate] = useState(initial.gate ?? '');
  return (
    <form
      role="search"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['products'], { name: name.trim(), version: version.trim(), gate });
      }}
    >
      <div class="field">
        <label for="search-name">Name (exact)</label>
        <input id="search-name" type="search" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="search-version">Version (exact)</label>
        <input id="search-version" type="search" value={version} onInput={(event) => setVersion(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="search-gate">Gate</label>
        <select
          id="search-gate"
          value={gate}
          // Applied by Search, as the other filters are (a choice alone changes nothing on the page: WCAG 3.2.2).
          onChange={(event) => setGate(event.currentTarget.value)}
        >
          <option value="">Any gate</option>
          {(Object.keys(GATE_TEXT) as GateValue[]).map((value) => (
            <option key={value} value={value}>
              {GATE_TEXT[value]}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit">Search</button>
        {(initial.name || initial.version || initial.gate) && <a href={href(['products'])}>Clear</a>}
      </div>
    </form>
  );
}

function CreateProduct({ session }: { session: Session }) {
  const [name, setName] = useState('');
  const [version, setVersion] = useState('');
  const create = useAction(() => session.api.post<Product>('/api/v2/products/', { name, version }));
  const nameErrors = fieldMessages(create.error, 'name');
  const versionErrors = fieldMessages(create.error, 'version');
  return (
    <section aria-labelledby="create-product">
      <h2 id="create-product">Create a product</h2>
      <form
        class="stacked"
        onSubmit={async (event) => {
          event.preventDefault();
          const product = await create.run();
          if (product) navigate(['products', product.uuid]);
        }}
      >
        <ErrorSummary error={create.error} fields={['name', 'version']} />
        <div class="field">
          <label for="product-name">Name</label>
          <input id="product-name" required maxLength={70} value={name} onInput={(event) => setName(event.currentTarget.value)} {...invalidProps('product-name', nameErrors)} />
          <FieldError id="product-name" messages={nameErrors} />
        </div>
        <div class="field">
          <label for="product-version">Version</label>
          <input id="product-version" maxLength={50} value={version} onInput={(event) => setVersion(event.currentTarget.value)} {...invalidProps('product-version', versionErrors)} />
          <FieldError id="product-version" messages={versionErrors} />
        </div>
        <button type="submit" disabled={create.running}>
          {create.running ? 'Creating…' : 'Create product'}
        </button>
      </form>
    </section>
  );
}
