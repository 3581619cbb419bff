/**
 * The factory of the audit trail's writer, apart from shared/runtime.ts: its export brings the S3 client,
 * which only the stream router (the writer's host) needs in its bundle besides the SBOM functions.
 */
import { S3AuditExport } from './aws/audit-export.ts';
import { auditStore, type Composition } from './runtime.ts';
import { s3Client } from './s3-runtime.ts';
import { AuditTrailWriter } from './services/audit.ts';

export function auditTrailWriter(c: Composition): AuditTrailWriter {
  return c.once(auditTrailWriter, () => {
    const bucket = c.config.AUDIT_EXPORT_BUCKET;
    const exporter = bucket ? new S3AuditExport(s3Client(c), bucket) : undefined;
    return new AuditTrailWriter({ store: auditStore(c), retentionDays: c.config.AUDIT_RETENTION_DAYS, exporter });
  });
}

export interface AuditDependencies {
  readonly auditTrail: AuditTrailWriter;
}
