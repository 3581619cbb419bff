/**
 * How the stack turns EVENT_SOURCES entries into Lambda event-source mappings. EVENT_SOURCES is still
 * empty, so these tests pass their own entries (consumed by functions the catalog already has).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceDefinition } from '../../shared/resources.ts';
import { FUNCTIONS } from '../../shared/functions.ts';
import { QUEUES } from '../../shared/resources.ts';
import { actionsOf, logicalId, nagFindings, roleStatements, synthesize, type Synthesized } from './helpers.ts';

const streamPattern = { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { SK: { S: [{ prefix: 'PRODUCT#' }] } } } };

const SOURCES: readonly EventSourceDefinition[] = [
  { kind: 'table-stream', function: 'not-found', batchSize: 25, maxRetryAttempts: 3, bisectBatchOnError: true, filterPatterns: [streamPattern] },
  { kind: 'queue', queue: 'evaluation', function: 'api-schema', batchSize: 10, maxBatchingWindowSeconds: 2, maxConcurrency: 5 },
];

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize({ eventSources: SOURCES, alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:compliance-alarms' });
});

describe('a table-stream source', () => {
  it('maps the table stream with the batch, retry, bisect, filter and partial-failure settings', () => {
    const tableId = logicalId(synth.stack, synth.stack.table);
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(synth.stack, synth.stack.functions['not-found'].function) },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 25,
      MaximumRetryAttempts: 3,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(streamPattern) }] },
    });
  });

  it('sends batches that fail for good to an encrypted, TLS-only queue with an alarm', () => {
    const [mapping] = Object.values(
      synth.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { StartingPosition: 'TRIM_HORIZON' } }),
    );
    const destination = mapping?.Properties.DestinationConfig.OnFailure.Destination as { 'Fn::GetAtt': [string, string] };
    const queueId = destination['Fn::GetAtt'][0];
    const queue = synth.template.toJSON().Resources[queueId];
    expect(queue.Type).toBe('AWS::SQS::Queue');
    expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
    });
  });

  it('lets the consumer read the stream and nothing more of the table than the catalog grants', () => {
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['not-found']));
    expect(actions).toContain('dynamodb:GetRecords');
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('dynamodb:GetItem');
    expect(actions).not.toContain('dynamodb:PutItem');
  });
});

describe('a queue source', () => {
  it('maps the queue with batch size, batching window, maximum concurrency and partial batch failures', () => {
    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(synth.stack, synth.stack.functions['api-schema'].function) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.queues.evaluation.queue), 'Arn'] },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 2,
      ScalingConfig: { MaximumConcurrency: 5 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(QUEUES.evaluation.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(10);
  });
});

describe('the stack with mappings', () => {
  it('sends every alarm to the topic given as alarmTopicArn', () => {
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'));
    // One per queue's DLQ, one per table-stream mapping's failure queue (this stack has one), Errors and
    // Throttles per function, the API's 5xx rate and the webhook delivery failure rate (monitoring.test.ts).
    // DLQs, the stream failures queue, errors and throttles of each function, the two rate alarms, audit exports.
    expect(alarms).toHaveLength(Object.keys(QUEUES).length + 1 + 2 * Object.keys(FUNCTIONS).length + 2 + 1);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual(['arn:aws:sns:eu-west-1:123456789012:compliance-alarms']);
    }
  });

  it('still passes cdk-nag AWS Solutions', () => {
    expect(nagFindings(synth.stack)).toEqual([]);
  });

  it('refuses a source whose function is not in the catalog', () => {
    expect(() =>
      synthesize({ eventSources: [{ kind: 'queue', queue: 'evaluation', function: 'no-such-function', batchSize: 1 }] }),
    ).toThrow(/unknown function 'no-such-function'/);
  });
});
