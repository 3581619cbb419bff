/**
 * Measuring helpers for the scenarios. measureHttp drives the API with autocannon (the load
 * generator); measureAsync runs a floor, such as the bare DynamoDB calls a request needs, at the same
 * concurrency, so each speed figure can be a ratio of two measurements taken minutes apart on the same
 * noisy machine. timeIt and timeInterleaved compare single requests by their medians.
 *
 * Latencies are recorded per request with sub-millisecond precision and summarised by percentile()
 * below, the same way for both helpers. (autocannon's own histogram keeps whole milliseconds, too
 * coarse for a p50 of a local request.)
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadResult {
  /** Completed requests (or calls) divided by the measured wall time. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors and timeouts (HTTP), or calls that threw (measureAsync). */
  errors: number;
  /** Answers outside 200–299 (always 0 for measureAsync). */
  non2xx: number;
  /** Completed requests or calls, errors included. */
  total: number;
  /** Wall time of the measured part, warm-up excluded. */
  durationSeconds: number;
}

/** Run for a time, or for a number of requests. */
export type LoadLength = { durationSeconds: number; amount?: never } | { amount: number; durationSeconds?: never };

export type HttpLoad = LoadLength & {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON (with its Content-Type). */
  body?: unknown;
  /** Replace each `[<id>]` in the body by a fresh random id, for POSTs that must be unique. */
  idReplacement?: boolean;
  connections: number;
  /**
   * Seconds of the same load first, not measured, so module loading, connection set-up and the JITs
   * (Node's and DynamoDB Local's JVM, which takes seconds) do not count. Default 2; 0 for none.
   */
  warmupSeconds?: number;
  /** Accept answers outside 2xx (a benchmark of a 404, say). Default: throw when there is any. */
  allowNon2xx?: boolean;
  /** Accept connection errors and timeouts. Default: throw when there is any. */
  allowErrors?: boolean;
  /** Seconds before autocannon gives up on a request (counted as an error). Default 10. */
  timeoutSeconds?: number;
};

export type AsyncLoad = LoadLength & {
  concurrency: number;
  fn: () => Promise<unknown>;
  /** Seconds of the same calls first, not measured, as for measureHttp. Default 2; 0 for none. */
  warmupSeconds?: number;
  /** Accept calls that throw. Default: throw the first error after the run. */
  allowErrors?: boolean;
};

/**
 * The p-th percentile (0–100) by linear interpolation between closest ranks (numpy's default), so
 * percentile(values, 50) is the median. Does not modify `values`.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile must be within 0–100, not ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.ceil(rank);
  const low = sorted[below]!;
  return low + (sorted[above]! - low) * (rank - below);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

const DEFAULT_WARMUP_SECONDS = 2;

/**
 * autocannon closes its connections when it stops, but the requests still in flight keep running in
 * the in-process gateway for a few milliseconds; let them end before the next measurement (or the
 * stack's shutdown) so they are neither counted there nor cut off.
 */
function settle(): Promise<void> {
  return new Promise((resolveSettled) => setTimeout(resolveSettled, 250));
}

function checkLength(length: LoadLength): void {
  const { durationSeconds, amount } = length as { durationSeconds?: number; amount?: number };
  if ((durationSeconds === undefined) === (amount === undefined)) {
    throw new Error('Give exactly one of durationSeconds and amount');
  }
  if (durationSeconds !== undefined && !(durationSeconds > 0)) throw new Error('durationSeconds must be positive');
  if (amount !== undefined && !(Number.isInteger(amount) && amount > 0)) throw new Error('amount must be a positive integer');
}

function requestOf(load: HttpLoad): { method: NonNullable<HttpLoad['method']>; headers: Record<string, string>; body?: string } {
  const method = load.method ?? 'GET';
  const headers = { ...load.headers };
  if (load.body === undefined) return { method, headers };
  if (typeof load.body === 'string') return { method, headers, body: load.body };
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (!hasContentType) headers['content-type'] = 'application/json';
  return { method, headers, body: JSON.stringify(load.body) };
}

