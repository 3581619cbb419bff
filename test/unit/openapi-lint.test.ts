/**
 * The served OpenAPI document passes `redocly lint` with Redocly's recommended rules (redocly.yaml
 * names the one exception), offline: telemetry and update checks off, and, where the machine allows
 * an unprivileged network namespace (unshare -rn), with no network at all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/openapi.ts';
import { ROUTES } from '../../shared/routes/index.ts';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** True when this machine lets an unprivileged process run in a network namespace of its own. */
function canIsolateNetwork(): boolean {
  return spawnSync('unshare', ['-rn', 'true']).status === 0;
}

function lint(document: unknown, offline: boolean) {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document, null, 2));
  const command = [process.execPath, join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', '--config', join(root, 'redocly.yaml'), '--format=json', file];
  const [program, ...args] = offline ? ['unshare', '-rn', ...command] : command;
  const result = spawnSync(program!, args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
    timeout: 60_000,
  });
  const report = JSON.parse(result.stdout) as { totals: Record<string, number>; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
  return { status: result.status, report, problems: report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`) };
}

describe('redocly lint of the served OpenAPI document', () => {
  it('finds no error and no warning with the recommended rules (redocly.yaml: no-path-trailing-slash off), offline', () => {
    const document = buildOpenApiDocument(ROUTES, 'https://abc123.execute-api.us-east-1.amazonaws.com');
    const { status, problems } = lint(document, canIsolateNetwork());
    expect(problems).toEqual([]);
    expect(status).toBe(0);
  }, 60_000);

  it('would fail a document without info.license (the linter is really checking)', () => {
    const document = buildOpenApiDocument(ROUTES, 'https://abc123.execute-api.us-east-1.amazonaws.com') as { info: Record<string, unknown> };
    delete document.info.license;
    expect(lint(document, canIsolateNetwork()).problems).toEqual([expect.stringMatching(/^info-license at #\/info:/)]);
  }, 60_000);
});

