/**
 * The service's CloudWatch alarms, all made here: one naming scheme (`<prefix><kind>-<subject>`, so
 * `aws cloudwatch describe-alarms --alarm-name-prefix <prefix>` lists exactly them) and one set of actions
 * (the stack's own SNS topic when an alarm email is given, an operator's topic given by ARN, or none:
 * the alarms then still change state, in the console and describe-alarms, and notify no one).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { pascalCase } from '../names.ts';
import { METRICS_NAMESPACE } from '../../shared/observability/metrics.ts';
import { EVENT_SOURCE } from '../../shared/events/envelope.ts';

/**
 * The API's 5xx alarm: above 1% of the requests of 5 minutes, counted only when those 5 minutes had at
 * least 100 requests (one every 3 s). Below that, a single 5xx is already 1% and would page at night for
 * one failed request; a function that fails outright at a quiet hour still pages through its Errors
 * alarm, so the minimum hides a blip, not an outage.
 */
export const API_5XX_ALARM = { periodMinutes: 5, minRequests: 100, thresholdPercent: 1 } as const;

/**
 * The webhook delivery failure-rate alarm: more than 25% of the delivery attempts of 15 minutes failed,
 * counted when there were at least 20 attempts. A failed attempt is mostly the subscriber's endpoint
 * (down, slow, answering 5xx), which the retry schedule absorbs; a quarter of all attempts failing at
 * once is the sender's side (egress, DNS, a bad deploy) or many subscribers at once. Deliveries given up
 * for good land in the deliveries DLQ, whose own alarm pages at the first message.
 */
export const WEBHOOK_FAILURE_ALARM = { periodMinutes: 15, minAttempts: 20, thresholdPercent: 25 } as const;

export interface ServiceAlarmsProps {
  /** Starts every alarm name; the stack passes `<stack name>-`. */
  readonly namePrefix: string;
  /** Creates an SNS topic for the alarms with this address subscribed (AWS sends it a confirmation first). */
  readonly email?: string;
  /** An existing SNS topic the alarms notify (its subscriptions are its owner's). */
  readonly topicArn?: string;
}

