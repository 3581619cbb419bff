/**
 * The reference license library through HTTP: GET /api/v2/reference_licenses/ and {key}/, against the
 * data file the service ships (the expectations are computed from the file itself), and adopting a
 * reference license with POST /api/v2/licenses/ {"key": ...}.
 */
import { describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';
import { readReferenceRecords, type ReferenceRecord } from '../../shared/reference/scancode-licensedb.ts';
import { REFERENCE_CATEGORIES } from '../../shared/domain/reference-license.ts';

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {} } },
  beta: { users: { mallory: { superuser: true } } },
});
const { call, snapshot } = http;

const data = readReferenceRecords();
const byKey = new Map(data.map((record) => [record.key, record]));
const keysOf = (records: readonly ReferenceRecord[]) => records.map((record) => record.key);

/** Every page of a reference list, followed through `next`, as alice (no superuser). */
async function allPages(query: string): Promise<{ count: number; keys: string[] }> {
  let path: string | null = `/api/v2/reference_licenses/?page_size=100${query ? `&${query}` : ''}`;
  const keys: string[] = [];
  let count = -1;
  while (path !== null) {
    const response = await call('alice', 'GET', path);
    expect(response.status, response.text).toBe(200);
    count = response.json.count;
    keys.push(...response.json.results.map((r: { key: string }) => r.key));
    path = response.json.next === null ? null : new URL(response.json.next).pathname + new URL(response.json.next).search;
  }
  return { count, keys };
}

/** What the search means, said plainly: every word in one of key, name, short name or SPDX key, any case. */
const searched = (...words: string[]) =>
  data.filter((r) => words.every((word) => [r.key, r.name, r.short_name, r.spdx_license_key].some((field) => field.toLowerCase().includes(word.toLowerCase()))));

