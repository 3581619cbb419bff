/**
 * Packages written before ScanCode's rules were shipped, resolved again by the migration on DynamoDB
 * Local: a free-text name kept unknown then is resolved now (with what said so), once per rules version;
 * an expression written beside its declared text, and a license resolved from an SBOM's URL, are left as
 * they are; a dataspace license the new expression names is counted.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/environment.ts';
import { aTeam } from '../support/factories.ts';
import { CatalogStore } from '../../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../../shared/store/product-package-store.ts';
import { CatalogService } from '../../shared/services/catalog.ts';
import { migrateData } from '../../shared/store/migrations.ts';
import { keys } from '../../shared/keys.ts';
import { applyMapping } from '../../shared/store/license-reresolution.ts';
import type { Caller } from '../../shared/domain/caller.ts';
import type { Package } from '../../shared/domain/catalog.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;
let catalog: CatalogStore;
let service: CatalogService;
const root: Caller = { username: 'root', email: '', dataspace: 'acme', isSuperuser: true, groups: [] };

beforeAll(async () => {
  env = await useTestTable();
  await aTeam(env, { acme: { users: { root: { superuser: true } } }, beta: { users: { bea: { superuser: true } } } });
  catalog = new CatalogStore(env.doc, env.tableName);
  service = new CatalogService({ catalog, productPackages: new ProductPackageStore(env.doc, env.tableName), now: () => new Date(), newUuid: randomUUID });
});

const aPackage = async (name: string, body: Record<string, unknown>) =>
  (await service.savePackage(root, undefined, () => ({ purl: `pkg:maven/org.example/${name}@1.0`, ...body }), 'https://api.test')) as { uuid: string };

/** Rewrites a package's license fields as the version before recognition stored them, and forgets the dataspace's resolution version. */
async function asWrittenBefore(uuid: string, fields: Pick<Package, 'licenseExpression' | 'licenseKeys' | 'countedLicenseKeys' | 'unknownLicenses'>) {
  const [pk, sk] = [`PACKAGE#${uuid}`, 'PACKAGE'];
  await env.doc.send(
    new UpdateCommand({
      TableName: env.tableName,
      Key: { PK: pk, SK: sk },
      UpdateExpression: 'SET licenseExpression = :e, licenseKeys = :k, countedLicenseKeys = :c, unknownLicenses = :u REMOVE resolvedFrom',
      ExpressionAttributeValues: { ':e': fields.licenseExpression, ':k': fields.licenseKeys, ':c': fields.countedLicenseKeys, ':u': fields.unknownLicenses },
    }),
  );
  await env.doc.send(new UpdateCommand({ TableName: env.tableName, Key: keys.dataspace('acme'), UpdateExpression: 'REMOVE licenseResolution' }));
}

describe('the migration that resolves packages again with ScanCode rules', () => {
  it('resolves names an earlier version kept unknown, once per rules version, and leaves what did not come from the declared text', async () => {
    await service.saveLicense(root, undefined, () => ({ key: 'apache-2.0', name: 'Apache License 2.0', spdx_license_key: 'Apache-2.0' }), 'https://api.test');
    const named = await aPackage('named', { declared_license_expression: 'ALv2 AND MIT' });
    const beside = await aPackage('beside', { license_expression: 'MIT', declared_license_expression: 'ALv2' });
    const unknownStill = await aPackage('still', { declared_license_expression: 'Acme Internal Terms' });
    await asWrittenBefore(named.uuid, { licenseExpression: 'unknown-license-reference AND mit', licenseKeys: ['unknown-license-reference', 'mit'], countedLicenseKeys: [], unknownLicenses: ['ALv2'] });
    // An expression written beside the declared text (not resolved from it), with an unknown symbol of its own.
    await asWrittenBefore(beside.uuid, { licenseExpression: 'mit OR unknown-license-reference', licenseKeys: ['mit', 'unknown-license-reference'], countedLicenseKeys: [], unknownLicenses: ['Foo'] });
    const revBefore = (await catalog.packages.get(named.uuid))!.rev;

    const first = await migrateData(env.doc, env.tableName);
    expect(first.packagesReresolved).toBe(1);
    const after = (await catalog.packages.get(named.uuid))!;
    expect(after).toMatchObject({
      licenseExpression: 'apache-2.0 AND mit',
      declaredLicenseExpression: 'ALv2 AND MIT',
      unknownLicenses: [],
      // The dataspace's own apache-2.0 is now named, and counted against its deletion.
      countedLicenseKeys: ['apache-2.0'],
      resolvedFrom: [{ written: 'ALv2', expression: 'apache-2.0', by: 'name', rule: 'apache-2.0_388.RULE' }],
    });
    expect(after.rev).toBe(revBefore + 1);
    expect((await catalog.packages.get(beside.uuid))!).toMatchObject({ licenseExpression: 'mit OR unknown-license-reference', unknownLicenses: ['Foo'] });
    expect((await catalog.packages.get(unknownStill.uuid))!).toMatchObject({ licenseExpression: 'unknown-license-reference', unknownLicenses: ['Acme Internal Terms'] });
    const license = (await catalog.licenses.getByUnique('acme', ['apache-2.0'], true)).get('apache-2.0');
    await expect(service.deleteLicense(root, license!.uuid)).rejects.toMatchObject({ name: 'InUseError' });

    // Marked with this rules version: the next run reads no package.
    expect((await migrateData(env.doc, env.tableName)).packagesReresolved).toBe(0);
  });
});

