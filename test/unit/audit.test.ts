import { describe, expect, it } from 'vitest';
import { AUDITED_ENTITIES, auditRecordOf, actorOf, auditExpiry, decodeAuditCursor, encodeAuditCursor, nameOfItem, referencesOf } from '../../shared/domain/audit.ts';
import { isAuditedKey, keys } from '../../shared/keys.ts';

const context = { uuid: 'u-1', date: '2025-01-02T03:04:05.000Z', actor: { user: 'alice', apiKey: 'ci' } };
const base = { PK: 'x', SK: 'y', GSI1PK: 'g', GSI1SK: 'g', rev: 3, correlationId: 'c', actor: { user: 'alice', key: 'ci' }, dataspace: 'nexB', uuid: 'obj-1' };

describe('auditRecordOf', () => {
  it.each([
    ['Product', { name: 'App', version: '1.0' }, 'product', 'App 1.0', { name: [null, 'App'], version: [null, '1.0'] }],
    ['ProductGrant', { productUuid: 'p-1', principalType: 'user', principal: 'bob', permissions: ['view_product'] }, 'product_permission', 'user bob on p-1', { principal_type: [null, 'user'], principal: [null, 'bob'], permissions: [null, ['view_product']] }],
    ['Request', { title: 'T', status: 'open' }, 'request', 'T', { title: [null, 'T'], status: [null, 'open'] }],
    ['RequestComment', { requestUuid: 'r-1', text: 'hi' }, 'request_comment', 'comment on request “r-1”', { text: [null, 'hi'], request: [null, 'r-1'] }],
    ['UsagePolicy', { label: 'OK', contentType: 'license' }, 'usage_policy', 'OK', { label: [null, 'OK'], content_type: [null, 'license'] }],
    ['License', { key: 'mit', name: 'MIT' }, 'license', 'mit', { key: [null, 'mit'], name: [null, 'MIT'] }],
    ['Package', { purl: 'pkg:npm/a@1', name: 'a', searchText: 's', licenseKeys: ['mit'] }, 'package', 'pkg:npm/a@1', { purl: [null, 'pkg:npm/a@1'], name: [null, 'a'] }],
    ['Vulnerability', { vulnerabilityId: 'CVE-1', riskScore: 5 }, 'vulnerability', 'CVE-1', { vulnerability_id: [null, 'CVE-1'], risk_score: [null, 5] }],
    ['ProductPackage', { productUuid: 'p', packageUuid: 'k', isDeployed: true, listCounted: true }, 'product_package', 'k in p', { product: [null, 'p'], package: [null, 'k'], is_deployed: [null, true] }],
    ['PolicyConfig', { rules: { a: 1 }, uuid: undefined }, 'policy_rules', 'policy rules of nexB', { rules: [null, { a: 1 }] }],
    ['Webhook', { targetUrl: 'https://h/', secret: 'whsec', isActive: true, failingSince: null }, 'webhook', 'https://h/', { target_url: [null, 'https://h/'], is_active: [null, true] }],
    ['ApiKey', { name: 'ci', username: 'alice', scope: 'read', keyHash: 'h', keyId: 'kid', lastUsedAt: 'now' }, 'api_key', 'alice/ci', { name: [null, 'ci'], user: [null, 'alice'], scope: [null, 'read'] }],
    [
      'PolicyWaiver',
      { productUuid: 'p', ruleType: 'license_policy_error', packagePurl: 'pkg:npm/a@1', packageUuid: 'k', reason: 'Legal agreed', expiresDate: '2027-01-01T00:00:00.000Z', GSI10PK: 'WAIVEREXPIRY' },
      'policy_waiver',
      'license_policy_error waiver of pkg:npm/a@1 on p',
      { product: [null, 'p'], rule_type: [null, 'license_policy_error'], package: [null, 'pkg:npm/a@1'], reason: [null, 'Legal agreed'], expires_at: [null, '2027-01-01T00:00:00.000Z'] },
    ],
  ])('records the creation of a %s with its domain fields only', (entity, fields, objectType, repr, changes) => {
    const record = auditRecordOf({ after: { ...base, entity, ...fields } }, context);
    expect(record).toMatchObject({ action: 'create', objectType, objectRepr: repr, user: 'alice', apiKey: 'ci', dataspace: 'nexB' });
    expect(record!.changes).toEqual(changes);
    const text = JSON.stringify(record);
    for (const never of ['whsec', '"h"', 'kid', 'GSI1', 'rev', 'correlationId', 'searchText', 'listCounted', 'lastUsedAt']) expect(text).not.toContain(never);
  });

  it('covers every audited entity in the table above', () => {
    expect(AUDITED_ENTITIES).toEqual(expect.arrayContaining(['Product', 'ProductGrant', 'Request', 'RequestComment', 'UsagePolicy', 'License', 'Package', 'Vulnerability', 'ProductPackage', 'PolicyConfig', 'Webhook', 'ApiKey', 'PolicyWaiver']));
  });

  it('names related objects by the names the writer found: repr and changes, lists sorted by name; a uuid when none', () => {
    const names = new Map([
      ['product:p-1', 'Shop 1.0'],
      ['package:k-1', 'pkg:npm/left-pad@1.3.0'],
      ['package:k-2', 'pkg:npm/zod@4.0.0'],
      ['package:k-3', 'pkg:npm/ajv@8.0.0'],
    ]);
    const pp = { ...base, entity: 'ProductPackage', productUuid: 'p-1', packageUuid: 'k-1', dependsOn: ['k-2', 'k-3', 'k-9'], isDeployed: true };
    const record = auditRecordOf({ after: pp }, { ...context, names });
    expect(record!.objectRepr).toBe('pkg:npm/left-pad@1.3.0 in Shop 1.0');
    expect(record!.changes).toMatchObject({ product: [null, 'Shop 1.0'], package: [null, 'pkg:npm/left-pad@1.3.0'], depends_on: [null, ['k-9', 'pkg:npm/ajv@8.0.0', 'pkg:npm/zod@4.0.0']] });
    expect(referencesOf(pp)).toEqual([
      { kind: 'product', uuid: 'p-1' },
      { kind: 'package', uuid: 'k-1' },
      { kind: 'package', uuid: 'k-2' },
      { kind: 'package', uuid: 'k-3' },
      { kind: 'package', uuid: 'k-9' },
    ]);
    const analysis = { ...base, entity: 'Analysis', vulnerabilityId: 'CVE-1', productUuid: 'p-1', packageUuid: 'k-1', productPackageUuid: 'pp-1', state: 'in_triage' };
    expect(auditRecordOf({ after: analysis }, { ...context, names })!.objectRepr).toBe('CVE-1 in pkg:npm/left-pad@1.3.0 in Shop 1.0');
    expect(nameOfItem({ entity: 'Product', uuid: 'p-2', name: 'App', version: '' })).toEqual({ kind: 'product', uuid: 'p-2', name: 'App' });
  });

  it('records an SBOM import once, when it completes or fails, as who asked for it, with what it did', () => {
    const purls = Array.from({ length: 60 }, (_, i) => `pkg:npm/p${String(i).padStart(2, '0')}@1.0.0`);
    const running = { ...base, entity: 'SbomImport', productUuid: 'p-1', productName: 'Shop 1.0', createdBy: 'bob', createdWithKey: 'ci', status: 'running', mode: 'replace', format: 'cyclonedx', specVersion: '1.6', errors: [], summary: null };
    const done = { ...running, status: 'completed', summary: { components: 60, added: 60, removed: 0, unchanged: 0, packagesCreated: 60, packagesUpdated: 0, vulnerabilities: 0, analyses: 0, addedPurls: purls, removedPurls: [], updatedPurls: [] } };
    expect(auditRecordOf({ after: { ...running, status: 'queued' } }, context)).toBeUndefined();
    expect(auditRecordOf({ before: { ...running, status: 'queued' }, after: running }, context)).toBeUndefined();
    // The import function's write names no one (context: no user): the record names who asked.
    const record = auditRecordOf({ before: running, after: done }, { ...context, actor: { user: null, apiKey: null } });
    expect(record).toMatchObject({ action: 'create', objectType: 'sbom_import', object: 'obj-1', objectRepr: 'SBOM import into Shop 1.0', user: 'bob', apiKey: 'ci' });
    expect(record!.changes).toMatchObject({ product: [null, 'Shop 1.0'], status: [null, 'completed'], format: [null, 'cyclonedx 1.6'], added: [null, 60], removed: [null, 0] });
    expect(record!.changes.added_purls).toEqual([null, purls.slice(0, 50)]);
    // The synchronous import's item is written once, completed: its INSERT is the record.
    expect(auditRecordOf({ after: done }, context)).toMatchObject({ action: 'create', objectType: 'sbom_import' });
    // Written again as it is (a retried finish): no second record.
    expect(auditRecordOf({ before: done, after: done }, context)).toBeUndefined();
    expect(auditRecordOf({ before: running, after: { ...running, status: 'failed', errors: ['The product was deleted during the import.'] } }, context)!.changes.errors).toEqual([null, ['The product was deleted during the import.']]);
  });

  it("reads the job an actor's writes were part of", () => {
    expect(actorOf({ user: 'bob', key: 'ci', via: 'sbom_import:i-1' })).toMatchObject({ user: 'bob', apiKey: 'ci', via: 'sbom_import:i-1' });
    expect(actorOf({ user: 'bob' })).not.toHaveProperty('via');
  });

  it('records an update with the changed fields only, old and new', () => {
    const before = { ...base, entity: 'Product', name: 'App', version: '1.0' };
    const record = auditRecordOf({ before, after: { ...before, version: '2.0', rev: 4 } }, context);
    expect(record).toMatchObject({ action: 'update', object: 'obj-1', changes: { version: ['1.0', '2.0'] } });
  });

  it('records a delete with the old values', () => {
    const record = auditRecordOf({ before: { ...base, entity: 'Webhook', targetUrl: 'https://h/', secret: 's3cr3t' } }, context);
    expect(record).toMatchObject({ action: 'delete', changes: { target_url: ['https://h/', null] } });
    expect(JSON.stringify(record)).not.toContain('s3cr3t');
  });

  it.each([
    ['an API key used (lastUsedAt only)', 'ApiKey', { lastUsedAt: '2025-01-01' }, { lastUsedAt: '2025-01-02' }],
    ['a product revision bump', 'Product', { rev: 1 }, { rev: 2 }],
    ["a webhook's secret rotated", 'Webhook', { secret: 'a' }, { secret: 'b' }],
    ["a webhook's deliveries failing", 'Webhook', { failingSince: null }, { failingSince: '2025-01-01' }],
  ])('records nothing for %s', (_, entity, old, now) => {
    expect(auditRecordOf({ before: { ...base, entity, ...old }, after: { ...base, entity, ...now } }, context)).toBeUndefined();
  });

  it('records nothing for an entity it does not audit', () => {
    expect(auditRecordOf({ after: { ...base, entity: 'RateLimit' } }, context)).toBeUndefined();
    expect(auditRecordOf({ after: { ...base, entity: 'AuditRecord' } }, context)).toBeUndefined();
  });

  it("takes a comment's dataspace from the context when its item names none", () => {
    const { dataspace: _, ...item } = { ...base, entity: 'RequestComment', text: 'x', requestUuid: 'r' };
    expect(auditRecordOf({ after: item }, { ...context, dataspace: 'other' })?.dataspace).toBe('other');
    expect(auditRecordOf({ after: item }, context)).toBeUndefined();
  });
});

