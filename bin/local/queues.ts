/**
 * Creates the service's queues on the SQS emulator from shared/resources.ts, each with its dead-letter
 * queue and the same visibility timeout, retention and redrive policy the CDK stack gives it on AWS.
 * Safe to run against queues that already exist: their attributes are set again.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { QUEUES, deadLetterQueueName, type QueueDefinition, type QueueName } from '../../shared/resources.ts';

export interface QueueEndpoints {
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

const SECONDS_PER_DAY = 86_400;

/** The service's queues (QUEUES), or, for tests, any other set of definitions. */
export async function ensureQueues(sqs: SQSClient): Promise<Record<QueueName, QueueEndpoints>>;
export async function ensureQueues<N extends string>(
  sqs: SQSClient,
  definitions: Readonly<Record<N, QueueDefinition>>,
): Promise<Record<N, QueueEndpoints>>;
export async function ensureQueues(
  sqs: SQSClient,
  definitions: Readonly<Record<string, QueueDefinition>> = QUEUES,
): Promise<Record<string, QueueEndpoints>> {
  const result: Record<string, QueueEndpoints> = {};
  for (const [name, definition] of Object.entries(definitions)) {
    const dlqUrl = await ensureQueue(sqs, deadLetterQueueName(definition), {
      MessageRetentionPeriod: String(definition.deadLetterRetentionDays * SECONDS_PER_DAY),
    });
    const dlqArn = await queueArn(sqs, dlqUrl);
    const url = await ensureQueue(sqs, definition.localName, {
      VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(definition.retentionDays * SECONDS_PER_DAY),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: definition.maxReceiveCount }),
    });
    result[name] = { url, arn: await queueArn(sqs, url), dlqUrl, dlqArn };
  }
  return result;
}

async function ensureQueue(sqs: SQSClient, queueName: string, attributes: Record<string, string>): Promise<string> {
  let url: string | undefined;
  try {
    url = (await sqs.send(new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }))).QueueUrl;
  } catch (error) {
    // An existing queue whose attributes differ: take it as it is and set them below. (fauxqs names
    // the error AWS.SimpleQueueService.QueueNameExists, which the SDK does not map to its class.)
    if (!(error instanceof Error && /(^|\.)QueueNameExists$/.test(error.name))) throw error;
    url = (await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }))).QueueUrl;
  }
  if (!url) throw new Error(`The SQS emulator returned no URL for queue ${queueName}`);
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  return url;
}

async function queueArn(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  const arn = Attributes?.['QueueArn'];
  if (!arn) throw new Error(`The SQS emulator returned no ARN for ${queueUrl}`);
  return arn;
}
