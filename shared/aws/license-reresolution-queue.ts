/**
 * The license re-resolution queue, spoken in domain words: "apply this license mapping to the packages
 * already in its dataspace". The stream router sends when a mapping is made or changed; the license
 * re-resolver consumes (functions/license-reresolver.ts). SQS on AWS and on the local stack.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { sendInBatches } from './send-batches.ts';

export const LicenseReresolutionMessageSchema = z.object({
  dataspace: z.string().min(1),
  /** The mapping made or changed; the re-resolver reads it again (it may have changed or gone since). */
  mapping: z.string().min(1),
  correlationId: z.string().optional(),
});
export type LicenseReresolutionMessage = z.infer<typeof LicenseReresolutionMessageSchema>;

export interface LicenseReresolutionQueue {
  /** Enqueues every message or throws, naming how many failed. */
  send(messages: readonly LicenseReresolutionMessage[]): Promise<void>;
}

export class SqsLicenseReresolutionQueue implements LicenseReresolutionQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly LicenseReresolutionMessage[]): Promise<void> {
    await sendInBatches(this.sqs, this.queueUrl, messages, 'license re-resolution messages');
  }
}
