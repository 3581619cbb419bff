/**
 * The evaluation queue → the evaluator: each product of the batch is evaluated once (its latest
 * request), and the messages of a product that failed are reported for retry (partial batch
 * failure); after the queue's maxReceiveCount they move to the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EvaluationRequestSchema } from '../shared/aws/evaluation-queue.ts';
import { getEvaluationService } from '../shared/runtime.ts';
import { logger } from '../shared/logger.ts';

const evaluation = getEvaluationService();

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  const byProduct = new Map<string, { requestedAt: string; messageIds: string[] }>();
  for (const record of event.Records) {
    const parsed = EvaluationRequestSchema.safeParse(safeJson(record.body));
    if (!parsed.success) {
      // A poison message: failing it sends it to the dead-letter queue after a few receives.
      logger.error('Malformed evaluation request', { messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    const entry = byProduct.get(parsed.data.product) ?? { requestedAt: parsed.data.requestedAt, messageIds: [] };
    if (parsed.data.requestedAt > entry.requestedAt) entry.requestedAt = parsed.data.requestedAt;
    entry.messageIds.push(record.messageId);
    byProduct.set(parsed.data.product, entry);
  }
  for (const [product, { requestedAt, messageIds }] of byProduct) {
    try {
      const outcome = await evaluation.evaluate(product, { requestedAt });
      logger.debug('Evaluated', { product, outcome: outcome.outcome });
    } catch (error) {
      logger.error('Evaluation failed', { product, error: error as Error });
      failures.push(...messageIds.map((itemIdentifier) => ({ itemIdentifier })));
    }
  }
  return { batchItemFailures: failures };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