interface CannonRun {
  result: autocannon.Result;
  latencies: number[];
  durationSeconds: number;
  firstError: unknown;
}

async function fire(load: HttpLoad, length: LoadLength, record: boolean): Promise<CannonRun> {
  const request = requestOf(load);
  const latencies: number[] = [];
  let firstError: unknown;
  const started = performance.now();
  let lastResponse = started;
  const result = await new Promise<autocannon.Result>((resolveResult, reject) => {
    // The callback form returns the instance, whose events give each request's own latency.
    const instance = autocannon(
      {
        url: load.url,
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        idReplacement: load.idReplacement ?? false,
        connections: load.connections,
        timeout: load.timeoutSeconds ?? 10,
        // autocannon notices the end of a run at its next sample tick (default every second); ticking
        // often lets an `amount` run end soon after its last answer. The elapsed time is ours anyway.
        sampleInt: 50,
        ...(length.amount === undefined ? { duration: length.durationSeconds } : { amount: length.amount }),
      },
      (error: unknown, finished) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolveResult(finished)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      lastResponse = performance.now();
      if (record) latencies.push(responseTime);
    });
    instance.on('reqError', (error) => (firstError ??= error));
  });
  // From the start to the last answer: what autocannon does between that and its end is not load.
  return { result, latencies, durationSeconds: (lastResponse - started) / 1000, firstError };
}

function statusSummary(result: autocannon.Result): string {
  const stats = result.statusCodeStats ?? {};
  return Object.entries(stats)
    .map(([status, { count }]) => `${status}×${count ?? 0}`)
    .join(', ');
}

/** One request made with fetch, to show what a failing request answers. */
async function sample(load: HttpLoad): Promise<string> {
  const request = requestOf(load);
  try {
    const response = await fetch(load.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body.replaceAll('[<id>]', crypto.randomUUID()) }),
    });
    return `${response.status} ${(await response.text()).slice(0, 300)}`;
  } catch (error) {
    return `no answer (${String(error)})`;
  }
}

async function checkRun(load: HttpLoad, run: CannonRun, phase: string): Promise<void> {
  const { result } = run;
  const problems: string[] = [];
  if (result.errors > 0 && !load.allowErrors) {
    problems.push(`${result.errors} connection error(s), ${result.timeouts} of them timeouts; first: ${String(run.firstError)}`);
  }
  if (result.non2xx > 0 && !load.allowNon2xx) {
    problems.push(`${result.non2xx} answer(s) outside 2xx (${statusSummary(result)}); a sample request got: ${await sample(load)}`);
  }
  if (problems.length > 0) {
    throw new Error(`${load.method ?? 'GET'} ${load.url} (${phase}): ${problems.join('; ')}`);
  }
}

/**
 * Loads one endpoint with autocannon at a fixed number of connections, after a warm-up, and throws
 * if any request failed or answered outside 2xx (unless allowed), with a sample answer in the message.
 */
export async function measureHttp(load: HttpLoad): Promise<LoadResult> {
  checkLength(load);
  if (!(Number.isInteger(load.connections) && load.connections > 0)) throw new Error('connections must be a positive integer');
  const warmupSeconds = load.warmupSeconds ?? DEFAULT_WARMUP_SECONDS;
  if (warmupSeconds > 0) {
    await checkRun(load, await fire(load, { durationSeconds: warmupSeconds }, false), 'warm-up');
    await settle();
  }
  const run = await fire(load, load, true);
  await settle();
  await checkRun(load, run, 'measured run');
  if (run.latencies.length === 0) throw new Error(`${load.url}: no request completed`);
  return {
    requestsPerSecond: run.latencies.length / run.durationSeconds,
    p50Ms: percentile(run.latencies, 50),
    p99Ms: percentile(run.latencies, 99),
    errors: run.result.errors,
    non2xx: run.result.non2xx,
    total: run.latencies.length + run.result.errors,
    durationSeconds: run.durationSeconds,
  };
}

