#!/usr/bin/env node
// @ts-check
/**
 * compliance-gate: a CI step that loads an SBOM into a product, waits for the import and the policy
 * evaluation, prints the product's active violations as a table and exits
 *   0  pass (no error-severity violation; warnings are printed),
 *   1  fail (at least one error-severity violation),
 *   2  could not run (bad arguments, unreadable file, refused or failed import, API unreachable, timeout).
 *
 *   COMPLIANCE_API_KEY=… npx compliance-gate --api https://…/api/v2 --product <uuid> --sbom bom.json
 *
 * One file, no dependencies, Node 20 or later: a pipeline may download this file alone and run it
 * with `node compliance-gate.mjs …`.
 */
import { realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `Usage: compliance-gate --api URL --product UUID --sbom FILE [options]

  --api URL         the API root, e.g. https://compliance.example.com/api/v2 (or the host: /api/v2 is added)
  --product UUID    the product the SBOM describes
  --sbom FILE       a CycloneDX (JSON 1.2-1.6) or SPDX (JSON 2.2/2.3) document
  --mode MODE       replace (default: the product's inventory becomes the SBOM's) or merge
  --timeout SECS    give up after this long (default 900)
  --key-env NAME    the environment variable holding the API key (default COMPLIANCE_API_KEY)
  --help

Exit status: 0 pass, 1 error-severity violations, 2 could not run.`;

/** Bodies up to this size go in one synchronous call; larger ones through a presigned upload. */
const SYNC_BYTES = 5 * 1024 * 1024;

class GateError extends Error {}

/** @param {string[]} argv */
export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      api: { type: 'string' },
      product: { type: 'string' },
      sbom: { type: 'string' },
      mode: { type: 'string', default: 'replace' },
      timeout: { type: 'string', default: '900' },
      'key-env': { type: 'string', default: 'COMPLIANCE_API_KEY' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return { help: true };
  const missing = ['api', 'product', 'sbom'].filter((name) => !values[/** @type {'api'} */ (name)]);
  if (missing.length > 0) throw new GateError(`Missing --${missing.join(', --')}.\n\n${USAGE}`);
  if (values.mode !== 'replace' && values.mode !== 'merge') throw new GateError('--mode is replace or merge.');
  const timeout = Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new GateError('--timeout is a number of seconds.');
  let api = String(values.api).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(api)) throw new GateError('--api must be an http(s) URL.');
  if (!/\/api\/v2$/.test(api)) api = `${api}/api/v2`;
  const keyEnv = String(values['key-env']);
  return { help: false, api, product: String(values.product), sbom: String(values.sbom), mode: values.mode, timeoutMs: timeout * 1000, keyEnv };
}

/**
 * @param {{ api: string, key: string, deadline: number, log: (line: string) => void }} client
 * @param {string} method
 * @param {string} url
 * @param {{ body?: string | Buffer, contentType?: string, auth?: boolean, headers?: Record<string, string> }} [options]
 * @returns {Promise<{ status: number, json: unknown, text: string }>}
 */
async function call(client, method, url, options = {}) {
  const headers = /** @type {Record<string, string>} */ (options.headers ? { ...options.headers } : { Accept: 'application/json' });
  if (options.auth !== false) headers.Authorization = `Token ${client.key}`;
  if (options.contentType) headers['Content-Type'] = options.contentType;
  for (let attempt = 1; ; attempt++) {
    const remaining = client.deadline - Date.now();
    if (remaining <= 0) throw new GateError(`Timed out waiting for ${method} ${url}.`);
    let response;
    try {
      response = await fetch(url, { method, headers, body: options.body, signal: AbortSignal.timeout(Math.min(remaining, 120_000)) });
    } catch (error) {
      if (attempt >= 4) throw new GateError(`${method} ${url}: ${error instanceof Error ? error.message : String(error)}`);
      await sleep(1000 * attempt);
      continue;
    }
    const text = await response.text();
    // The API asks to come back later when it is busy or the key is past its rate: do so, a few times.
    if ((response.status === 429 || response.status === 503) && attempt < 6) {
      const wait = Math.min(Number(response.headers.get('retry-after')) || attempt, 30);
      client.log(`${method} ${new URL(url).pathname}: ${response.status}, retrying in ${wait} s`);
      await sleep(wait * 1000);
      continue;
    }
    let json;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text };
  }
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {{ status: number, text: string }} answer @param {string} what */
function refused(answer, what) {
  return new GateError(`${what} was refused (${answer.status}): ${answer.text.slice(0, 2000)}`);
}

