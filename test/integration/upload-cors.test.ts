/**
 * The local stand-in for the upload bucket's CORS rule (bin/local/upload-cors.ts): a preflight from the
 * console's origin for a PUT with Content-Type is allowed as S3 allows it, any other origin, method or
 * header refused; requests pass through to the emulator unchanged, with the CORS headers for the console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { startUploadCorsFront, type UploadCorsFront } from '../../bin/local/upload-cors.ts';

const CONSOLE = 'http://127.0.0.1:8123';
let emulator: Server;
let front: UploadCorsFront;
const received: { method: string; url: string; host: string; type: string; body: string }[] = [];

beforeAll(async () => {
  emulator = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, host: req.headers.host!, type: req.headers['content-type'] ?? '', body });
      res.writeHead(200, { ETag: '"abc"' });
      res.end();
    });
  });
  await new Promise<void>((done) => emulator.listen(0, '127.0.0.1', () => done()));
  const address = emulator.address() as { port: number };
  front = await startUploadCorsFront({ target: `http://127.0.0.1:${address.port}`, allowedOrigin: () => CONSOLE });
});

afterAll(async () => {
  await front.stop();
  await new Promise<void>((done) => emulator.close(() => done()));
});

const preflight = (origin: string, method = 'PUT', headers = 'content-type') =>
  fetch(`${front.endpoint}/sbom-uploads/uploads/x?X-Amz-Signature=s`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });

describe('the upload CORS front', () => {
  it("allows the console's PUT with Content-Type, and nothing else", async () => {
    const allowed = await preflight(CONSOLE);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type');
    expect((await preflight('http://evil.example')).status).toBe(403);
    expect((await preflight(CONSOLE, 'DELETE')).status).toBe(403);
    expect((await preflight(CONSOLE, 'PUT', 'content-type, authorization')).status).toBe(403);
    expect(received).toEqual([]);
  });

  it('passes requests through unchanged (path, Host, body), with CORS headers for the console only', async () => {
    const put = await fetch(`${front.endpoint}/sbom-uploads/uploads/x?X-Amz-Signature=s`, {
      method: 'PUT',
      headers: { Origin: CONSOLE, 'Content-Type': 'application/vnd.cyclonedx+json' },
      body: '{"bomFormat":"CycloneDX"}',
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(put.headers.get('etag')).toBe('"abc"');
    expect(received.at(-1)).toEqual({
      method: 'PUT',
      url: '/sbom-uploads/uploads/x?X-Amz-Signature=s',
      host: new URL(front.endpoint).host,
      type: 'application/vnd.cyclonedx+json',
      body: '{"bomFormat":"CycloneDX"}',
    });
    const other = await fetch(`${front.endpoint}/sbom-uploads/uploads/y`, { method: 'PUT', headers: { Origin: 'http://evil.example' }, body: 'x' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