async function loop(options: AsyncLoad, length: LoadLength, latencies: number[] | undefined) {
  let started = 0;
  let errors = 0;
  let firstError: unknown;
  const deadline = length.durationSeconds === undefined ? Infinity : performance.now() + length.durationSeconds * 1000;
  const more = () => (length.amount === undefined ? performance.now() < deadline : started < length.amount);
  const worker = async () => {
    while (more()) {
      started += 1;
      const before = performance.now();
      try {
        await options.fn();
        latencies?.push(performance.now() - before);
      } catch (error) {
        errors += 1;
        firstError ??= error;
      }
    }
  };
  const begin = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { started, errors, firstError, durationSeconds: (performance.now() - begin) / 1000 };
}

/**
 * Calls `fn` from `concurrency` loops at once, each starting its next call when the last one ends
 * (the way autocannon's connections behave), after a warm-up; for the floors the HTTP figures are
 * divided by. Latencies are those of the calls that succeeded.
 */
export async function measureAsync(options: AsyncLoad): Promise<LoadResult> {
  checkLength(options);
  if (!(Number.isInteger(options.concurrency) && options.concurrency > 0)) throw new Error('concurrency must be a positive integer');
  const failed = (phase: string, run: { errors: number; started: number; firstError: unknown }) =>
    new Error(`measureAsync (${phase}): ${run.errors} of ${run.started} call(s) failed; first: ${String(run.firstError)}`, {
      cause: run.firstError,
    });
  const warmupSeconds = options.warmupSeconds ?? DEFAULT_WARMUP_SECONDS;
  if (warmupSeconds > 0) {
    const run = await loop(options, { durationSeconds: warmupSeconds }, undefined);
    if (run.errors > 0 && !options.allowErrors) throw failed('warm-up', run);
  }
  const latencies: number[] = [];
  const run = await loop(options, options, latencies);
  if (run.errors > 0 && !options.allowErrors) throw failed('measured run', run);
  if (latencies.length === 0) throw new Error('measureAsync: no call succeeded');
  return {
    requestsPerSecond: run.started / run.durationSeconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors: run.errors,
    non2xx: 0,
    total: run.started,
    durationSeconds: run.durationSeconds,
  };
}

async function timeOnce(fn: () => Promise<unknown>): Promise<number> {
  const before = performance.now();
  await fn();
  return performance.now() - before;
}

/** The median time of `repetitions` sequential calls of `fn`, in ms, after `warmup` unmeasured calls (default 1). */
export async function timeIt(fn: () => Promise<unknown>, repetitions: number, warmup = 1): Promise<number> {
  if (!(Number.isInteger(repetitions) && repetitions > 0)) throw new Error('repetitions must be a positive integer');
  for (let i = 0; i < warmup; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < repetitions; i += 1) times.push(await timeOnce(fn));
  return median(times);
}

/**
 * Median times, in ms, of several functions run in turn (A B C, then C B A, ...) `repetitions` times
 * each, so a slow patch of the machine falls on all of them alike: "first page for a user vs a
 * superuser" compares the two medians. Each function is called `warmup` times first (default 1).
 */
export async function timeInterleaved<K extends string>(
  fns: Readonly<Record<K, () => Promise<unknown>>>,
  repetitions: number,
  warmup = 1,
): Promise<Record<K, number>> {
  if (!(Number.isInteger(repetitions) && repetitions > 0)) throw new Error('repetitions must be a positive integer');
  const names = Object.keys(fns) as K[];
  for (let i = 0; i < warmup; i += 1) for (const name of names) await fns[name]();
  const times = new Map<K, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < repetitions; round += 1) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) times.get(name)!.push(await timeOnce(fns[name]));
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)])) as Record<K, number>;
}
