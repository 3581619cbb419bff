/**
 * What every function does around each invocation and each piece of work in it, on Lambda and on the
 * local stack alike (both call the handler a module's makeHandler made): the invocation's Lambda
 * context in its log lines, its metrics published when it ends, a trace subsegment on AWS; and each
 * piece of work (an API request, a stream record, a message) run under its correlation id.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { publishMetrics } from './metrics.ts';
import { currentScope, runCorrelated, runInvocation, type MetricDatum, type WriteActor } from './scope.ts';
import { inSubsegment } from './tracer.ts';

/** A handler run as an instrumented invocation. The first invocation of the handler is its cold start. */
export function instrumented<E, R>(handle: (event: E, context?: Context) => Promise<R>): (event: E, context?: Context) => Promise<R> {
  let coldStart = true;
  return async (event, context) => {
    const metrics: MetricDatum[] = [];
    const first = coldStart;
    coldStart = false;
    try {
      return await runInvocation(context, first, metrics, () =>
        inSubsegment(`## ${context?.functionName ?? 'handler'}`, { ColdStart: first }, () => handle(event, context)),
      );
    } finally {
      if (metrics.length > 0) publishMetrics(metrics);
    }
  };
}

export interface CorrelationOptions {
  /**
   * Whether the table writes of the work carry its correlation id, so that the stream consumers after
   * them can carry it on (shared/observability/correlation.ts). The API's work does; the consumers
   * pass the id on explicitly, in their messages and events.
   */
  readonly stampWrites?: boolean;
}

/**
 * Runs `work` as one correlated piece of work: every log line in it carries `correlation_id` (a fresh
 * one when `correlationId` is undefined: work that arrives without one starts its own path).
 */
export function withCorrelation<T>(correlationId: string | undefined, work: (correlationId: string) => Promise<T>, options: CorrelationOptions = {}): Promise<T> {
  const id = correlationId ?? randomUUID();
  return runCorrelated(id, options.stampWrites ?? false, () => inSubsegment('## correlated', { correlation_id: id }, () => work(id)));
}

/**
 * Runs `work` within the current piece of work, with its table writes carrying its correlation id and,
 * when given, its actor (the audit trail's who: shared/observability/write-stamps.ts).
 */
export function withWriteStamps<T>(work: () => Promise<T>, actor?: WriteActor): Promise<T> {
  const id = currentScope()?.correlationId;
  return id === undefined ? work() : runCorrelated(id, true, work, actor);
}

/** The correlation id of the current piece of work, if any. */
export function currentCorrelationId(): string | undefined {
  return currentScope()?.correlationId;
}
