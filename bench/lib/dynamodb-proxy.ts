/**
 * A small HTTP proxy in front of DynamoDB Local that sees every call of the JSON protocol (its
 * operation, from `X-Amz-Target`, and its body) and decides what to do with it: send it on, answer a
 * DynamoDB error, or anything else. The base of the fault proxy of the fault tests
 * (test/faults/dynamodb-fault-proxy.ts) and of the benchmark's conflict proxy (conflict-proxy.ts).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The __type prefix DynamoDB puts on each error (throttling comes from a different namespace). */
const NAMESPACES: Record<string, string> = {
  ThrottlingException: 'com.amazon.coral.availability',
};

export type Answer = (status: number, headers: Record<string, string | string[]>, body: Buffer) => void;

export interface ProxiedCall {
  /** The operation's name: `TransactWriteItems`, `GetRecords`... */
  readonly operation: string;
  readonly body: Buffer;
  /** The body as JSON ({} when it is not JSON). */
  readonly parsed: Record<string, unknown>;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /**
   * Sends the call on to DynamoDB Local. `done` gets its answer (default: the answer goes back as it
   * came); `failed` runs when DynamoDB Local cannot be reached (the caller's connection is then dropped);
   * `body` replaces the call's body (DynamoDB Local checks no signature).
   */
  forward(done?: Answer, failed?: () => void, body?: Buffer): void;
  /** Answers a DynamoDB JSON error: `type` is the __type's short name; `fields` are added to the body. */
  error(type: string, options?: { status?: number; message?: string; fields?: Record<string, unknown> }): void;
}

export interface DynamoDbProxy {
  readonly endpoint: string;
  /** Drops every open connection and stops listening. */
  stop(): Promise<void>;
}

export async function startDynamoDbProxy(target: string, onCall: (call: ProxiedCall) => void): Promise<DynamoDbProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        // not JSON: forwarded as is
      }
      onCall({
        operation: String(req.headers['x-amz-target'] ?? '').split('.').at(-1) ?? '',
        body,
        parsed,
        req,
        res,
        forward: (done, failed, replaced) => forward(req, replaced ?? body, done ?? answerAsIs(res), failed),
        error: (type, options = {}) => {
          const namespace = NAMESPACES[type] ?? 'com.amazonaws.dynamodb.v20120810';
          const text = JSON.stringify({ __type: `${namespace}#${type}`, message: options.message ?? type, ...options.fields });
          res.writeHead(options.status ?? 400, {
            'content-type': 'application/x-amz-json-1.0',
            'content-length': String(Buffer.byteLength(text)),
            'x-amzn-requestid': `proxy-${Date.now()}`,
          });
          res.end(text);
        },
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  function forward(req: IncomingMessage, body: Buffer, done: Answer, failed?: () => void) {
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, 'content-length': String(body.length) } },
      (reply) => {
        const parts: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => parts.push(chunk));
        reply.on('end', () => {
          const headers: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(reply.headers)) if (value !== undefined) headers[name] = value;
          done(reply.statusCode ?? 502, headers, Buffer.concat(parts));
        });
      },
    );
    outgoing.on('error', () => {
      failed?.();
      req.socket.destroy();
    });
    outgoing.end(body);
  }

  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', () => listening()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

function answerAsIs(res: ServerResponse): Answer {
  return (status, headers, body) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}
