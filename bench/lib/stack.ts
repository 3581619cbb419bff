/**
 * The local stack a benchmark run measures: started in this process exactly as `npm start` starts it,
 * on a fresh temporary DATA_DIR and a free port, and always stopped and removed afterwards (also on
 * Ctrl-C).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../../bin/local/stack.ts';
import type { InProcessEventBus } from '../../bin/local/event-bus.ts';
import { freePort } from '../../bin/local/ports.ts';
import { readRunningStack } from '../../bin/local/stack-file.ts';

export interface BenchStack {
  /** Base URL of the HTTP gateway, without a trailing slash: http://127.0.0.1:PORT */
  readonly apiUrl: string;
  readonly dataDir: string;
  readonly tableName: string;
  /** DynamoDB Local, for floors that call the table directly and for seeding. */
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly region: string;
  /** The stack's event bus, on which a scenario may add rules of its own. */
  readonly bus: InProcessEventBus;
  readonly queues: LocalStack['queues'];
}

export interface FreshStackOptions {
  /** Where the stack's own log lines go (poller and gateway errors). Default: stderr. */
  readonly log?: (line: string) => void;
  readonly tableName?: string;
  readonly region?: string;
  /** A DynamoDB Local already running (or a proxy in front of one) to make the table in; default: the stack starts its own. */
  readonly dynamodbEndpoint?: string;
  /** Settings of the functions (shared/config.ts names) over the bench's own. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

/** How long a stop on a signal may take before it is cut short (as bin/local.ts cuts `npm start`'s). */
const STOP_WITHIN_MS = 4_000;
/** Runs `fn` against a freshly started local stack and stops it afterwards, whatever happens. */
export async function withFreshStack<T>(fn: (stack: BenchStack) => Promise<T>, options: FreshStackOptions = {}): Promise<T> {
  const log = options.log ?? ((line: string) => console.error(line));
  const dataDir = mkdtempSync(join(tmpdir(), 'compliance-bench-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });

  let stack: Awaited<ReturnType<typeof startLocalStack>>;
  try {
    stack = await startLocalStack({
      port: await freePort(),
      host: '127.0.0.1',
      dataDir,
      tableName: options.tableName ?? 'bench',
      region: options.region ?? 'us-east-1',
      log,
      // As `npm start`, the functions' settings from the environment; but no per-key rate limit (429 above
      // it), which would throttle the load generator: the bench measures the service, not its limiter.
      settings: { ...process.env, RATE_LIMIT_PER_SECOND: 0, ...options.settings },
      ...(options.dynamodbEndpoint !== undefined ? { dynamodbEndpoint: options.dynamodbEndpoint } : {}),
    });
  } catch (error) {
    removeDir();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stack.stop().finally(removeDir));
  // Ctrl-C in the middle of a run: stop DynamoDB Local and remove the data before exiting. A stop still
  // waiting after STOP_WITHIN_MS (pollers in the middle of a call that DynamoDB Local is slow to answer)
  // is cut short, as `npm start` cuts its own: the process exits, and DynamoDB Local's watchdog stops it.
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the local stack...`);
    const exit = () => process.exit(signal === 'SIGINT' ? 130 : 143);
    setTimeout(() => {
      log(`The stop took over ${STOP_WITHIN_MS / 1000} s: exiting; DynamoDB Local's watchdog stops it.`);
      removeDir();
      exit();
    }, STOP_WITHIN_MS).unref();
    void stop().finally(exit);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const running = readRunningStack(dataDir);
    if (!running) throw new Error(`The local stack wrote no stack file in ${dataDir}`);
    return await fn({
      apiUrl: running.apiUrl,
      dataDir,
      tableName: running.tableName,
      dynamodbEndpoint: running.dynamodbEndpoint,
      sqsEndpoint: running.sqsEndpoint,
      region: running.region,
      bus: stack.bus,
      queues: stack.queues,
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await stop();
  }
}
