/**
 * The signed front's SigV4 check (bin/local/sigv4-verify.ts) against requests the AWS SDK really sends:
 * a loopback listener records the bytes of the SDK's presigned URLs and of its S3 and SQS calls (no
 * emulator behind it), and each is verified as it arrived, then tampered with the way issue 30's
 * attacker did (another object's path, no query, a zero signature, another Content-Type, a reused URL
 * past its expiry, another key or secret, another body).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bodyMatches, verifySigV4, type IncomingSigned } from '../../bin/local/sigv4-verify.ts';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
let server: Server;
let endpoint: string;
const seen: IncomingSigned[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, target: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(500, { 'Content-Type': 'application/xml' }).end('<Error><Code>InternalError</Code></Error>');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const s3 = () => new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS, maxAttempts: 1, requestChecksumCalculation: 'WHEN_REQUIRED' });

/** What the listener received for `send` (the SDK's answer, an error here, is not the point). */
async function sent(send: () => Promise<unknown>): Promise<IncomingSigned> {
  const before = seen.length;
  await send().catch(() => undefined);
  expect(seen.length).toBe(before + 1);
  return seen[before]!;
}

async function presignedPut(key = 'uploads/a b', contentType = 'application/vnd.cyclonedx+json', expiresIn = 900) {
  const url = new URL(await getSignedUrl(s3(), new PutObjectCommand({ Bucket: 'sbom-uploads', Key: key, ContentType: contentType }), { expiresIn, signableHeaders: new Set(['content-type']) }));
  return (path = `${url.pathname}${url.search}`, type = contentType): IncomingSigned => ({
    method: 'PUT',
    target: path,
    headers: { host: url.host, 'content-type': type, 'content-length': '2' },
  });
}

describe('presigned upload URLs', () => {
  it('verifies the URL the service hands out, PUT with its Content-Type', async () => {
    const request = await presignedPut();
    await expect(verifySigV4(request(), CREDENTIALS, new Date())).resolves.toMatchObject({ service: 's3', presigned: true });
  });

  it("refuses the URL moved to another import's object, unsigned, with a zero signature or another Content-Type", async () => {
    const request = await presignedPut('uploads/11111111-1111-4111-8111-111111111111');
    const good = new URL(request().target, 'http://x');
    const other = `${good.pathname.replace('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222')}${good.search}`;
    await expect(verifySigV4(request(other), CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    await expect(verifySigV4(request(good.pathname), CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'AccessDenied' });
    const zero = new URL(good);
    zero.searchParams.set('X-Amz-Signature', '00');
    await expect(verifySigV4(request(`${zero.pathname}${zero.search}`), CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    await expect(verifySigV4(request(undefined, 'text/plain'), CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    // The credential's day is part of what was signed, as S3 has it: another day than X-Amz-Date's is refused.
    const redated = new URL(good);
    redated.searchParams.set('X-Amz-Credential', String(redated.searchParams.get('X-Amz-Credential')).replace(/\/\d{8}\//, '/20200101/'));
    await expect(verifySigV4(request(`${redated.pathname}${redated.search}`), CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    const { 'content-type': _dropped, ...withoutType } = request().headers;
    await expect(verifySigV4({ ...request(), headers: withoutType }, CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses a URL past its expiry, one signed with another secret, and another access key', async () => {
    const request = await presignedPut(undefined, undefined, 60);
    await expect(verifySigV4(request(), CREDENTIALS, new Date(Date.now() + 61_000))).resolves.toMatchObject({ status: 403, code: 'AccessDenied', message: 'Request has expired' });
    await expect(verifySigV4(request(), { ...CREDENTIALS, secretAccessKey: 'other' }, new Date())).resolves.toMatchObject({ code: 'SignatureDoesNotMatch' });
    await expect(verifySigV4(request(), { ...CREDENTIALS, accessKeyId: 'other' }, new Date())).resolves.toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
  });
});

describe('requests signed in the Authorization header', () => {
  it("verifies the S3 client's PutObject, GetObject and ListObjectsV2, and checks the PUT body against its declared hash", async () => {
    const put = await sent(() => s3().send(new PutObjectCommand({ Bucket: 'audit-exports', Key: 'acme/2026/x.jsonl', Body: '{"a":1}\n', ContentType: 'application/x-ndjson' })));
    const verified = await verifySigV4(put, CREDENTIALS, new Date());
    expect(verified).toMatchObject({ service: 's3', presigned: false });
    const declared = (verified as { bodySha256?: string }).bodySha256;
    expect(declared).toMatch(/^[0-9a-f]{64}$/);
    expect(bodyMatches(put.body!, declared!)).toBe(true);
    expect(bodyMatches(Buffer.from('{"a":2}\n'), declared!)).toBe(false);
    await expect(verifySigV4({ ...put, body: Buffer.from('{"a":2}\n') }, CREDENTIALS, new Date())).resolves.toMatchObject({ status: 400, code: 'XAmzContentSHA256Mismatch' });
    for (const command of [new GetObjectCommand({ Bucket: 'sbom-uploads', Key: 'uploads/x' }), new ListObjectsV2Command({ Bucket: 'sbom-uploads', Prefix: 'uploads/' })]) {
      const request = await sent(() => s3().send(command as never));
      await expect(verifySigV4(request, CREDENTIALS, new Date())).resolves.toMatchObject({ service: 's3' });
      await expect(verifySigV4({ ...request, target: request.target.replace('sbom-uploads', 'audit-exports') }, CREDENTIALS, new Date())).resolves.toMatchObject({ code: 'SignatureDoesNotMatch' });
    }
  });

  it("verifies the SQS client's SendMessage from its body, and refuses another body, no signature and a skewed clock", async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS, maxAttempts: 1 });
    const request = await sent(() => sqs.send(new SendMessageCommand({ QueueUrl: `${endpoint}/000000000000/evaluation`, MessageBody: '{"product":"p"}' })));
    await expect(verifySigV4(request, CREDENTIALS, new Date())).resolves.toMatchObject({ service: 'sqs', presigned: false });
    // The SDK declares the body's hash in x-amz-content-sha256, which the signature covers: another body is refused by that hash.
    await expect(verifySigV4({ ...request, body: Buffer.from(request.body!.toString().replace('product', 'produce')) }, CREDENTIALS, new Date())).resolves.toMatchObject({ status: 400, code: 'XAmzContentSHA256Mismatch' });
    const { 'x-amz-content-sha256': _hash, ...undeclared } = request.headers;
    await expect(verifySigV4({ ...request, headers: undeclared }, CREDENTIALS, new Date())).resolves.toMatchObject({ code: 'SignatureDoesNotMatch' });
    const { authorization: _dropped, ...unsigned } = request.headers;
    await expect(verifySigV4({ ...request, headers: unsigned }, CREDENTIALS, new Date())).resolves.toMatchObject({ status: 403, code: 'AccessDenied' });
    await expect(verifySigV4(request, CREDENTIALS, new Date(Date.now() + 16 * 60_000))).resolves.toMatchObject({ status: 403, code: 'RequestTimeTooSkewed' });
  });
});