describe('GET /api/v2/reference_licenses/', () => {
  it('pages the whole library in key order for any user of any dataspace, with the fields of the data file', async () => {
    const first = await call('alice', 'GET', '/api/v2/reference_licenses/');
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ count: data.length, previous: null, next: `${http.api.url}/api/v2/reference_licenses/?page=2` });
    expect(first.json.results).toEqual(data.slice(0, 10));
    const mallory = await call('mallory', 'GET', '/api/v2/reference_licenses/?page=3&page_size=25');
    expect(mallory.json.results).toEqual(data.slice(50, 75));
    const whole = await allPages('');
    expect(whole).toEqual({ count: data.length, keys: keysOf(data) });
    expect(data.length).toBeGreaterThan(2_000);
  });

  it('answers 404 past the last page and 401 without a key', async () => {
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/?page=999')).json).toEqual({ detail: 'Invalid page.' });
    expect((await call(undefined, 'GET', '/api/v2/reference_licenses/')).status).toBe(401);
  });

  it('filters on key in any letter case', async () => {
    expect(await allPages('key=APACHE-2.0')).toEqual({ count: 1, keys: ['apache-2.0'] });
    expect(await allPages('key=apache')).toEqual({ count: 0, keys: [] });
  });

  it('filters on spdx_license_key in any letter case, the current id or one of the other ids', async () => {
    expect(await allPages('spdx_license_key=apache-2.0')).toEqual({ count: 1, keys: ['apache-2.0'] });
    // A deprecated SPDX id finds the license it now names.
    expect(await allPages(`spdx_license_key=${encodeURIComponent('gpl-2.0+')}`)).toEqual({ count: 1, keys: ['gpl-2.0-plus'] });
    const withRef = data.filter((r) => r.other_spdx_license_keys.includes('LicenseRef-GPL-2.0'));
    expect(withRef.length).toBeGreaterThan(0);
    expect((await allPages('spdx_license_key=licenseref-gpl-2.0')).keys).toEqual(keysOf(withRef));
  });

  it('filters on each category, exactly, and refuses an unknown one naming it', async () => {
    for (const category of ['Copyleft', 'Public Domain', 'Source-available']) {
      const expected = data.filter((r) => r.category === category);
      expect(await allPages(`category=${encodeURIComponent(category)}`)).toEqual({ count: expected.length, keys: keysOf(expected) });
    }
    const counts = await Promise.all(
      REFERENCE_CATEGORIES.map(async (category) => (await call('alice', 'GET', `/api/v2/reference_licenses/?category=${encodeURIComponent(category)}`)).json.count as number),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(data.length);
    const wrong = await call('alice', 'GET', '/api/v2/reference_licenses/?category=copyleft');
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ category: ['Select a valid choice. copyleft is not one of the available choices.'] });
  });

  it('filters on is_exception with true/false (any case, or 1/0), and refuses another word', async () => {
    const exceptions = data.filter((r) => r.is_exception);
    expect(await allPages('is_exception=true')).toEqual({ count: exceptions.length, keys: keysOf(exceptions) });
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/?is_exception=False')).json.count).toBe(data.length - exceptions.length);
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/?is_exception=1')).json.count).toBe(exceptions.length);
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/?is_exception=')).json.count).toBe(data.length);
    const wrong = await call('alice', 'GET', '/api/v2/reference_licenses/?is_exception=yes');
    expect(wrong.status).toBe(400);
    expect(wrong.json).toEqual({ is_exception: ['Select a valid choice. yes is not one of the available choices.'] });
  });

  it('searches key, name, short name and SPDX key, in any letter case, every word (a quoted phrase is one)', async () => {
    const apache = searched('APACHE');
    expect(apache.length).toBeGreaterThan(5);
    // The same licenses; ranked (the exact key or SPDX id first: test/unit/reference-license-ranking.test.ts).
    const apachePages = await allPages('search=APACHE');
    expect({ ...apachePages, keys: [...apachePages.keys].sort() }).toEqual({ count: apache.length, keys: keysOf(apache).sort() });
    expect((await allPages('search=apache-2.0')).keys[0]).toBe('apache-2.0');
    const twoWords = searched('gpl', 'classpath');
    expect(twoWords.length).toBeGreaterThan(0);
    expect((await allPages(`search=${encodeURIComponent('gpl classpath')}`)).keys.sort()).toEqual(keysOf(twoWords).sort());
    expect((await allPages(`search=${encodeURIComponent('gpl,classpath')}`)).keys.sort()).toEqual(keysOf(twoWords).sort());
    const phrase = searched('general public license v2.0');
    expect(phrase.length).toBeGreaterThan(0);
    expect((await allPages(`search=${encodeURIComponent('"General Public License v2.0"')}`)).keys.sort()).toEqual(keysOf(phrase).sort());
    // By SPDX id only: the key and names of LicenseRef-scancode-… licenses hold no "licenseref".
    expect((await allPages('search=licenseref-scancode-3com')).keys).toEqual(['3com-microcode']);
    expect((await allPages('search=')).count).toBe(data.length);
  });

  it('combines the filters, and bounds the words of a search', async () => {
    const expected = searched('mit').filter((r) => r.category === 'Permissive' && !r.is_exception);
    const combined = (await allPages('search=mit&category=Permissive&is_exception=false')).keys;
    expect([...combined].sort()).toEqual(keysOf(expected).sort());
    expect(combined[0]).toBe('mit');
    const tooMany = await call('alice', 'GET', `/api/v2/reference_licenses/?search=${encodeURIComponent('a b c d e f g h i j k')}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.json).toEqual({ search: ['Ensure this value has at most 10 words.'] });
  });
});

describe('GET /api/v2/reference_licenses/{key}/', () => {
  it('answers one reference license by key in any letter case, and 404 for another key', async () => {
    const mit = await call('alice', 'GET', '/api/v2/reference_licenses/MIT/');
    expect(mit.status, mit.text).toBe(200);
    const { text, ...fields } = mit.json;
    expect(fields).toEqual(byKey.get('mit'));
    // The full text, from ScanCode's LicenseDB (shared/reference/scancode-license-texts.bin), as the .LICENSE file holds it.
    expect(text).toMatch(/^Permission is hereby granted, free of charge, to any person obtaining/);
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
    const gpl = (await call('mallory', 'GET', '/api/v2/reference_licenses/gpl-2.0-plus/')).json;
    expect({ ...gpl, text: undefined }).toEqual({ ...byKey.get('gpl-2.0-plus'), text: undefined });
    expect(gpl.text.length).toBeGreaterThan(1_000);
    const missing = await call('alice', 'GET', '/api/v2/reference_licenses/no-such-license/');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: 'Not found.' });
    expect((await call(undefined, 'GET', '/api/v2/reference_licenses/mit/')).status).toBe(401);
  });
});

describe('adopting a reference license: POST /api/v2/licenses/ with its key', () => {
  it('fills name, short name, SPDX key, category and exception flag from the reference, storing its key', async () => {
    const response = await call('root', 'POST', '/api/v2/licenses/', { key: 'Apache-2.0' });
    expect(response.status, response.text).toBe(201);
    const apache = byKey.get('apache-2.0')!;
    expect(response.json).toEqual({
      uuid: expect.any(String),
      api_url: `${http.api.url}/api/v2/licenses/${response.json.uuid}/`,
      key: 'apache-2.0',
      name: apache.name,
      short_name: apache.short_name,
      spdx_license_key: 'Apache-2.0',
      license_expression_spdx: 'Apache-2.0',
      category: 'Permissive',
      is_exception: false,
      usage_policy: null,
      text: expect.stringMatching(/^\s*Apache License\s+Version 2\.0, January 2004/),
    });
    expect((await call('alice', 'GET', `/api/v2/licenses/${response.json.uuid}/`)).json).toEqual(response.json);
  });

  it('adopts an exception as an exception', async () => {
    const response = await call('root', 'POST', '/api/v2/licenses/', { key: 'classpath-exception-2.0' });
    expect(response.json).toMatchObject({ key: 'classpath-exception-2.0', category: 'Copyleft Limited', is_exception: true, spdx_license_key: 'Classpath-exception-2.0' });
  });

  it('lets the fields given win over the reference', async () => {
    await call('root', 'POST', '/api/v2/usage_policies/', { label: 'Allowed', content_type: 'license' });
    const response = await call('root', 'POST', '/api/v2/licenses/', {
      key: 'BSD-NEW',
      name: 'Our BSD',
      spdx_license_key: '',
      category: 'Copyleft',
      is_exception: true,
      usage_policy: 'Allowed',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.json).toMatchObject({
      key: 'bsd-new',
      name: 'Our BSD',
      short_name: byKey.get('bsd-new')!.short_name,
      spdx_license_key: '',
      license_expression_spdx: 'LicenseRef-dejacode-bsd-new',
      category: 'Copyleft',
      is_exception: true,
      usage_policy: 'Allowed',
    });
  });

  it('refuses a key that is no reference license without a name, saying so, and changes nothing', async () => {
    const before = await snapshot();
    const response = await call('root', 'POST', '/api/v2/licenses/', { key: 'not-a-reference' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ name: ['This field is required: "not-a-reference" is not a reference license key to adopt.'] });
    expect(await snapshot()).toBe(before);
  });

  it('refuses to adopt the same license twice, in any letter case', async () => {
    expect((await call('root', 'POST', '/api/v2/licenses/', { key: 'isc' })).status).toBe(201);
    const before = await snapshot();
    for (const key of ['isc', 'ISC']) {
      const again = await call('root', 'POST', '/api/v2/licenses/', { key });
      expect(again.status).toBe(400);
      expect(again.json).toEqual({ key: ['License with this key already exists.'] });
    }
    expect(await snapshot()).toBe(before);
  });

  it('is for superusers: others read the reference library but get 403 adopting, changing nothing', async () => {
    const before = await snapshot();
    const response = await call('alice', 'POST', '/api/v2/licenses/', { key: 'zlib' });
    expect(response.status).toBe(403);
    expect(await snapshot()).toBe(before);
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/zlib/')).status).toBe(200);
  });

  it("adopts into the caller's dataspace only; the reference library stays as it is", async () => {
    const ours = await call('root', 'POST', '/api/v2/licenses/', { key: 'mit', name: 'Our MIT' });
    expect(ours.status, ours.text).toBe(201);
    const theirs = await call('mallory', 'POST', '/api/v2/licenses/', { key: 'MIT' });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.json.name).toBe('MIT License');
    expect((await call('alice', 'GET', '/api/v2/licenses/?key=mit')).json.results.map((l: { uuid: string }) => l.uuid)).toEqual([ours.json.uuid]);
    expect((await call('mallory', 'GET', '/api/v2/licenses/?key=mit')).json.results.map((l: { uuid: string }) => l.uuid)).toEqual([theirs.json.uuid]);
    expect((await call('mallory', 'GET', `/api/v2/licenses/${ours.json.uuid}/`)).status).toBe(404);
    // The dataspace's mit shadows the reference in expressions; the library itself answers the same.
    expect((await call('alice', 'GET', '/api/v2/reference_licenses/mit/')).json).toEqual({ ...byKey.get('mit'), text: expect.stringMatching(/^Permission is hereby granted/) });
  });
});

describe("a dataspace license's text", () => {
  const detail = async (uuid: string, as = 'alice') => {
    const response = await call(as, 'GET', `/api/v2/licenses/${uuid}/`);
    expect(response.status, response.text).toBe(200);
    return response.json;
  };

  it('an adopted license starts with its reference text; its own text, once given, replaces it; lists carry none', async () => {
    const adopted = await call('root', 'POST', '/api/v2/licenses/', { key: 'zlib' });
    expect(adopted.status, adopted.text).toBe(201);
    const reference = (await call('alice', 'GET', '/api/v2/reference_licenses/zlib/')).json.text as string;
    expect(reference).toMatch(/This software is provided 'as-is', without any express or implied/);
    expect(adopted.json.text).toBe(reference);
    expect((await detail(adopted.json.uuid)).text).toBe(reference);
    const own = `${reference}\n\nAs shipped by ACME, with the copyright line of its 2024 release.\n`;
    const patched = await call('root', 'PATCH', `/api/v2/licenses/${adopted.json.uuid}/`, { text: own });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.text).toBe(own);
    expect((await detail(adopted.json.uuid)).text).toBe(own);
    // A PUT that leaves the text out keeps it, as it keeps category and is_exception.
    const { text: _text, uuid: _uuid, api_url: _url, license_expression_spdx: _spdx, ...rest } = patched.json;
    expect((await call('root', 'PUT', `/api/v2/licenses/${adopted.json.uuid}/`, { ...rest, name: 'zlib License (ACME)' })).status).toBe(200);
    expect((await detail(adopted.json.uuid)).text).toBe(own);
    const listed = (await call('alice', 'GET', '/api/v2/licenses/?key=zlib')).json.results;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('text');
  });

  it("a license of the dataspace's own has no text until given one; control characters and texts too long are a 400 that changes nothing", async () => {
    const own = await call('root', 'POST', '/api/v2/licenses/', { key: 'acme-text-eula', name: 'ACME Text EULA' });
    expect(own.status, own.text).toBe(201);
    expect(own.json.text).toBe('');
    const before = await snapshot();
    for (const [text, message] of [
      ['Terms\u0000with a NUL', 'Control characters other than tabs and line breaks are not allowed.'],
      ['x'.repeat(100_001), 'Ensure this field has no more than 100000 characters.'],
      ['\u{1F4DC}'.repeat(90_000), 'Ensure this field has no more than 350,000 bytes in UTF-8.'],
    ] as const) {
      const refused = await call('root', 'PATCH', `/api/v2/licenses/${own.json.uuid}/`, { text });
      expect(refused.status, refused.text.slice(0, 300)).toBe(400);
      expect(refused.json.text).toEqual([message]);
    }
    expect((await call('alice', 'PATCH', `/api/v2/licenses/${own.json.uuid}/`, { text: 'Mine' })).status).toBe(403);
    expect(await snapshot()).toBe(before);
    const given = await call('root', 'PATCH', `/api/v2/licenses/${own.json.uuid}/`, { text: 'ACME grants you…\n\tTerms apply.' });
    expect(given.json.text).toBe('ACME grants you…\n\tTerms apply.');
    // Another dataspace does not see it.
    expect((await call('mallory', 'GET', `/api/v2/licenses/${own.json.uuid}/`)).status).toBe(404);
    // Deleting the license takes its text with it: a license made again with the key starts with none.
    expect((await call('root', 'DELETE', `/api/v2/licenses/${own.json.uuid}/`)).status).toBe(204);
    const again = await call('root', 'POST', '/api/v2/licenses/', { key: 'acme-text-eula', name: 'ACME Text EULA' });
    expect(again.json.text).toBe('');
  });
});
