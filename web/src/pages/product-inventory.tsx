/**
 * A product's inventory: its packages (decoded purls; the effective license, concluded or declared; each
 * license's usage policy in colour and words; vulnerabilities with their risk and the versions that fix
 * each), paged as the API pages them; and the product's policy waivers (what is waived until when,
 * Revoke, Add waiver).
 */
import { useState } from 'preact/hooks';
import { ErrorSummary, FieldError, Loading, Notice, Pager, fieldMessages, formatDate, invalidProps, useAction, useLoad } from '../components.tsx';
import type { Page } from '../lib/api-client.ts';
import { RULES, RULE_TYPES, type RuleType } from '../lib/policy-form.ts';
import { effectiveLicense } from '../lib/sbom-upload.ts';
import { displayPurl, expressionKeys, policyTone, TONE_SYMBOL } from '../lib/catalog-display.ts';
import type { Session } from '../session.ts';
import { navigate } from '../router.ts';
import { FixedIn } from './catalog-parts.tsx';
import type { Product } from './types.ts';
import type { InventoryLicense as License, InventoryPackage, InventoryUsagePolicy as UsagePolicy, ProductWaiver as PolicyWaiver } from './product-types.ts';

export const INVENTORY_PAGE_SIZE = 50;

/** Every page of a list (the dataspace's licenses and usage policies: tens, not thousands). */
async function allPages<T>(session: Session, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const answer = await session.api.get<Page<T>>(path, { page, page_size: 100 });
    items.push(...answer.results);
    if (!answer.next) break;
  }
  return items;
}

interface PolicyIndex {
  /** license key → its usage policy label (or null) */
  readonly licenses: ReadonlyMap<string, string | null>;
  /** license key → its SPDX id, when the dataspace license has one: licenses are shown by it, the key on hover */
  readonly spdx: ReadonlyMap<string, string>;
  /** usage policy label → its compliance alert */
  readonly policies: ReadonlyMap<string, UsagePolicy>;
}

/** The inventory's filters (the API's), kept in the page's address. */
export const INVENTORY_FILTERS = ['search', 'license', 'usage_policy', 'has_unknown_license', 'vulnerable'] as const;
type InventoryFilters = Partial<Record<(typeof INVENTORY_FILTERS)[number], string>>;

export function inventoryFiltersOf(query: URLSearchParams): InventoryFilters {
  return Object.fromEntries(INVENTORY_FILTERS.map((name) => [name, query.get(name) ?? undefined]).filter(([, value]) => value)) as InventoryFilters;
}

