/**
 * GET /api/v2/licenses/ filters (key, spdx_license_key, category, is_exception, search) through HTTP,
 * the category and is_exception fields on writes, and license items written before the folded copies
 * the filters read existed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useHttpTeam } from '../support/http-team.ts';
import { keys } from '../../shared/keys.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

const uuids: Record<string, string> = {};
const INTERNAL = 12;

async function create(body: Record<string, unknown>, as = 'root') {
  const response = await call(as, 'POST', '/api/v2/licenses/', body);
  expect(response.status, response.text).toBe(201);
  uuids[`${as}:${response.json.key as string}`] = response.json.uuid;
  return response.json;
}

/** The keys a query lists for alice (acme), every page followed. */
async function keysOf(query: string, as = 'alice'): Promise<string[]> {
  let path: string | null = `/api/v2/licenses/?page_size=5&${query}`;
  const found: string[] = [];
  while (path !== null) {
    const response = await call(as, 'GET', path);
    expect(response.status, response.text).toBe(200);
    found.push(...response.json.results.map((l: { key: string }) => l.key));
    expect(response.json.count).toBeGreaterThanOrEqual(found.length);
    path = response.json.next === null ? null : new URL(response.json.next).pathname + new URL(response.json.next).search;
  }
  return found;
}

beforeAll(async () => {
  await create({ key: 'mit' });
  await create({ key: 'gpl-3.0', name: 'GNU GPL 3.0' });
  await create({ key: 'classpath-exception-2.0' });
  await create({ key: 'Acme-Proprietary', name: 'Acme Proprietary License', short_name: 'Acme Prop', spdx_license_key: 'LicenseRef-Acme', category: 'Commercial' });
  for (let i = 1; i <= INTERNAL; i++) await create({ key: `internal-${i}`, name: `Internal License ${i}`, category: 'Proprietary Free' });
  await create({ key: 'mit' }, 'mallory');
  await create({ key: 'internal-beta', name: 'Internal License of beta', category: 'Proprietary Free' }, 'mallory');
});

const internal = (...numbers: number[]) => numbers.map((n) => `internal-${n}`);
const allInternal = Array.from({ length: INTERNAL }, (_, i) => `internal-${i + 1}`).sort();

describe('GET /api/v2/licenses/ filters', () => {
  it('key: exact, one license of the dataspace, with the other filters applied to it', async () => {
    expect(await keysOf('key=mit')).toEqual(['mit']);
    expect(await keysOf('key=MIT')).toEqual([]);
    expect(await keysOf('key=Acme-Proprietary')).toEqual(['Acme-Proprietary']);
    expect(await keysOf('key=mit&category=Permissive&search=mit')).toEqual(['mit']);
    expect(await keysOf('key=mit&category=Copyleft')).toEqual([]);
    expect(await keysOf('key=mit&is_exception=true')).toEqual([]);
    expect(await keysOf(`key=${'k'.repeat(600)}`)).toEqual([]);
    expect(await keysOf('key=internal-beta')).toEqual([]);
    expect(await keysOf('key=internal-beta', 'mallory')).toEqual(['internal-beta']);
  });

  it('spdx_license_key: any letter case', async () => {
    expect(await keysOf('spdx_license_key=gpl-3.0-ONLY')).toEqual(['gpl-3.0']);
    expect(await keysOf('spdx_license_key=licenseref-acme')).toEqual(['Acme-Proprietary']);
    expect(await keysOf('spdx_license_key=mit')).toEqual(['mit']);
    expect(await keysOf(`spdx_license_key=${'x'.repeat(600)}`)).toEqual([]);
  });

  it('category: exact, paged with the filter kept in the links; an unknown one is a 400', async () => {
    const first = await call('alice', 'GET', `/api/v2/licenses/?category=${encodeURIComponent('Proprietary Free')}&page_size=5`);
    expect(first.json.count).toBe(INTERNAL);
    expect(first.json.next).toBe(`${http.api.url}/api/v2/licenses/?category=Proprietary+Free&page_size=5&page=2`);
    expect(await keysOf(`category=${encodeURIComponent('Proprietary Free')}`)).toEqual(allInternal);
    expect(await keysOf('category=Copyleft')).toEqual(['gpl-3.0']);
    const wrong = await call('alice', 'GET', '/api/v2/licenses/?category=Viral');
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ category: ['Select a valid choice. Viral is not one of the available choices.'] });
  });

  it('is_exception: true or false', async () => {
    expect(await keysOf('is_exception=true')).toEqual(['classpath-exception-2.0']);
    expect(await keysOf('is_exception=false')).toEqual(['Acme-Proprietary', 'gpl-3.0', ...allInternal, 'mit']);
    expect((await call('alice', 'GET', '/api/v2/licenses/?is_exception=maybe')).status).toBe(400);
  });

  it('search: every word in the key, name, short name or SPDX key, any letter case; never another dataspace', async () => {
    expect(await keysOf('search=ACME')).toEqual(['Acme-Proprietary']);
    expect(await keysOf(`search=${encodeURIComponent('prop licenseref-acme')}`)).toEqual(['Acme-Proprietary']);
    expect(await keysOf(`search=${encodeURIComponent('internal 1')}`)).toEqual(internal(1, 10, 11, 12));
    expect(await keysOf(`search=${encodeURIComponent('"gnu gpl"')}`)).toEqual(['gpl-3.0']);
    expect(await keysOf(`search=${encodeURIComponent('gnu,mit')}`)).toEqual([]);
    expect(await keysOf('search=beta')).toEqual([]);
    expect(await keysOf('search=beta', 'mallory')).toEqual(['internal-beta']);
    expect(await keysOf(`search=${encodeURIComponent('internal 1')}&category=${encodeURIComponent('Proprietary Free')}&is_exception=false`)).toEqual(
      internal(1, 10, 11, 12),
    );
    // Ten words typed in mixed case: the longest filter a list sends (each word also as typed, for old items).
    expect(await keysOf(`search=${encodeURIComponent('Internal License 1 Internal License 1 Internal License 1 PROPRIETARY-free')}`)).toEqual([]);
    expect(await keysOf(`search=${encodeURIComponent('Internal License 1 Internal License 1 Internal License 1 Internal')}`)).toEqual(internal(1, 10, 11, 12));
    const tooMany = await call('alice', 'GET', `/api/v2/licenses/?search=${encodeURIComponent('1 2 3 4 5 6 7 8 9 10 11')}`);
    expect(tooMany.json).toEqual({ search: ['Ensure this value has at most 10 words.'] });
  });
});

