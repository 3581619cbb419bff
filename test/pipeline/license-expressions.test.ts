/**
 * License expressions judged by their meaning, through the real pipeline (API writes → stream →
 * router → queue → evaluator): an OR with a compliant choice does not violate, an AND does, a
 * concluded MIT on a GPL package resolves the violation, categories flag licenses without a usage
 * policy, unknown licenses have their own rule, and adopting a reference license with a policy
 * re-evaluates what names it. Each product's outcome is read once a marker violation shows that an
 * evaluation after the change has run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestStack, teamApi } from '../support/local-stack.ts';
import { aTeam, type Team } from '../support/factories.ts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let team: Team;

const { ok } = teamApi(() => stack.apiUrl, () => team.keys);

type ViolationAnswer = { rule_type: string; violation_count: number };
const violations = async (product: string): Promise<ViolationAnswer[]> => ok('GET', `/api/v2/products/${product}/policy_violations/`);
const ruleTypes = (list: ViolationAnswer[]) => list.map((v) => v.rule_type).sort();
const behind = async (product: string, rule: string) => (await ok('GET', `/api/v2/products/${product}/policy_violations/${rule}/packages/`)).results;

let counter = 0;
const aPackage = async (licenseExpression: string) => (await ok('POST', '/api/v2/packages/', { purl: `pkg:npm/expr-${++counter}@1.0.0`, license_expression: licenseExpression })).uuid as string;
const aProduct = async (name: string) => (await ok('POST', '/api/v2/products/', { name }, 'alice')).uuid as string;
const add = async (product: string, pkg: string, extra: Record<string, unknown> = {}) =>
  (await ok('POST', '/api/v2/product_packages/', { product, package: pkg, ...extra }, 'alice')).uuid as string;

/**
 * Adds a package without a license to the product and waits for its coverage gap: the evaluation
 * that records it ran after every earlier write, so what it did not record does not hold.
 */
async function settled(product: string): Promise<ViolationAnswer[]> {
  await add(product, await aPackage(''));
  return eventually(() => violations(product), (list) => list.some((v) => v.rule_type === 'license_coverage_gap'));
}

