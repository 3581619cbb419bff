/**
 * `npm start`: runs the whole service on this machine (see bin/local/stack.ts), with the web console
 * at `/`, and prints the API URL. Environment: PORT (8000), HOST (127.0.0.1), DATA_DIR (.data),
 * TABLE_NAME (compliance), AWS_REGION (us-east-1), PUBLIC_BASE_URL (http://HOST:PORT: the origin the API's
 * links are built on), and the functions' settings of shared/config.ts (README: "The local stack").
 *
 * It stops everything it started (DynamoDB Local, the SQS emulator, the gateway), within a few seconds, on:
 * SIGINT (Ctrl-C), SIGTERM or SIGHUP to it or to npm (the start script `exec`s node, so npm's signals
 * reach it); the end of the process that launched it (npm, and the process that ran npm: see
 * bin/local/process-guard.ts); the reader of its stdout or stderr going away; an uncaught exception.
 * After a SIGKILL, nothing is left for long (DynamoDB Local's watchdog) and the next start cleans up.
 */
import { startLocalStack, type LocalStack } from './local/stack.ts';
import { DEFAULT_DATA_DIR } from './local/stack-file.ts';
import { guardOutput, watchLauncher } from './local/process-guard.ts';

/** A stop that takes longer than this is cut short: what is left is killed as the process exits. */
const STOP_WITHIN_MS = 4_000;

let stopping = false;
let stack: LocalStack | undefined;
let startup: Promise<LocalStack | undefined> | undefined;

const output = guardOutput((stream, error) => {
  // Whoever read our output has gone (a closed terminal, an exited supervisor): nobody can see or stop us.
  void shutdown(`${stream} closed (${(error as NodeJS.ErrnoException).code ?? error.message})`, 0);
});

async function shutdown(reason: string, code: number) {
  if (stopping) return;
  stopping = true;
  launcher.stop();
  output.out(`${reason}: stopping the local stack...`);
  const cutShort = setTimeout(() => {
    output.err(`The local stack did not stop within ${STOP_WITHIN_MS / 1000} s: killing what is left.`);
    process.exit(code || 1);
  }, STOP_WITHIN_MS);
  try {
    // Stopped during start-up: what has started so far stops as soon as start-up ends (or is cut short).
    await (stack ?? (await startup))?.stop();
    output.out('Local stack stopped.');
  } catch (error) {
    output.err(`Error while stopping the local stack: ${String(error)}`);
    code ||= 1;
  }
  clearTimeout(cutShort);
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));
let reported = false;
process.on('uncaughtException', (error) => {
  // Reported once: whatever goes wrong while stopping is not worth a second report (nor a loop).
  if (!reported) {
    reported = true;
    output.err(`Uncaught exception: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  void shutdown('uncaughtException', 1);
});
const launcher = watchLauncher((reason) => void shutdown(`Stopping because ${reason}`, 0));

const port = Number(process.env.PORT ?? 8000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  output.err(`PORT must be a TCP port number, not "${process.env.PORT}"`);
  process.exit(2);
}

const started = Date.now();
startup = startLocalStack({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.DATA_DIR ?? DEFAULT_DATA_DIR,
  tableName: process.env.TABLE_NAME ?? 'compliance',
  region: process.env.AWS_REGION ?? 'us-east-1',
  ...(process.env.PUBLIC_BASE_URL ? { publicBaseUrl: process.env.PUBLIC_BASE_URL } : {}),
  // The functions' settings (EVALUATION_DELAY_SECONDS, WEBHOOK_*, RATE_LIMIT_*, ...) are read here, once:
  // the stack hands them to its functions as configuration, never through the environment.
  settings: process.env,
  log: (line) => output.err(line),
  serveConsole: true,
}).catch((error: unknown) => {
  output.err(`Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`);
  if (!stopping) process.exit(1);
  return undefined;
});
stack = await startup;

if (stack && !stopping) {
  output.out(`Web console at ${stack.apiUrl}/`);
  output.out(`Compliance API ready at ${stack.apiUrl}/api/v2/ (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
