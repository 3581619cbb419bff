/**
 * The local stack's S3 and SQS door (bin/local/signed-front.ts) in front of the real emulator
 * (bin/local/sqs-emulator.ts), as issue 30's attacker tried it: a presigned upload URL moved to another
 * import's object, stripped of its query, with a zero signature, another Content-Type or past its expiry;
 * a bucket listing, an object read and ListQueues unsigned or signed with the well-known `local` secret;
 * the emulator's own port asked directly. Each is refused as S3 or SQS refuses it (403, their error
 * format) and stores nothing; the service's own signed calls and URLs work. And the upload bucket's CORS
 * rule for the console: a preflight from its origin for a PUT with Content-Type is allowed, any other
 * origin, method or header refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ListQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { startSignedFront, type SignedFront } from '../../bin/local/signed-front.ts';
import { startSqsEmulator, type SqsEmulator } from '../../bin/local/sqs-emulator.ts';
import { S3SbomUploads, createS3Client, uploadKey } from '../../shared/aws/sbom-uploads.ts';
import { createSqsClient } from '../../shared/aws/clients.ts';
import { localCredentials } from '../../shared/aws/local-credentials.ts';

const CONSOLE = 'http://127.0.0.1:8123';
const SECRET = `test-${randomUUID()}`;
const BUCKET = 'sbom-uploads';
const DOCUMENT = '{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"components":[]}';
const TYPE = 'application/vnd.cyclonedx+json';
const SIZE = Buffer.byteLength(DOCUMENT);
let dataDir: string;
let emulator: SqsEmulator;
let front: SignedFront;
/** The front's clock, moved by a test to see a URL expire. */
let clockOffsetMs = 0;
let s3: S3Client;
let sqs: SQSClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cms-front-'));
  emulator = await startSqsEmulator({ dataDir, spyBufferSize: 10 });
  front = await startSignedFront({
    emulator,
    credentials: localCredentials(SECRET),
    allowedOrigin: () => CONSOLE,
    now: () => new Date(Date.now() + clockOffsetMs),
  });
  s3 = createS3Client({ region: 'us-east-1', endpoint: front.endpoint, secret: SECRET });
  sqs = createSqsClient({ region: 'us-east-1', endpoint: front.endpoint, secret: SECRET });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  s3?.destroy();
  sqs?.destroy();
  await front?.stop();
  await emulator?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const uploads = () => new S3SbomUploads(s3, BUCKET);

async function stored(key: string): Promise<boolean> {
  return s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    (error: { $metadata?: { httpStatusCode?: number } }) => {
      if (error.$metadata?.httpStatusCode === 404) return false;
      throw error;
    },
  );
}

/** The error code of S3's XML error body. */
async function s3Error(response: Response): Promise<{ status: number; code: string | undefined }> {
  const text = await response.text();
  expect(response.headers.get('content-type')).toBe('application/xml');
  return { status: response.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] };
}

describe('presigned upload URLs through the signed front', () => {
  it('takes the PUT the URL was signed for, and the object is there', async () => {
    const importUuid = randomUUID();
    const upload = await uploads().presignPut(importUuid, TYPE, SIZE, 900);
    expect(upload.url.startsWith(front.endpoint)).toBe(true);
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: DOCUMENT });
    expect(put.status).toBe(200);
    expect((await uploads().read(uploadKey(importUuid))).toString()).toBe(DOCUMENT);
  });

  it("refuses the URL moved to another import's object, without its query, with a zero signature, another Content-Type or expired: nothing stored", async () => {
    const mine = randomUUID();
    const theirs = randomUUID();
    const upload = await uploads().presignPut(mine, TYPE, SIZE, 60);
    const url = new URL(upload.url);
    const moved = new URL(upload.url.replace(mine, theirs));
    const bare = new URL(url.pathname, url.origin);
    const zero = new URL(upload.url);
    zero.searchParams.set('X-Amz-Signature', '00');
    const put = (target: URL, type = TYPE) => fetch(target, { method: 'PUT', headers: { 'Content-Type': type }, body: DOCUMENT });
    expect(await s3Error(await put(moved))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await s3Error(await put(bare))).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await s3Error(await put(zero))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await s3Error(await put(url, 'application/json'))).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    clockOffsetMs = 61_000;
    try {
      expect(await s3Error(await put(url))).toEqual({ status: 403, code: 'AccessDenied' });
    } finally {
      clockOffsetMs = 0;
    }
    expect(await stored(uploadKey(theirs))).toBe(false);
    expect(await stored(uploadKey(mine))).toBe(false);
  });
});

