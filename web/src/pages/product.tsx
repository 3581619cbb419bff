/** One product: details, packages, permissions (superusers and its creator), and the compliance tab. */
import { useState } from 'preact/hooks';
import { ErrorSummary, LoadFailed, FieldError, Loading, Notice, PageHeading, SeverityBadge, fieldMessages, groupErrorProps, formatDate, invalidProps, useAction, useLoad } from '../components.tsx';
import { apiPath, type Page } from '../lib/api-client.ts';
import { href } from '../router.ts';
import type { Session } from '../session.ts';
import type { Permissions, PolicyStatus, Product, Violation, ViolationPackage } from './types.ts';
import { Inventory, Waivers, inventoryFiltersOf } from './product-inventory.tsx';
import { SbomPanel } from './product-sbom.tsx';
import { displayPurl } from '../lib/catalog-display.ts';
import { productAbilities } from '../lib/abilities.ts';

const TABS = [
  { id: 'details', label: 'Details' },
  { id: 'packages', label: 'Packages' },
  { id: 'permissions', label: 'Permissions' },
  { id: 'compliance', label: 'Compliance' },
] as const;

export function ProductPage({ session, uuid, tab, query }: { session: Session; uuid: string; tab: string; query: URLSearchParams }) {
  const product = useLoad(() => session.api.get<Product>(`/api/v2/products/${encodeURIComponent(uuid)}/`), uuid);
  // Bumped by every SBOM import, so the inventory and the waivers are read again.
  const [imports, setImports] = useState(0);
  if (product.error && !product.data) return <LoadFailed title="Product" error={product.error} back={{ href: href(['products']), label: 'Back to the products' }} />;
  if (!product.data) return <Loading what="the product" />;
  const may = productAbilities(product.data, session);
  // The Permissions tab only for who may manage them; its address still says so to anyone else.
  const tabs = TABS.filter((candidate) => candidate.id !== 'permissions' || may.managePermissions);
  const current = TABS.find((candidate) => candidate.id === tab) ?? TABS[0];
  return (
    <>
      <p class="breadcrumb">
        <a href={href(['products'])}>Products</a> /
      </p>
      <PageHeading>
        {product.data.name} <span class="muted">{product.data.version}</span>
      </PageHeading>
      <ErrorSummary error={product.error} />
      <SbomPanel session={session} product={product.data} canChange={may.change} query={query} onImported={() => setImports((n) => n + 1)} />
      <nav class="tabs" aria-label="Product sections">
        <ul>
          {tabs.map((candidate) => (
            <li key={candidate.id}>
              <a href={href(['products', uuid, candidate.id])} aria-current={candidate.id === current.id ? 'page' : undefined}>
                {candidate.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section aria-labelledby="tab-heading">
        <h2 id="tab-heading">{current.label}</h2>
        {current.id === 'details' && <Details product={product.data} />}
        {current.id === 'packages' && (
          <Packages session={session} product={product.data} canChange={may.change} page={Number(query.get('page') ?? 1)} filters={inventoryFiltersOf(query)} generation={imports} />
        )}
        {current.id === 'permissions' && <PermissionsTab session={session} product={product.data} />}
        {current.id === 'compliance' && <Compliance session={session} product={product.data} canChange={may.change} />}
      </section>
    </>
  );
}

function Details({ product }: { product: Product }) {
  return (
    <dl class="details">
      <dt>Name</dt>
      <dd>{product.name}</dd>
      <dt>Version</dt>
      <dd>{product.version || '—'}</dd>
      <dt>Created by</dt>
      <dd>{product.created_by}</dd>
      <dt>Dataspace</dt>
      <dd>{product.dataspace}</dd>
      <dt>Created</dt>
      <dd>{formatDate(product.created_date)}</dd>
      <dt>Last modified</dt>
      <dd>{formatDate(product.last_modified_date)}</dd>
      <dt>UUID</dt>
      <dd>
        <code>{product.uuid}</code>
      </dd>
    </dl>
  );
}

function Packages({
  session,
  product,
  canChange,
  page,
  filters,
  generation,
}: {
  session: Session;
  product: Product;
  canChange: boolean;
  page: number;
  filters: ReturnType<typeof inventoryFiltersOf>;
  generation: number;
}) {
  const [purl, setPurl] = useState('');
  const [added, setAdded] = useState<string | undefined>();
  const [adds, setAdds] = useState(0);
  const add = useAction(async () => {
    await session.api.post('/api/v2/product_packages/', { product: product.uuid, package: purl.trim() });
    setAdded(`${displayPurl(purl.trim())} added. The product will be re-evaluated.`);
    setPurl('');
    setAdds((n) => n + 1);
  });
  const packageErrors = fieldMessages(add.error, 'package');
  return (
    <>
      <Inventory session={session} product={product} page={page} filters={filters} generation={generation + adds} />
      {canChange && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            setAdded(undefined);
            await add.run();
          }}
        >
          <h3>Add a package</h3>
          <ErrorSummary error={add.error} fields={['package']} />
          {added && <Notice kind="success">{added}</Notice>}
          <div class="field">
            <label for="add-package">Package URL or uuid (from the catalog)</label>
            <input id="add-package" required placeholder="pkg:npm/left-pad@1.3.0" value={purl} onInput={(event) => setPurl(event.currentTarget.value)} {...invalidProps('add-package', packageErrors)} />
            <FieldError id="add-package" messages={packageErrors} />
          </div>
          <button type="submit" disabled={add.running}>
            Add package
          </button>
        </form>
      )}
      <Waivers session={session} product={product} canChange={canChange} generation={generation} />
    </>
  );
}

const CODENAMES = ['view_product', 'change_product', 'delete_product'] as const;

function PermissionsTab({ session, product }: { session: Session; product: Product }) {
  const permissions = useLoad(() => session.api.get<Permissions>(`/api/v2/products/${product.uuid}/permissions/`), product.uuid);
  const [target, setTarget] = useState<'user' | 'group'>('user');
  const [name, setName] = useState('');
  const [codenames, setCodenames] = useState<ReadonlySet<string>>(new Set(['view_product']));
  const [done, setDone] = useState<string | undefined>();
  // The holders as read right after the last grant or revoke: the notice comes once the table shows them.
  const [fresh, setFresh] = useState<Permissions | undefined>();
  const change = useAction(async (method: 'POST' | 'DELETE') => {
    setDone(undefined);
    const path = `/api/v2/products/${product.uuid}/permissions/`;
    const answer = await session.api.call<{ status: string }>(method, path, { [target]: name.trim(), permissions: [...codenames] });
    setFresh(await session.api.get<Permissions>(path));
    setDone(`${answer.status[0]?.toUpperCase()}${answer.status.slice(1)} (${target} ${name.trim()}).`);
  });
  if (permissions.error?.status === 403) {
    return <p>Only superusers and the product's creator ({product.created_by}) manage its permissions.</p>;
  }
  if (permissions.error) return <ErrorSummary error={permissions.error} />;
  const holders = fresh ?? permissions.data;
  if (!holders) return <Loading what="permissions" />;
  const targetErrors = fieldMessages(change.error, target);
  const permissionErrors = fieldMessages(change.error, 'permissions');
  return (
    <>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Holder</th>
              <th scope="col">Permissions</th>
            </tr>
          </thead>
          <tbody>
            {holders.users.map((user) => (
              <tr key={`user:${user.username}`}>
                <td>
                  User <strong>{user.username}</strong>
                </td>
                <td>{user.object_permissions.join(', ')}</td>
              </tr>
            ))}
            {holders.groups.map((group) => (
              <tr key={`group:${group.name}`}>
                <td>
                  Group <strong>{group.name}</strong>
                </td>
                <td>{group.object_permissions.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          void change.run('POST');
        }}
      >
        <h3>Grant or revoke</h3>
        <ErrorSummary error={change.error} fields={[target, 'permissions']} />
        {done && <Notice kind="success">{done}</Notice>}
        <fieldset>
          <legend>To a</legend>
          {(['user', 'group'] as const).map((kind) => (
            <label key={kind} class="choice">
              <input type="radio" name="target" value={kind} checked={target === kind} onChange={() => setTarget(kind)} /> {kind === 'user' ? 'User' : 'Group'}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="permission-target">{target === 'user' ? 'Username' : 'Group name'}</label>
          <input id="permission-target" required value={name} onInput={(event) => setName(event.currentTarget.value)} {...invalidProps('permission-target', targetErrors)} />
          <FieldError id="permission-target" messages={targetErrors} />
        </div>
        <fieldset {...groupErrorProps('permission-codenames', permissionErrors)}>
          <legend>Permissions</legend>
          {CODENAMES.map((codename) => (
            <label key={codename} class="choice">
              <input
                type="checkbox"
                checked={codenames.has(codename)}
                onChange={(event) => {
                  const next = new Set(codenames);
                  if (event.currentTarget.checked) next.add(codename);
                  else next.delete(codename);
                  setCodenames(next);
                }}
              />{' '}
              {codename}
            </label>
          ))}
          <FieldError id="permission-codenames" messages={permissionErrors} />
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={change.running}>
            Grant
          </button>
          <button type="button" class="secondary" disabled={change.running} onClick={() => void change.run('DELETE')}>
            Revoke
          </button>
        </div>
      </form>
    </>
  );
}

const STATUS_TEXT: Record<PolicyStatus['status'], string> = {
  fail: 'Fail: at least one error violation',
  warn: 'Warn: warning violations only',
  pass: 'Pass: no active violations',
};

function summary(violations: readonly Violation[]): string {
  const errors = violations.filter((v) => v.rule_severity === 'error').length;
  const warnings = violations.length - errors;
  return `${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`;
}

/** The policy violations panel: active violations, errors first, and the re-evaluate button. */
function Compliance({ session, product, canChange }: { session: Session; product: Product; canChange: boolean }) {
  const base = `/api/v2/products/${product.uuid}`;
  const state = useLoad(
    async () => {
      const [violations, status] = await Promise.all([session.api.get<Violation[]>(`${base}/policy_violations/`), session.api.get<PolicyStatus>(`${base}/policy_status/`)]);
      return { violations, status };
    },
    product.uuid,
  );
  // What the last re-evaluation answered: shown at once, together with its announcement.
  const [evaluated, setEvaluated] = useState<{ violations: Violation[]; status: PolicyStatus } | undefined>();
  const [announcement, setAnnouncement] = useState<string | undefined>();
  const evaluate = useAction(async () => {
    const violations = await session.api.post<Violation[]>(`${base}/evaluate_policy_rules/?wait=true`);
    const status = await session.api.get<PolicyStatus>(`${base}/policy_status/`);
    setEvaluated({ violations, status });
    setAnnouncement(`Evaluation finished: ${summary(violations)}.`);
  });
  const shown = evaluated ?? state.data;
  return (
    <>
      {canChange && (
        <div class="toolbar">
          <button
            type="button"
            aria-describedby="evaluate-hint"
            disabled={evaluate.running}
            onClick={() => {
              setAnnouncement(undefined);
              void evaluate.run();
            }}
          >
            {evaluate.running ? 'Evaluating…' : 'Re-evaluate'}
          </button>
          <span id="evaluate-hint" class="hint">
            Runs the dataspace's active policy rules against this product now.
          </span>
        </div>
      )}
      <div aria-live="polite" class="progress-area">
        {evaluate.running && (
          <p role="status" class="progress">
            <progress aria-label="Evaluating the policy rules" /> Evaluating the policy rules…
          </p>
        )}
        {announcement && !evaluate.running && <Notice kind="success">{announcement}</Notice>}
      </div>
      <ErrorSummary error={evaluate.error} />
      {state.error && !evaluated && <ErrorSummary error={state.error} />}
      {state.loading && !shown && <Loading what="the compliance state" />}
      {shown && (
        <>
          <p class={`status status-${shown.status.status}`}>
            <strong>{STATUS_TEXT[shown.status.status]}</strong>
            {' · '}
            {shown.status.evaluated_at ? `evaluated ${formatDate(shown.status.evaluated_at)}` : 'not evaluated yet'}
          </p>
          <h3>Policy violations</h3>
          {shown.violations.length === 0 ? (
            <p>No active policy violations.</p>
          ) : (
            <ul class="violations" aria-label="Active policy violations">
              {shown.violations.map((violation) => (
                // A new evaluation remounts each item, so an open drill-down shows the packages of now.
                <ViolationItem key={`${violation.rule_type}@${shown.status.evaluated_at ?? ''}`} session={session} product={product} violation={violation} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}

function ViolationItem({ session, product, violation }: { session: Session; product: Product; violation: Violation }) {
  const [open, setOpen] = useState(false);
  const panelId = `violation-${violation.rule_type}-packages`;
  return (
    <li class={`violation violation-${violation.rule_severity}`} data-rule-type={violation.rule_type}>
      <div class="violation-head">
        <SeverityBadge severity={violation.rule_severity} />
        <h4>{violation.rule_label}</h4>
        <span class="count-pill">
          {violation.violation_count} {violation.violation_count === 1 ? 'package' : 'packages'}
        </span>
      </div>
      <p>{violation.rule_reason}</p>
      <p class="muted">
        {violation.rule_description} Detected {formatDate(violation.detected_date)}.
      </p>
      <button type="button" class="link" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)}>
        {open ? 'Hide the packages' : 'Show the packages in violation'}
      </button>
      {open && (
        <div id={panelId}>
          <ViolationPackages session={session} product={product} ruleType={violation.rule_type} />
        </div>
      )}
    </li>
  );
}

function ViolationPackages({ session, product, ruleType }: { session: Session; product: Product; ruleType: string }) {
  const [path, setPath] = useState(`/api/v2/products/${product.uuid}/policy_violations/${ruleType}/packages/?page_size=20`);
  const packages = useLoad(() => session.api.get<Page<ViolationPackage>>(path), path);
  if (packages.error) return <ErrorSummary error={packages.error} />;
  if (!packages.data) return <Loading what="packages" />;
  return (
    <>
      <ul class="plain">
        {packages.data.results.map((pkg) => (
          <li key={pkg.uuid}>
            <span class="purl">{displayPurl(pkg.purl)}</span>
            {pkg.reasons.length > 0 && <span class="muted"> ({pkg.reasons.join(', ')})</span>}
          </li>
        ))}
      </ul>
      <div class="actions">
        {packages.data.previous && (
          <button type="button" class="link" onClick={() => setPath(apiPath(packages.data!.previous!))}>
            Previous packages
          </button>
        )}
        {packages.data.next && (
          <button type="button" class="link" onClick={() => setPath(apiPath(packages.data!.next!))}>
            More packages
          </button>
        )}
      </div>
    </>
  );
}
