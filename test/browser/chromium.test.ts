/**
 * The browser comes from the npm registry (@sparticuz/chromium, unpacked on first use): no OS package,
 * and two copies of the test suite side by side may unpack it at the same moment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/npm-start.ts';

const cacheDir = mkdtempSync(join(tmpdir(), 'cms-chromium-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/** A separate Node process that launches the browser with `cacheDir` and renders a page. */
function launchInAnotherProcess(): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env };
  delete env.CHROMIUM_PATH;
  const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'support', 'launch-chromium.ts'), cacheDir], {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Inside the test's own 180 s, so a hung launcher is killed rather than left behind.
    timeout: 150_000,
    killSignal: 'SIGKILL',
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, output })));
}

describe('the npm-shipped Chromium', () => {
  it('is unpacked once, safely, when two processes launch it at the same time on a fresh machine', async () => {
    const [first, second] = await Promise.all([launchInAnotherProcess(), launchInAnotherProcess()]);

    // The browser is the npm package's, unpacked into cacheDir, never one from the OS.
    expect(first.output).toContain(`from ${cacheDir}/`);
    expect(first.output).toMatch(/^rendered by \d+\./m);
    expect(first.code).toBe(0);
    expect(second.output).toMatch(/^rendered by \d+\./m);
    expect(second.code).toBe(0);
    // One unpacked copy, and nothing half-written left beside it.
    expect(readdirSync(cacheDir)).toHaveLength(1);

    // Once unpacked, a later launch uses it as it is.
    const third = await launchInAnotherProcess();
    expect(third.output).toMatch(/^rendered by \d+\./m);
    expect(readdirSync(cacheDir)).toHaveLength(1);
  }, 180_000);
});
