/**
 * The local stand-in for EventBridge's scheduled rules: runs a function's handler every `intervalMs`,
 * one run at a time (the next is timed from the end of the last, so a slow run never overlaps the
 * next), and stops cleanly: no run starts after stop(), which waits for the one under way.
 */
export interface Scheduler {
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  readonly intervalMs: number;
  readonly run: () => Promise<unknown>;
  readonly onError: (error: unknown) => void;
}

export function startScheduler({ intervalMs, run, onError }: SchedulerOptions): Scheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    timer = undefined;
    if (stopped) return;
    running = run()
      .then(
        () => undefined,
        (error: unknown) => {
          if (!stopped) onError(error);
        },
      )
      .finally(() => {
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, intervalMs);
    // The stack's server keeps the process alive; the schedule alone never does.
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
