/** What every bucket of the stack is: no public access, S3-managed encryption, TLS 1.2 only, owner-enforced objects. */
import * as s3 from 'aws-cdk-lib/aws-s3';

export const PRIVATE_BUCKET = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  encryption: s3.BucketEncryption.S3_MANAGED,
  enforceSSL: true,
  minimumTLSVersion: 1.2,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
} as const satisfies s3.BucketProps;
