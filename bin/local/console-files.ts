/**
 * The local stand-in for the console's S3 bucket behind CloudFront: builds the console (Vite) into a
 * folder of this stack's DATA_DIR and serves it at `/`, with the headers CloudFront adds on AWS.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { extname, join, resolve, sep } from 'node:path';
import { consoleSecurityHeaders } from '../../shared/web-console.ts';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** As the CDK deployment sets them: hashed assets cached for good, index.html revalidated on every load. */
const CACHE_CONTROL = { assets: 'public, max-age=31536000, immutable', html: 'no-cache' } as const;

const repositoryRoot = resolve(import.meta.dirname, '..', '..');

/** Builds web/ into `outDir` with the project's Vite config (about half a second). */
export async function buildConsole(outDir: string): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(repositoryRoot, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

/**
 * Answers a GET or HEAD outside /api/ from `root` as CloudFront does from the bucket: `/` is
 * index.html, a missing file is 404, and nothing outside `root` is ever read. `uploadOrigin`: the
 * origin of the SBOM upload URLs, which the Content-Security-Policy lets the console connect to.
 */
export async function serveConsoleFile(root: string, method: string, pathname: string, res: ServerResponse, uploadOrigin?: string): Promise<void> {
  const reply = (status: number, text: string, headers: Record<string, string> = {}) => replyWith(res, consoleSecurityHeaders(uploadOrigin), status, text, headers);
  if (method !== 'GET' && method !== 'HEAD') {
    reply(405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    return;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    reply(400, 'Bad Request');
    return;
  }
  const base = resolve(root);
  const file = resolve(base, `.${decoded === '/' ? '/index.html' : decoded}`);
  if (!file.startsWith(base + sep) || decoded.includes('\0')) {
    reply(404, 'Not Found');
    return;
  }
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) {
    reply(404, 'Not Found');
    return;
  }
  const isHtml = extname(file) === '.html';
  res.writeHead(200, {
    ...consoleSecurityHeaders(uploadOrigin),
    'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': String(info.size),
    'Cache-Control': isHtml ? CACHE_CONTROL.html : CACHE_CONTROL.assets,
  });
  if (method === 'HEAD') {
    res.end();
    return;
  }
  // pipeline settles when the client goes away mid-file too, so the gateway's stop() never waits on it.
  await pipeline(createReadStream(file), res).catch((error: unknown) => {
    // A client that leaves mid-file is not an error of the server's.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}

function replyWith(res: ServerResponse, security: Readonly<Record<string, string>>, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...security, ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}
