/**
 * Free TCP ports on the loopback interface for the local stand-ins.
 *
 * A port found free is only free until someone else binds it, and the ports the OS hands out by
 * itself (to `listen(0)` and to the source side of every outgoing connection) come from its
 * ephemeral range. So the port is chosen at random *below* that range: between asking and binding,
 * no outgoing connection or port-0 listener of this machine can take it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LOWEST = 10_000;
/** Where Linux's ephemeral range starts unless configured otherwise (macOS starts at 49152). */
const DEFAULT_EPHEMERAL_START = 32_768;

/** The first port of the OS's ephemeral range. */
export function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOWEST + 1000 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

/** Binds `port` on loopback (0 for a port the system picks) and lets go at once: the port it got, or undefined when taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((answer) => {
    const server = createServer();
    server.unref();
    server.once('error', () => answer(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => answer(bound));
    });
  });
}

/** A port nobody listens on now, outside the ephemeral range where possible. */
export async function freePort(): Promise<number> {
  const end = ephemeralRangeStart();
  for (let tries = 0; tries < 50; tries++) {
    const port = await tryListen(LOWEST + Math.floor(Math.random() * (end - LOWEST)));
    if (port !== undefined) return port;
  }
  const any = await tryListen(0);
  if (any === undefined) throw new Error('No free TCP port on 127.0.0.1.');
  return any;
}
