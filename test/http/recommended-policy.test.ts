/**
 * The recommended starting policy through the HTTP API: a preview that writes nothing, an apply that
 * creates the free usage policies and sets the rules left as they come, keeps what the dataspace set,
 * and changes nothing the second time; superusers only, each dataspace its own.
 */
import { describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {} } },
  beta: { users: { boss: { superuser: true } } },
});
const { call, snapshot } = http;

const ok = async (username: string, method: string, path: string, body?: unknown) => {
  const response = await call(username, method, path, body);
  expect(response.status, response.text).toBeLessThan(300);
  return response.json;
};

describe('/api/v2/policy_rules/recommended/', () => {
  it('is for superusers only', async () => {
    const before = await snapshot();
    expect((await call('alice', 'GET', '/api/v2/policy_rules/recommended/')).status).toBe(403);
    expect((await call('alice', 'POST', '/api/v2/policy_rules/recommended/')).status).toBe(403);
    // Access first, as in DRF: a body is judged only for who may apply.
    expect((await call('alice', 'POST', '/api/v2/policy_rules/recommended/', [1])).status).toBe(403);
    expect(await snapshot()).toBe(before);
  });

  it('takes no options: a body other than {} is a 400 that applies nothing', async () => {
    const before = await snapshot();
    const list = await call('boss', 'POST', '/api/v2/policy_rules/recommended/', []);
    expect(list.status).toBe(400);
    expect(list.json).toEqual({ non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    const option = await call('boss', 'POST', '/api/v2/policy_rules/recommended/', { only: 'rules' });
    expect(option.status).toBe(400);
    expect(option.json).toEqual({ only: ['Unknown field.'] });
    expect(await snapshot()).toBe(before);
  });

  it('previews without writing, applies keeping what the dataspace set, and changes nothing the second time', async () => {
    // What acme set before: a usage policy named Caution of its own, and the License Policy Error rule.
    await ok('root', 'POST', '/api/v2/usage_policies/', { label: 'Caution', content_type: 'package', compliance_alert: 'error', description: 'Ours.' });
    await ok('root', 'PATCH', '/api/v2/policy_rules/', { license_policy_error: { is_active: true, parameters: { categories: ['Copyleft'] } } });

    const before = await snapshot();
    const preview = await ok('root', 'GET', '/api/v2/policy_rules/recommended/');
    expect(await snapshot()).toBe(before);
    expect(preview.usage_policies.map((p: { label: string; action: string }) => `${p.label}:${p.action}`)).toEqual(['Approved:create', 'Caution:keep', 'Prohibited:create']);
    const actions = Object.fromEntries(preview.rules.map((r: { rule_type: string; action: string }) => [r.rule_type, r.action]));
    expect(actions).toMatchObject({ license_policy_error: 'keep', license_policy_warning: 'set', vulnerability_detected: 'set', vulnerability_unresolved: 'unchanged' });
    expect(preview.changes).toBe(2 + 7);
    expect(preview.rules.find((r: { rule_type: string }) => r.rule_type === 'vulnerability_detected').reason).toBe('A package has a known vulnerability with a risk score of 7 or more.');

    const applied = await ok('root', 'POST', '/api/v2/policy_rules/recommended/');
    expect(applied).toEqual(preview);
    const policies = (await ok('root', 'GET', '/api/v2/usage_policies/?page_size=100')).results as { label: string; content_type: string; compliance_alert: string; description: string }[];
    expect(policies.map((p) => [p.label, p.content_type, p.compliance_alert]).sort()).toEqual([
      ['Approved', 'license', ''],
      ['Caution', 'package', 'error'],
      ['Prohibited', 'license', 'error'],
    ]);
    const rules = Object.fromEntries(((await ok('root', 'GET', '/api/v2/policy_rules/')) as { rule_type: string; is_active: boolean; parameters: unknown }[]).map((r) => [r.rule_type, r]));
    expect(rules.license_policy_error).toMatchObject({ is_active: true, parameters: { categories: ['Copyleft'] } });
    expect(rules.license_policy_warning).toMatchObject({ is_active: true, parameters: { categories: ['Copyleft', 'Copyleft Limited'] } });
    expect(rules.vulnerability_detected).toMatchObject({ is_active: true, parameters: { min_risk_score: 7 } });
    expect(rules.vulnerability_unresolved).toMatchObject({ is_active: false });

    // Applied once: nothing more to do, and a second apply writes nothing.
    expect((await ok('root', 'GET', '/api/v2/policy_rules/recommended/')).changes).toBe(0);
    const afterFirst = await snapshot();
    expect((await ok('root', 'POST', '/api/v2/policy_rules/recommended/')).changes).toBe(0);
    expect(await snapshot()).toBe(afterFirst);

    // Another dataspace is untouched, and plans everything.
    expect((await ok('boss', 'GET', '/api/v2/policy_rules/recommended/')).changes).toBe(3 + 8);
    expect((await ok('boss', 'GET', '/api/v2/usage_policies/')).count).toBe(0);
  });
});