export function Inventory({ session, product, page, generation, filters = {} }: { session: Session; product: Product; page: number; generation: number; filters?: InventoryFilters }) {
  const filterKey = JSON.stringify(filters);
  const loaded = useLoad(
    async () => ({ page, answer: await session.api.get<Page<InventoryPackage>>(`/api/v2/products/${product.uuid}/packages/`, { ...filters, page, page_size: INVENTORY_PAGE_SIZE }) }),
    `${page}@${generation}@${filterKey}`,
  );
  // Another page's rows are never shown under this page's number (while the new page loads).
  const packages = { ...loaded, data: loaded.data?.page === page ? loaded.data.answer : undefined };
  const index = useLoad(async (): Promise<PolicyIndex> => {
    const [licenses, policies] = await Promise.all([allPages<License>(session, '/api/v2/licenses/'), allPages<UsagePolicy>(session, '/api/v2/usage_policies/')]);
    return {
      licenses: new Map(licenses.map((license) => [license.key, license.usage_policy])),
      spdx: new Map(licenses.filter((license) => license.spdx_license_key !== '').map((license) => [license.key, license.spdx_license_key])),
      policies: new Map(policies.map((policy) => [policy.label, policy])),
    };
  }, String(generation));
  return (
    <>
      <h3 id="inventory-heading">Inventory</h3>
      <InventoryFilterForm key={filterKey} product={product} initial={filters} policies={[...(index.data?.policies.values() ?? [])].filter((policy) => policy.content_type === 'package')} errors={packages.error} />
      {packages.error && <ErrorSummary error={packages.error} fields={[...INVENTORY_FILTERS]} />}
      {index.error && <ErrorSummary error={index.error} title="Usage policies could not be read." />}
      {packages.loading && !packages.data && <Loading what="packages" />}
      {packages.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Inventory table (scrolls sideways)">
            <table aria-labelledby="inventory-heading" class="inventory">
              <thead>
                <tr>
                  <th scope="col">Package</th>
                  <th scope="col">License</th>
                  <th scope="col">Usage policy</th>
                  <th scope="col">Vulnerabilities</th>
                </tr>
              </thead>
              <tbody>
                {packages.data.results.map((pkg) => (
                  <InventoryRow key={pkg.uuid} pkg={pkg} index={index.data} />
                ))}
                {packages.data.results.length === 0 && (
                  <tr>
                    <td colSpan={4}>{Object.keys(filters).length > 0 ? 'No package of this product matches these filters.' : 'This product has no packages yet: upload an SBOM or add a package.'}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={packages.data} current={page} segments={['products', product.uuid, 'packages']} query={filters} label="packages" />
        </>
      )}
    </>
  );
}

function InventoryRow({ pkg, index }: { pkg: InventoryPackage; index: PolicyIndex | undefined }) {
  const license = effectiveLicense(pkg);
  const keys = expressionKeys(license.expression);
  return (
    <tr data-purl={pkg.purl}>
      <td class="break">
        <span class="purl">{displayPurl(pkg.purl)}</span>
      </td>
      <td>
        {license.source === 'none' ? (
          <span class="muted">none</span>
        ) : (
          <>
            <code class="break" title={`ScanCode keys: ${license.expression}`}>
              {license.spdx || license.expression}
            </code>{' '}
            <span class={`mark mark-${license.source}`}>{license.source}</span>
          </>
        )}
      </td>
      <td>
        <ul class="plain policies">
          {pkg.usage_policy && (
            <li>
              <PolicyChip subject="package" label={pkg.usage_policy} index={index} />
            </li>
          )}
          {keys.map((key) => {
            const label = index?.licenses.get(key);
            return (
              <li key={key}>
                {label ? (
                  <PolicyChip subject={key} label={label} index={index} />
                ) : (
                  <span class="muted" title={key}>
                    {index?.spdx.get(key) ?? key}: no policy
                  </span>
                )}
              </li>
            );
          })}
          {!pkg.usage_policy && keys.length === 0 && <li class="muted">—</li>}
        </ul>
      </td>
      <td>
        {pkg.vulnerabilities.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          <>
            <ul class="plain">
              {pkg.vulnerabilities.map((vulnerability) => (
                <li key={vulnerability.vulnerability_id}>
                  <code>{vulnerability.vulnerability_id}</code>
                  {vulnerability.fixed_versions.length > 0 ? (
                    <span class="hint">
                      fixed in <FixedIn versions={vulnerability.fixed_versions} />
                    </span>
                  ) : (
                    <span class="hint muted">no fix known</span>
                  )}
                </li>
              ))}
            </ul>
            {pkg.risk_score !== null && <span class="risk">risk {pkg.risk_score.toFixed(1)}</span>}
          </>
        )}
      </td>
    </tr>
  );
}

function PolicyChip({ subject, label, index }: { subject: string; label: string; index: PolicyIndex | undefined }) {
  const policy = index?.policies.get(label);
  const tone = policyTone(policy?.compliance_alert);
  const alert = policy?.compliance_alert ? ` (${policy.compliance_alert})` : '';
  return (
    <span class={`policy policy-${tone}`} data-tone={tone} title={subject === 'package' ? undefined : `license key: ${subject}`}>
      <span aria-hidden="true">{TONE_SYMBOL[tone]} </span>
      {subject === 'package' ? subject : (index?.spdx.get(subject) ?? subject)}: {label}
      <span class="visually-hidden">{alert}</span>
    </span>
  );
}

