/**
 * A tiny HTTP proxy in front of DynamoDB Local that injects the faults DynamoDB shows under load:
 * for a chosen operation (the `X-Amz-Target` of the JSON protocol) it answers the next K calls with
 * a DynamoDB JSON error (throttling, capacity, internal error), drops the connection before or after
 * forwarding (what the SDK sees as a TimeoutError), stalls it, or hands BatchGetItem's keys back as
 * unprocessed. Everything else is forwarded untouched, so the service's own SDK client, with its
 * real retry strategy, is what gets tested.
 */
import type { Socket } from 'node:net';
import { startDynamoDbProxy, type ProxiedCall } from '../../bench/lib/dynamodb-proxy.ts';

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
  const injections = new Map<string, Injection[]>();
  const seen = new Map<string, Record<string, unknown>[]>();
  const stalled = new Set<Socket>();

  const proxy = await startDynamoDbProxy(target, (call) => {
    seen.set(call.operation, [...(seen.get(call.operation) ?? []), call.parsed]);
    const queue = injections.get(call.operation) ?? [];
    const injection = queue.find((entry) => entry.left > 0);
    if (injection) injection.left -= 1;
    answer(injection?.fault, call);
  });

  function answer(fault: Fault | undefined, call: ProxiedCall) {
    switch (fault?.kind) {
      case undefined:
      case 'pass':
        call.forward();
        return;
      case 'error':
        call.error(fault.type, { message: `Injected ${fault.type}`, ...(fault.status !== undefined ? { status: fault.status } : {}), ...(fault.fields ? { fields: fault.fields } : {}) });
        return;
      case 'reset':
        call.req.socket.destroy();
        return;
      case 'lost-response':
        call.forward(() => call.req.socket.destroy());
        return;
      case 'stall':
        stalled.add(call.req.socket);
        call.req.socket.once('close', () => stalled.delete(call.req.socket));
        return;
      case 'unprocessed': {
        const text = JSON.stringify({ Responses: {}, UnprocessedKeys: call.parsed.RequestItems ?? {} });
        call.res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(text)) });
        call.res.end(text);
        return;
      }
    }
  }

  return {
    endpoint: proxy.endpoint,
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
    stop: () => proxy.stop(),
  };
}