/** The media type the API takes for the document: sniffed as the API does (it reads the format from the document). */
function contentTypeOf(/** @type {Buffer} */ body) {
  const head = body.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('<')) return 'application/vnd.cyclonedx+xml';
  if (/^(?:#[^\n]*\n\s*)*SPDXVersion\s*:/.test(head)) return 'text/spdx';
  if (/"@context"\s*:\s*"https:\/\/openvex\.dev\//.test(head)) return 'application/openvex+json';
  if (/"spdxVersion"|"@context"\s*:\s*"https:\/\/spdx\.org\/rdf\/3/.test(head)) return 'application/spdx+json';
  if (/"bomFormat"/.test(head)) return 'application/vnd.cyclonedx+json';
  return 'application/json';
}

/**
 * Loads the SBOM and answers the completed import.
 * @param {{ api: string, key: string, deadline: number, log: (line: string) => void }} client
 * @param {{ product: string, mode: string }} options
 * @param {Buffer} body
 */
async function importSbom(client, options, body) {
  const product = encodeURIComponent(options.product);
  const contentType = contentTypeOf(body);
  if (body.length <= SYNC_BYTES) {
    const answer = await call(client, 'POST', `${client.api}/products/${product}/load_sboms/?mode=${options.mode}`, { body, contentType });
    if (answer.status === 200 || answer.status === 201 || answer.status === 202) return waitForImport(client, answer.json);
    if (answer.status !== 413) throw refused(answer, 'The SBOM');
  }
  const created = await call(client, 'POST', `${client.api}/products/${product}/sbom_uploads/`, {
    // The file's size: the URL is signed for exactly that many bytes.
    body: JSON.stringify({ mode: options.mode, content_type: contentType, size: body.length }),
    contentType: 'application/json',
  });
  if (created.status !== 201) throw refused(created, 'The upload');
  // The import is the answer itself; `upload` says where to PUT the file, with exactly these headers.
  const upload = /** @type {{ upload: { url: string, method?: string, headers?: Record<string, string> } }} */ (created.json).upload;
  const put = await call(client, upload.method ?? 'PUT', upload.url, { body, auth: false, headers: upload.headers ?? { 'Content-Type': contentType } });
  if (put.status < 200 || put.status > 299) throw refused(put, 'The upload of the file');
  return waitForImport(client, created.json);
}

/**
 * What the gate reads of an SBOM import, as the API answers it (SbomImport in the OpenAPI document).
 * @typedef {{ components?: number, packages_created?: number, packages_matched?: number, skipped?: { component: string, reason: string }[], unknown_licenses?: string[], added?: number, removed?: number, unchanged?: number }} SbomImportSummary
 * @typedef {{ uuid: string, status: string, errors?: string[], summary?: SbomImportSummary | null }} SbomImportAnswer
 */

/**
 * @param {{ api: string, key: string, deadline: number, log: (line: string) => void }} client
 * @param {unknown} started the answer of load_sboms or sbom_uploads: an import
 */
async function waitForImport(client, started) {
  let current = /** @type {SbomImportAnswer} */ (started);
  let delay = 500;
  while (current.status === 'queued' || current.status === 'running') {
    await sleep(delay);
    delay = Math.min(delay * 2, 5000);
    const answer = await call(client, 'GET', `${client.api}/sbom_imports/${encodeURIComponent(current.uuid)}/`);
    if (answer.status !== 200) throw refused(answer, 'Reading the import');
    current = /** @type {SbomImportAnswer} */ (answer.json);
  }
  if (current.status !== 'completed') throw new GateError(`The import ${current.uuid} ${current.status}: ${JSON.stringify(current.errors ?? [])}`);
  return current;
}

/** @param {string[][]} rows */
export function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}

/**
 * @param {string[]} argv
 * @param {{ env?: NodeJS.ProcessEnv, out?: (line: string) => void, err?: (line: string) => void }} [io]
 * @returns {Promise<0 | 1 | 2>}
 */
export async function main(argv, io = {}) {
  const out = io.out ?? ((line) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line) => process.stderr.write(`${line}\n`));
  const env = io.env ?? process.env;
  try {
    const options = parseOptions(argv);
    if (options.help) {
      out(USAGE);
      return 0;
    }
    const key = env[options.keyEnv ?? 'COMPLIANCE_API_KEY'];
    if (!key) throw new GateError(`Set the API key in ${options.keyEnv}.`);
    let body;
    try {
      if (!(await stat(options.sbom)).isFile()) throw new Error('not a file');
      body = await readFile(options.sbom);
    } catch (error) {
      throw new GateError(`Cannot read ${options.sbom}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const client = { api: options.api, key, deadline: Date.now() + options.timeoutMs, log: err };
    const done = await importSbom(client, { product: options.product, mode: options.mode ?? 'replace' }, body);
    const summary = done.summary ?? {};
    out(
      `Imported ${summary.components ?? '?'} components: ${summary.packages_created ?? 0} packages created, ${summary.packages_matched ?? 0} matched, ` +
        `${summary.skipped?.length ?? 0} skipped; inventory +${summary.added ?? 0} -${summary.removed ?? 0} =${summary.unchanged ?? 0}.`,
    );
    for (const skipped of summary.skipped ?? []) out(`  skipped ${skipped.component}: ${skipped.reason}`);
    const unknownLicenses = summary.unknown_licenses ?? [];
    if (unknownLicenses.length > 0) out(`  unknown licenses: ${unknownLicenses.join('; ')}`);
    const evaluated = await call(client, 'POST', `${client.api}/products/${encodeURIComponent(options.product)}/evaluate_policy_rules/?wait=true`);
    if (evaluated.status !== 200 || !Array.isArray(evaluated.json)) throw refused(evaluated, 'The evaluation');
    /** @type {{ rule_type: string, rule_label: string, rule_severity: string, violation_count: number }[]} */
    const violations = evaluated.json;
    if (violations.length === 0) {
      out('Policy: pass (no active violation).');
      return 0;
    }
    out(table([['SEVERITY', 'RULE', 'PACKAGES'], ...violations.map((v) => [v.rule_severity, `${v.rule_label} (${v.rule_type})`, String(v.violation_count)])]));
    const errors = violations.filter((v) => v.rule_severity === 'error').length;
    out(errors > 0 ? `Policy: fail (${errors} error violation${errors === 1 ? '' : 's'}).` : 'Policy: pass with warnings.');
    return errors > 0 ? 1 : 0;
  } catch (error) {
    err(`compliance-gate: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
if (invokedDirectly) process.exitCode = await main(process.argv.slice(2));
