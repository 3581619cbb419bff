/**
 * The bucket large SBOMs are uploaded to (POST sbom_uploads answers a presigned PUT URL into it): private
 * (every public access blocked, owner-enforced objects), encrypted (S3-managed keys), TLS only, and
 * transient: an upload is deleted by the import function once read, and by the lifecycle a day after
 * it came in any case. Each object created under uploads/ is announced on a queue (S3 → SQS), which the
 * import function consumes: retries and a dead-letter queue come with the queue (lib/compliance-stack.ts).
 */
import { createHash } from 'node:crypto';
import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PRIVATE_BUCKET } from './private-bucket.ts';
import { UPLOAD_CORS, UPLOAD_PREFIX } from '../../shared/aws/sbom-uploads.ts';
import { UPLOAD_BUCKET } from '../../shared/resources.ts';

export interface SbomUploadBucketProps {
  /** The queue the object-created events go to. */
  readonly events: sqs.IQueue;
}

export class SbomUploadBucket extends Construct {
  readonly bucket: s3.Bucket;
  /**
   * The origin of the presigned upload URLs (the SDK presigns virtual-hosted, regional URLs:
   * https://<bucket>.s3.<region>.amazonaws.com/uploads/…), which the console's CSP allows connecting to.
   */
  readonly uploadOrigin: string;

  constructor(scope: Construct, id: string, props: SbomUploadBucketProps) {
    super(scope, id);
    const name = uploadBucketName(Stack.of(this).stackName);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      // Named, not generated: the console's CSP names the bucket's origin, and the bucket's CORS rule names
      // the console's origin; with a generated name the two would depend on each other (a cycle).
      bucketName: name,
      lifecycleRules: [
        {
          id: 'expire-uploads',
          prefix: UPLOAD_PREFIX,
          expiration: Duration.days(UPLOAD_BUCKET.expireAfterDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Uploads are transient (the table is the record of every import): the bucket goes with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    this.uploadOrigin = `https://${name}.s3.${Aws.REGION}.${Aws.URL_SUFFIX}`;
    this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.SqsDestination(props.events), { prefix: UPLOAD_PREFIX });
    // CDK sets the notification through a handler of its own (a custom resource), whose role it always
    // gives the AWS-managed AWSLambdaBasicExecutionRole, even a role passed in (as its auto-delete provider).
    for (const child of Stack.of(this).node.children) {
      if (!child.node.id.startsWith('BucketNotificationsHandler')) continue;
      Validations.of(child).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: "aws-cdk-lib gives the role of its S3 notifications handler this policy, even a role of ours (it adds it in NotificationsResourceHandler); the handler only sets the upload bucket's notification at deployment.",
      });
    }
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The upload bucket holds each SBOM for the minutes until its import reads and deletes it (a day at most, by its lifecycle); every import is recorded in the table with its creator, and the bucket configuration changes are in CloudTrail.',
    });
  }

  /**
   * The bucket's CORS rule: a browser page of `origin` (the web console) may PUT an upload to its presigned
   * URL, with the Content-Type the URL was signed with; nothing else, from nowhere else. The local stack
   * has the same rule in front of its S3 emulator (bin/local/signed-front.ts).
   */
  allowUploadsFrom(origin: string): void {
    this.bucket.addCorsRule({
      allowedOrigins: [origin],
      allowedMethods: UPLOAD_CORS.methods.map((method) => s3.HttpMethods[method]),
      allowedHeaders: [...UPLOAD_CORS.headers],
      exposedHeaders: ['ETag'],
      maxAge: UPLOAD_CORS.maxAgeSeconds,
    });
  }
}

/**
 * `<stack>-<hash>-sbom-<account>-<region>`: unique per stack, account and region (bucket names are global),
 * at most 63 characters (14 of the stack name, 6 of its hash, 12 of the account, 14 of the region).
 */
export function uploadBucketName(stackName: string): string {
  const stem = stackName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 14).replace(/-+$/, '') || 'stack';
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 6);
  return `${stem}-${hash}-sbom-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
}
