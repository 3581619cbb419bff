/**
 * Reads a request's whole body for the local stand-ins (the API gateway, the signed S3 and SQS front),
 * up to a limit: past it the rest is still read and dropped, so the connection stays usable for the
 * refusal the caller answers.
 */
import type { IncomingMessage } from 'node:http';

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limitBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
