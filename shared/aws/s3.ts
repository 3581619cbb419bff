/** The S3 client: S3 on AWS, or the S3 API of the local stack's emulator (fauxqs), path-style. */
import { S3Client } from '@aws-sdk/client-s3';
import { localCredentials } from './local-credentials.ts';

export function createS3Client({ region, endpoint, secret }: { region: string; endpoint?: string | undefined; secret?: string | undefined }): S3Client {
  // Checksums only where S3 requires them: by default the SDK would sign the CRC32 of the empty body of
  // the PutObject it presigns into the URL (x-amz-checksum-crc32=AAAAAA==), and S3 would refuse every
  // real upload to it as BadDigest. (The emulator checks no checksum: test/unit/sbom-uploads.test.ts does.)
  const checksums = { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const;
  return new S3Client(
    endpoint
      ? // The emulator answers path-style requests on its own address.
        { region, endpoint, forcePathStyle: true, credentials: localCredentials(secret), ...checksums }
      : { region, ...checksums },
  );
}
