/**
 * The local gateway's stand-in for the console bucket behind CloudFront: `/` and the built files with
 * the console's security headers, nothing outside the build folder, /api/ still the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpGateway, type HttpGateway } from '../../bin/local/http-gateway.ts';
import { consoleContentSecurityPolicy } from '../../shared/web-console.ts';

let root: string;
let gateway: HttpGateway;
const invoked: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'console-files-'));
  const consoleDir = join(root, 'console');
  mkdirSync(join(consoleDir, 'assets'), { recursive: true });
  writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(consoleDir, 'assets', 'app-abc123.js'), 'console.log(1)');
  writeFileSync(join(root, 'secret.txt'), 'outside the build');
  gateway = await startHttpGateway({
    host: '127.0.0.1',
    port: 0,
    consoleDir,
    uploadOrigin: 'http://127.0.0.1:4599',
    invoke: async (name, event) => {
      invoked.push(`${name} ${event.rawPath}`);
      return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"api":true}' };
    },
  });
});

afterAll(async () => {
  await gateway.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A raw request (fetch would normalise `..` away before sending it). */
function get(path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: gateway.port, path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the console files on the local gateway', () => {
  it('serves / as index.html, revalidated, with the security headers CloudFront adds', async () => {
    const page = await get('/');
    expect(page).toMatchObject({ status: 200, body: '<!doctype html><title>console</title>' });
    // The page's own origin, and the upload URLs' origin for large SBOMs: nothing else.
    expect(page.headers['content-security-policy']).toContain("connect-src 'self' http://127.0.0.1:4599;");
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': consoleContentSecurityPolicy('http://127.0.0.1:4599'),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  });

  it('serves hashed assets as immutable, HEAD without a body', async () => {
    const script = await get('/assets/app-abc123.js');
    expect(script).toMatchObject({ status: 200, body: 'console.log(1)' });
    expect(script.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' });
    expect(await get('/assets/app-abc123.js', 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('answers 404 for missing files and never reads outside the build folder', async () => {
    for (const path of ['/missing.js', '/assets', '/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00', '/..%5csecret.txt']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain('outside the build');
    }
    expect((await get('/%E0%A4%A')).status).toBe(400);
    expect(await get('/', 'POST')).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
  });

  it('lets a client leave in the middle of a large file without keeping the gateway from stopping', async () => {
    const dir = join(root, 'large');
    mkdirSync(dir);
    writeFileSync(join(dir, 'big.js'), 'x'.repeat(2_000_000));
    const errors: unknown[] = [];
    const own = await startHttpGateway({ host: '127.0.0.1', port: 0, consoleDir: dir, invoke: async () => ({}), onError: (error) => errors.push(error) });
    await new Promise<void>((done) => {
      const req = request({ host: '127.0.0.1', port: own.port, path: '/big.js' }, (res) => {
        res.once('data', () => {
          req.destroy();
          done();
        });
      });
      req.end();
    });
    const stopped = await Promise.race([own.stop().then(() => 'stopped'), new Promise((done) => setTimeout(() => done('still waiting'), 3_000))]);
    expect(stopped).toBe('stopped');
    expect(errors).toEqual([]);
  });

  it('still sends /api/ to the functions', async () => {
    invoked.length = 0;
    expect(await get('/api/v2/')).toMatchObject({ status: 200, body: '{"api":true}' });
    expect(invoked).toEqual(['api-root /api/v2/']);
  });
});
