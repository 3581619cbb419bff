import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { AWS_RETRY_SCHEDULE, isForbiddenAddress, logExcerpt, retryDelaySeconds, shouldDisable } from '../../shared/domain/webhooks.ts';
import { deliver, targetProblem } from '../../shared/webhooks/sender.ts';

describe('forbidden addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    // The hex spellings the URL parser produces for IPv4-mapped hosts, and other IPv4 carriers.
    ['::ffff:7f00:1', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:a00:1', true],
    ['0:0:0:0:0:ffff:7f00:0001', true],
    ['::ffff:808:808', false],
    ['::7f00:1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['2002:7f00:1::', true],
    ['2002:808:808::1', false],
    ['2001:0::1', true],
    ['FE80::1%eth0', true],
    ['not-an-ip', true],
    // The rest of the IANA special-purpose registries that are not globally reachable.
    ['100::1', true],
    ['100::', true],
    ['100:0:0:1::1', true],
    ['64:ff9b:1::a00:1', true],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
    ['2001:1::1', true],
    ['2001:2::1', true],
    ['2001:db8::1', true],
    ['3fff::1', true],
    ['5f00::1', true],
    ['fec0::1', true],
    ['::ffff:0:a00:1', true],
    ['2002:c000:201::1', true],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['198.51.100.1', true],
    ['203.0.113.1', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['1.1.1.1', false],
    ['2a00:1450:4001:80b::200e', false],
    // Spellings that are not an IP address at all.
    ['127.1', true],
    ['0x7f.0.0.1', true],
    ['2130706433', true],
  ])('%s is forbidden: %s', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

describe('targets', () => {
  it.each([
    ['http://127.0.0.1:9000/hook', 'The target URL must use https.'],
    ['https://127.0.0.1/hook', 'The host "127.0.0.1" resolves to a private, loopback, link-local or metadata address.'],
    ['https://169.254.169.254/latest/meta-data/', 'The host "169.254.169.254" resolves to a private, loopback, link-local or metadata address.'],
    ['https://[::1]/hook', 'The host "::1" resolves to a private, loopback, link-local or metadata address.'],
    ['https://[::ffff:127.0.0.1]/hook', 'The host "::ffff:7f00:1" resolves to a private, loopback, link-local or metadata address.'],
    ['https://[::ffff:169.254.169.254]/latest/meta-data/', 'The host "::ffff:a9fe:a9fe" resolves to a private, loopback, link-local or metadata address.'],
    ['https://[::ffff:a00:1]/hook', 'The host "::ffff:a00:1" resolves to a private, loopback, link-local or metadata address.'],
    ['https://localhost/hook', 'The host "localhost" resolves to a private, loopback, link-local or metadata address.'],
    ['https://user:pw@example.com/hook', 'The target URL must not carry credentials.'],
    ['https://8.8.8.8:0/hook', 'The target URL must not use port 0.'],
    ['https://[100::1]/hook', 'The host "100::1" resolves to a private, loopback, link-local or metadata address.'],
    ['not a url', 'Enter a valid URL.'],
  ])('%s is refused when private targets are not allowed: %s', async (url, problem) => {
    expect(await targetProblem(url, { allowPrivate: false })).toBe(problem);
  });

  it('allows loopback and http only when private targets are allowed', async () => {
    expect(await targetProblem('http://127.0.0.1:9000/hook', { allowPrivate: true })).toBeUndefined();
  });

  it('refuses to deliver to a loopback receiver when private targets are not allowed, even one that answers', async () => {
    const server = createServer((_, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const envelope = { id: 'e1', type: 'webhook.ping', version: 1 as const, timestamp: new Date().toISOString(), dataspace: 'acme', data: {} };
      const refused = await deliver(`http://127.0.0.1:${port}/`, envelope, `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`, { allowPrivate: false });
      expect(refused).toMatchObject({ ok: false, status: null });
      const allowed = await deliver(`http://127.0.0.1:${port}/`, envelope, `whsec_${Buffer.from('0123456789abcdef0123').toString('base64')}`, { allowPrivate: true });
      expect(allowed).toMatchObject({ ok: true, status: 200, excerpt: 'ok' });
    } finally {
      server.close();
    }
  });

  it('signs so that the Standard Webhooks verifier accepts it, and gives up after the timeout', async () => {
    let headers: Record<string, string> = {};
    let body = '';
    const server = createServer((req, res) => {
      headers = req.headers as Record<string, string>;
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url === '/slow') return; // never answers
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const secret = `whsec_${Buffer.from('a secret of twenty-four b').toString('base64')}`;
    const envelope = { id: 'evt_1', type: 'request.added', version: 1 as const, timestamp: new Date().toISOString(), dataspace: 'acme', data: { x: 1 } };
    try {
      expect(await deliver(`http://127.0.0.1:${port}/`, envelope, secret, { allowPrivate: true })).toMatchObject({ ok: true, status: 204 });
      expect(new Webhook(secret).verify(body, headers)).toEqual(envelope);
      expect(headers['webhook-id']).toBe('evt_1');
      const slow = await deliver(`http://127.0.0.1:${port}/slow`, envelope, secret, { allowPrivate: true }, 300);
      expect(slow).toMatchObject({ ok: false, status: null, excerpt: 'No answer within 300 ms' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the retry schedule', () => {
  it('doubles with jitter up to its cap, and never waits less than a second', () => {
    const schedule = { baseSeconds: 60, maxDelaySeconds: 600, maxAttempts: 5, disableAfterSeconds: 3600 };
    expect(retryDelaySeconds(schedule, 1, 0)).toBe(30);
    expect(retryDelaySeconds(schedule, 1, 0.999)).toBe(60);
    expect(retryDelaySeconds(schedule, 3, 0.999)).toBe(240);
    expect(retryDelaySeconds(schedule, 10, 0.999)).toBe(600);
    expect(retryDelaySeconds({ ...schedule, baseSeconds: 0.1 }, 1, 0)).toBe(1);
  });

  it('on AWS spans about a day before the last attempt', () => {
    let total = 0;
    for (let attempt = 1; attempt < AWS_RETRY_SCHEDULE.maxAttempts; attempt++) total += retryDelaySeconds(AWS_RETRY_SCHEDULE, attempt, 0.999);
    expect(total / 3600).toBeGreaterThan(20);
    expect(total / 3600).toBeLessThan(40);
  });

  it('switches a subscription off once it has failed for the configured time', () => {
    const schedule = { ...AWS_RETRY_SCHEDULE, disableAfterSeconds: 3600 };
    const now = new Date('2026-01-01T12:00:00Z');
    expect(shouldDisable(schedule, null, now)).toBe(false);
    expect(shouldDisable(schedule, '2026-01-01T11:00:01Z', now)).toBe(false);
    expect(shouldDisable(schedule, '2026-01-01T11:00:00Z', now)).toBe(true);
  });

  it('keeps the first kilobyte of an answer', () => {
    expect(logExcerpt('short')).toBe('short');
    expect(Buffer.byteLength(logExcerpt('é'.repeat(2000)))).toBeLessThanOrEqual(1024);
  });
});
