/** The S3 client's factory, shared by the SBOM functions' parts and the audit trail's export (the local stack provides its own). */
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from './aws/s3.ts';
import type { Composition } from './runtime.ts';

export function s3Client(c: Composition): S3Client {
  return c.once(s3Client, () => createS3Client({ region: c.config.AWS_REGION, endpoint: c.config.S3_ENDPOINT }));
}
