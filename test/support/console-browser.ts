/**
 * What every browser test of the console shares: one `npm start` (its own DATA_DIR and port) seeded with
 * the dataspace `acme` and its users, one headless Chromium from the npm registry, pages signed in with a
 * user's key, the accessibility check (axe-core) and screenshots.
 *
 * A test file calls `useConsoleStack()` at its top level: it registers the hooks that start the stack and
 * the browser before the file's tests and stop both (the stack's whole process group) after them, close
 * every test's pages, and fail a test whose page threw. A failed test keeps its pages' console and
 * network logs, screenshots, Playwright traces and the stack's output in test-output/failures/
 * (failure-artefacts.ts); its failure names the folder and the requests that were still waiting.
 *
 * Screenshots go to test-output/screenshots/; with `CONSOLE_SCREENSHOTS=docs` they also go to
 * docs/console/ (how the README's pictures are refreshed: `CONSOLE_SCREENSHOTS=docs npm run test:browser`).
 */
/// <reference lib="dom" />
import { GET_RETRIES } from '../../web/src/lib/api-client.ts';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import { freePort } from '../../bin/local/ports.ts';
import { generateApiKey } from '../../shared/auth/api-key.ts';
import { npmRunAdmin, npmStart, repositoryRoot, type RunningStack } from './npm-start.ts';
import { launchChromium } from './chromium.ts';
import { PageRecorder, artefactsError, failureFolder, lastLines, nameInFile, saveBrowserArtefacts, traceContext } from './failure-artefacts.ts';
import { pendingWorkReport } from './pending-work.ts';

export const SCREENSHOTS = join(repositoryRoot, 'test-output', 'screenshots');
export const DOCS_SCREENSHOTS = join(repositoryRoot, 'docs', 'console');
export const SBOM_FIXTURES = join(repositoryRoot, 'test', 'fixtures', 'sbom');

export interface Viewport {
  readonly width: number;
  readonly height: number;
}

export const DESKTOP: Viewport = { width: 1280, height: 900 };
/** The narrowest phone the console is laid out for. */
export const NARROW: Viewport = { width: 360, height: 780 };

export interface ApiAnswer<T> {
  readonly status: number;
  readonly body: T;
}

