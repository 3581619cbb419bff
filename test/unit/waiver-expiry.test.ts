/**
 * The waiver expiry job's loop over a stand-in store (what it asks for, when it stops: never spinning
 * on entries it cannot mark), and the local stack's scheduler that runs it (on its interval, one run at
 * a time, and nothing after stop()).
 */
import { describe, expect, it, vi } from 'vitest';
import { WaiverExpiry } from '../../shared/services/waiver-expiry.ts';
import { startScheduler } from '../../bin/local/scheduler.ts';

const NOW = new Date('2026-06-15T12:00:00.000Z');

/** A store with `due` waivers due; `refuse` lists the uuids markExpired refuses (marked or revoked meanwhile). */
function aStore(due: number, refuse: (uuid: string) => boolean = () => false) {
  const pending = Array.from({ length: due }, (_, i) => ({ productUuid: `p-${i % 3}`, uuid: `w-${i}` }));
  const marked: string[] = [];
  const queries: { until: string; limit: number }[] = [];
  return {
    marked,
    queries,
    async due(until: string, limit: number) {
      queries.push({ until, limit });
      // The index: entries not marked yet (a refused one stays, as a lagging entry would).
      return pending.filter((w) => !marked.includes(w.uuid)).slice(0, limit);
    },
    async markExpired(_product: string, uuid: string, at: string) {
      expect(at).toBe('2026-06-15T12:00:00.000+00:00');
      if (refuse(uuid)) return false;
      marked.push(uuid);
      return true;
    },
  };
}

describe('the waiver expiry job', () => {
  it('marks every waiver due, reading the index at now in UTC, a hundred at a time', async () => {
    const store = aStore(250);
    const report = await new WaiverExpiry({ waivers: store, now: () => NOW }).run();
    expect(report).toEqual({ due: 250, expired: 250, more: false });
    expect(store.queries.map((q) => q.limit)).toEqual([100, 100, 100]);
    expect(store.queries[0]!.until).toBe('2026-06-15T12:00:00.000+00:00');
  });

  it('does nothing when nothing is due', async () => {
    const store = aStore(0);
    expect(await new WaiverExpiry({ waivers: store, now: () => NOW }).run()).toEqual({ due: 0, expired: 0, more: false });
  });

  it('stops at its limit per run and says more are due', async () => {
    const store = aStore(250);
    expect(await new WaiverExpiry({ waivers: store, now: () => NOW }).run(150)).toEqual({ due: 150, expired: 150, more: true });
    expect(store.marked).toHaveLength(150);
  });

  it('never spins on a full batch of entries it cannot mark (the index lagging behind their updates)', async () => {
    const store = aStore(300, () => true);
    expect(await new WaiverExpiry({ waivers: store, now: () => NOW }).run()).toEqual({ due: 100, expired: 0, more: true });
    expect(store.queries).toHaveLength(1);
  });

  it('counts only the waivers it marked', async () => {
    const store = aStore(10, (uuid) => uuid === 'w-3');
    expect(await new WaiverExpiry({ waivers: store, now: () => NOW }).run()).toEqual({ due: 10, expired: 9, more: false });
  });
});

describe("the local stack's scheduler", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs on its interval, one run at a time, and stops: the run under way finishes, none starts after', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    let finished = 0;
    const scheduler = startScheduler({
      intervalMs: 20,
      run: async () => {
        runs += 1;
        running += 1;
        if (running > 1) overlapped = true;
        await sleep(30);
        running -= 1;
        finished += 1;
      },
      onError: () => undefined,
    });
    // Two runs, however long a loaded machine takes to fire the timers (a fixed 200 ms sleep saw one run
    // under a load average of 11).
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
    expect(overlapped).toBe(false);
    await scheduler.stop();
    expect(finished).toBe(runs);
    const after = runs;
    await sleep(100);
    expect(runs).toBe(after);
  });

  it('reports a failed run and keeps its schedule', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const scheduler = startScheduler({
      intervalMs: 10,
      run: async () => {
        runs += 1;
        throw new Error(`run ${runs}`);
      },
      onError: (error) => errors.push(error),
    });
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 10 });
    await scheduler.stop();
    expect(errors).toHaveLength(runs);
  });

  it('stops before its first run without running', async () => {
    let runs = 0;
    const scheduler = startScheduler({ intervalMs: 50, run: async () => void (runs += 1), onError: () => undefined });
    await scheduler.stop();
    await sleep(80);
    expect(runs).toBe(0);
  });
});
