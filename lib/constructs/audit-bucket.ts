/**
 * The bucket the audit trail is exported to (JSON lines, one object per stream batch, under audit/),
 * for retention beyond the table's: private, encrypted, TLS only, versioned, moved to Glacier Deep
 * Archive and expired by its lifecycle (shared/resources.ts AUDIT_BUCKET), and kept when the stack is
 * deleted: an audit trail outlives the deployment that wrote it.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PRIVATE_BUCKET } from './private-bucket.ts';
import { AUDIT_BUCKET } from '../../shared/resources.ts';

export class AuditBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      versioned: true,
      lifecycleRules: [
        {
          id: 'archive-then-expire-audit-records',
          prefix: AUDIT_BUCKET.prefix,
          transitions: [{ storageClass: s3.StorageClass.DEEP_ARCHIVE, transitionAfter: Duration.days(AUDIT_BUCKET.archiveAfterDays) }],
          expiration: Duration.days(AUDIT_BUCKET.expireAfterDays),
          noncurrentVersionExpiration: Duration.days(AUDIT_BUCKET.expireAfterDays),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The audit bucket is written only by the stream router (s3:PutObject under audit/, its role alone); who reads it is recorded by CloudTrail data events where the operator enables them. Server access logs would need a second bucket per deployment.',
    });
  }
}
