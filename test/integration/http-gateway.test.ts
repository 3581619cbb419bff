/**
 * The local gateway as a client meets it: its connections and the events it builds.
 *
 * The local gateway must not close an idle keep-alive connection before its clients do: a client that
 * reuses a connection the server has just closed gets "fetch failed" (seen in loaded test runs on a plain
 * GET). Clients close idle connections after a few seconds (undici's fetch 4 s, Node's agent 5 s), so the
 * gateway keeps them longer, as load balancers do.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpGateway, type HttpGateway } from '../../bin/local/http-gateway.ts';

let gateway: HttpGateway;
let lastEvent: { requestContext: { domainName: string } } | undefined;

beforeAll(async () => {
  gateway = await startHttpGateway({
    host: '127.0.0.1',
    port: 0,
    invoke: async (_name, event) => {
      lastEvent = event;
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
    },
  });
});
afterAll(() => gateway.stop());

/** Sends one GET on the socket and resolves with the status line, or with why it could not. */
function get(socket: Socket, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n') && received.includes('{"ok":true}')) finish(received.split('\r\n')[0]!);
    };
    const finish = (outcome: string) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(outcome);
    };
    const onClose = () => finish('closed by the server');
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.write(`GET /api/v2/ HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

describe('the local gateway', () => {
  it('keeps an idle keep-alive connection open longer than clients keep theirs (6 s idle, then reused)', async () => {
    const socket = connect(gateway.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      expect(await get(socket)).toBe('HTTP/1.1 200 OK');
      // Longer than undici's 4 s and Node's agent's 5 s idle timeouts: a client may still reuse it now.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await get(socket)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
    }
  });
});

describe("the local gateway's events", () => {
  it("name the gateway's own address as the domain, never the Host a client sent", async () => {
    const socket = connect(gateway.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      expect(await get(socket, 'evil.example')).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
    }
    expect(lastEvent?.requestContext.domainName).toBe(`127.0.0.1:${gateway.port}`);
  });
});

describe("a function's first request", () => {
  it("is not cut short by the function's load: the timeout counts the invocation only, as Lambda keeps Init out of it", async () => {
    // Loading takes longer than the not-found function's whole 5 s timeout; the invocation itself is quick.
    let loading: Promise<void> | undefined;
    const load = () => (loading ??= new Promise((resolve) => setTimeout(resolve, 5_300)));
    const own = await startHttpGateway({
      host: '127.0.0.1',
      port: 0,
      init: load,
      invoke: async () => {
        await load();
        return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"detail":"Not found."}' };
      },
    });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => fetch(`${own.url}/api/v2/nothing-here/`)));
      expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    } finally {
      await own.stop();
    }
  }, 20_000);
});
