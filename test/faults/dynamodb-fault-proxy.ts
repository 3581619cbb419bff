/**
 * A tiny HTTP proxy in front of DynamoDB Local that injects the faults DynamoDB shows under load:
 * for a chosen operation (the `X-Amz-Target` of the JSON protocol) it answers the next K calls with
 * a DynamoDB JSON error (throttling, capacity, internal error), drops the connection before or after
 * forwarding (what the SDK sees as a TimeoutError), stalls it, or hands BatchGetItem's keys back as
 * unprocessed. Everything else is forwarded untouched, so the service's own SDK client, with its
 * real retry strategy, is what gets tested.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type Fault =
  /**
   * A DynamoDB error answer: `type` is the __type's short name, e.g. ProvisionedThroughputExceededException;
   * `fields` are added to the body (a cancelled transaction's CancellationReasons).
   */
  | { readonly kind: 'error'; readonly type: string; readonly status?: number; readonly fields?: Record<string, unknown> }
  /** The connection is dropped before DynamoDB sees the call (the SDK names it TimeoutError). */
  | { readonly kind: 'reset' }
  /** The call reaches DynamoDB and is applied, then the connection drops: the answer is lost. */
  | { readonly kind: 'lost-response' }
  /** No answer at all until release(): a DynamoDB that hangs. */
  | { readonly kind: 'stall' }
  /** BatchGetItem only: every requested key comes back in UnprocessedKeys, none is read. */
  | { readonly kind: 'unprocessed' }
  /** Forwarded untouched: queued before another fault, it lets the first calls through. */
  | { readonly kind: 'pass' };

/** The __type prefix DynamoDB puts on each error (throttling comes from a different namespace). */
const NAMESPACES: Record<string, string> = {
  ThrottlingException: 'com.amazon.coral.availability',
};

interface Injection {
  readonly fault: Fault;
  left: number;
}

export interface FaultProxy {
  readonly endpoint: string;
  /**
   * Applies `fault` to the next `times` calls of `operation` (e.g. 'TransactWriteItems'); Infinity: until
   * clear(). Injections of one operation apply one after the other, in the order they were made.
   */
  inject(operation: string, fault: Fault, times: number): void;
  /** Calls of `operation` seen since the last clear(), faulted or not. */
  calls(operation: string): number;
  /** The request bodies of `operation` seen since the last clear(). */
  bodies(operation: string): Record<string, unknown>[];
  /** Removes every injection and forgets the calls (stalled calls stay stalled until release()). */
  clear(): void;
  /** Drops the connections of every stalled call. */
  release(): void;
  stop(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const injections = new Map<string, Injection[]>();
  const seen = new Map<string, Record<string, unknown>[]>();
  const stalled = new Set<Socket>();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.').at(-1) ?? '';
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: forwarded as is
      }
      seen.set(operation, [...(seen.get(operation) ?? []), parsed]);
      const queue = injections.get(operation) ?? [];
      const injection = queue.find((entry) => entry.left > 0);
      if (injection) injection.left -= 1;
      answer(injection?.fault, req, res, body, parsed);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      stalled.delete(socket);
    });
  });

  function answer(fault: Fault | undefined, req: IncomingMessage, res: ServerResponse, body: Buffer, parsed: Record<string, unknown>) {
    switch (fault?.kind) {
      case undefined:
      case 'pass':
        forward(req, body, (status, headers, reply) => {
          res.writeHead(status, headers);
          res.end(reply);
        });
        return;
      case 'error': {
        const namespace = NAMESPACES[fault.type] ?? 'com.amazonaws.dynamodb.v20120810';
        const text = JSON.stringify({ __type: `${namespace}#${fault.type}`, message: `Injected ${fault.type}`, ...fault.fields });
        res.writeHead(fault.status ?? 400, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': String(Buffer.byteLength(text)),
          'x-amzn-requestid': `fault-${Date.now()}`,
        });
        res.end(text);
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'lost-response':
        forward(req, body, () => req.socket.destroy());
        return;
      case 'stall':
        stalled.add(req.socket);
        return;
      case 'unprocessed': {
        const text = JSON.stringify({ Responses: {}, UnprocessedKeys: parsed.RequestItems ?? {} });
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)) });
        res.end(text);
        return;
      }
    }
  }

  function forward(req: IncomingMessage, body: Buffer, done: (status: number, headers: Record<string, string | string[]>, body: Buffer) => void) {
    const headers = { ...req.headers, host: upstream.host };
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (reply) => {
        const parts: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => parts.push(chunk));
        reply.on('end', () => {
          const replyHeaders: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined) replyHeaders[name] = value;
          done(reply.statusCode ?? 502, replyHeaders, Buffer.concat(parts));
        });
      },
    );
    outgoing.on('error', () => req.socket.destroy());
    outgoing.end(body);
  }

  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    inject(operation, fault, times) {
      injections.set(operation, [...(injections.get(operation) ?? []), { fault, left: times }]);
    },
    calls: (operation) => seen.get(operation)?.length ?? 0,
    bodies: (operation) => seen.get(operation) ?? [],
    clear() {
      injections.clear();
      seen.clear();
    },
    release() {
      for (const socket of stalled) socket.destroy();
      stalled.clear();
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
