/**
 * Webhooks, pure: the event types a subscription can ask for, the retry schedule of a delivery, when
 * a failing subscription is switched off, and which addresses a delivery may never reach.
 */
import { isIP } from 'node:net';

export const WEBHOOK_EVENT_TYPES = [
  'policy.violation_detected',
  'policy.violation_resolved',
  'request.added',
  'request.updated',
  'request_comment.added',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test event `ping` sends. */
export const PING_EVENT = 'webhook.ping';

export interface Subscription {
  readonly uuid: string;
  readonly dataspace: string;
  readonly targetUrl: string;
  readonly events: readonly WebhookEventType[];
  readonly isActive: boolean;
  readonly description: string;
  /** whsec_<base64>: shown on create and rotate only. */
  readonly secret: string;
  readonly createdDate: string;
  /** Since when every delivery has failed (null after a success). */
  readonly failingSince: string | null;
  readonly rev: number;
}

export interface RetrySchedule {
  /** Delay before the second attempt; each next one doubles, up to `maxDelaySeconds`. */
  readonly baseSeconds: number;
  readonly maxDelaySeconds: number;
  /** Attempts in all, the first included; then the delivery goes to the DLQ. */
  readonly maxAttempts: number;
  /** A subscription failing for this long is switched off. */
  readonly disableAfterSeconds: number;
}

/** On AWS: about 24 hours of retries (1 min, 2, 4 … capped at 4 h), then the DLQ. */
export const AWS_RETRY_SCHEDULE: RetrySchedule = { baseSeconds: 60, maxDelaySeconds: 4 * 3600, maxAttempts: 14, disableAfterSeconds: 24 * 3600 };

/**
 * Seconds to wait before attempt `attempt + 1` after attempt `attempt` failed: exponential with
 * "full jitter" (a random share of the exponential delay, at least one second), `random` in [0, 1).
 */
export function retryDelaySeconds(schedule: RetrySchedule, attempt: number, random: number): number {
  const exponential = Math.min(schedule.maxDelaySeconds, schedule.baseSeconds * 2 ** (attempt - 1));
  return Math.max(1, Math.round(exponential * (0.5 + random / 2)));
}

export function shouldDisable(schedule: RetrySchedule, failingSince: string | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - Date.parse(failingSince) >= schedule.disableAfterSeconds * 1000;
}

/**
 * Addresses a webhook must never reach: loopback, private, link-local (cloud metadata at
 * 169.254.169.254 among them), carrier-grade NAT, unspecified, multicast and reserved ranges, in
 * IPv4 and IPv6 (IPv4-mapped included).
 */
export function isForbiddenAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return isForbiddenIpv4(address.split('.').map(Number));
  if (version !== 6) return true;
  const hextets = ipv6Hextets(address);
  if (!hextets) return true;
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = hextets;
  const embedded = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];
  const zeroPrefix = h0 === 0 && h1 === 0 && h2 === 0 && h3 === 0 && h4 === 0;
  // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped), in any spelling.
  if (zeroPrefix && (h5 === 0 || h5 === 0xffff)) return h5 === 0 || isForbiddenIpv4(embedded(h6, h7));
  // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64) reach IPv4 hosts the check cannot see.
  if (h0 === 0x64 && h1 === 0xff9b) return true;
  // 2002::/16 (6to4) carries an IPv4 address in its second and third hextets.
  if (h0 === 0x2002) return isForbiddenIpv4(embedded(h1, h2));
  return (
    (h0 & 0xfe00) === 0xfc00 || // unique local
    (h0 & 0xffc0) === 0xfe80 || // link-local
    (h0 & 0xffc0) === 0xfec0 || // site-local (deprecated)
    (h0 & 0xff00) === 0xff00 || // multicast
    (h0 === 0x2001 && h1 === 0x0db8) || // documentation
    (h0 === 0x2001 && h1 === 0) // Teredo
  );
}

function isForbiddenIpv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** The eight 16-bit groups of a valid IPv6 address (zone dropped, `::` and a dotted tail expanded). */
function ipv6Hextets(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array<number>(Math.max(0, missing)).fill(0), ...right];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** The first 1 KB of a response (or error), as the delivery log keeps it. */
export function logExcerpt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.byteLength <= 1024 ? text : bytes.subarray(0, 1024).toString('utf8').replace(/\uFFFD+$/, '');
}
