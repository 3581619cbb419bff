/**
 * The service's own metrics, in CloudWatch's embedded metric format (Powertools' Metrics): JSON lines
 * on stdout that CloudWatch Logs turns into metrics of the ComplianceService namespace, with the
 * dimension `service` and, for some, one more. A function counts while it works; the counts of one
 * invocation are published when it ends (instrumented, in invocation.ts), all at once, so that two
 * invocations running together on the local stack never share a batch.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { EVENT_SOURCE } from '../events/envelope.ts';
import type { QueueName } from '../resources.ts';
import { currentScope, type MetricDatum } from './scope.ts';

export const METRICS_NAMESPACE = 'ComplianceService';

/** Every metric the service publishes, what it counts, and the dimension it has beside `service`. */
export const METRIC_CATALOG = {
  Evaluations: { counts: 'Products evaluated (an evaluation that found the product up to date or gone is not counted)' },
  ViolationsDetected: { counts: 'Violations a policy.violation_detected event reported (newly detected or re-activated)' },
  ViolationsResolved: { counts: 'Violations a policy.violation_resolved event reported' },
  EventsPublished: { counts: 'Events put on the event bus' },
  WebhookDeliveries: { counts: 'Webhook delivery attempts, by outcome', dimension: 'Outcome' },
  WebhookDeliveryRetries: { counts: 'Webhook delivery attempts after the first of their delivery' },
  AuditExportFailures: { counts: 'Audit records a stream batch could not export to the audit bucket (they stay in the table: README, Operating)' },
  DeadLettered: { counts: "Messages that failed their queue's last receive and move to its dead-letter queue", dimension: 'Queue' },
  AdvisoryLinksMade: { counts: 'Packages linked to a published advisory that affects them (shared/services/advisory-links.ts)' },
  PackagesReresolved: { counts: "Packages a license mapping resolved again (functions/license-reresolver.ts)" },
  AdvisoryLinksTakenBack: { counts: 'Links a published advisory made, taken back (withdrawn, changed, or the package moved)' },
} as const satisfies Record<string, { counts: string; dimension?: string }>;

export type MetricName = keyof typeof METRIC_CATALOG;

/** Outcomes of a webhook delivery attempt (the WebhookDeliveries dimension). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'disabled';

type DimensionOf<N extends MetricName> = (typeof METRIC_CATALOG)[N] extends { readonly dimension: infer D extends string } ? D : never;
type DimensionValue<N extends MetricName> = DimensionOf<N> extends 'Outcome' ? DeliveryOutcome : DimensionOf<N> extends 'Queue' ? QueueName : never;

/**
 * Counts `value` of metric `name` (with its dimension's value, when it has one) in the current
 * invocation; outside any invocation (a script, a test of a part) it is published at once.
 */
export function countMetric<N extends MetricName>(name: N, value: number, ...dimension: DimensionOf<N> extends never ? [] : [DimensionValue<N>]): void {
  if (value === 0) return;
  const dimensionName = (METRIC_CATALOG[name] as { dimension?: string }).dimension;
  const datum: MetricDatum = { name, value, dimensions: dimensionName && dimension[0] !== undefined ? { [dimensionName]: dimension[0] } : {} };
  const pending = currentScope()?.metrics;
  if (pending) pending.push(datum);
  else publishMetrics([datum]);
}

const emf = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: EVENT_SOURCE });

/**
 * Publishes data as EMF lines: one line per set of dimensions, each datum summed by name. Synchronous,
 * so nothing another invocation adds can slip into the lines between adding and publishing.
 */
export function publishMetrics(data: readonly MetricDatum[]): void {
  const groups = new Map<string, { dimensions: Readonly<Record<string, string>>; values: Map<string, number> }>();
  for (const datum of data) {
    const key = JSON.stringify(Object.entries(datum.dimensions).sort());
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { dimensions: datum.dimensions, values: new Map() }));
    group.values.set(datum.name, (group.values.get(datum.name) ?? 0) + datum.value);
  }
  for (const { dimensions, values } of groups.values()) {
    emf.addDimensions({ ...dimensions });
    for (const [name, value] of values) emf.addMetric(name, MetricUnit.Count, value);
    emf.publishStoredMetrics();
  }
}
