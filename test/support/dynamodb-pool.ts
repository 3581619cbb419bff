/**
 * A DynamoDB Local for each test file that has not been slowed down by the files before it, without
 * waiting for Java to start.
 *
 * Why: DynamoDB Local slows down with every stream record it has ever written, in any table, deleted or
 * not, unless its own tables are indexed (bin/local/dynamodb-local.ts). Measured in memory (1,000
 * transactional puts to a new table with a stream, in transactions of 50): 2.0 s on a fresh one, 24 s
 * after 20,000 items had been written to another table with a stream and that table deleted, 49 s after
 * 40,000; without streams, 1.5, 1.2 and 1.3 s. Every test table has a stream (the pipeline reads it), so
 * one DynamoDB Local serving a worker's files one after another made each file slower than the one
 * before, and heavy files made the rest time out.
 *
 * The pool lives in the global set-up (the main process); each file's set-up (lease-dynamodb.ts) asks
 * it, over loopback HTTP, for a DynamoDB Local for its worker slot (vitest runs one file at a time per
 * slot). Each instance keeps its data in a directory of its own, indexed against that slowdown; the
 * slot keeps its instance while that holds fewer than MAX_STREAM_RECORDS stream records, and past
 * that (a guard) the instance stops and a spare started ahead takes its place. Every instance stops,
 * its directory removed, with the pool.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../bin/local/dynamodb-local.ts';
import { freePort } from '../../bin/local/ports.ts';

/**
 * Stream records an instance may hold and still be leased to another file: a guard. DynamoDB Local
 * indexed (bin/local/dynamodb-local.ts, indexStreamRecords) measured no slowdown up to 33,000 records
 * (1,000 transactional puts: 2.4 s fresh, 1.5 s at 17,000 and at 33,000); unindexed, each 1,000
 * records added about 1 s to every 1,000 transactional writes in memory, and several on a data
 * directory.
 */
export const MAX_STREAM_RECORDS = 30_000;

/** Where the instances keep their data: memory-backed where the system has it. */
const DATA_ROOT = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const PROBE = 'pool-probe';

/**
 * How long after its file ended a slot's instance waits for the slot's next file, and the spare for any
 * lease, before it stops: a project whose files are done holds no Java process until the run ends
 * (vitest tears the global set-ups down only then).
 */
export const IDLE_MS = 20_000;

/** An instance with clients for its probe: how many stream records it holds (its sequence numbers count them all). */
class Instance {
  private readonly client: DynamoDBClient;
  private readonly streams: DynamoDBStreamsClient;
  private probes = 0;

