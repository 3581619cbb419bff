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
  if (version === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
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
  if (version === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
    if (mapped) return isForbiddenAddress(mapped);
    return (
      lower === '::' ||
      lower === '::1' ||
      lower.startsWith('fc') ||
      lower.startsWith('fd') ||
      /^fe[89ab]/.test(lower) ||
      lower.startsWith('ff') ||
      lower.startsWith('64:ff9b:') ||
      lower.startsWith('2001:db8:')
    );
  }
  return true;
}

/** The first 1 KB of a response (or error), as the delivery log keeps it. */
export function logExcerpt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.byteLength <= 1024 ? text : bytes.subarray(0, 1024).toString('utf8').replace(/\uFFFD+$/, '');
}
