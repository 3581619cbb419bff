/**
 * The unit of work that a log line, a metric and a table write belong to: one invocation of a function
 * (its Lambda context), and within it one correlated piece of work (an API request, a stream record, a
 * queue message) with its correlation id.
 *
 * Kept in AsyncLocalStorage rather than on the Powertools logger's process-wide keys: the local stack
 * runs many invocations of many functions at once in one process, where process-wide keys would give
 * one invocation's lines another's id. (On AWS one execution environment runs one invocation at a time,
 * and both ways log the same.)
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';

/** The Lambda context as Powertools' logger names it in every line (its injectLambdaContext keys). */
export interface InvocationKeys {
  readonly function_name: string;
  readonly function_arn: string;
  readonly function_memory_size: number;
  readonly function_request_id: string;
  readonly cold_start: boolean;
}

/** A metric datum waiting for the end of its invocation. */
export interface MetricDatum {
  readonly name: string;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
}

interface Scope {
  readonly invocation?: InvocationKeys | undefined;
  /** The invocation's metrics, published when it ends (shared/observability/metrics.ts). */
  readonly metrics?: MetricDatum[] | undefined;
  readonly correlationId?: string | undefined;
  /** Whether table writes made now carry the correlation id (shared/observability/correlation.ts). */
  readonly stampWrites?: boolean | undefined;
  /** Who the writes made now are made for (an API request's caller): the audit trail's actor (write-stamps.ts). */
  readonly actor?: WriteActor | undefined;
}

/** The user and the name of the API key an API request came with, as its writes carry them. */
export interface WriteActor {
  readonly user: string;
  readonly key?: string | undefined;
  /**
   * The job the writes are part of (`sbom_import:<uuid>`): the audit trail records the job once, with
   * what it did, and not each object it writes (shared/services/audit.ts).
   */
  readonly via?: string | undefined;
}

const scopes = new AsyncLocalStorage<Scope>();

export function currentScope(): Scope | undefined {
  return scopes.getStore();
}

/** Runs `work` as one invocation of a function, whose Lambda context is `context` (none in some tests). */
export function runInvocation<T>(context: Context | undefined, coldStart: boolean, metrics: MetricDatum[], work: () => T): T {
  const invocation: InvocationKeys | undefined = context && {
    function_name: context.functionName,
    function_arn: context.invokedFunctionArn,
    function_memory_size: Number(context.memoryLimitInMB),
    function_request_id: context.awsRequestId,
    cold_start: coldStart,
  };
  return scopes.run({ invocation, metrics }, work);
}

/** Runs `work` as the correlated piece of work `correlationId`, within the current invocation. */
export function runCorrelated<T>(correlationId: string, stampWrites: boolean, work: () => T, actor?: WriteActor): T {
  return scopes.run({ ...scopes.getStore(), correlationId, stampWrites, actor }, work);
}

/** Runs `work` with its writes marked as part of the job `via` (see WriteActor.via); as it is when its writes name no actor. */
export function runAsPartOf<T>(via: string, work: () => T): T {
  const scope = scopes.getStore();
  if (!scope?.actor) return work();
  return scopes.run({ ...scope, actor: { ...scope.actor, via } }, work);
}
