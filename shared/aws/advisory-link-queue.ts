/**
 * The advisory link queue, spoken in domain words: "relink these packages" (written, or their purl
 * changed) and "relink every package of this key" (an advisory naming it changed). The stream router
 * sends, the advisory linker consumes (functions/advisory-linker.ts). SQS on AWS and on the local stack.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { sendInBatches } from './send-batches.ts';
import * as z from 'zod';

/** Packages one message names at most (a stream batch holds 100 records). */
export const PACKAGES_PER_MESSAGE = 100;

export const AdvisoryLinkMessageSchema = z.union([
  z.object({
    kind: z.literal('packages'),
    packages: z.array(z.object({ dataspace: z.string().min(1), uuid: z.string().min(1) })).min(1).max(PACKAGES_PER_MESSAGE),
  }),
  z.object({
    kind: z.literal('advisoryKey'),
    packageKey: z.string().min(1),
    /** The advisories whose records changed (their vulnerabilities take their new summary and score). */
    changed: z.array(z.string()).max(PACKAGES_PER_MESSAGE).default([]),
  }),
]);
export type AdvisoryLinkMessage = z.input<typeof AdvisoryLinkMessageSchema>;

export interface AdvisoryLinkQueue {
  /** Enqueues every message or throws, naming how many failed. */
  send(messages: readonly AdvisoryLinkMessage[]): Promise<void>;
}

export class SqsAdvisoryLinkQueue implements AdvisoryLinkQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly AdvisoryLinkMessage[]): Promise<void> {
    await sendInBatches(this.sqs, this.queueUrl, messages, 'advisory link messages');
  }

}

/** The messages for a batch's link targets: packages in messages of PACKAGES_PER_MESSAGE, one message a key. */
export function linkMessages(targets: readonly ({ kind: 'package'; dataspace: string; uuid: string } | { kind: 'advisoryKey'; packageKey: string; advisoryId?: string })[]): AdvisoryLinkMessage[] {
  const packages = new Map<string, { dataspace: string; uuid: string }>();
  const keysChanged = new Map<string, Set<string>>();
  for (const target of targets) {
    if (target.kind === 'package') packages.set(target.uuid, { dataspace: target.dataspace, uuid: target.uuid });
    else {
      const changed = keysChanged.get(target.packageKey) ?? new Set<string>();
      if (target.advisoryId) changed.add(target.advisoryId);
      keysChanged.set(target.packageKey, changed);
    }
  }
  const messages: AdvisoryLinkMessage[] = [];
  const refs = [...packages.values()];
  for (let i = 0; i < refs.length; i += PACKAGES_PER_MESSAGE) messages.push({ kind: 'packages', packages: refs.slice(i, i + PACKAGES_PER_MESSAGE) });
  for (const [packageKey, changed] of keysChanged) messages.push({ kind: 'advisoryKey', packageKey, changed: [...changed].slice(0, PACKAGES_PER_MESSAGE) });
  return messages;
}