  private constructor(
    readonly dynamo: DynamoDbLocal,
    private readonly dataDir: string,
  ) {
    const config = { region: 'us-east-1', endpoint: dynamo.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    this.client = new DynamoDBClient(config);
    this.streams = new DynamoDBStreamsClient(config);
  }

  static async start(): Promise<Instance> {
    // On a data directory, not in memory: only a database file can be indexed (see MAX_STREAM_RECORDS).
    const dataDir = mkdtempSync(join(DATA_ROOT, 'compliance-test-dynamodb-'));
    let dynamo: DynamoDbLocal;
    try {
      dynamo = await startDynamoDbLocal({ port: await freePort(), dataDir });
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
    const instance = new Instance(dynamo, dataDir);
    try {
      await instance.client.send(
        new CreateTableCommand({
          TableName: PROBE,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
          StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' },
        }),
      );
    } catch (error) {
      await instance.stop();
      throw error;
    }
    return instance;
  }

  /**
   * The stream records written on this instance so far, in every table: the sequence number of a probe
   * write's record (read from the probe stream's start: an iterator at LATEST taken before the write is
   * refused as trimmed by DynamoDB Local when other tables wrote meanwhile).
   */
  async streamRecords(): Promise<number> {
    await this.client.send(new PutItemCommand({ TableName: PROBE, Item: { PK: { S: `probe-${++this.probes}` } } }));
    const arn = (await this.client.send(new DescribeTableCommand({ TableName: PROBE }))).Table!.LatestStreamArn!;
    let last: string | undefined;
    for (const shard of (await this.streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards!) {
      let iterator = (await this.streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      while (iterator) {
        const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        if (!page.Records?.length) break;
        for (const record of page.Records) if (last === undefined || BigInt(record.dynamodb!.SequenceNumber!) > BigInt(last)) last = record.dynamodb!.SequenceNumber!;
        iterator = page.NextShardIterator;
      }
    }
    if (last === undefined) throw new Error('The probe write left no stream record');
    return Number(last);
  }

  async stop(): Promise<void> {
    this.client.destroy();
    this.streams.destroy();
    await this.dynamo.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export class DynamoDbLocalPool {
  private spare: Promise<Instance> | undefined;
  private readonly leased = new Map<string, Promise<Instance>>();
  private readonly stopping = new Set<Promise<void>>();
  private server: Server | undefined;
  private closed = false;
  /** Per slot released by its file, the timer that stops its instance unless the slot leases again. */
  private readonly idle = new Map<string, NodeJS.Timeout>();
  /** Instances started, for the log line at the end. */
  started = 0;

  /** `maxStreamRecords`: past this many, a slot's instance is replaced (a test sets it low). */
  constructor(
    private readonly maxStreamRecords = MAX_STREAM_RECORDS,
    private readonly idleMs = IDLE_MS,
  ) {}

  private start(): Promise<Instance> {
    this.started++;
    const started = Instance.start();
    // A failed start is reported to the lease that takes it, not as an unhandled rejection meanwhile.
    started.catch(() => undefined);
    return started;
  }

  /**
   * The endpoint of a DynamoDB Local for `slot`: the one its previous file used, unless that one holds
   * MAX_STREAM_RECORDS or more (or cannot say how many), in which case it stops and a fresh one (the
   * spare, started ahead) takes its place.
   */
  async lease(slot: string): Promise<string> {
    if (this.closed) throw new Error('The DynamoDB Local pool is closed');
    clearTimeout(this.idle.get(slot));
    this.idle.delete(slot);
    const current = this.leased.get(slot);
    if (current) {
      const records = await current.then((instance) => instance.streamRecords()).catch(() => Infinity);
      if (records < this.maxStreamRecords) return (await current).dynamo.endpoint;
      this.retire(current);
    }
    const next = this.spare ?? this.start();
    this.leased.set(slot, next);
    this.spare = this.start();
    return (await next).dynamo.endpoint;
  }

  /**
   * The slot's file has ended: unless the slot leases again within idleMs, its instance stops, and the
   * spare too once no slot is leased.
   */
  release(slot: string): void {
    if (this.closed || !this.leased.has(slot)) return;
    clearTimeout(this.idle.get(slot));
    const timer = setTimeout(() => {
      this.idle.delete(slot);
      const instance = this.leased.get(slot);
      this.leased.delete(slot);
      if (instance) this.retire(instance);
      if (this.leased.size === 0 && this.spare) {
        const spare = this.spare;
        this.spare = undefined;
        this.retire(spare);
      }
    }, this.idleMs);
    timer.unref();
    this.idle.set(slot, timer);
  }

  /** Instances running or starting: leased and spare. */
  get running(): number {
    return this.leased.size + (this.spare ? 1 : 0);
  }

  private retire(instance: Promise<Instance>): void {
    const stopped = instance.then((running) => running.stop(), () => undefined);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
  }

  /** Serves `POST /lease?slot=N` and `POST /release?slot=N` on loopback; answers the pool's URL. */
  async listen(): Promise<string> {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const slot = url.searchParams.get('slot');
      if (request.method === 'POST' && url.pathname === '/release' && slot) {
        this.release(slot);
        response.writeHead(204).end();
        return;
      }
      if (request.method !== 'POST' || url.pathname !== '/lease' || !slot) {
        response.writeHead(404).end();
        return;
      }
      this.lease(slot).then(
        (endpoint) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ endpoint })),
        (error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`DynamoDB Local did not start: ${error.message}`),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Stops the server and every instance, leased, spare or stopping. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idle.values()) clearTimeout(timer);
    this.idle.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    for (const instance of [...this.leased.values(), ...(this.spare ? [this.spare] : [])]) this.retire(instance);
    this.leased.clear();
    this.spare = undefined;
    await Promise.all([...this.stopping]);
  }
}
