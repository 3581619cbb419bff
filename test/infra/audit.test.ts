/**
 * The audit trail on AWS: the stream router writes it and exports it to the audit bucket (PutObject under
 * audit/ only), the bucket keeps exports for years (archived, versioned, retained with the stack gone),
 * the table keeps records auditRetentionDays (context), and the list route is served by its function.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { AUDIT_BUCKET } from '../../shared/resources.ts';
import { actionsOf, logicalId, roleStatements, synthesize, type Synthesized } from './helpers.ts';

let synth: Synthesized;
let bucketId: string;

beforeAll(() => {
  synth = synthesize();
  bucketId = logicalId(synth.stack, synth.stack.audit.bucket);
});

const resource = (id: string) => synth.template.toJSON().Resources[id];
const environmentOf = (s: Synthesized, name: FunctionName) => s.template.toJSON().Resources[logicalId(s.stack, s.stack.functions[name].function)].Properties.Environment.Variables;

describe('the audit bucket', () => {
  it('is private, encrypted, versioned, kept when the stack is deleted, archived then expired', () => {
    const bucket = resource(bucketId);
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({
        Prefix: AUDIT_BUCKET.prefix,
        Status: 'Enabled',
        ExpirationInDays: AUDIT_BUCKET.expireAfterDays,
        Transitions: [{ StorageClass: 'DEEP_ARCHIVE', TransitionInDays: AUDIT_BUCKET.archiveAfterDays }],
      }),
    ]);
  });

  it('is written by the stream router alone, PutObject under audit/ only', () => {
    for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
      const statements = roleStatements(synth, synth.stack.functions[name]).filter((s) => JSON.stringify(s.Resource ?? '').includes(bucketId));
      if (name !== 'stream-router') {
        expect(statements, name).toEqual([]);
        expect('AUDIT_EXPORT_BUCKET' in environmentOf(synth, name), name).toBe(false);
        continue;
      }
      expect(statements).toHaveLength(1);
      expect(actionsOf(statements)).toEqual(new Set(['s3:PutObject']));
      expect(statements[0]!.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, `/${AUDIT_BUCKET.prefix}*`]] });
      expect(environmentOf(synth, name).AUDIT_EXPORT_BUCKET).toEqual({ Ref: bucketId });
    }
  });
});

describe('the audit records in the table', () => {
  it('are written by the stream router, kept 400 days by default', () => {
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['stream-router']));
    for (const action of ['dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem']) expect(actions).toContain(action);
    expect(environmentOf(synth, 'stream-router').AUDIT_RETENTION_DAYS).toBe('400');
  });

  it('are kept auditRetentionDays (context) when given; anything but 1 to 3,650 whole days is refused at synth', () => {
    expect(environmentOf(synthesize({}, { context: { auditRetentionDays: '2555' } }), 'stream-router').AUDIT_RETENTION_DAYS).toBe('2555');
    for (const wrong of ['0', '3651', '30.5', 'forever']) expect(() => synthesize({}, { context: { auditRetentionDays: wrong } }), wrong).toThrow(/auditRetentionDays/);
  });

  it('are listed by the audit-events function, which may only read the table (and update its throttling items)', () => {
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['audit-events']));
    expect(actions).toContain('dynamodb:Query');
    expect([...actions].filter((action) => /^dynamodb:(PutItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/.test(action))).toEqual([]);
  });
});