/** Date input value (YYYY-MM-DD) → the end of that day in UTC, as the API takes it. */
function endOfDay(date: string): string {
  return `${date}T23:59:59Z`;
}

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export function Waivers({ session, product, canChange, generation }: { session: Session; product: Product; canChange: boolean; generation: number }) {
  const base = `/api/v2/products/${product.uuid}/policy_waivers/`;
  const waivers = useLoad(() => session.api.get<Page<PolicyWaiver>>(base, { page_size: 100 }), String(generation));
  const [rule, setRule] = useState<RuleType>('license_policy_error');
  const [purl, setPurl] = useState('');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState(inDays(30));
  const [done, setDone] = useState<string | undefined>();
  const add = useAction(async () => {
    setDone(undefined);
    const body = { rule_type: rule, package: purl.trim() || null, reason, expires_at: endOfDay(expires) };
    const created = await session.api.post<PolicyWaiver>(base, body);
    // The notice once the table shows the waiver.
    await waivers.reload();
    setDone(`Waiver added: ${created.rule_label} for ${created.package ? displayPurl(created.package) : 'the whole product'} until ${formatDate(created.expires_at)}. The product will be re-evaluated.`);
    setPurl('');
    setReason('');
  });
  const revoke = useAction(async (waiver: PolicyWaiver) => {
    setDone(undefined);
    await session.api.delete(`${base}${waiver.uuid}/`);
    await waivers.reload();
    setDone(`Waiver revoked: ${waiver.rule_label} for ${waiver.package ? displayPurl(waiver.package) : 'the whole product'}.`);
  });
  const packageErrors = fieldMessages(add.error, 'package');
  const reasonErrors = fieldMessages(add.error, 'reason');
  const expiryErrors = fieldMessages(add.error, 'expires_at');
  const ruleErrors = fieldMessages(add.error, 'rule_type');
  return (
    <section aria-labelledby="waivers-heading" class="waivers">
      <h3 id="waivers-heading">Waivers</h3>
      <div aria-live="polite">{done && <Notice kind="success">{done}</Notice>}</div>
      <ErrorSummary error={revoke.error} />
      {waivers.error && <ErrorSummary error={waivers.error} />}
      {waivers.loading && !waivers.data && <Loading what="waivers" />}
      {waivers.data &&
        (waivers.data.results.length === 0 ? (
          <p>No waivers: every violation counts.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Waiver list (scrolls sideways)">
            <table aria-labelledby="waivers-heading">
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Package</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Expires</th>
                  {canChange && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {waivers.data.results.map((waiver) => (
                  <tr key={waiver.uuid}>
                    <td>{waiver.rule_label}</td>
                    <td class="break">{waiver.package ? displayPurl(waiver.package) : <em>the whole product</em>}</td>
                    <td>{waiver.reason}</td>
                    <td>
                      {formatDate(waiver.expires_at)}
                      {waiver.is_expired && <span class="mark mark-expired"> expired</span>}
                    </td>
                    {canChange && (
                      <td>
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Revoke the waiver of ${waiver.rule_label} for ${waiver.package ? displayPurl(waiver.package) : 'the whole product'}`}
                          disabled={revoke.running}
                          onClick={() => void revoke.run(waiver)}
                        >
                          Revoke
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      {canChange && (
        <form
          class="stacked"
          aria-labelledby="add-waiver-heading"
          onSubmit={(event) => {
            event.preventDefault();
            void add.run();
          }}
        >
          <h4 id="add-waiver-heading">Add waiver</h4>
          <ErrorSummary error={add.error} fields={['rule_type', 'package', 'reason', 'expires_at']} />
          <div class="field">
            <label for="waiver-rule">Rule</label>
            <select id="waiver-rule" value={rule} onChange={(event) => setRule(event.currentTarget.value as RuleType)} {...invalidProps('waiver-rule', ruleErrors)}>
              {RULE_TYPES.map((type) => (
                <option key={type} value={type}>
                  {RULES[type].label}
                </option>
              ))}
            </select>
            <FieldError id="waiver-rule" messages={ruleErrors} />
          </div>
          <div class="field">
            <label for="waiver-package">Package URL</label>
            <span class="hint" id="waiver-package-hint">
              Empty: the rule is waived for the whole product.
            </span>
            <input
              id="waiver-package"
              placeholder="pkg:npm/left-pad@1.3.0"
              value={purl}
              onInput={(event) => setPurl(event.currentTarget.value)}
              aria-describedby={packageErrors.length > 0 ? 'waiver-package-error' : 'waiver-package-hint'}
              {...(packageErrors.length > 0 ? { 'aria-invalid': true } : {})}
            />
            <FieldError id="waiver-package" messages={packageErrors} />
          </div>
          <div class="field">
            <label for="waiver-reason">Reason</label>
            <textarea id="waiver-reason" required rows={2} value={reason} onInput={(event) => setReason(event.currentTarget.value)} {...invalidProps('waiver-reason', reasonErrors)} />
            <FieldError id="waiver-reason" messages={reasonErrors} />
          </div>
          <div class="field">
            <label for="waiver-expires">Expires on (end of day, UTC)</label>
            <input id="waiver-expires" type="date" required value={expires} onInput={(event) => setExpires(event.currentTarget.value)} {...invalidProps('waiver-expires', expiryErrors)} />
            <FieldError id="waiver-expires" messages={expiryErrors} />
          </div>
          <button type="submit" disabled={add.running}>
            Add waiver
          </button>
        </form>
      )}
    </section>
  );
}

/** The inventory's filters, as the API filters it; applied through the page's address. */
function InventoryFilterForm({
  product,
  initial,
  policies,
  errors,
}: {
  product: Product;
  initial: InventoryFilters;
  policies: readonly UsagePolicy[];
  errors: Parameters<typeof fieldMessages>[0];
}) {
  const [values, setValues] = useState<InventoryFilters>(initial);
  const set = (name: keyof InventoryFilters) => (event: { currentTarget: { value: string } }) => setValues({ ...values, [name]: event.currentTarget.value });
  const yesNo = (name: 'has_unknown_license' | 'vulnerable', label: string, yes: string, no: string) => (
    <div class="field">
      <label for={`inventory-${name}`}>{label}</label>
      <select id={`inventory-${name}`} value={values[name] ?? ''} onChange={set(name)} {...invalidProps(`inventory-${name}`, fieldMessages(errors, name))}>
        <option value="">Any</option>
        <option value="true">{yes}</option>
        <option value="false">{no}</option>
      </select>
    </div>
  );
  return (
    <form
      role="search"
      aria-label="Inventory"
      class="filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(['products', product.uuid, 'packages'], Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value?.trim()])));
      }}
    >
      <div class="field">
        <label for="inventory-search">Name or purl</label>
        <input id="inventory-search" type="search" value={values.search ?? ''} onInput={set('search')} />
      </div>
      <div class="field">
        <label for="inventory-license">License key</label>
        <input id="inventory-license" type="search" placeholder="apache-2.0" value={values.license ?? ''} onInput={set('license')} />
      </div>
      <div class="field">
        <label for="inventory-usage-policy">Usage policy</label>
        <select id="inventory-usage-policy" value={values.usage_policy ?? ''} onChange={set('usage_policy')}>
          <option value="">Any</option>
          {policies.map((policy) => (
            <option key={policy.uuid} value={policy.label}>
              {policy.label}
            </option>
          ))}
        </select>
      </div>
      {yesNo('has_unknown_license', 'Unknown license', 'With one', 'Without')}
      {yesNo('vulnerable', 'Vulnerable', 'With a vulnerability', 'Without')}
      <div class="actions">
        <button type="submit">Filter the inventory</button>
        {Object.keys(initial).length > 0 && (
          <button type="button" class="link" onClick={() => navigate(['products', product.uuid, 'packages'], {})}>
            Clear
          </button>
        )}
      </div>
    </form>
  );
}
