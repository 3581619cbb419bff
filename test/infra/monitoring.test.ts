/**
 * Alarms, the dashboard and their outputs: every dead-letter queue (found in the template by what points
 * at it: a redrive policy, a stream mapping's on-failure destination, a rule target's dead-letter config)
 * has its depth alarm, every function of the catalog its Errors and Throttles alarms, the API its 5xx-rate
 * alarm, webhook deliveries their failure-rate alarm; one dashboard shows them; actions go to the topics given.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { API_5XX_ALARM, WEBHOOK_FAILURE_ALARM } from '../../lib/constructs/service-alarms.ts';
import { webhookDestinations } from '../../lib/webhook-destinations.ts';
import { FUNCTIONS, type FunctionName } from '../../shared/functions.ts';
import { EVENT_SOURCES, QUEUES } from '../../shared/resources.ts';
import { logicalId, nagFindings, synthesize, type Synthesized } from './helpers.ts';
import { METRICS_NAMESPACE, METRIC_CATALOG } from '../../shared/observability/metrics.ts';
import { EVENT_SOURCE } from '../../shared/events/envelope.ts';

type Resource = { Type: string; Properties: Record<string, any> };
const functionNames = Object.keys(FUNCTIONS) as FunctionName[];
const tableStreamSources = EVENT_SOURCES.filter((source) => source.kind === 'table-stream');
const OPERATOR_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:operators';
const DESTINATIONS = webhookDestinations([
  { name: 'security-team', endpoint: 'https://hooks.example.com/compliance', events: ['policy.violation_detected'], secretName: 'compliance/security-team' },
]);

const resourcesOf = (synth: Synthesized, type: string) =>
  Object.entries(synth.template.findResources(type)) as [string, Resource][];
const alarmsOf = (synth: Synthesized): (Record<string, any> & { id: string })[] =>
  resourcesOf(synth, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => ({ ...alarm.Properties, id }));
const getAttId = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
  return getAtt?.[0];
};

/** The queues the template sends failures to: redrive targets, stream on-failure destinations, rule DLQs. */
function deadLetterQueueIds(synth: Synthesized): Set<string> {
  const ids = new Set<string>();
  for (const [, queue] of resourcesOf(synth, 'AWS::SQS::Queue')) {
    const target = getAttId(queue.Properties.RedrivePolicy?.deadLetterTargetArn);
    if (target) ids.add(target);
  }
  for (const [, mapping] of resourcesOf(synth, 'AWS::Lambda::EventSourceMapping')) {
    const target = getAttId(mapping.Properties.DestinationConfig?.OnFailure?.Destination);
    if (target) ids.add(target);
  }
  for (const [, rule] of resourcesOf(synth, 'AWS::Events::Rule')) {
    for (const target of (rule.Properties.Targets ?? []) as { DeadLetterConfig?: { Arn: unknown } }[]) {
      const id = getAttId(target.DeadLetterConfig?.Arn);
      if (id) ids.add(id);
    }
  }
  return ids;
}

let synth: Synthesized;
/** With an alarm email from the CDK context, an operator topic and a static webhook destination. */
let paging: Synthesized;

beforeAll(() => {
  synth = synthesize();
  paging = synthesize({ alarmTopicArn: OPERATOR_TOPIC, webhookDestinations: DESTINATIONS }, { context: { alarmEmail: 'oncall@example.com' } });
});

describe('dead-letter queue alarms', () => {
  it.each([
    ['the default stack', () => synth, 0],
    ['a stack with a webhook destination', () => paging, DESTINATIONS.length],
  ] as const)('in %s, every DLQ has exactly one depth alarm (≥ 1 message), and no other queue has one', (_, of, destinations) => {
    const stack = of();
    const dlqs = deadLetterQueueIds(stack);
    // One per queue of shared/resources.ts, per table-stream mapping, per static webhook destination.
    expect(dlqs.size).toBe(Object.keys(QUEUES).length + tableStreamSources.length + destinations);
    const depthAlarms = alarmsOf(stack).filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(depthAlarms.map((alarm) => getAttId(alarm.Dimensions[0].Value)).sort()).toEqual([...dlqs].sort());
    for (const alarm of depthAlarms) {
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [expect.any(String), 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 60,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
        AlarmName: expect.stringMatching(/^ComplianceTest-dead-letters-/),
      });
    }
  });

  it("covers the DLQ of each queue of shared/resources.ts", () => {
    const alarmed = [...synth.stack.alarms.deadLetterQueues.values()];
    for (const name of Object.keys(QUEUES) as (keyof typeof QUEUES)[]) expect(alarmed, name).toContain(synth.stack.queues[name].deadLetterQueue);
  });
});

