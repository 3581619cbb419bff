/**
 * The audit trail: the table's stream → audit records (shared/domain/audit.ts), off the request path.
 * Each change of an audited item becomes one record naming who made it: the actor its new image carries
 * (every API write stamps it: shared/observability/write-stamps.ts), or for a delete the item's deletion
 * marker. The record's id is derived from the stream record, so a retried batch rewrites the same items.
 * Each batch's records are then exported, as one JSON-lines object, to the audit bucket (when set). The
 * first record that fails stops the batch (partial batch failure); Lambda retries from it.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { actorOf, auditRecordOf, type AuditRecord } from '../shared/domain/audit.ts';
import { stableUuid } from '../shared/domain/identifiers.ts';
import { dynamoClient, lambdaHandler, type Composition } from '../shared/runtime.ts';
import { s3Client } from '../shared/sbom-runtime.ts';
import { AuditStore } from '../shared/store/audit-store.ts';
import { itemOfImage, type StreamImage } from '../shared/store/dynamo.ts';
import type { Key } from '../shared/keys.ts';
import { processStreamBatch } from '../shared/aws/partial-batch.ts';
import { logger } from '../shared/observability/logger.ts';
import { instrumented, withCorrelation } from '../shared/observability/invocation.ts';
import { streamCorrelationId } from '../shared/observability/correlation.ts';

/** Where a batch's records go for long retention: a JSON-lines object under `key`. */
export interface AuditExport {
  put(key: string, body: string): Promise<void>;
}

export interface AuditWriterDependencies {
  readonly auditStore: AuditStore;
  readonly retentionDays: number;
  readonly auditExport?: AuditExport | undefined;
}

export function s3AuditExport(s3: S3Client, bucket: string): AuditExport {
  return {
    async put(key, body) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/x-ndjson' }));
    },
  };
}

export const makeHandler = (deps: { readonly auditWriter: AuditWriterDependencies }) =>
  instrumented((event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => write(deps.auditWriter, event, context));

export const handler = lambdaHandler((c) => makeHandler({ auditWriter: auditWriterDependencies(c) }));

/** The writer's parts from a composition (Lambda's, or the local stack's: bin/local/composition.ts). */
export function auditWriterDependencies(c: Composition): AuditWriterDependencies {
  return c.once(auditWriterDependencies, () => ({
    auditStore: new AuditStore(dynamoClient(c), c.config.TABLE_NAME),
    retentionDays: c.config.AUDIT_RETENTION_DAYS,
    ...(c.config.AUDIT_EXPORT_BUCKET ? { auditExport: s3AuditExport(s3Client(c), c.config.AUDIT_EXPORT_BUCKET) } : {}),
  }));
}

/** The audit record of a stream record, or undefined when it stands for none. */
export async function auditRecordOfStream(record: DynamoDBRecord, store: AuditStore): Promise<AuditRecord | undefined> {
  const before = record.dynamodb?.OldImage ? itemOfImage(record.dynamodb.OldImage as StreamImage) : undefined;
  const after = record.dynamodb?.NewImage ? itemOfImage(record.dynamodb.NewImage as StreamImage) : undefined;
  const current = after ?? before;
  if (!current) return undefined;
  const actor = after ? actorOf(after.actor) : await store.deletionActor({ PK: String(current.PK), SK: String(current.SK) } satisfies Key);
  const dataspace = current.dataspace === undefined && current.entity === 'RequestComment' ? await store.requestDataspace(String(current.requestUuid)) : undefined;
  const seconds = Number(record.dynamodb?.ApproximateCreationDateTime ?? 0);
  return auditRecordOf(
    { before, after },
    {
      // Derived from the stream record: the same record always makes the same audit record.
      uuid: stableUuid(`${record.eventSourceARN}|${record.eventID}`),
      date: new Date(seconds * 1000).toISOString(),
      actor,
      dataspace,
    },
  );
}

async function write(deps: AuditWriterDependencies, event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> {
  const written: AuditRecord[] = [];
  const response = await processStreamBatch(event, context, (record: DynamoDBRecord) =>
    withCorrelation(streamCorrelationId(record), async () => {
      try {
        const audit = await auditRecordOfStream(record, deps.auditStore);
        if (!audit) return;
        const order = String(record.dynamodb?.SequenceNumber ?? '').padStart(40, '0');
        await deps.auditStore.put([{ record: audit, order }], deps.retentionDays);
        written.push(audit);
      } catch (error) {
        logger.error('Could not write an audit record', { eventID: record.eventID, error: error as Error });
        throw error;
      }
    }),
  );
  if (deps.auditExport && written.length > 0) {
    // One object per batch, named by its first record: a retried batch that starts there overwrites it.
    const first = written[0]!;
    const key = `audit/${first.date.slice(0, 10)}/${first.date}-${first.uuid}.jsonl`;
    await deps.auditExport.put(key, written.map((record) => JSON.stringify(record)).join('\n') + '\n');
  }
  return response;
}