describe('category and is_exception on writes', () => {
  it('are validated: a category of the reference library or "", a boolean', async () => {
    const before = await snapshot();
    const category = await call('root', 'POST', '/api/v2/licenses/', { key: 'x-1', name: 'X', category: 'copyleft' });
    expect(category.status).toBe(400);
    expect(category.json).toEqual({ category: ['"copyleft" is not a valid choice.'] });
    const exception = await call('root', 'POST', '/api/v2/licenses/', { key: 'x-1', name: 'X', is_exception: 'yes' });
    expect(exception.json).toEqual({ is_exception: ['Must be a valid boolean.'] });
    expect(await snapshot()).toBe(before);
  });

  it('default to "" and false; PATCH changes them; PUT keeps them when left out', async () => {
    const made = await create({ key: 'plain_1+x', name: 'Plain' });
    expect(made).toMatchObject({ category: '', is_exception: false, spdx_license_key: '', license_expression_spdx: 'LicenseRef-dejacode-plain-1-x' });
    const patched = await call('root', 'PATCH', `/api/v2/licenses/${made.uuid}/`, { category: 'Public Domain', is_exception: true, spdx_license_key: 'LicenseRef-Plain' });
    expect(patched.json).toMatchObject({ category: 'Public Domain', is_exception: true, license_expression_spdx: 'LicenseRef-Plain' });
    const put = await call('root', 'PUT', `/api/v2/licenses/${made.uuid}/`, { key: 'plain_1+x', name: 'Plain 2', short_name: '', spdx_license_key: '', usage_policy: null });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ name: 'Plain 2', category: 'Public Domain', is_exception: true });
    const cleared = await call('root', 'PATCH', `/api/v2/licenses/${made.uuid}/`, { category: '' });
    expect(cleared.json.category).toBe('');
    expect((await call('root', 'DELETE', `/api/v2/licenses/${made.uuid}/`)).status).toBe(204);
  });
});

describe('license items written before the filters existed', () => {
  it('read as no category and no exception, are found as stored until their next write, then in any case', async () => {
    const made = await create({ key: 'old-1', name: 'Old Style License', spdx_license_key: 'BSD-2-Clause' });
    // As an earlier version wrote it: none of the attributes this version adds.
    await http.env.doc.send(
      new UpdateCommand({
        TableName: http.env.tableName,
        Key: keys.catalogObject('LICENSE', made.uuid),
        UpdateExpression: 'REMOVE category, isException, spdxKeyFolded, searchText',
      }),
    );
    expect((await call('alice', 'GET', `/api/v2/licenses/${made.uuid}/`)).json).toMatchObject({ category: '', is_exception: false });
    // The SPDX key in any case, when stored as the SPDX list spells it; search words as stored, or in lower case.
    expect(await keysOf('spdx_license_key=bsd-2-clause')).toEqual(['old-1']);
    expect(await keysOf('is_exception=false&search=old-1')).toEqual(['old-1']);
    expect(await keysOf('search=Style')).toEqual(['old-1']);
    expect(await keysOf('search=STYLE')).toEqual([]);
    expect((await call('root', 'PATCH', `/api/v2/licenses/${made.uuid}/`, { short_name: 'Old' })).status).toBe(200);
    expect(await keysOf('search=STYLE')).toEqual(['old-1']);
    expect(await keysOf(`spdx_license_key=${encodeURIComponent('BSD-2-clause')}`)).toEqual(['old-1']);
  });
});
