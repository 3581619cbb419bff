/**
 * Where large SBOMs are uploaded, in domain words: a presigned PUT URL for an import's object, and
 * reading (then deleting) the object once its upload event arrives. S3 on AWS; on the local stack the
 * S3 API of the SQS emulator (fauxqs), path-style. Objects live under `uploads/<import uuid>`.
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

// The client is made in ./s3.ts (the audit export uses it too, without the presigner).
export { createS3Client } from './s3.ts';

export const UPLOAD_PREFIX = 'uploads/';

/**
 * The upload bucket's CORS rule, on AWS (lib/constructs/sbom-upload-bucket.ts) and locally
 * (bin/local/signed-front.ts): the web console's origin may PUT to a presigned URL with its Content-Type.
 */
export const UPLOAD_CORS = {
  methods: ['PUT'],
  headers: ['content-type'],
  maxAgeSeconds: 3000,
} as const;

/** The object key of an import's upload. */
export const uploadKey = (importUuid: string) => `${UPLOAD_PREFIX}${importUuid}`;

/** The import an object key belongs to, or undefined when the key is no upload's. */
export function importOfKey(key: string): string | undefined {
  const match = /^uploads\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(key);
  return match?.[1];
}

export interface PresignedUpload {
  readonly url: string;
  /**
   * Headers the PUT must carry exactly (they are part of the signature): its Content-Type, and its
   * Content-Length, the size the client declared, so that S3 refuses a body of any other size (403
   * SignatureDoesNotMatch): how an upload is held to the service's limit on AWS and locally alike.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/** The document of an upload was replaced by another PUT to its URL before the import read it. */
export class UploadReplacedError extends Error {}

export interface SbomUploads {
  presignPut(importUuid: string, contentType: string, size: number, expiresInSeconds: number): Promise<PresignedUpload>;
  /** The uploaded document, as it was when its event (`eTag`) was sent; UploadReplacedError if it is another since. */
  read(key: string, eTag?: string): Promise<Buffer>;
  remove(key: string): Promise<void>;
}

export class S3SbomUploads implements SbomUploads {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async presignPut(importUuid: string, contentType: string, size: number, expiresInSeconds: number): Promise<PresignedUpload> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: uploadKey(importUuid), ContentType: contentType, ContentLength: size });
    const url = await getSignedUrl(this.s3, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(['content-type', 'content-length']) });
    return { url, headers: { 'Content-Type': contentType, 'Content-Length': String(size) } };
  }

  async read(key: string, eTag?: string): Promise<Buffer> {
    try {
      const result = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(eTag ? { IfMatch: `"${eTag}"` } : {}) }));
      return Buffer.from(await result.Body!.transformToByteArray());
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) throw new UploadReplacedError(key);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
