/**
 * The service's one CloudWatch dashboard: the API (requests, 4xx, 5xx, p99 latency), every function
 * (errors, throttles, p99 duration), every queue (depth and age of the oldest message), the pipeline's own
 * metrics (evaluations, violations, events, deliveries by outcome, dead-lettered messages), and the state of
 * every alarm, so an operator paged by one alarm sees the rest of the service next to it.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, type DeliveryOutcome, type MetricName } from '../../shared/observability/metrics.ts';
import { QUEUES } from '../../shared/resources.ts';

export interface ServiceDashboardProps {
  readonly dashboardName: string;
  readonly api: apigw.IHttpApi;
  /** Each function under the catalog's name for it. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Each queue of the stack under a label: work queues, their DLQs, the stream failure queues. */
  readonly queues: ReadonlyMap<string, sqs.IQueue>;
  readonly alarms: readonly cloudwatch.IAlarm[];
  /** Alarms on a rate (a math expression) worth a graph with their threshold: the API 5xx rate, the webhook failure rate. */
  readonly rateAlarms?: readonly cloudwatch.IAlarm[];
  /** The `service` dimension of the functions' own metrics (POWERTOOLS_SERVICE_NAME). */
  readonly serviceName: string;
}

const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['delivered', 'failed', 'disabled'];

const PERIOD = Duration.minutes(5);
const P99 = cloudwatch.Stats.p(99);

export class ServiceDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(6),
    });
    const functions = Object.entries(props.functions);
    const queues = [...props.queues];
    const graph = (title: string, left: cloudwatch.IMetric[], width: number, extra: Partial<cloudwatch.GraphWidgetProps> = {}) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6, period: PERIOD, ...extra });

    // The API.
    this.dashboard.addWidgets(
      graph('API requests', [props.api.metricCount({ statistic: cloudwatch.Stats.SUM, label: 'Requests' })], 6),
      graph('API 4xx', [props.api.metricClientError({ label: '4xx' })], 6),
      graph('API 5xx', [props.api.metricServerError({ label: '5xx' })], 6),
      graph(
        'API latency p99 (ms)',
        [props.api.metricLatency({ statistic: P99, label: 'Latency p99' }), props.api.metricIntegrationLatency({ statistic: P99, label: 'Integration latency p99' })],
        6,
      ),
    );
    // The functions, one line each.
    this.dashboard.addWidgets(
      graph('Function errors', functions.map(([name, fn]) => fn.metricErrors({ statistic: cloudwatch.Stats.SUM, label: name })), 8),
      graph('Function throttles', functions.map(([name, fn]) => fn.metricThrottles({ statistic: cloudwatch.Stats.SUM, label: name })), 8),
      graph('Function duration p99 (ms)', functions.map(([name, fn]) => fn.metricDuration({ statistic: P99, label: name })), 8),
    );
    // The queues: depth and how long the oldest message has waited.
    this.dashboard.addWidgets(
      graph(
        'Queue depth (messages visible)',
        queues.map(([label, queue]) => queue.metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, label })),
        12,
      ),
      graph(
        'Age of oldest message (s)',
        queues.map(([label, queue]) => queue.metricApproximateAgeOfOldestMessage({ statistic: cloudwatch.Stats.MAXIMUM, label })),
        12,
      ),
    );
    // The functions' own metrics (EMF, shared/observability/metrics.ts): the work of the pipeline.
    const own = (name: MetricName, label: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: { service: props.serviceName, ...dimensions },
        statistic: cloudwatch.Stats.SUM,
        label,
      });
    this.dashboard.addWidgets(
      graph(
        'Evaluations and violations',
        [own('Evaluations', 'Products evaluated'), own('ViolationsDetected', 'Violations detected'), own('ViolationsResolved', 'Violations resolved')],
        6,
      ),
      graph('Events published, audit records not exported', [own('EventsPublished', 'Events'), own('AuditExportFailures', 'Audit records not exported')], 6),
      graph(
        'Webhook delivery attempts',
        [...DELIVERY_OUTCOMES.map((outcome) => own('WebhookDeliveries', outcome, { Outcome: outcome })), own('WebhookDeliveryRetries', 'retries')],
        6,
      ),
      graph('Advisory links', [own('AdvisoryLinksMade', 'Links made'), own('AdvisoryLinksTakenBack', 'Links taken back')], 6),
      graph('Packages resolved again by license mappings', [own('PackagesReresolved', 'Packages')], 6),
      graph(
        'Dead-lettered messages',
        Object.keys(QUEUES).map((queue) => own('DeadLettered', queue, { Queue: queue })),
        6,
      ),
    );
    const rateAlarms = props.rateAlarms ?? [];
    if (rateAlarms.length > 0) {
      this.dashboard.addWidgets(
        ...rateAlarms.map((alarm) => new cloudwatch.AlarmWidget({ alarm, title: alarm.alarmName, width: 24 / rateAlarms.length, height: 6 })),
      );
    }
    // Every alarm's state, firing ones first.
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: [...props.alarms],
        width: 24,
        height: Math.max(4, Math.ceil(props.alarms.length / 4) + 2),
        sortBy: cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP,
      }),
    );
  }
}
