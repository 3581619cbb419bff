/**
 * Webhooks, pure: the event types a subscription can ask for, the retry schedule of a delivery, when
 * a failing subscription is switched off, and which addresses a delivery may never reach.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { EVENT_TYPE_NAMES, type EventType } from '../events/catalog.ts';

/** A subscription may ask for any event type of the catalog (shared/events/catalog.ts), the one list of them. */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPE_NAMES;
export type WebhookEventType = EventType;

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
 * "equal jitter" (half the exponential delay, plus a random share of the other half; at least one
 * second), `random` in [0, 1). Not full jitter: a subscriber that just failed is never retried at once,
 * and the schedule's "about a day" holds whatever the draws.
 */
export function retryDelaySeconds(schedule: RetrySchedule, attempt: number, random: number): number {
  const exponential = Math.min(schedule.maxDelaySeconds, schedule.baseSeconds * 2 ** (attempt - 1));
  return Math.max(1, Math.round(exponential * (0.5 + random / 2)));
}

export function shouldDisable(schedule: RetrySchedule, failingSince: string | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - Date.parse(failingSince) >= schedule.disableAfterSeconds * 1000;
}

/**
 * IANA's Global Unicast space (IPv6 Address Space registry). Everything outside it is reserved by the
 * IETF, local, multicast or a translation prefix: ::/8 (unspecified, loopback, IPv4-compatible, NAT64's
 * 64:ff9b::/96 and 64:ff9b:1::/48), 100::/64 (discard-only) and 100:0:0:1::/64 (dummy), 5f00::/16
 * (SRv6 SIDs), fc00::/7, fe80::/10, ff00::/8 among them.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Addresses a webhook must never reach: every address the IANA special-purpose registries (IPv4 and IPv6)
 * do not mark globally reachable, classified by ipaddr.js rather than by tables of our own: loopback,
 * private, shared (CGNAT), link-local (cloud metadata at 169.254.169.254 among them), unspecified,
 * broadcast, multicast, documentation, benchmarking, reserved; in IPv6 everything outside the Global
 * Unicast space, and in it anything ipaddr.js does not call ordinary `unicast` (Teredo, 2001::/23,
 * 2001:db8::/32, 3fff::/20, …). An IPv4 address carried in IPv6 (IPv4-mapped, 6to4) is judged as IPv4;
 * NAT64 and Teredo, whose IPv4 side the check cannot see, are refused whole. Not an IP address: refused.
 */
export function isForbiddenAddress(address: string): boolean {
  const text = address.replace(/%.*$/, '');
  if (isIP(text) === 0) return true;
  return isForbidden(ipaddr.parse(text));
}

function isForbidden(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isForbidden(v6.toIPv4Address());
  if (!v6.match(IPV6_GLOBAL_UNICAST)) return true;
  // 2002::/16 (6to4) carries an IPv4 address in its second and third groups.
  if (v6.range() === '6to4') {
    const [, high = 0, low = 0] = v6.parts;
    return isForbidden(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  }
  return v6.range() !== 'unicast';
}

/** The first 1 KB of a response (or error), as the delivery log keeps it. */
export function logExcerpt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.byteLength <= 1024 ? text : bytes.subarray(0, 1024).toString('utf8').replace(/\uFFFD+$/, '');
}
