/**
 * The local stand-in for the upload bucket's event notification (S3 → SQS on AWS): the S3 API of the
 * SQS emulator (fauxqs) stores objects but sends no notifications, so this watches its uploads (its
 * message spy reports every object put) and sends, for each object created under the bucket's
 * notification prefix, the message S3 would send: an `ObjectCreated:Put` event record with the key
 * (URL-encoded), size and ETag. The queue's poller then delivers it to the import function as Lambda
 * delivers S3 → SQS messages.
 */
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** What the emulator's spy reports of an S3 upload (fauxqs's S3SpyEvent). */
interface S3SpyEvent {
  readonly service: 's3';
  readonly bucket: string;
  readonly key: string;
  readonly status: string;
  readonly timestamp: number;
}

interface SpyReader {
  waitForMessage(filter: (message: unknown) => boolean, status?: string, timeout?: number): Promise<unknown>;
  /** Empties the buffer and rejects the pending waits: how stop() ends the wait at once. */
  clear(): void;
}

export interface UploadNotifier {
  stop(): Promise<void>;
}

/** The key as S3 writes it in event records: URL-encoded, '/' kept, spaces as '+'. */
export function eventKey(key: string): string {
  return encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+');
}

export function startUploadNotifier(options: {
  spy: SpyReader;
  s3: S3Client;
  sqs: SQSClient;
  bucket: string;
  prefix: string;
  queueUrl: string;
  region: string;
  onError: (error: unknown) => void;
}): UploadNotifier {
  let running = true;
  const seen = new WeakSet<object>();
  const isUpload = (message: unknown): message is S3SpyEvent => {
    const event = message as Partial<S3SpyEvent>;
    return event.service === 's3' && event.status === 'uploaded' && event.bucket === options.bucket && String(event.key).startsWith(options.prefix) && !seen.has(message as object);
  };
  const notify = async (upload: S3SpyEvent) => {
    const head = await options.s3.send(new HeadObjectCommand({ Bucket: upload.bucket, Key: upload.key }));
    const record = {
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: options.region,
      eventTime: new Date(upload.timestamp).toISOString(),
      eventName: 'ObjectCreated:Put',
      userIdentity: { principalId: 'local' },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: {},
      s3: {
        s3SchemaVersion: '1.0',
        configurationId: 'sbom-uploads',
        bucket: { name: upload.bucket, ownerIdentity: { principalId: 'local' }, arn: `arn:aws:s3:::${upload.bucket}` },
        object: { key: eventKey(upload.key), size: head.ContentLength ?? 0, eTag: (head.ETag ?? '').replaceAll('"', ''), sequencer: upload.timestamp.toString(16).toUpperCase() },
      },
    };
    await options.sqs.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: JSON.stringify({ Records: [record] }) }));
  };
  const loop = (async () => {
    while (running) {
      let upload: S3SpyEvent;
      try {
        upload = (await options.spy.waitForMessage(isUpload)) as S3SpyEvent;
      } catch {
        continue;
      }
      seen.add(upload);
      await notify(upload).catch((error: unknown) => {
        if (running) options.onError(error);
      });
    }
  })();
  return {
    async stop() {
      running = false;
      options.spy.clear();
      await loop;
    },
  };
}