describe('function alarms', () => {
  it.each(functionNames)('%s has an Errors and a Throttles alarm (≥ 1 in 5 minutes)', (name) => {
    const fnId = logicalId(synth.stack, synth.stack.functions[name].function);
    for (const metric of ['Errors', 'Throttles']) {
      const alarms = alarmsOf(synth).filter(
        (alarm) => alarm.Namespace === 'AWS/Lambda' && alarm.MetricName === metric && JSON.stringify(alarm.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: fnId } }]),
      );
      expect(alarms, `${name} ${metric}`).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        Statistic: 'Sum',
        Period: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
        AlarmName: `ComplianceTest-${metric.toLowerCase()}-${name}`,
      });
    }
  });

  it('are on exactly the functions of the catalog, two each', () => {
    const lambdaAlarms = alarmsOf(synth).filter((alarm) => alarm.Namespace === 'AWS/Lambda');
    expect(lambdaAlarms).toHaveLength(2 * functionNames.length);
  });
});

describe('the API 5xx-rate alarm', () => {
  it('divides 5xx by Count over 5 minutes, from a minimum count, and goes off above 1%', () => {
    const apiId = logicalId(synth.stack, synth.stack.httpApi.api);
    const [alarm, ...others] = alarmsOf(synth).filter((a) => a.AlarmName === 'ComplianceTest-api-5xx-rate');
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: API_5XX_ALARM.thresholdPercent, EvaluationPeriods: 1 });
    const metrics = alarm!.Metrics as Record<string, any>[];
    const expression = metrics.find((m) => m.Expression);
    expect(expression).toMatchObject({ Expression: 'IF(requests >= 100, 100 * FILL(errors, 0) / requests, 0)', ReturnData: true });
    const stat = (id: string) => metrics.find((m) => m.Id === id)?.MetricStat;
    for (const [id, metricName] of [['requests', 'Count'], ['errors', '5xx']] as const) {
      expect(stat(id), id).toEqual({
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: [{ Name: 'ApiId', Value: { Ref: apiId } }] },
        Period: 300,
        Stat: 'Sum',
      });
    }
    expect(API_5XX_ALARM).toEqual({ periodMinutes: 5, minRequests: 100, thresholdPercent: 1 });
  });
});

describe('the webhook delivery failure-rate alarm', () => {
  it('counts failed attempts as receives minus deletes of the deliveries queue, over 15 minutes', () => {
    const queueId = logicalId(synth.stack, synth.stack.queues.webhookDeliveries.queue);
    const [alarm, ...others] = alarmsOf(synth).filter((a) => a.AlarmName === 'ComplianceTest-webhook-delivery-failure-rate');
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({ ComparisonOperator: 'GreaterThanThreshold', Threshold: WEBHOOK_FAILURE_ALARM.thresholdPercent });
    const metrics = alarm!.Metrics as Record<string, any>[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('IF(attempts >= 20, MAX([0, 100 * (attempts - FILL(finished, 0)) / attempts]), 0)');
    for (const [id, metricName] of [['attempts', 'NumberOfMessagesReceived'], ['finished', 'NumberOfMessagesDeleted']] as const) {
      expect(metrics.find((m) => m.Id === id)?.MetricStat, id).toEqual({
        Metric: { Namespace: 'AWS/SQS', MetricName: metricName, Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }] },
        Period: 900,
        Stat: 'Sum',
      });
    }
  });
});

