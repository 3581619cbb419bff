/**
 * The local stand-in for the upload bucket's CORS configuration. The S3 API of the SQS emulator
 * (fauxqs) has no bucket CORS (it answers no preflight), so the console could not PUT a large SBOM to
 * its presigned URL from the console's origin. This front listens on a port of its own, passes every
 * request through to the emulator unchanged, Host included (the service's own S3 calls too, so
 * presigned URLs name this front), and adds what S3 adds for the bucket's CORS rule on AWS (lib/constructs/sbom-upload-bucket.ts):
 * PUT from the console's origin only, with the Content-Type header the URL was signed with.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { UPLOAD_CORS } from '../../shared/aws/sbom-uploads.ts';


export interface UploadCorsFront {
  /** http://127.0.0.1:<port>: the S3 endpoint the service presigns its upload URLs on. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * `allowedOrigin()` is read on every request: the console's origin is known once the gateway listens,
 * after this front has started.
 */
export async function startUploadCorsFront(options: { target: string; host?: string; allowedOrigin: () => string | undefined }): Promise<UploadCorsFront> {
  const target = new URL(options.target);
  const server: Server = createServer((req, res) => {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origin === options.allowedOrigin();
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      preflight(req, res, allowed);
      return;
    }
    const corsHeaders: Record<string, string> = allowed ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': 'ETag' } : {};
    const upstream = request(
      { protocol: target.protocol, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...corsHeaders });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain', ...corsHeaders });
      res.end('The S3 emulator did not answer.');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** S3's answer to a CORS preflight: 200 with the rule's headers when it matches, 403 otherwise. */
function preflight(req: IncomingMessage, res: ServerResponse, allowedOrigin: boolean): void {
  const method = String(req.headers['access-control-request-method']).toUpperCase();
  const asked = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const ok = allowedOrigin && (UPLOAD_CORS.methods as readonly string[]).includes(method) && asked.every((name) => (UPLOAD_CORS.headers as readonly string[]).includes(name));
  if (!ok) {
    res.writeHead(403, { 'Content-Type': 'text/plain' });
    res.end('CORSResponse: This CORS request is not allowed.');
    return;
  }
  res.writeHead(200, {
    'Access-Control-Allow-Origin': req.headers.origin!,
    'Access-Control-Allow-Methods': UPLOAD_CORS.methods.join(', '),
    'Access-Control-Allow-Headers': asked.join(', '),
    'Access-Control-Max-Age': String(UPLOAD_CORS.maxAgeSeconds),
    Vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    'Content-Length': '0',
  });
  res.end();
}
