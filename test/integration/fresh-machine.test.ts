/**
 * A fresh machine brings Node (any that runs npm 10+, here Debian's Node 20) and Java; `npm ci` installs
 * the rest, including the Node 22 every npm script runs on. The install says nothing untrue about engines,
 * and CI installs no system package.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/npm-start.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cms-fresh-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The npm a user types, whatever Node runs this test (npm scripts put Node 22 first on PATH). */
function npmCli(): string {
  if (process.env.npm_execpath?.endsWith('npm-cli.js')) return process.env.npm_execpath;
  return realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
}

describe('npm ci on a machine whose own Node is older than the Node 22 the scripts run on', () => {
  it('prints no EBADENGINE warning (nor any other) and passes the devEngines check', () => {
    const project = join(scratch, 'project');
    mkdirSync(project);
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(repositoryRoot, file), join(project, file));
    // npm judges engines by process.version of the Node running it: make that Debian's Node 20, the
    // Node of a fresh machine, whichever Node runs this test.
    const node20 = join(scratch, 'node-20.cjs');
    writeFileSync(node20, "Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n");

    // A dry run from the lockfile builds the same tree and runs the same engine checks, without
    // writing node_modules; --offline: the npm cache is warm after the project's own npm ci.
    const env = { ...process.env };
    delete env.npm_config_loglevel; // the project's .npmrc decides
    const install = spawnSync(process.execPath, ['--require', node20, npmCli(), 'ci', '--dry-run', '--offline'], {
      cwd: project,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = install.stdout + install.stderr;

    expect(install.status, output).toBe(0);
    expect(output).toContain('add vitest ');
    expect(output).not.toContain('EBADENGINE');
    expect(output).not.toContain('EBADDEVENGINES');
    expect(output).not.toMatch(/^npm warn/m);
  });
});

describe('.ci/run', () => {
  const script = readFileSync(join(repositoryRoot, '.ci', 'run'), 'utf8');

  it("installs no system package and runs exactly the README's test command", () => {
    expect(script).not.toMatch(/apt-get|apt install|dpkg|dnf|yum/);
    expect(script).toContain('(npm ci && npm test)');
    expect(readFileSync(join(repositoryRoot, 'README.md'), 'utf8')).toContain('npm ci && npm test ');
  });

  it('stops at once with a clear message on a machine without Java', () => {
    // A copy of the script in a folder of its own, so nothing can reach this checkout, on a PATH that
    // has what the script needs before the check, and no java.
    const ci = join(scratch, 'ci');
    mkdirSync(join(ci, '.ci'), { recursive: true });
    mkdirSync(join(ci, 'bin'));
    copyFileSync(join(repositoryRoot, '.ci', 'run'), join(ci, '.ci', 'run'));
    symlinkSync(realpathSync(execFileSync('sh', ['-c', 'command -v dirname'], { encoding: 'utf8' }).trim()), join(ci, 'bin', 'dirname'));

    const run = spawnSync('/bin/bash', [join(ci, '.ci', 'run')], { env: { PATH: join(ci, 'bin'), CI: 'true' }, encoding: 'utf8', timeout: 60_000 });

    expect(run.stderr).toContain("Java 17+ is required (DynamoDB Local runs on it) and 'java' is not on PATH.");
    expect(run.status).toBe(1);
  });
});
