/**
 * The admin CLI run as the README runs it, with no stack to talk to: it says why, and what to do,
 * instead of suggesting that DATA_DIR is missing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmRunAdmin } from '../support/npm-start.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin with no local stack running', () => {
  it('exits 2 and explains that npm start records itself once ready, and which DATA_DIR it looked in', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-admin-'));
    dirs.push(dataDir);
    const result = await npmRunAdmin(dataDir, 'list-users');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`No local stack is running for DATA_DIR=${dataDir}`);
    expect(result.stderr).toContain('once it prints "Compliance API ready"');
    expect(result.stderr).toContain('give the same DATA_DIR here');
  }, 60_000);
});
