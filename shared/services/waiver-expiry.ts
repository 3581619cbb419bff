/**
 * The waiver expiry job, run every minute: marks each waiver whose expiry has passed as expired (once:
 * a conditional update), which takes it out of the expiry index. The mark is a change of the table: the
 * stream re-evaluates the product (whose violations come back with policy.violation_detected, reason
 * waiver_expired) and the outbox publisher sends policy.waiver_expired.
 */
import { isoWithOffset } from '../domain/time.ts';
import type { PolicyWaiverStore } from '../store/policy-waiver-store.ts';

export interface WaiverExpiryDeps {
  readonly waivers: Pick<PolicyWaiverStore, 'due' | 'markExpired'>;
  readonly now: () => Date;
}

export interface WaiverExpiryReport {
  /** Waivers the index showed due. */
  readonly due: number;
  /** Waivers this run marked expired (others were marked, revoked or deleted meanwhile). */
  readonly expired: number;
  /** True when it stopped at its limit with more due: the next run goes on. */
  readonly more: boolean;
}

/** Waivers marked in one batch, side by side; a run reads batches until none is left or `maxPerRun`. */
const BATCH = 100;
const AT_ONCE = 10;

export class WaiverExpiry {
  constructor(private readonly deps: WaiverExpiryDeps) {}

  async run(maxPerRun = 1_000): Promise<WaiverExpiryReport> {
    let due = 0;
    let expired = 0;
    for (;;) {
      const at = isoWithOffset(this.deps.now());
      const asked = Math.min(BATCH, maxPerRun - due);
      const batch = await this.deps.waivers.due(at, asked);
      due += batch.length;
      let marked = 0;
      for (let i = 0; i < batch.length; i += AT_ONCE) {
        const results = await Promise.all(batch.slice(i, i + AT_ONCE).map((waiver) => this.deps.waivers.markExpired(waiver.productUuid, waiver.uuid, at)));
        marked += results.filter(Boolean).length;
      }
      expired += marked;
      // A short batch was the last one due.
      if (batch.length < asked) return { due, expired, more: false };
      // A full one: go on, unless the limit is reached, or none of the batch was marked (entries the
      // index still shows after their update: read again, they would make this loop spin).
      if (due >= maxPerRun || marked === 0) return { due, expired, more: true };
    }
  }
}