export interface ConsoleStack {
  /** The running `npm start` (its `apiUrl` serves the console at `/` and the API at `/api/v2/`). */
  readonly stack: RunningStack;
  readonly dataDir: string;
  readonly browser: Browser;
  /** Keys of the seeded users: `root` (superuser), `alice` and `carol` (not superusers), all in `acme`. */
  readonly keys: { readonly root: string; readonly alice: string; readonly carol: string };
  /** The API as a script uses it, to arrange what the browser then shows. */
  api<T = any>(key: string, method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** A POST that must answer 201; its body. */
  created<T = any>(key: string, path: string, body: unknown): Promise<T>;
  /**
   * Loads a real SBOM of test/fixtures/sbom (made by cyclonedx-npm, npm sbom or cdxgen) into a product,
   * synchronously, and answers the import.
   */
  loadSbom<T = any>(key: string, product: string, fixture: string): Promise<T>;
  newPage(viewport?: Viewport): Promise<Page>;
  /** A page signed in with `key`, showing the main navigation. */
  signedInPage(key: string, viewport?: Viewport): Promise<Page>;
}

/**
 * Registers the file's hooks and answers the stack's handle, filled in once `beforeAll` has run.
 * `seed` adds to the seed file what a test file needs beyond the users (priorities, templates, …).
 */
export function useConsoleStack(seed: Readonly<Record<string, unknown[]>> = {}): ConsoleStack {
  const started: ChildProcess[] = [];
  const contexts: BrowserContext[] = [];
  const recorders: PageRecorder[] = [];
  /** The test's own API calls still waiting for an answer, for the failure report. */
  const calls = new Map<string, number>();
  const pageErrors: string[] = [];
  /** The slowest answer any page of the file waited for, appended to test-output/browser-waits.log after the file. */
  let slowest = { ms: 0, what: '', test: '' };
  let fileName = '';
  const keys = { root: generateApiKey(), alice: generateApiKey(), carol: generateApiKey() };
  let launching: Promise<Browser> | undefined;
  let browser: Browser | undefined;
  let stack: RunningStack | undefined;
  let dataDir: string | undefined;

  /** fetch, noting the call as pending until its answer has been read. */
  const tracked = async (method: string, path: string, init: RequestInit): Promise<{ response: Response; text: string }> => {
    const call = `${method} ${path} (${Math.random().toString(36).slice(2, 6)})`;
    calls.set(call, Date.now());
    try {
      const response = await fetch(`${stack!.apiUrl}${path}`, { ...init, method });
      return { response, text: await response.text() };
    } finally {
      calls.delete(call);
    }
  };

  const api = async <T>(key: string, method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const init = {
      headers: { Authorization: `Token ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
    let { response, text } = await tracked(method, path, init);
    // A read answered 503 with Retry-After ("busy") is asked again, as the console's own client and the SDKs
    // do (web/src/lib/api-client.ts, GET_RETRIES). A run of two suites side by side once starved the stack's
    // DynamoDB Local so that a product's packages page took three 2.5 s attempts and answered 503 (the
    // console retried; this helper did not, and the test read `count` from the 503's body).
    for (let attempt = 0; response.status === 503 && method === 'GET' && attempt < GET_RETRIES; attempt++) {
      const after = Number(response.headers.get('retry-after'));
      await new Promise((done) => setTimeout(done, Number.isFinite(after) && after > 0 ? Math.min(after, 5) * 1000 : 1000));
      ({ response, text } = await tracked(method, path, init));
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (an SBOM download is, a console file is not): the text as it came
    }
    return { status: response.status, body: parsed as T };
  };

  const handle: ConsoleStack = {
    get stack() {
      return stack!;
    },
    get dataDir() {
      return dataDir!;
    },
    get browser() {
      return browser!;
    },
    keys,
    api,
    async created<T>(key: string, path: string, body: unknown): Promise<T> {
      const answer = await api<T>(key, 'POST', path, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body;
    },
    async loadSbom<T>(key: string, product: string, fixture: string): Promise<T> {
      const document = readFileSync(join(SBOM_FIXTURES, fixture));
      const type = fixture.endsWith('.spdx.json') ? 'application/spdx+json' : 'application/vnd.cyclonedx+json';
      const { response, text } = await tracked('POST', `/api/v2/products/${product}/load_sboms/`, {
        headers: { Authorization: `Token ${key}`, 'Content-Type': type },
        body: document,
      });
      const body = JSON.parse(text) as T;
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body;
    },
    async newPage(viewport = DESKTOP): Promise<Page> {
      const context = await browser!.newContext({ viewport });
      contexts.push(context);
      await traceContext(context);
      const page = await context.newPage();
      recorders.push(new PageRecorder(page, `${recorders.length + 1} (${viewport.width}×${viewport.height})`));
      // Playwright's default of 30 s a wait. It had been raised to 60 s for "a page's first API answers
      // taking over 30 s" in full runs: that was a page that never followed its address (the router's
      // lost hashchange, web/src/router.ts), not a slow answer. The slowest answer a page waited for in a
      // loaded run is in test-output/browser-waits.log (2.9 s, an SBOM import, beside a full .ci/run).
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      return page;
    },
    async signedInPage(key: string, viewport = DESKTOP): Promise<Page> {
      const page = await handle.newPage(viewport);
      await page.goto(`${stack!.apiUrl}/`);
      await page.getByLabel('API key').fill(key);
      await page.getByLabel('API key').press('Enter');
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      return page;
    },
  };

  beforeAll(async () => {
    fileName = relative(repositoryRoot, expect.getState().testPath ?? '');
    launching = launchChromium();
    launching.catch(() => undefined); // awaited below; afterAll closes it whatever happens
    mkdirSync(SCREENSHOTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'cms-browser-'));
    stack = await npmStart({ ...process.env, PORT: String(await freePort()), DATA_DIR: dataDir }, started);
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        dataspaces: [{ name: 'acme' }],
        users: [
          { username: 'root', email: 'root@example.com', dataspace: 'acme', is_superuser: true, api_key: keys.root },
          { username: 'alice', email: 'alice@example.com', dataspace: 'acme', is_superuser: false, api_key: keys.alice },
          { username: 'carol', email: 'carol@example.com', dataspace: 'acme', is_superuser: false, api_key: keys.carol },
        ],
        ...seed,
      }),
    );
    const loaded = await npmRunAdmin(dataDir, 'load', seedFile);
    expect(loaded.status, loaded.stderr).toBe(0);
    browser = await launching;
  }, 300_000);

  afterEach(async ({ task }) => {
    const pages = recorders.splice(0);
    for (const recorder of pages) if (recorder.slowest.ms > slowest.ms) slowest = { ...recorder.slowest, test: task.name };
    const open = contexts.splice(0);
    const waiting = [...calls].map(([call, started]) => `test's own call ${call} waiting for ${Date.now() - started} ms`);
    calls.clear();
    let report: Error | undefined;
    if (task.result?.state === 'fail') {
      const folder = failureFolder({ file: task.file.filepath, test: nameInFile(task) });
      const written = await saveBrowserArtefacts(folder, pages, open, stack?.output());
      const pending = pages.flatMap((recorder) => recorder.waiting());
      const work = pendingWorkReport();
      report = artefactsError(folder, written, [...waiting, ...pending, ...(work ? [work] : []), 'last lines of npm start:', lastLines(stack?.output() ?? '', 12)].join('\n'));
    } else {
      await Promise.all(open.map((context) => context.tracing.stop().catch(() => undefined)));
    }
    await Promise.all(open.map((context) => context.close()));
    if (report) throw report;
    expect(pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    appendFileSync(
      join(repositoryRoot, 'test-output', 'browser-waits.log'),
      `${new Date().toISOString()} ${fileName}: slowest answer to a page ${slowest.ms} ms (${slowest.what}, in "${slowest.test}")\n`,
    );
    try {
      await (await launching?.catch(() => undefined))?.close();
    } finally {
      for (const child of started) {
        if (child.exitCode !== null) continue;
        const closed = new Promise<void>((done) => child.once('close', () => done()));
        signalGroup(child, 'SIGTERM');
        // A stack that does not stop within 20 s is killed, so nothing outlives the test run.
        const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 20_000);
        await closed;
        clearTimeout(timer);
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  return handle;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** A full-page screenshot in test-output/screenshots/ (and docs/console/ with CONSOLE_SCREENSHOTS=docs). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env.CONSOLE_SCREENSHOTS === 'docs') {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    copyFileSync(path, join(DOCS_SCREENSHOTS, `${name}.png`));
  }
}

/**
 * The accessibility check of a page as it is now (WCAG 2.0/2.1/2.2 A and AA rules of axe-core): its
 * serious and critical findings, each with the elements it found them on, so a failing test says where.
 */
export async function accessibilityFindings(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** Inputs, selects and text areas without a non-empty accessible label (label element, aria-label or aria-labelledby). */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((element) => {
        const control = element as HTMLInputElement;
        const byLabel = [...(control.labels ?? [])].some((label) => label.textContent?.trim());
        const byAria = control.getAttribute('aria-label')?.trim();
        const byReference = (control.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .some((id) => id && document.getElementById(id)?.textContent?.trim());
        return !byLabel && !byAria && !byReference;
      })
      .map((element) => element.outerHTML),
  );
}

/** The widest element outside a table's scrolling frame, for "never scrolls sideways" checks. */
export function widestOutsideTables(page: Page, width: number): Promise<{ width: number; elements: string[] }> {
  return page.evaluate((limit) => {
    const wide = [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > limit && !element.closest('.table-wrap'));
    return { width: document.documentElement.scrollWidth, elements: wide.slice(0, 5).map((element) => element.outerHTML.slice(0, 200)) };
  }, width);
}
