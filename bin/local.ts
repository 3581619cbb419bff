/**
 * `npm start`: runs the whole service on this machine (see bin/local/stack.ts), with the web console
 * at `/`, and prints the API URL.
 * Ctrl-C or SIGTERM stops everything it started. Environment: PORT (8000), HOST (127.0.0.1),
 * DATA_DIR (.data), TABLE_NAME (compliance), AWS_REGION (us-east-1), PUBLIC_BASE_URL (http://HOST:PORT: the
 * origin the API's links are built on).
 */
import { startLocalStack } from './local/stack.ts';
import { DEFAULT_DATA_DIR } from './local/stack-file.ts';

const port = Number(process.env.PORT ?? 8000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a TCP port number, not "${process.env.PORT}"`);
  process.exit(2);
}

const started = Date.now();
const stack = await startLocalStack({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: process.env.DATA_DIR ?? DEFAULT_DATA_DIR,
  tableName: process.env.TABLE_NAME ?? 'compliance',
  region: process.env.AWS_REGION ?? 'us-east-1',
  ...(process.env.PUBLIC_BASE_URL ? { publicBaseUrl: process.env.PUBLIC_BASE_URL } : {}),
  log: (line) => console.error(line),
  serveConsole: true,
}).catch((error: unknown) => {
  console.error(`Could not start the local stack: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

console.log(`Web console at ${stack.apiUrl}/`);
console.log(`Compliance API ready at ${stack.apiUrl}/api/v2/ (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`);

let stopping = false;
async function shutdown(signal: string, code: number) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping the local stack...`);
  await stack.stop();
  console.log('Local stack stopped.');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown('SIGINT', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
process.on('uncaughtException', (error) => {
  console.error('Uncaught exception:', error);
  void shutdown('uncaughtException', 1);
});