describe('the dashboard', () => {
  type Widget = { type: string; properties: { title: string; metrics?: unknown[][]; alarms?: string[]; annotations?: { alarms: string[] } } };
  /** The dashboard's name and widgets, with each CloudFormation reference in the body written as Ref:<id> or GetAtt:<id>.<attribute>. */
  const dashboardOf = (of: Synthesized) => {
    const dashboards = resourcesOf(of, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const properties = dashboards[0]![1].Properties;
    const parts = properties.DashboardBody['Fn::Join'][1] as (string | { Ref?: string; 'Fn::GetAtt'?: [string, string] })[];
    const text = parts
      .map((part) => (typeof part === 'string' ? part : part.Ref !== undefined ? `Ref:${part.Ref}` : `GetAtt:${part['Fn::GetAtt']!.join('.')}`))
      .join('');
    return { name: properties.DashboardName as string, widgets: (JSON.parse(text) as { widgets: Widget[] }).widgets };
  };
  /** The [namespace, metric name, dimension value] of each metric line of the widget titled `title`. */
  const linesOf = (widgets: Widget[], title: string) => {
    const widget = widgets.find((w) => w.properties.title === title);
    expect(widget, title).toBeDefined();
    return (widget!.properties.metrics ?? []).map((line) => ({ namespace: line[0], name: line[1], dimension: line[3], stat: (line.at(-1) as { stat?: string }).stat }));
  };

  it('is one, named after the stack', () => {
    expect(dashboardOf(synth).name).toBe('ComplianceTest-operations');
  });

  it('graphs the API: requests, 4xx, 5xx and p99 latency', () => {
    const { widgets } = dashboardOf(synth);
    const api = `Ref:${logicalId(synth.stack, synth.stack.httpApi.api)}`;
    const expected: [string, string, string][] = [['API requests', 'Count', 'Sum'], ['API 4xx', '4xx', 'Sum'], ['API 5xx', '5xx', 'Sum'], ['API latency p99 (ms)', 'Latency', 'p99']];
    for (const [title, name, stat] of expected) {
      expect(linesOf(widgets, title), title).toContainEqual({ namespace: 'AWS/ApiGateway', name, dimension: api, stat });
    }
  });

  it.each([
    ['Function errors', 'Errors', 'Sum'],
    ['Function throttles', 'Throttles', 'Sum'],
    ['Function duration p99 (ms)', 'Duration', 'p99'],
  ])('graphs %s: one line for every function of the catalog', (title, name, stat) => {
    const lines = linesOf(dashboardOf(synth).widgets, title);
    const functionIds = functionNames.map((fn) => `Ref:${logicalId(synth.stack, synth.stack.functions[fn].function)}`);
    expect(lines.map((line) => line.dimension).sort()).toEqual(functionIds.sort());
    for (const line of lines) expect(line).toMatchObject({ namespace: 'AWS/Lambda', name, stat });
  });

  it.each([
    ['Queue depth (messages visible)', 'ApproximateNumberOfMessagesVisible'],
    ['Age of oldest message (s)', 'ApproximateAgeOfOldestMessage'],
  ])('graphs %s of every queue of the stack, DLQs included', (title, name) => {
    const lines = linesOf(dashboardOf(paging).widgets, title);
    const queueIds = resourcesOf(paging, 'AWS::SQS::Queue').map(([id]) => `GetAtt:${id}.QueueName`);
    expect(queueIds.length).toBeGreaterThan(deadLetterQueueIds(paging).size);
    expect(lines.map((line) => line.dimension).sort()).toEqual(queueIds.sort());
    for (const line of lines) expect(line).toMatchObject({ namespace: 'AWS/SQS', name });
  });

  it("graphs every metric the functions publish, in their namespace and with the service name they publish under", () => {
    const { widgets } = dashboardOf(synth);
    const own = widgets.flatMap((widget) => widget.properties.metrics ?? []).filter((line) => line[0] === METRICS_NAMESPACE);
    expect(new Set(own.map((line) => line[1]))).toEqual(new Set(Object.keys(METRIC_CATALOG)));
    /** A line's dimensions: the name-value pairs between its metric name and its options. */
    const dimensions = (line: unknown[]) => {
      const pairs = line.slice(2, -1) as string[];
      return Object.fromEntries(pairs.flatMap((value, i) => (i % 2 === 0 ? [[value, pairs[i + 1]]] : [])));
    };
    for (const line of own) expect(dimensions(line).service).toBe(EVENT_SOURCE);
    // The functions publish under POWERTOOLS_SERVICE_NAME's value: the same name.
    for (const [id, fn] of resourcesOf(synth, 'AWS::Lambda::Function')) {
      const variables = fn.Properties.Environment?.Variables as Record<string, unknown> | undefined;
      if (variables?.POWERTOOLS_SERVICE_NAME !== undefined) expect(variables.POWERTOOLS_SERVICE_NAME, id).toBe(EVENT_SOURCE);
    }
    const dimensionValues = (name: string, dimension: string) => own.filter((line) => line[1] === name).map((line) => dimensions(line)[dimension]);
    expect(dimensionValues('WebhookDeliveries', 'Outcome').sort()).toEqual(['delivered', 'disabled', 'failed']);
    expect(dimensionValues('DeadLettered', 'Queue').sort()).toEqual(Object.keys(QUEUES).sort());
  });

  it('shows the state of every alarm of the stack, and graphs the two rate alarms against their thresholds', () => {
    const { widgets } = dashboardOf(paging);
    const alarmArns = alarmsOf(paging).map((alarm) => `GetAtt:${alarm.id}.Arn`);
    expect(alarmArns.length).toBeGreaterThan(2 * functionNames.length);
    const status = widgets.filter((widget) => widget.type === 'alarm');
    expect(status).toHaveLength(1);
    expect([...status[0]!.properties.alarms!].sort()).toEqual([...alarmArns].sort());
    const graphed = widgets.flatMap((widget) => widget.properties.annotations?.alarms ?? []);
    const rateAlarmIds = alarmsOf(paging).filter((alarm) => alarm.Metrics).map((alarm) => `GetAtt:${alarm.id}.Arn`);
    expect(rateAlarmIds).toHaveLength(2);
    expect(graphed.sort()).toEqual(rateAlarmIds.sort());
  });
});

describe('alarm actions and outputs', () => {
  it('notify no one and create no topic when neither alarmEmail nor alarmTopicArn is given', () => {
    expect(resourcesOf(synth, 'AWS::SNS::Topic')).toEqual([]);
    expect(resourcesOf(synth, 'AWS::SNS::Subscription')).toEqual([]);
    for (const alarm of alarmsOf(synth)) {
      expect(alarm.AlarmActions, alarm.id).toBeUndefined();
      expect(alarm.OKActions, alarm.id).toBeUndefined();
    }
    expect(Object.keys(synth.template.toJSON().Outputs)).not.toContain('AlarmTopicArn');
  });

  it('with alarmEmail (CDK context), make a TLS-only topic with that email subscribed; every alarm notifies it and the operator topic', () => {
    const [[topicId] = []] = resourcesOf(paging, 'AWS::SNS::Topic');
    expect(resourcesOf(paging, 'AWS::SNS::Topic')).toHaveLength(1);
    paging.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com', TopicArn: { Ref: topicId } });
    const [[, policy] = []] = resourcesOf(paging, 'AWS::SNS::TopicPolicy');
    expect(policy?.Properties.Topics).toEqual([{ Ref: topicId }]);
    expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const alarms = alarmsOf(paging);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions, alarm.id).toEqual([{ Ref: topicId }, OPERATOR_TOPIC]);
      expect(alarm.OKActions, alarm.id).toEqual([{ Ref: topicId }, OPERATOR_TOPIC]);
    }
    paging.template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
  });

  it('refuses an alarmEmail that is no address', () => {
    expect(() => synthesize({ alarmEmail: 'oncall' })).toThrow(/alarmEmail is not an email address/);
  });

  it('name the dashboard and the alarm-name prefix every alarm starts with', () => {
    const dashboardId = resourcesOf(synth, 'AWS::CloudWatch::Dashboard')[0]![0];
    synth.template.hasOutput('DashboardName', { Value: { Ref: dashboardId } });
    synth.template.hasOutput('AlarmNamePrefix', { Value: 'ComplianceTest-' });
    for (const alarm of alarmsOf(synth)) expect(alarm.AlarmName, alarm.id).toMatch(/^ComplianceTest-/);
    expect(new Set(alarmsOf(synth).map((alarm) => alarm.AlarmName)).size).toBe(alarmsOf(synth).length);
  });

  it('pass cdk-nag with the topic', () => {
    expect(nagFindings(paging.stack)).toEqual([]);
  });
});
