/**
 * Optimistic concurrency on `rev` (revisionCondition in shared/store/dynamo.ts): a write made from a
 * stale read is refused, whichever store makes it, and a create never overwrites.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestTable } from '../support/environment.ts';
import { StaleObjectError } from '../../shared/store/catalog-store.ts';
import type { UsagePolicy } from '../../shared/domain/catalog.ts';

let env: Awaited<ReturnType<typeof useTestTable>>;

beforeAll(async () => {
  env = await useTestTable();
});

describe('writes under a revision check', () => {
  it('refuses the second of two updates made from the same read, and keeps the first', async () => {
    const created: UsagePolicy = { uuid: randomUUID(), dataspace: 'acme', rev: 0, label: 'Approved', contentType: 'package', complianceAlert: '', description: '' };
    await env.catalog.usagePolicies.write(undefined, created);
    const read = (await env.catalog.usagePolicies.get(created.uuid))!;
    expect(read.rev).toBe(1);

    await env.catalog.usagePolicies.write(read, { ...read, description: 'first' });
    await expect(env.catalog.usagePolicies.write(read, { ...read, description: 'second' })).rejects.toBeInstanceOf(StaleObjectError);
    expect(await env.catalog.usagePolicies.get(created.uuid)).toMatchObject({ rev: 2, description: 'first' });
  });

  it('refuses a create over an object that exists', async () => {
    const created: UsagePolicy = { uuid: randomUUID(), dataspace: 'acme', rev: 0, label: 'Twice', contentType: 'package', complianceAlert: '', description: '' };
    await env.catalog.usagePolicies.write(undefined, created);
    await expect(env.catalog.usagePolicies.write(undefined, { ...created, label: 'Twice again' })).rejects.toBeInstanceOf(StaleObjectError);
  });
});
