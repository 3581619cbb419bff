/** The audit trail's export for long retention (shared/services/audit.ts AuditExport): JSON-lines objects in the audit bucket. */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { AuditExport } from '../services/audit.ts';

export class S3AuditExport implements AuditExport {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: string): Promise<void> {
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: 'application/x-ndjson' }));
  }
}
