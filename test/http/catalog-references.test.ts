/**
 * A license or usage policy that other catalog objects still name cannot go away:
 * deleting it, or changing what they name it by (key, label, content type), answers 409 with how many
 * objects use it, and changes nothing. The references are counted in the writes' own transactions,
 * so a write that adds a reference and a delete cannot both succeed.
 */
import { describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/keys.ts';
import { useHttpTeam } from '../support/http-team.ts';

const http = useHttpTeam({ acme: { users: { root: { superuser: true } } } });
const { call, snapshot } = http;

let counter = 0;
const unique = (stem: string) => `${stem}-${++counter}`;

const create = async (collection: string, body: unknown) => {
  const response = await call('root', 'POST', `/api/v2/${collection}/`, body);
  expect(response.status, response.text).toBe(201);
  return response.json as { uuid: string } & Record<string, unknown>;
};
const path = (collection: string, uuid: string) => `/api/v2/${collection}/${uuid}/`;

/** The write is refused with 409 and the detail, and the table is as it was. */
async function refused(method: string, url: string, detail: string, body?: unknown) {
  const before = await snapshot();
  const response = await call('root', method, url, body);
  expect(response.status, response.text).toBe(409);
  expect(response.json).toEqual({ detail });
  expect(await snapshot()).toBe(before);
}

describe('deleting a license', () => {
  it('is refused while packages name it in their expressions, counting them, and allowed once none does', async () => {
    const license = await create('licenses', { key: unique('gpl'), name: 'GPL' });
    const other = await create('licenses', { key: unique('mit'), name: 'MIT' });
    const first = await create('packages', { purl: `pkg:npm/${unique('a')}@1`, license_expression: `${license.key} OR ${other.key}` });
    const second = await create('packages', { purl: `pkg:npm/${unique('b')}@1`, license_expression: `${other.key} AND ${license.key}` });
    await refused('DELETE', path('licenses', license.uuid), 'This license is still used by 2 objects: 2 packages.');
    expect((await call('root', 'GET', path('licenses', license.uuid))).status).toBe(200);

    expect((await call('root', 'PATCH', path('packages', first.uuid), { license_expression: other.key })).status).toBe(200);
    await refused('DELETE', path('licenses', license.uuid), 'This license is still used by 1 object: 1 package.');
    expect((await call('root', 'DELETE', path('packages', second.uuid))).status).toBe(204);
    expect((await call('root', 'DELETE', path('licenses', license.uuid))).status).toBe(204);
    expect((await call('root', 'GET', path('licenses', license.uuid))).status).toBe(404);
    await refused('DELETE', path('licenses', other.uuid), 'This license is still used by 1 object: 1 package.');
  });

  it('counts a package written before references were counted only once it is written again, never below zero', async () => {
    const license = await create('licenses', { key: unique('old'), name: 'Old' });
    const [old, again] = [await create('packages', { purl: `pkg:npm/${unique('old')}@1`, license_expression: license.key }), await create('packages', { purl: `pkg:npm/${unique('old')}@1`, license_expression: license.key })];
    // As if written before the counters existed: the references were never counted, and the items say so.
    const { doc, tableName } = http.env;
    for (const pkg of [old, again]) {
      await doc.send(new UpdateCommand({ TableName: tableName, Key: keys.catalogObject('PACKAGE', pkg.uuid), UpdateExpression: 'REMOVE refsCounted' }));
    }
    await doc.send(new UpdateCommand({ TableName: tableName, Key: keys.catalogUnique('LICENSE', 'acme', license.key as string), UpdateExpression: 'REMOVE usedByPackages' }));

    // Deleting one uncounted package counts nothing down; the other, rewritten, is counted from then on.
    expect((await call('root', 'DELETE', path('packages', old.uuid))).status).toBe(204);
    expect((await call('root', 'PATCH', path('packages', again.uuid), { filename: 'counted-now.tgz' })).status).toBe(200);
    const fresh = await create('packages', { purl: `pkg:npm/${unique('new')}@1`, license_expression: license.key });
    await refused('DELETE', path('licenses', license.uuid), 'This license is still used by 2 objects: 2 packages.');
    expect((await call('root', 'DELETE', path('packages', again.uuid))).status).toBe(204);
    await refused('DELETE', path('licenses', license.uuid), 'This license is still used by 1 object: 1 package.');
    expect((await call('root', 'DELETE', path('packages', fresh.uuid))).status).toBe(204);
    expect((await call('root', 'DELETE', path('licenses', license.uuid))).status).toBe(204);
  });

  it('is refused when a package is created naming it at the same moment: never both', async () => {
    for (let round = 0; round < 8; round++) {
      const license = await create('licenses', { key: unique('race'), name: 'Race' });
      const [deleted, created] = await Promise.all([
        call('root', 'DELETE', path('licenses', license.uuid)),
        call('root', 'POST', '/api/v2/packages/', { purl: `pkg:npm/${unique('racer')}@1`, license_expression: license.key }),
      ]);
      const outcome = `${deleted.status} ${created.status}`;
      // A key that names no license is kept as an unknown license, never refused: the
      // package is created either way, naming the license (then the delete is refused) or an unknown one.
      expect(['204 201', '409 201'], `${outcome}: ${deleted.text} ${created.text}`).toContain(outcome);
      if (deleted.status === 204) {
        expect(created.json).toMatchObject({ license_expression: 'unknown-license-reference', unknown_licenses: [license.key] });
      } else {
        expect(created.json).toMatchObject({ license_expression: license.key, unknown_licenses: [] });
      }
    }
  });

  it('refuses changing the key of a license in use, which would leave its packages naming nothing', async () => {
    const license = await create('licenses', { key: unique('bsd'), name: 'BSD' });
    await create('packages', { purl: `pkg:npm/${unique('c')}@1`, license_expression: license.key });
    await refused('PATCH', path('licenses', license.uuid), 'This license is still used by 1 object: 1 package.', { key: unique('bsd-new') });
    expect((await call('root', 'PATCH', path('licenses', license.uuid), { name: 'BSD 3' })).status).toBe(200);
  });
});

describe('license expressions', () => {
  it('name at most 40 licenses, so that one write transaction can count them all', async () => {
    const keys = Array.from({ length: 41 }, (_, i) => `k${i}`);
    const response = await call('root', 'POST', '/api/v2/packages/', { purl: `pkg:npm/${unique('many')}@1`, license_expression: keys.join(' OR ') });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ license_expression: ['Ensure this expression names no more than 40 licenses.'] });
  });
});