beforeAll(async () => {
  stack = await startTestStack();
  team = await aTeam(stack.env, { acme: { users: { root: { superuser: true }, alice: {} } } });
  await ok('POST', '/api/v2/usage_policies/', { label: 'Prohibited', content_type: 'license', compliance_alert: 'error' });
  await ok('POST', '/api/v2/licenses/', { key: 'gpl-3.0', name: 'GNU GPL 3.0', usage_policy: 'Prohibited' });
  await ok('POST', '/api/v2/licenses/', { key: 'mit', name: 'MIT License', spdx_license_key: 'MIT' });
  await ok('PUT', '/api/v2/policy_rules/', {
    license_policy_error: { is_active: true },
    license_coverage_gap: { is_active: true },
    license_unknown: { is_active: true },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('license expressions through the pipeline', () => {
  it('MIT OR GPL-3.0-only with GPL prohibited does not violate: the product can take MIT', async () => {
    const product = await aProduct('Choice');
    await add(product, await aPackage('MIT OR GPL-3.0-only'));
    expect(ruleTypes(await settled(product))).toEqual(['license_coverage_gap']);
  }, 60_000);

  it('MIT AND GPL-3.0-only violates, and the drill-down names GPL', async () => {
    const product = await aProduct('Both');
    const pkg = await aPackage('MIT AND GPL-3.0-only');
    await add(product, pkg);
    const list = await eventually(() => violations(product), (l) => l.some((v) => v.rule_type === 'license_policy_error'));
    expect(list.find((v) => v.rule_type === 'license_policy_error')?.violation_count).toBe(1);
    expect(await behind(product, 'license_policy_error')).toEqual([
      expect.objectContaining({ uuid: pkg, reasons: ['gpl-3.0'], license_expression: 'mit AND gpl-3.0', concluded: false, no_compliant_choice: false }),
    ]);
  }, 60_000);

  it('a concluded MIT on a GPL-3.0-only package resolves the violation; clearing it brings it back', async () => {
    const product = await aProduct('Concluded');
    const pp = await add(product, await aPackage('GPL-3.0-only'));
    await eventually(() => violations(product), (l) => ruleTypes(l).join() === 'license_policy_error');
    expect((await ok('PATCH', `/api/v2/product_packages/${pp}/`, { license_expression: 'MIT' }, 'alice')).license_expression).toBe('mit');
    await eventually(() => violations(product), (l) => l.length === 0);
    // is_deployed changes no rule's outcome (and starts no evaluation); the concluded expression does.
    await ok('PATCH', `/api/v2/product_packages/${pp}/`, { is_deployed: false }, 'alice');
    await ok('PATCH', `/api/v2/product_packages/${pp}/`, { license_expression: '' }, 'alice');
    await eventually(() => violations(product), (l) => ruleTypes(l).join() === 'license_policy_error');
    // A concluded GPL on an MIT package: the concluded one is judged, and the drill-down says so.
    const mitPackage = await aPackage('MIT');
    await add(product, mitPackage, { license_expression: 'GPL-3.0-only AND MIT' });
    await eventually(() => violations(product), (l) => l.find((v) => v.rule_type === 'license_policy_error')?.violation_count === 2);
    expect((await behind(product, 'license_policy_error')).find((entry: { uuid: string }) => entry.uuid === mitPackage)).toMatchObject({
      reasons: ['gpl-3.0'],
      license_expression: 'gpl-3.0 AND mit',
      concluded: true,
    });
  }, 90_000);

  it('license_unknown counts free text and unknown symbols, which are no coverage gap', async () => {
    const product = await aProduct('Unknown');
    const free = await aPackage('SEE LICENSE IN LICENSE.md');
    const symbol = await aPackage('MIT OR LicenseRef-acme-internal');
    await add(product, free);
    await add(product, symbol);
    const list = await settled(product);
    expect(list.map((v) => [v.rule_type, v.violation_count]).sort()).toEqual([
      ['license_coverage_gap', 1],
      ['license_unknown', 2],
    ]);
    const unknown = await behind(product, 'license_unknown');
    expect(unknown.map((entry: { uuid: string; reasons: string[] }) => [entry.uuid, entry.reasons]).sort()).toEqual(
      [
        [free, ['SEE LICENSE IN LICENSE.md']],
        [symbol, ['LicenseRef-acme-internal']],
      ].sort(),
    );
  }, 60_000);

  it('categories flag licenses without a usage policy; an OR of two flagged licenses leaves no compliant choice', async () => {
    const product = await aProduct('Categories');
    const choice = await aPackage('GPL-2.0-only OR AGPL-3.0-only');
    const permissive = await aPackage('GPL-2.0-only OR Apache-2.0');
    await add(product, choice);
    await add(product, permissive);
    expect(ruleTypes(await settled(product))).toEqual(['license_coverage_gap']);
    // Saving the configuration re-evaluates the dataspace.
    await ok('PATCH', '/api/v2/policy_rules/', { license_policy_error: { is_active: true, parameters: { categories: ['Copyleft'] } } });
    await eventually(() => violations(product), (l) => l.some((v) => v.rule_type === 'license_policy_error'));
    expect(await behind(product, 'license_policy_error')).toEqual([
      expect.objectContaining({ uuid: choice, reasons: ['agpl-3.0', 'gpl-2.0'], license_expression: 'gpl-2.0 OR agpl-3.0', no_compliant_choice: true }),
    ]);
    const rules = await ok('GET', '/api/v2/policy_rules/');
    expect(rules.find((r: { rule_type: string }) => r.rule_type === 'license_policy_error').parameters).toEqual({ categories: ['Copyleft'] });
    await ok('PATCH', '/api/v2/policy_rules/', { license_policy_error: { is_active: true } });
    await eventually(() => violations(product), (l) => !l.some((v) => v.rule_type === 'license_policy_error'));
  }, 90_000);

  it('adopting a reference license with a usage policy re-evaluates the products whose expressions name its key', async () => {
    const product = await aProduct('Adopted');
    await add(product, await aPackage('ISC'));
    expect(ruleTypes(await settled(product))).toEqual(['license_coverage_gap']);
    await ok('POST', '/api/v2/licenses/', { key: 'isc', name: 'ISC License', usage_policy: 'Prohibited' });
    await eventually(() => violations(product), (l) => l.some((v) => v.rule_type === 'license_policy_error'));
    expect((await behind(product, 'license_policy_error'))[0].reasons).toEqual(['isc']);
  }, 60_000);

  it('a license mapping made later resolves the packages already there in the background, which are evaluated again; the mapping is audited', async () => {
    const product = await aProduct('Mapped later');
    // ScanCode knows no `Foo Corp Licence`: an unknown license, until the dataspace says what it is.
    const pkg = await aPackage('Foo Corp Licence AND MIT');
    await add(product, pkg);
    expect((await settled(product)).map((v) => v.rule_type).sort()).toEqual(['license_coverage_gap', 'license_unknown']);
    const mapping = await ok('POST', '/api/v2/license_mappings/', { text: 'FOO CORP LICENSE', license_expression: 'GPL-3.0-only' });
    // The stream queues the mapping; the re-resolver writes the package; its change queues the product.
    const resolved = await eventually(() => ok('GET', `/api/v2/packages/${pkg}/`), (p) => p.unknown_licenses.length === 0);
    expect(resolved).toMatchObject({
      license_expression: 'gpl-3.0 AND mit',
      declared_license_expression: 'Foo Corp Licence AND MIT',
      resolved_from: [{ written: 'Foo Corp Licence', license_expression: 'gpl-3.0', by: 'mapping', rule: mapping.uuid }],
    });
    const list = await eventually(() => violations(product), (l) => !l.some((v) => v.rule_type === 'license_unknown') && l.some((v) => v.rule_type === 'license_policy_error'));
    expect(ruleTypes(list)).toEqual(['license_coverage_gap', 'license_policy_error']);
    expect((await behind(product, 'license_policy_error')).map((entry: { uuid: string }) => entry.uuid)).toEqual([pkg]);
    const audit = await eventually(
      () => ok('GET', `/api/v2/audit_events/?object_type=license_mapping`),
      (page) => page.results.some((r: { object: string }) => r.object === mapping.uuid),
    );
    expect(audit.results.find((r: { object: string }) => r.object === mapping.uuid)).toMatchObject({
      action: 'create',
      user: 'root',
      changes: { text: [null, 'FOO CORP LICENSE'], license_expression: [null, 'gpl-3.0'] },
    });
  }, 90_000);
});
