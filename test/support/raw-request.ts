/**
 * A request sent byte for byte with node:http: fetch would resolve dot segments in the path (%2e%2e),
 * refuse to send a Host header of its own and re-encode the body, which are what hostile-input tests send.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
  /** Bytes of body received (0 for HEAD). */
  readonly bytes: number;
}

export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: Buffer | string; token?: string } = {},
): Promise<RawResponse> {
  const target = new URL(baseUrl);
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers.authorization = `Token ${init.token}`;
  if (init.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    // node's client sends a DELETE's body without framing otherwise, and the server reads it as a next request.
    headers['content-length'] = String(Buffer.byteLength(init.body));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method, path, headers, setHost: headers.host === undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const text = body.toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, bytes: body.byteLength });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