export class ServiceAlarms extends Construct {
  readonly namePrefix: string;
  /** The stack's own topic: only when an alarm email is given. */
  readonly topic: sns.Topic | undefined;
  /** Every alarm made here, in the order made (the dashboard shows them). */
  readonly alarms: cloudwatch.Alarm[] = [];
  /** The dead-letter queues that have their alarm, by the subject in the alarm's name. */
  readonly deadLetterQueues = new Map<string, sqs.IQueue>();
  private readonly actions: cloudwatch.IAlarmAction[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix;
    if (props.email !== undefined) {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.email)) throw new Error(`alarmEmail is not an email address: ${JSON.stringify(props.email)}`);
      this.topic = new sns.Topic(this, 'Topic', { displayName: `${props.namePrefix}alarms`, enforceSSL: true });
      this.topic.addSubscription(new snsSubscriptions.EmailSubscription(props.email));
      Validations.of(this.topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'The topic carries only alarm state changes (names, thresholds, metric values), no data of the service; CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key would need its own key policy for CloudWatch.',
      });
      this.actions.push(new cwActions.SnsAction(this.topic));
    }
    if (props.topicArn !== undefined) this.actions.push(new cwActions.SnsAction(sns.Topic.fromTopicArn(this, 'OperatorTopic', props.topicArn)));
  }

  /**
   * The one dead-letter-queue alarm: a single message in it (ApproximateNumberOfMessagesVisible ≥ 1, the
   * maximum of a minute). A DLQ holds only what failed for good, so one message is worth a look.
   */
  deadLetterQueue(queue: sqs.IQueue, subject: string, description: string): cloudwatch.Alarm {
    if (this.deadLetterQueues.has(subject)) throw new Error(`Two dead-letter queues named ${subject}`);
    this.deadLetterQueues.set(subject, queue);
    return this.add(`DeadLetters${pascalCase(subject)}`, `dead-letters-${subject}`, {
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
      alarmDescription: `${description}: inspect and redrive them (README, "Operating").`,
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }

  /**
   * Errors and Throttles of one function: one or more in 5 minutes. An API function answers its own failures
   * (the error mapper turns them into 500s), so an Error is a crash, a timeout or an out-of-memory; a
   * batch consumer reports failed records as partial batch failures, so an Error is the whole invocation.
   */
  function(name: string, fn: lambda.IFunction): [errors: cloudwatch.Alarm, throttles: cloudwatch.Alarm] {
    const every5Minutes = { period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM };
    const atLeastOne = { threshold: 1, comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD };
    return [
      this.add(`Errors${pascalCase(name)}`, `errors-${name}`, {
        metric: fn.metricErrors(every5Minutes),
        alarmDescription: `The ${name} function failed (crash, timeout or out of memory): its log group has the error.`,
        ...atLeastOne,
      }),
      this.add(`Throttles${pascalCase(name)}`, `throttles-${name}`, {
        metric: fn.metricThrottles(every5Minutes),
        alarmDescription: `The ${name} function was throttled: the account's or its reserved concurrency ran out.`,
        ...atLeastOne,
      }),
    ];
  }

  /** The HTTP API's 5xx rate, in percent of its requests (API_5XX_ALARM). */
  apiServerErrors(api: apigw.IHttpApi): cloudwatch.Alarm {
    const { periodMinutes, minRequests, thresholdPercent } = API_5XX_ALARM;
    const period = Duration.minutes(periodMinutes);
    const rate = new cloudwatch.MathExpression({
      // FILL: a period with requests and no 5xx data point is 0%, not a missing point.
      expression: `IF(requests >= ${minRequests}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: {
        requests: api.metricCount({ statistic: cloudwatch.Stats.SUM }),
        errors: api.metricServerError({ statistic: cloudwatch.Stats.SUM }),
      },
      period,
      label: `5xx % of requests (when ≥ ${minRequests} in ${periodMinutes} min)`,
    });
    return this.add('Api5xxRate', 'api-5xx-rate', {
      metric: rate,
      alarmDescription: `More than ${thresholdPercent}% of the API's requests answered 5xx in ${periodMinutes} minutes (counted from ${minRequests} requests): the API functions' logs and Errors alarms say which.`,
      threshold: thresholdPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  /**
   * The webhook delivery failure rate (WEBHOOK_FAILURE_ALARM), from the deliveries queue rather than the
   * delivery function's own WebhookDeliveries metric (the dashboard graphs that): the queue counts every
   * attempt even when the function dies before it can publish its metrics. Each attempt is one receive of its message
   * (batch size 1), and only an attempt that finished (delivered, or nothing left to do) deletes it: a
   * failed one changes its visibility and stays. So failed = received − deleted.
   */
  webhookDeliveryFailures(deliveries: sqs.IQueue): cloudwatch.Alarm {
    const { periodMinutes, minAttempts, thresholdPercent } = WEBHOOK_FAILURE_ALARM;
    const rate = new cloudwatch.MathExpression({
      // A delete may fall in the period after its receive: MAX keeps that from making a negative rate.
      expression: `IF(attempts >= ${minAttempts}, MAX([0, 100 * (attempts - FILL(finished, 0)) / attempts]), 0)`,
      usingMetrics: {
        attempts: deliveries.metricNumberOfMessagesReceived({ statistic: cloudwatch.Stats.SUM }),
        finished: deliveries.metricNumberOfMessagesDeleted({ statistic: cloudwatch.Stats.SUM }),
      },
      period: Duration.minutes(periodMinutes),
      label: `Failed delivery attempts % (when ≥ ${minAttempts} in ${periodMinutes} min)`,
    });
    return this.add('WebhookDeliveryFailureRate', 'webhook-delivery-failure-rate', {
      metric: rate,
      alarmDescription: `More than ${thresholdPercent}% of webhook delivery attempts failed in ${periodMinutes} minutes (counted from ${minAttempts} attempts): GET /api/v2/webhooks/{uuid}/deliveries/ shows each attempt's response; the webhook-delivery logs show the sender's errors.`,
      threshold: thresholdPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  /** Audit records the stream router could not export to the audit bucket (its AuditExportFailures metric). */
  auditExportFailures(): cloudwatch.Alarm {
    return this.add('AuditExportFailures', 'audit-export-failures', {
      metric: new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'AuditExportFailures',
        dimensionsMap: { service: EVENT_SOURCE },
        statistic: cloudwatch.Stats.SUM,
        period: Duration.minutes(5),
      }),
      alarmDescription:
        'Audit records could not be exported to the audit bucket (the stream-router logs say why). They are still in the table, listed by GET /api/v2/audit_events/ for the retention period: README, Operating, says how to export them again.',
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  private add(
    id: string,
    name: string,
    props: Pick<cloudwatch.AlarmProps, 'metric' | 'alarmDescription' | 'threshold' | 'comparisonOperator'>,
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      ...props,
      alarmName: `${this.namePrefix}${name}`,
      evaluationPeriods: 1,
      // No data is no traffic (a DLQ or function nobody used): nothing to page for.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    for (const action of this.actions) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms.push(alarm);
    return alarm;
  }
}
