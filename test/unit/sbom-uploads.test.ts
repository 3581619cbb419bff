/**
 * The presigned upload URL: what it signs. The local S3 emulator checks no signature or checksum, so
 * what real S3 would refuse is checked here, on the URL itself.
 */
import { describe, expect, it } from 'vitest';
import { S3SbomUploads, createS3Client, importOfKey, uploadKey } from '../../shared/aws/sbom-uploads.ts';

const IMPORT = '3e671687-395b-41f5-a30f-a58921a69b79';

describe('an upload URL', () => {
  it('signs the PUT of the import\'s key with its Content-Type and size, for the time given, and no checksum of an empty body', async () => {
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    const uploads = new S3SbomUploads(createS3Client({ region: 'eu-west-1' }), 'compliance-sbom-uploads');
    const { url, headers } = await uploads.presignPut(IMPORT, 'application/vnd.cyclonedx+json', 52_428_800, 900);
    const parsed = new URL(url);
    expect(parsed.origin).toBe('https://compliance-sbom-uploads.s3.eu-west-1.amazonaws.com');
    expect(parsed.pathname).toBe(`/uploads/${IMPORT}`);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    // Its size too: S3 refuses a body of any other length than the one declared (and held to the limit).
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    // A checksum signed at presign time is the empty body's: S3 would refuse the real document.
    expect([...parsed.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect(headers).toEqual({ 'Content-Type': 'application/vnd.cyclonedx+json', 'Content-Length': '52428800' });
  });

  it('names its import by its key, and no other key names one', () => {
    expect(importOfKey(uploadKey(IMPORT))).toBe(IMPORT);
    expect(importOfKey(`other/${IMPORT}`)).toBeUndefined();
    expect(importOfKey(`uploads/${IMPORT}/x`)).toBeUndefined();
    expect(importOfKey('uploads/not-a-uuid')).toBeUndefined();
  });
});