describe('the size an upload URL was signed for', () => {
  it('takes exactly that many bytes: one more (or one fewer) is refused as S3 refuses it, and nothing is stored', async () => {
    const importUuid = randomUUID();
    const upload = await uploads().presignPut(importUuid, TYPE, SIZE, 900);
    for (const body of [`${DOCUMENT} `, DOCUMENT.slice(0, -1)]) {
      const put = await fetch(upload.url, { method: 'PUT', headers: { 'Content-Type': TYPE }, body });
      expect(await s3Error(put)).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    }
    expect(await stored(uploadKey(importUuid))).toBe(false);
    expect((await fetch(upload.url, { method: 'PUT', headers: { 'Content-Type': TYPE }, body: DOCUMENT })).status).toBe(200);
  });

  it('takes an upload of the service\'s largest size, 50 MiB, past the emulator\'s own 11 MiB', async () => {
    const size = 50 * 1024 * 1024;
    const importUuid = randomUUID();
    const upload = await uploads().presignPut(importUuid, TYPE, size, 900);
    const body = Buffer.alloc(size, 0x20);
    const put = await fetch(upload.url, { method: 'PUT', headers: { 'Content-Type': TYPE }, body });
    expect(put.status).toBe(200);
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: uploadKey(importUuid) }))).ContentLength).toBe(size);
  });
});

describe('the S3 and SQS APIs answer signed requests only', () => {
  it('refuses a listing, a read and ListQueues unsigned or signed with the well-known local secret, and takes them signed with the stack\'s', async () => {
    const importUuid = randomUUID();
    const upload = await uploads().presignPut(importUuid, TYPE, SIZE, 900);
    expect((await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: DOCUMENT })).status).toBe(200);

    expect(await s3Error(await fetch(`${front.endpoint}/${BUCKET}?list-type=2`))).toEqual({ status: 403, code: 'AccessDenied' });
    expect(await s3Error(await fetch(`${front.endpoint}/${BUCKET}/${uploadKey(importUuid)}`))).toEqual({ status: 403, code: 'AccessDenied' });
    const sqsCall = await fetch(front.endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.ListQueues' }, body: '{}' });
    expect(sqsCall.status).toBe(403);
    expect(await sqsCall.json()).toMatchObject({ __type: expect.stringContaining('AccessDenied') });

    const guessed = createS3Client({ region: 'us-east-1', endpoint: front.endpoint, secret: 'local' });
    const guessedSqs = createSqsClient({ region: 'us-east-1', endpoint: front.endpoint, secret: 'local' });
    try {
      await expect(guessed.send(new ListObjectsV2Command({ Bucket: BUCKET }))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
      await expect(guessed.send(new GetObjectCommand({ Bucket: BUCKET, Key: uploadKey(importUuid) }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
      await expect(guessedSqs.send(new ListQueuesCommand({}))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    } finally {
      guessed.destroy();
      guessedSqs.destroy();
    }

    expect((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'uploads/' }))).Contents?.map((object) => object.Key)).toContain(uploadKey(importUuid));
    await expect(sqs.send(new ListQueuesCommand({}))).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
  });

  it("refuses a direct request to the emulator's own port, even one signed with the stack's secret", async () => {
    expect(emulator.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const direct = createS3Client({ region: 'us-east-1', endpoint: emulator.endpoint, secret: SECRET });
    try {
      await expect(direct.send(new ListObjectsV2Command({ Bucket: BUCKET }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    } finally {
      direct.destroy();
    }
    expect((await fetch(`${emulator.endpoint}/${BUCKET}?list-type=2`)).status).toBe(403);
    const listQueues = await fetch(emulator.endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.ListQueues' }, body: '{}' });
    expect(listQueues.status).toBe(403);
  });
});

describe("the upload bucket's CORS rule", () => {
  const preflight = (origin: string, method = 'PUT', headers = 'content-type') =>
    fetch(`${front.endpoint}/${BUCKET}/uploads/x?X-Amz-Signature=s`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
    });

  it("allows the console's PUT with Content-Type, and nothing else", async () => {
    const allowed = await preflight(CONSOLE);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(allowed.headers.get('access-control-allow-headers')).toBe('content-type');
    expect((await preflight('http://evil.example')).status).toBe(403);
    expect((await preflight(CONSOLE, 'DELETE')).status).toBe(403);
    expect((await preflight(CONSOLE, 'PUT', 'content-type, authorization')).status).toBe(403);
  });

  it('answers the console with its CORS headers, a refusal too, and no other origin', async () => {
    const upload = await uploads().presignPut(randomUUID(), TYPE, SIZE, 900);
    const put = await fetch(upload.url, { method: 'PUT', headers: { ...upload.headers, Origin: CONSOLE }, body: DOCUMENT });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(put.headers.get('etag')).toBeTruthy();
    const refused = await fetch(upload.url.replace(/X-Amz-Signature=\w+/, 'X-Amz-Signature=00'), { method: 'PUT', headers: { ...upload.headers, Origin: CONSOLE }, body: DOCUMENT });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const other = await fetch(upload.url, { method: 'PUT', headers: { ...upload.headers, Origin: 'http://evil.example' }, body: DOCUMENT });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
