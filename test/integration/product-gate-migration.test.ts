/**
 * Products written before gates have no entry in a gate's list: ?gate=none would miss them. migrateData
 * (npm start, the admin CLI's `migrate`, the stack's deployment trigger) gives each its `none` entry, in
 * list order, and leaves evaluated products alone; running it again changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { keys } from '../../shared/keys.ts';
import { migrateData } from '../../shared/store/migrations.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });

const names = async (query: string) => {
  const response = await http.call('root', 'GET', `/api/v2/products/?${query}`);
  expect(response.status, response.text).toBe(200);
  return { count: response.json.count as number, names: (response.json.results as { name: string }[]).map((product) => product.name) };
};

describe('the gate migration', () => {
  it('lists the products written before gates under none, once', async () => {
    const made: Record<string, string> = {};
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      const response = await http.call('root', 'POST', '/api/v2/products/', { name });
      expect(response.status).toBe(201);
      made[name] = response.json.uuid;
    }
    // Evaluated: Gamma passes (no rule is active).
    expect((await http.call('root', 'POST', `/api/v2/products/${made.Gamma}/evaluate_policy_rules/?wait=true`)).status).toBe(200);
    // Alpha and Beta as the earlier version wrote them: no gate entry.
    for (const name of ['Alpha', 'Beta']) {
      await http.env.doc.send(new UpdateCommand({ TableName: http.env.tableName, Key: keys.product(made[name]!), UpdateExpression: 'REMOVE GSI10PK, GSI10SK' }));
    }
    expect(await names('gate=none')).toEqual({ count: 2, names: [] });

    const report = await migrateData(http.env.doc, http.env.tableName);
    expect(report.productGatesIndexed).toBe(2);
    expect(await names('gate=none')).toEqual({ count: 2, names: ['Alpha', 'Beta'] });
    expect(await names('gate=pass')).toEqual({ count: 1, names: ['Gamma'] });
    expect((await migrateData(http.env.doc, http.env.tableName)).productGatesIndexed).toBe(0);
  });
});
