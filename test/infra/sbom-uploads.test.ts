/**
 * The SBOM upload path on AWS: a private, encrypted, TLS-only bucket whose uploads expire; its
 * object-created events on a queue with a dead-letter queue; the import function consuming the queue,
 * able to read and delete uploads and write the table; the API function able to presign PUTs there
 * and nothing more of the bucket; no other function touching it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { QUEUES, UPLOAD_BUCKET } from '../../shared/resources.ts';
import { actionsOf, logicalId, roleStatements, synthesize, type Synthesized } from './helpers.ts';

let synth: Synthesized;
let bucketId: string;

beforeAll(() => {
  synth = synthesize();
  bucketId = logicalId(synth.stack, synth.stack.uploads.bucket);
});

const bucket = () => synth.template.toJSON().Resources[bucketId];

describe('the upload bucket', () => {
  it('is encrypted, blocks every public access, and owns its objects', () => {
    expect(bucket().Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
    expect(bucket().Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket().Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
  });

  it('refuses every request without TLS', () => {
    synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it(`expires uploads after ${UPLOAD_BUCKET.expireAfterDays} day, and incomplete multipart uploads too`, () => {
    expect(bucket().Properties.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'expire-uploads', Prefix: 'uploads/', ExpirationInDays: UPLOAD_BUCKET.expireAfterDays, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }],
    });
  });

  it('sends the events of objects created under uploads/ to the upload queue, which S3 may send to', () => {
    const queueId = logicalId(synth.stack, synth.stack.queues.sbomUploads.queue);
    synth.template.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: bucketId },
      NotificationConfiguration: {
        QueueConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'uploads/' }] } },
            QueueArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
          },
        ],
      },
    });
    synth.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 's3.amazonaws.com' },
            Action: Match.arrayWith(['sqs:SendMessage']),
            Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
          }),
        ]),
      },
    });
  });

  it('ends failed imports in a dead-letter queue with an alarm', () => {
    const { queue, deadLetterQueue } = synth.stack.queues.sbomUploads;
    const dlqId = logicalId(synth.stack, deadLetterQueue);
    expect(synth.template.toJSON().Resources[logicalId(synth.stack, queue)].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: QUEUES.sbomUploads.maxReceiveCount,
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
    });
  });
});

describe('the import function', () => {
  it('consumes the upload queue one message at a time, reporting failures one by one', () => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(synth.stack, synth.stack.functions['sbom-import'].function) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.queues.sbomUploads.queue), 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('is sized for 10,000 components and the queue hides a message six times its timeout', () => {
    const definition = FUNCTIONS['sbom-import'];
    synth.template.hasResourceProperties('AWS::Lambda::Function', { Description: definition.description, MemorySize: 2048, Timeout: 300 });
    expect(QUEUES.sbomUploads.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * definition.timeoutSeconds);
  });

  it('may read and delete uploads, and write the table', () => {
    const statements = roleStatements(synth, synth.stack.functions['sbom-import']);
    const s3 = statements.filter((s) => actionsOf([s]).has('s3:GetObject'));
    expect(s3).toHaveLength(1);
    expect(actionsOf(s3)).toEqual(new Set(['s3:GetObject', 's3:DeleteObject']));
    expect(s3[0]!.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/uploads/*']] });
    const actions = actionsOf(statements);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:Query']) expect(actions).toContain(action);
  });
});

describe('access to the upload bucket', () => {
  const s3Actions = (name: FunctionName) => [...actionsOf(roleStatements(synth, synth.stack.functions[name]))].filter((action) => action.startsWith('s3:')).sort();

  it('lets the API function only put uploads (the presigned URLs act with its role)', () => {
    expect(s3Actions('sbom-imports')).toEqual(['s3:PutObject']);
    const statement = roleStatements(synth, synth.stack.functions['sbom-imports']).find((s) => actionsOf([s]).has('s3:PutObject'))!;
    expect(statement.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/uploads/*']] });
  });

  it('is given to no other function', () => {
    for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
      if (name === 'sbom-import' || name === 'sbom-imports') continue;
      // The stream router's only S3 grant is the audit bucket's (test/infra/audit.test.ts).
      if (name !== 'stream-router') expect(s3Actions(name), name).toEqual([]);
      const uploads = roleStatements(synth, synth.stack.functions[name]).filter((s) => JSON.stringify(s.Resource ?? '').includes(bucketId));
      expect(uploads, name).toEqual([]);
      const id = logicalId(synth.stack, synth.stack.functions[name].function);
      expect('SBOM_UPLOADS_BUCKET' in synth.template.toJSON().Resources[id].Properties.Environment.Variables, name).toBe(false);
    }
  });
});
