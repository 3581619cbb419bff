/**
 * What a failed test leaves behind so that it explains itself: for a browser test, each page's console
 * messages, page errors and network requests (finished with their status and, for the API, the start of
 * the answer; failed with the reason; still pending at the failure, with how long they had waited), a
 * screenshot and a Playwright trace of each browser context (trace.playwright.dev, or `npx playwright-core show-trace FILE`), and the
 * stack's last output; for any test, what its `eventually` waits were waiting for.
 *
 * Artefacts go to test-output/failures/ (ignored by git), one folder a failed test; the failure message
 * names the folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { repositoryRoot } from './npm-start.ts';

export const FAILURES = join(repositoryRoot, 'test-output', 'failures');

/** How much of an API answer's body the network log keeps. */
const BODY_BYTES = 600;

/** A page's console, errors and network, as lines with the milliseconds since the page was opened. */
export class PageRecorder {
  private readonly opened = Date.now();
  private readonly lines: string[] = [];
  private readonly pending = new Map<Request, number>();
  /** The page's slowest answer so far (how long a page waits on the stack, measured in every run). */
  slowest = { ms: 0, what: '' };

  constructor(
    readonly page: Page,
    readonly name: string,
  ) {
    page.on('console', (message) => this.add(`console.${message.type()} ${message.text()}`));
    page.on('pageerror', (error) => this.add(`pageerror ${String(error)}`));
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.add(`navigated ${frame.url()}`);
    });
    page.on('request', (request) => {
      this.pending.set(request, Date.now());
      this.add(`→ ${request.method()} ${request.url()}`);
    });
    page.on('requestfinished', (request) => void this.finished(request));
    page.on('requestfailed', (request) => {
      this.add(`✗ ${request.method()} ${request.url()} failed after ${this.since(request)} ms: ${request.failure()?.errorText ?? 'no reason given'}`);
      this.pending.delete(request);
    });
  }

  private add(line: string, at = Date.now()): void {
    this.lines.push(`${String(at - this.opened).padStart(7)} ms  ${line}`);
  }

  private since(request: Request): number {
    return Date.now() - (this.pending.get(request) ?? Date.now());
  }

  private async finished(request: Request): Promise<void> {
    const at = Date.now();
    const took = this.since(request);
    if (took > this.slowest.ms) this.slowest = { ms: took, what: `${request.method()} ${new URL(request.url()).pathname}` };
    this.pending.delete(request);
    const response = await request.response().catch(() => null);
    let body = '';
    if (response && new URL(request.url()).pathname.startsWith('/api/')) {
      body = await response
        .text()
        .then((text) => ` ${text.length > BODY_BYTES ? `${text.slice(0, BODY_BYTES)}… (${text.length} characters)` : text}`)
        .catch(() => '');
    }
    this.add(`← ${response?.status() ?? '?'} ${request.method()} ${request.url()} in ${took} ms${body}`, at);
  }

  /** The page's requests still waiting for an answer. */
  waiting(): string[] {
    return [...this.pending].map(([request, started]) => `page ${this.name}: ${request.method()} ${request.url()} waiting for ${Date.now() - started} ms`);
  }

  /** The log so far, then the requests still waiting for an answer. */
  report(): string {
    const waiting = this.waiting();
    return [
      `page ${this.name}, last at ${this.page.isClosed() ? '(closed)' : this.page.url()}`,
      ...this.lines,
      waiting.length ? `requests still pending:\n${waiting.join('\n')}` : 'no request pending',
    ].join('\n');
  }
}

/** Starts a Playwright trace of the context (DOM snapshots at each action; kept only when a test fails). */
export async function traceContext(context: BrowserContext): Promise<void> {
  await context.tracing.start({ snapshots: true, screenshots: false, sources: false });
}

export interface FailedTest {
  /** The test file's path and the test's name within it (its describe blocks' and its own), for the folder's name. */
  readonly file: string;
  readonly test: string;
}

/** A vitest task's name within its file: its describe blocks' names and its own. */
export function nameInFile(task: { name: string; suite?: { name: string; suite?: unknown } | undefined }): string {
  const names: string[] = [task.name];
  for (let suite = task.suite as { name: string; suite?: unknown } | undefined; suite?.suite; suite = suite.suite as typeof suite) names.unshift(suite.name);
  return names.join(' > ');
}

/** A fresh folder under test-output/failures/ for this failed test. */
export function failureFolder(failed: FailedTest): string {
  const slug = (text: string) =>
    text
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80);
  const folder = join(FAILURES, `${slug(relative(repositoryRoot, failed.file).replace(/\.test\.ts$/, ''))}--${slug(failed.test)}--${Date.now()}`);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * Writes a browser test's artefacts into `folder`: per page, its log (`page-N.log`) and a screenshot;
 * per context, its trace (`trace-N.zip`); and the stack's output. Answers the files written. Each step
 * is bounded, so a page that hangs does not hang the report.
 */
export async function saveBrowserArtefacts(folder: string, pages: readonly PageRecorder[], contexts: readonly BrowserContext[], stackOutput?: string): Promise<string[]> {
  const written: string[] = [];
  const bounded = <T>(work: Promise<T>, ms = 15_000) => Promise.race([work, new Promise<undefined>((done) => setTimeout(() => done(undefined), ms).unref())]);
  for (const [index, recorder] of pages.entries()) {
    const log = join(folder, `page-${index + 1}.log`);
    writeFileSync(log, `${recorder.report()}\n`);
    written.push(log);
    if (recorder.page.isClosed()) continue;
    const picture = join(folder, `page-${index + 1}.png`);
    if (await bounded(recorder.page.screenshot({ path: picture, fullPage: true, timeout: 10_000 }).then(() => true, () => false))) written.push(picture);
  }
  for (const [index, context] of contexts.entries()) {
    const trace = join(folder, `trace-${index + 1}.zip`);
    if (await bounded(context.tracing.stop({ path: trace }).then(() => true, () => false))) written.push(trace);
  }
  if (stackOutput !== undefined) {
    const file = join(folder, 'stack-output.log');
    writeFileSync(file, stackOutput);
    written.push(file);
  }
  return written;
}

/** The last `count` lines of `text`. */
export function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count - 1).join('\n').trimEnd();
}

/** The error a failed test gets besides its own, naming where its artefacts are. */
export function artefactsError(folder: string, written: readonly string[], summary = ''): Error {
  const error = new Error(
    `Failure artefacts in ${relative(repositoryRoot, folder)}/: ${written.map((file) => relative(folder, file)).join(', ')}${summary ? `\n${summary}` : ''}`,
  );
  error.stack = error.message; // where this hook threw says nothing
  return error;
}
