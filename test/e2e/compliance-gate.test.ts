/**
 * compliance-gate (bin/compliance-gate.mjs), run as a pipeline runs it: a child process against the
 * HTTP API, loading a real SBOM (npm sbom's CycloneDX of this repository's production dependencies)
 * and exiting 0 (pass, also with warnings), 1 (error-severity violations) or 2 (could not run).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useHttpTeam } from '../support/http-team.ts';

const GATE = join(import.meta.dirname, '..', '..', 'bin', 'compliance-gate.mjs');
const SBOM = join(import.meta.dirname, '..', 'fixtures', 'sbom', 'npm-sbom-prod.cdx.json');

const http = useHttpTeam({
  acme: { users: { root: { superuser: true }, alice: {}, viewer: {} } },
});
const { call } = http;

const scratch = mkdtempSync(join(tmpdir(), 'gate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function gate(args: string[], key: string | undefined): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', ...(key !== undefined ? { COMPLIANCE_API_KEY: key } : {}) };
    execFile(process.execPath, [GATE, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

let product: string;
const args = () => ['--api', http.api.url, '--product', product, '--sbom', SBOM];

beforeAll(async () => {
  const created = await call('alice', 'POST', '/api/v2/products/', { name: 'Gated' });
  expect(created.status).toBe(201);
  product = created.json.uuid;
  await call('alice', 'POST', `/api/v2/products/${product}/permissions/`, { user: 'viewer', permissions: ['view_product'] });
});

describe('compliance-gate', () => {
  it('loads the SBOM, waits for the evaluation and passes (0) when no rule is active', async () => {
    const result = await gate(args(), http.team.keys.alice);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Imported \d+ components: \d+ packages created/m);
    expect(result.stdout).toContain('Policy: pass (no active violation).');
    const packages = await call('viewer', 'GET', `/api/v2/products/${product}/packages/?page_size=1`);
    expect(packages.json.count).toBeGreaterThan(10);
  });

  it('fails (1) with a table of the violations when an error rule triggers, and passes (0) on warnings only', async () => {
    // Every Permissive license flagged: the npm dependencies are mostly MIT.
    const rules = await call('root', 'PATCH', '/api/v2/policy_rules/', {
      license_policy_error: { is_active: true, parameters: { categories: ['Permissive'] } },
      license_coverage_gap: { is_active: true, threshold: 1_000 },
    });
    expect(rules.status, rules.text).toBe(200);
    const failed = await gate(args(), http.team.keys.alice);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(/^SEVERITY\s+RULE\s+PACKAGES$/m);
    expect(failed.stdout).toMatch(/^error\s+License Policy Error \(license_policy_error\)\s+\d+$/m);
    expect(failed.stdout).toContain('Policy: fail (1 error violation).');

    // The same licenses flagged by the warning rule only.
    await call('root', 'PATCH', '/api/v2/policy_rules/', {
      license_policy_error: { is_active: false },
      license_policy_warning: { is_active: true, parameters: { categories: ['Permissive'] } },
    });
    const warned = await gate(args(), http.team.keys.alice);
    expect(warned.code, warned.stderr + warned.stdout).toBe(0);
    expect(warned.stdout).toMatch(/^warning\s+/m);
    expect(warned.stdout).toContain('Policy: pass with warnings.');
  });

  it('could not run (2): no key, a wrong key, a product the key cannot change, a missing file, a document the API refuses', async () => {
    const noKey = await gate(args(), undefined);
    expect(noKey).toMatchObject({ code: 2, stdout: '' });
    expect(noKey.stderr).toContain('Set the API key in COMPLIANCE_API_KEY.');

    const wrongKey = await gate(args(), 'x'.repeat(40));
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toMatch(/refused \(401\)/);

    const viewerOnly = await gate(args(), http.team.keys.viewer);
    expect(viewerOnly.code).toBe(2);
    expect(viewerOnly.stderr).toMatch(/refused \(403\)/);

    const missing = await gate(['--api', http.api.url, '--product', product, '--sbom', join(scratch, 'nope.json')], http.team.keys.alice);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read');

    const xml = join(scratch, 'bom.xml');
    writeFileSync(xml, '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY x SYSTEM "file:///etc/passwd">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>');
    const refused = await gate(['--api', http.api.url, '--product', product, '--sbom', xml], http.team.keys.alice);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refused \(400\).*document type declaration/);
    const yaml = join(scratch, 'bom.yaml');
    writeFileSync(yaml, 'bomFormat: CycloneDX\nspecVersion: "1.6"\n');
    const unsupported = await gate(['--api', http.api.url, '--product', product, '--sbom', yaml], http.team.keys.alice);
    expect(unsupported.code).toBe(2);
    expect(unsupported.stderr).toMatch(/refused \(415\)/);

    const usage = await gate(['--product', product], http.team.keys.alice);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Missing --api, --sbom.');
  });
});
