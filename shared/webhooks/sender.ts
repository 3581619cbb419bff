/**
 * Sends one webhook: the envelope as JSON, signed the Standard Webhooks way (webhook-id,
 * webhook-timestamp, webhook-signature with HMAC-SHA256, via the standardwebhooks library), over a
 * connection whose address is checked when it is resolved, so a DNS answer that changed since the
 * subscription was saved still cannot reach a private address. 2xx within the timeout is success.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isForbiddenAddress, logExcerpt } from '../domain/webhooks.ts';
import type { Envelope } from '../events/envelope.ts';
import { CORRELATION_HEADER } from '../observability/correlation.ts';

export interface DeliveryResult {
  readonly ok: boolean;
  /** HTTP status, or null when no answer came. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The first 1 KB of the answer, or the error. */
  readonly excerpt: string;
  /** No (complete) answer came within the timeout given. */
  readonly timedOut: boolean;
}

export interface TargetPolicy {
  /** Lifts the private-address rule and allows http (local stack and tests only). */
  readonly allowPrivate: boolean;
}

export const DELIVERY_TIMEOUT_MS = 10_000;

/** The form a target URL is stored and shown in: the WHATWG serialisation (call after targetProblem). */
export function normalisedTarget(target: string): string {
  return new URL(target).href;
}

/** Why a target URL may not be subscribed to, or undefined when it may. */
export async function targetProblem(target: string, policy: TargetPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'Enter a valid URL.';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) return 'The target URL must use https.';
  if (url.username || url.password) return 'The target URL must not carry credentials.';
  if (url.port === '0') return 'The target URL must not use port 0.';
  if (policy.allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolveAll(host).catch(() => undefined);
  if (!addresses || addresses.length === 0) return `The host "${host}" does not resolve.`;
  if (addresses.some(isForbiddenAddress)) return `The host "${host}" resolves to a private, loopback, link-local or metadata address.`;
  return undefined;
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) => (error ? reject(error) : resolve(addresses.map((a) => a.address)))),
  );
}

/** A DNS lookup that refuses forbidden addresses at connection time. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const allowed = addresses.filter((a) => !isForbiddenAddress(a.address));
    if (allowed.length === 0) return callback(new Error(`${hostname} resolves only to forbidden addresses`), '', 0);
    if (options.all) return callback(null, allowed, 0);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

export function sign(secret: string, id: string, at: Date, body: string): string {
  return new Webhook(secret).sign(id, at, body);
}

export async function deliver(target: string, envelope: Envelope, secret: string, policy: TargetPolicy, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<DeliveryResult> {
  const started = Date.now();
  const problem = await targetProblem(target, policy);
  if (problem) return { ok: false, status: null, durationMs: Date.now() - started, excerpt: problem, timedOut: false };
  const body = JSON.stringify(envelope);
  const at = new Date();
  const url = new URL(target);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'compliance-service-webhooks/1',
    'webhook-id': envelope.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': sign(secret, envelope.id, at, body),
    ...(envelope.correlation_id === undefined ? {} : { [CORRELATION_HEADER.toLowerCase()]: envelope.correlation_id }),
  };
  return new Promise<DeliveryResult>((resolve) => {
    let done = false;
    let timedOut = false;
    const finish = (status: number | null, excerpt: string) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      const ok = !timedOut && status !== null && status >= 200 && status < 300;
      resolve({ ok, status, durationMs: Date.now() - started, excerpt: logExcerpt(excerpt), timedOut });
    };
    const giveUp = () => {
      timedOut = true;
      request.destroy(new Error(`No answer within ${timeoutMs} ms`));
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      { method: 'POST', headers, timeout: timeoutMs, ...(policy.allowPrivate ? {} : { lookup: guardedLookup }) },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < 2048) chunks.push(chunk);
          size += chunk.byteLength;
        });
        response.on('end', () => finish(response.statusCode ?? null, Buffer.concat(chunks).toString('utf8')));
        response.on('error', (error) => finish(response.statusCode ?? null, String(error)));
      },
    );
    // The whole exchange, not only silences, must fit the timeout.
    const deadline = setTimeout(giveUp, timeoutMs);
    request.on('timeout', giveUp);
    request.on('error', (error) => finish(null, timedOut ? `No answer within ${timeoutMs} ms` : error.message));
    request.end(body);
  });
}
