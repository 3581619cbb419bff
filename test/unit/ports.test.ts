/**
 * The local stack asks for a free port, then a process (DynamoDB Local, the gateway on restart) binds
 * it a moment later. Ports from the OS's ephemeral range can be taken in between by any outgoing
 * connection, so freePort keeps below that range.
 */
import { describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { ephemeralRangeStart, freePort } from '../../bin/local/ports.ts';

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freePort', () => {
  it('answers ports below the ephemeral range that can be listened on', async () => {
    const start = ephemeralRangeStart();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(start);
    }
    expect(new Set(ports).size).toBeGreaterThan(15);
    const server = await listen(ports[0]!);
    await new Promise((done) => server.close(done));
  });
});