describe('cursors', () => {
  const position = `2026-11-27T08:05:47.123Z#${'0'.repeat(30)}1234567890#6f1c0b7e-3d0a-4d5e-9a55-0c3b8a7e2f10`;
  it('round-trip a position and its direction', () => {
    for (const reverse of [false, true]) expect(decodeAuditCursor(encodeAuditCursor({ position, reverse }))).toEqual({ position, reverse });
  });
  it.each([
    ['not base64url', '***'],
    ['not JSON', Buffer.from('{').toString('base64url')],
    ['an array', Buffer.from('[]').toString('base64url')],
    ['no position', Buffer.from('{"r":1}').toString('base64url')],
    ['a position of another shape', Buffer.from('{"p":"PRODUCT#x"}').toString('base64url')],
    ['an unknown field', Buffer.from(JSON.stringify({ p: position, x: 1 })).toString('base64url')],
    ['a direction other than 1', Buffer.from(JSON.stringify({ p: position, r: true })).toString('base64url')],
    ['too long', 'A'.repeat(401)],
  ])('refuse %s', (_, text) => {
    expect(decodeAuditCursor(text)).toBeUndefined();
  });
});

describe('actors, expiry and audited keys', () => {
  it('reads an actor, or none', () => {
    expect(actorOf({ user: 'a', key: 'k' })).toEqual({ user: 'a', apiKey: 'k' });
    expect(actorOf(undefined)).toEqual({ user: null, apiKey: null });
    expect(actorOf({ user: 'a', at: '2026-11-27T08:05:47.123Z' })).toEqual({ user: 'a', apiKey: null, at: '2026-11-27T08:05:47.123Z' });
    expect(actorOf({ user: 'a', at: 'not a date' })).toEqual({ user: 'a', apiKey: null });
  });
  it('expires after the retention', () => {
    expect(auditExpiry('1970-01-01T00:00:00.000Z', 400)).toBe(400 * 86_400);
  });
  it.each([
    [keys.product('p'), true],
    [keys.grant('p', { type: 'user', name: 'bob' }), true],
    [keys.productName('ds', 'n', 'v'), false],
    [keys.webhook('w'), true],
    [keys.apiKey('k'), true],
    [keys.apiKeyRef('k'), false],
    [keys.policyConfig('ds'), true],
    [keys.catalogObject('PACKAGE', 'x'), true],
    [keys.comment('r', 'd', 'c'), true],
    [keys.rateLimit('k'), false],
    [keys.waiver('p', 'w'), true],
  ])('%j audited: %s', (key, audited) => {
    expect(isAuditedKey(key)).toBe(audited);
  });
});
