/**
 * Read and write units as DynamoDB reports them (ReturnConsumedCapacity; DynamoDB Local reports them
 * too), for figures that must not depend on the machine's speed.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoControlClient } from '../../shared/aws/clients.ts';
import { benchDocumentClient } from './seed.ts';

/**
 * A document client that asks every call for its consumed capacity (ReturnConsumedCapacity TOTAL)
 * and adds it up, so that work and its floor (or one list at two sizes) can be compared in units.
 */
export function capacityCountingClient(context: Parameters<typeof benchDocumentClient>[0], options: { patient?: boolean } = {}) {
  // patient: calls may take 30 s, not the handlers' 2.5 s (a large evaluation's pages, on a DynamoDB Local
  // busy with what the bench seeded); what is counted is the same.
  const doc = options.patient
    ? createDocumentClient(createDynamoControlClient({ region: context.region, endpoint: context.dynamodbEndpoint }))
    : benchDocumentClient(context);
  const counter = { units: 0, calls: 0 };
  doc.middlewareStack.add(
    (next) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) counter.units += entry.CapacityUnits ?? 0;
      counter.calls++;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return {
    doc,
    /** The read units and calls of `fn`, alone on this client. */
    async measure<T>(fn: () => Promise<T>): Promise<{ result: T; units: number; calls: number }> {
      counter.units = 0;
      counter.calls = 0;
      const result = await fn();
      return { result, units: counter.units, calls: counter.calls };
    },
  };
}
