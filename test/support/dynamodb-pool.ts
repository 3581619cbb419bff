/**
 * A fresh DynamoDB Local for every test file, without waiting for Java to start.
 *
 * Why fresh: DynamoDB Local slows down with every stream record it has ever written, in any table,
 * deleted or not. Measured (1,000 transactional puts to a new table with a stream, in transactions of
 * 50): 2.0 s on a fresh one, 24 s after 20,000 items had been written to another table with a stream
 * and that table deleted, 49 s after 40,000; without streams, 1.5, 1.2 and 1.3 s. Every test table has
 * a stream (the pipeline reads it), so one DynamoDB Local serving a worker's files one after another
 * made each file slower than the one before, and heavy files made the rest time out.
 *
 * The pool lives in the global set-up (the main process); each file's set-up (lease-dynamodb.ts) asks
 * it, over loopback HTTP, for a DynamoDB Local for its worker slot. A new lease for a slot stops the
 * instance its previous file used (vitest runs one file at a time per slot) and hands over a spare
 * already started; another spare starts in the background. Every instance stops with the pool.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../bin/local/dynamodb-local.ts';
import { freePort } from '../../bin/local/ports.ts';

export class DynamoDbLocalPool {
  private readonly spares: Promise<DynamoDbLocal>[] = [];
  private readonly leased = new Map<string, Promise<DynamoDbLocal>>();
  private readonly stopping = new Set<Promise<void>>();
  private server: Server | undefined;
  private closed = false;

  /** `spares`: instances kept started ahead of the leases (one per worker keeps every file from waiting). */
  constructor(private readonly spareCount: number) {
    for (let i = 0; i < spareCount; i++) this.spares.push(this.start());
  }

  private start(): Promise<DynamoDbLocal> {
    const started = freePort().then((port) => startDynamoDbLocal({ port }));
    // A failed start is reported to the lease that takes it, not as an unhandled rejection meanwhile.
    started.catch(() => undefined);
    return started;
  }

  /** The endpoint of a fresh DynamoDB Local for `slot`; the slot's previous instance stops. */
  async lease(slot: string): Promise<string> {
    if (this.closed) throw new Error('The DynamoDB Local pool is closed');
    const previous = this.leased.get(slot);
    if (previous) this.retire(previous);
    const next = this.spares.shift() ?? this.start();
    this.leased.set(slot, next);
    this.spares.push(this.start());
    return (await next).endpoint;
  }

  private retire(instance: Promise<DynamoDbLocal>): void {
    const stopped = instance.then((dynamo) => dynamo.stop(), () => undefined);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
  }

  /** Serves leases at `POST /lease?slot=N` on loopback; answers the pool's URL. */
  async listen(): Promise<string> {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const slot = url.searchParams.get('slot');
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
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    for (const instance of [...this.leased.values(), ...this.spares.splice(0)]) this.retire(instance);
    this.leased.clear();
    await Promise.all([...this.stopping]);
  }
}
