/**
 * X-Ray tracing on AWS (Powertools' Tracer): the SDK clients' calls become subsegments, and each
 * invocation and each correlated piece of work gets annotations (ColdStart, Service, correlation_id)
 * that the X-Ray console can search. The functions run with active tracing (lib/constructs/service-function.ts).
 * Elsewhere (the local stack, tests) there is no X-Ray daemon and no Lambda segment: the Tracer is not
 * even loaded, and every helper here does nothing.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { EVENT_SOURCE } from '../events/envelope.ts';

/**
 * The Tracer in a Lambda execution environment with active tracing (Lambda then names its X-Ray daemon
 * in AWS_XRAY_DAEMON_ADDRESS); none elsewhere. Loading the X-Ray SDK adds to a cold start (up to about
 * 70 ms in the recorded `npm run bench -- "cold start"`, within the run-to-run noise for most functions),
 * so a function without active tracing does not load it.
 */
const tracer: Tracer | undefined =
  process.env['AWS_LAMBDA_FUNCTION_NAME'] && process.env['AWS_XRAY_DAEMON_ADDRESS']
    ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: EVENT_SOURCE })
    : undefined;

const enabled = (): boolean => tracer?.isTracingEnabled() ?? false;

/** A client whose calls are traced (on Lambda), or the client itself. */
export function tracedClient<T>(client: T): T {
  return enabled() ? tracer!.captureAWSv3Client(client) : client;
}

/**
 * Runs `work` in a subsegment named `name` of the current segment, annotated with `annotations`; just
 * runs it when not tracing.
 */
export async function inSubsegment<T>(name: string, annotations: Readonly<Record<string, string | boolean>>, work: () => Promise<T>): Promise<T> {
  if (!enabled()) return work();
  const parent = tracer!.getSegment();
  if (!parent) return work();
  const subsegment = parent.addNewSubsegment(name);
  tracer!.setSegment(subsegment);
  for (const [key, value] of Object.entries(annotations)) tracer!.putAnnotation(key, value);
  try {
    return await work();
  } catch (error) {
    tracer!.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    subsegment.close();
    tracer!.setSegment(parent);
  }
}