describe('deleting a usage policy', () => {
  it('is refused while licenses or packages carry it, counting each kind', async () => {
    const licensePolicy = await create('usage_policies', { label: unique('Copyleft'), content_type: 'license' });
    const packagePolicy = await create('usage_policies', { label: unique('Banned'), content_type: 'package' });
    const license = await create('licenses', { key: unique('agpl'), name: 'AGPL', usage_policy: licensePolicy.label });
    await create('licenses', { key: unique('lgpl'), name: 'LGPL', usage_policy: licensePolicy.label });
    const pkg = await create('packages', { purl: `pkg:npm/${unique('d')}@1`, usage_policy: packagePolicy.label });
    await create('packages', { purl: `pkg:npm/${unique('e')}@1`, usage_policy: packagePolicy.label });
    await create('packages', { purl: `pkg:npm/${unique('f')}@1`, usage_policy: packagePolicy.label });
    await refused('DELETE', path('usage_policies', licensePolicy.uuid), 'This usage policy is still used by 2 objects: 2 licenses.');
    await refused('DELETE', path('usage_policies', packagePolicy.uuid), 'This usage policy is still used by 3 objects: 3 packages.');
    await refused('PATCH', path('usage_policies', packagePolicy.uuid), 'This usage policy is still used by 3 objects: 3 packages.', { label: unique('Renamed') });
    await refused('PATCH', path('usage_policies', licensePolicy.uuid), 'This usage policy is still used by 2 objects: 2 licenses.', { content_type: 'package' });
    expect((await call('root', 'PATCH', path('usage_policies', packagePolicy.uuid), { compliance_alert: 'error' })).status).toBe(200);

    // Deleting the license, or clearing a package's policy, gives their uses back.
    expect((await call('root', 'DELETE', path('licenses', license.uuid))).status).toBe(204);
    await refused('DELETE', path('usage_policies', licensePolicy.uuid), 'This usage policy is still used by 1 object: 1 license.');
    expect((await call('root', 'PATCH', path('packages', pkg.uuid), { usage_policy: null })).status).toBe(200);
    await refused('DELETE', path('usage_policies', packagePolicy.uuid), 'This usage policy is still used by 2 objects: 2 packages.');
  });

  it('is allowed when nothing uses it', async () => {
    const policy = await create('usage_policies', { label: unique('Unused'), content_type: 'package' });
    const pkg = await create('packages', { purl: `pkg:npm/${unique('g')}@1`, usage_policy: policy.label });
    expect((await call('root', 'DELETE', path('packages', pkg.uuid))).status).toBe(204);
    expect((await call('root', 'DELETE', path('usage_policies', policy.uuid))).status).toBe(204);
  });
});
