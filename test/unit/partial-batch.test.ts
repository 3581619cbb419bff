/**
 * The partial batch responses of the queue and stream consumers (Powertools' BatchProcessor): a queue
 * batch reports exactly the messages that failed; a stream batch stops at the first failed record and
 * reports it and every record after it; a batch that fails whole is reported, never thrown.
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { processQueueBatch, processStreamBatch } from '../../shared/aws/partial-batch.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';

const context = lambdaContext('partial-batch-test', 30_000);

const aMessage = (messageId: string): SQSRecord => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body: '{}',
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test',
  awsRegion: 'us-east-1',
});
const aQueueBatch = (...ids: string[]): SQSEvent => ({ Records: ids.map(aMessage) });

const aStreamRecord = (sequenceNumber: string): DynamoDBRecord => ({
  eventID: `event-${sequenceNumber}`,
  eventName: 'INSERT',
  eventSource: 'aws:dynamodb',
  eventSourceARN: 'arn:aws:dynamodb:us-east-1:000000000000:table/test/stream/2026-01-01T00:00:00.000',
  dynamodb: { SequenceNumber: sequenceNumber, Keys: { PK: { S: sequenceNumber } } },
});
const aStreamBatch = (...sequenceNumbers: string[]): DynamoDBStreamEvent => ({ Records: sequenceNumbers.map(aStreamRecord) });

const ids = (...identifiers: string[]) => ({ batchItemFailures: identifiers.map((itemIdentifier) => ({ itemIdentifier })) });

describe('a queue batch', () => {
  it('reports exactly the messages whose handler threw, after handling every message in order', async () => {
    const handled: string[] = [];
    const reply = await processQueueBatch('evaluation', aQueueBatch('a', 'b', 'c', 'd'), context, async (record) => {
      handled.push(record.messageId);
      if (record.messageId === 'b' || record.messageId === 'd') throw new Error(`${record.messageId} failed`);
    });
    expect(reply).toEqual(ids('b', 'd'));
    expect(handled).toEqual(['a', 'b', 'c', 'd']);
  });

  it('handles one message at a time', async () => {
    let running = 0;
    let most = 0;
    await processQueueBatch('evaluation', aQueueBatch('a', 'b', 'c'), context, async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    });
    expect(most).toBe(1);
  });

  it('reports every message when every one fails, instead of throwing', async () => {
    const reply = await processQueueBatch('evaluation', aQueueBatch('a', 'b'), context, async () => {
      throw new Error('down');
    });
    expect(reply).toEqual(ids('a', 'b'));
  });

  it('answers an empty list for a batch that succeeds, and for an empty batch', async () => {
    expect(await processQueueBatch('evaluation', aQueueBatch('a', 'b'), context, async () => {})).toEqual(ids());
    expect(await processQueueBatch('evaluation', aQueueBatch(), context, async () => {})).toEqual(ids());
    expect(await processQueueBatch('evaluation', aQueueBatch(), undefined, async () => {})).toEqual(ids());
  });

  it('keeps two invocations running at the same time apart', async () => {
    const slow = processQueueBatch('evaluation', aQueueBatch('a', 'b'), context, async (record) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (record.messageId === 'a') throw new Error('a failed');
    });
    const fast = processQueueBatch('evaluation', aQueueBatch('x', 'y'), context, async (record) => {
      if (record.messageId === 'y') throw new Error('y failed');
    });
    expect(await Promise.all([slow, fast])).toEqual([ids('a'), ids('y')]);
  });
});

describe('a stream batch', () => {
  it('stops at the first failed record and reports it and every later record', async () => {
    const handled: string[] = [];
    const reply = await processStreamBatch(aStreamBatch('100', '200', '300', '400', '500'), context, async (record) => {
      handled.push(record.dynamodb!.SequenceNumber!);
      if (record.dynamodb?.SequenceNumber === '300') throw new Error('300 failed');
    });
    expect(reply).toEqual(ids('300', '400', '500'));
    // The records after the failure were not handled: nothing overtakes the failed record.
    expect(handled).toEqual(['100', '200', '300']);
  });

  it('reports a failure of the last record alone', async () => {
    const reply = await processStreamBatch(aStreamBatch('100', '200', '300'), context, async (record) => {
      if (record.dynamodb?.SequenceNumber === '300') throw new Error('300 failed');
    });
    expect(reply).toEqual(ids('300'));
  });

  it('reports the whole batch when its first record fails, instead of throwing', async () => {
    const handled: string[] = [];
    const reply = await processStreamBatch(aStreamBatch('100', '200'), context, async (record) => {
      handled.push(record.dynamodb!.SequenceNumber!);
      throw new Error('down');
    });
    expect(reply).toEqual(ids('100', '200'));
    expect(handled).toEqual(['100']);
  });

  it('starts every invocation afresh after a failed one', async () => {
    const failing = async (record: DynamoDBRecord) => {
      if (record.dynamodb?.SequenceNumber === '100') throw new Error('100 failed');
    };
    expect(await processStreamBatch(aStreamBatch('100', '200'), context, failing)).toEqual(ids('100', '200'));
    expect(await processStreamBatch(aStreamBatch('200', '300'), context, failing)).toEqual(ids());
  });

  it('answers an empty list for a batch that succeeds, and for an empty batch', async () => {
    expect(await processStreamBatch(aStreamBatch('100', '200'), context, async () => {})).toEqual(ids());
    expect(await processStreamBatch(aStreamBatch(), context, async () => {})).toEqual(ids());
  });

  it('fails the invocation on a record without a sequence number, which it could not report', async () => {
    const event = aStreamBatch('100');
    delete event.Records[0]!.dynamodb!.SequenceNumber;
    await expect(processStreamBatch(event, context, async () => {})).rejects.toThrow(/sequence number/);
  });
});