describe("a license mapping applied to the packages already there (the license re-resolver's work)", () => {
  const bea: Caller = { username: 'bea', email: '', dataspace: 'beta', isSuperuser: true, groups: [] };
  const inBeta = async (name: string, declared: string) =>
    (await service.savePackage(bea, undefined, () => ({ purl: `pkg:maven/org.example/${name}@1.0`, declared_license_expression: declared }), 'https://api.test')) as { uuid: string };

  it('resolves the packages whose unknown licenses hold its text, once; leaves the rest and other dataspaces; a mapping gone applies to nothing', async () => {
    const held = await inBeta('held', 'Widget Public Licence and MIT');
    const beside = (await service.savePackage(bea, undefined, () => ({ purl: 'pkg:maven/org.example/beside@1.0', license_expression: 'MIT OR Widget-Public', declared_license_expression: 'Widget Public License' }), 'https://api.test')) as { uuid: string };
    const other = await inBeta('other', 'Gadget Terms');
    const inAcme = await aPackage('acme-widget', { declared_license_expression: 'Widget Public License' });
    const mapping = (await service.saveLicenseMapping(bea, undefined, () => ({ text: 'widget public license', license_expression: 'Apache-2.0' }), 'https://api.test')) as { uuid: string };
    const revs = async () => Promise.all([held, beside, other, inAcme].map(async (p) => (await catalog.packages.get(p.uuid))!.rev));
    const before = await revs();

    expect(await applyMapping(env.doc, env.tableName, 'beta', mapping.uuid)).toEqual({ found: true, written: 1 });
    expect((await catalog.packages.get(held.uuid))!).toMatchObject({
      licenseExpression: 'apache-2.0 AND mit',
      unknownLicenses: [],
      resolvedFrom: [{ written: 'Widget Public Licence', expression: 'apache-2.0', by: 'mapping', rule: mapping.uuid }],
    });
    // Only the package that held the text moved: an expression written beside its declared text, another
    // text, and another dataspace's package are as they were.
    const after = await revs();
    expect(after).toEqual([before[0]! + 1, before[1], before[2], before[3]]);
    // Applied again (a redelivered message): nothing left to write.
    expect(await applyMapping(env.doc, env.tableName, 'beta', mapping.uuid)).toEqual({ found: true, written: 0 });
    // Named with another dataspace, or deleted since it was queued: nothing applies.
    expect(await applyMapping(env.doc, env.tableName, 'acme', mapping.uuid)).toEqual({ found: false, written: 0 });
    await service.deleteLicenseMapping(bea, mapping.uuid);
    expect(await applyMapping(env.doc, env.tableName, 'beta', mapping.uuid)).toEqual({ found: false, written: 0 });
    expect((await catalog.packages.get(held.uuid))!.licenseExpression).toBe('apache-2.0 AND mit');
  });
});
