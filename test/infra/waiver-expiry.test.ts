/**
 * The waiver expiry job on AWS: an EventBridge scheduled rule, rate(1 minute), invokes the
 * waiver-expiry function, which may read the table (the expiry index among it) and update items of
 * products' partitions only: no other write, no queue, no bus.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULES } from '../../shared/resources.ts';
import { actionsOf, logicalId, roleStatements, synthesize, type Synthesized } from './helpers.ts';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
});

describe('the waiver expiry schedule', () => {
  it('is declared once, every minute', () => {
    expect(SCHEDULES).toEqual([expect.objectContaining({ name: 'waiver-expiry', function: 'waiver-expiry', everyMinutes: 1 })]);
  });

  it('is a rule with rate(1 minute) whose one target is the waiver-expiry function', () => {
    const functionArn = { 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.functions['waiver-expiry'].function), 'Arn'] };
    const rules = Object.values(synth.template.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(1 minute)' } }));
    expect(rules).toHaveLength(1);
    const rule = rules[0]!.Properties as { State: string; EventBusName?: unknown; Targets: { Arn: unknown; RetryPolicy?: unknown }[] };
    expect(rule.State).toBe('ENABLED');
    // Scheduled rules live on the account's default bus, not the service's own.
    expect(rule.EventBusName).toBeUndefined();
    expect(rule.Targets).toHaveLength(1);
    expect(rule.Targets[0]!.Arn).toEqual(functionArn);
    // EventBridge may invoke it.
    synth.template.hasResourceProperties('AWS::Lambda::Permission', { Action: 'lambda:InvokeFunction', Principal: 'events.amazonaws.com', FunctionName: functionArn });
  });

  it('runs a function that may read the table and update products\' partitions only', () => {
    const statements = roleStatements(synth, synth.stack.functions['waiver-expiry']);
    const actions = actionsOf(statements);
    expect(actions.has('dynamodb:Query')).toBe(true);
    for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'sqs:SendMessage', 'events:PutEvents']) expect(actions.has(write), write).toBe(false);
    const updates = statements.filter((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'));
    expect(updates).toHaveLength(1);
    expect(updates[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PRODUCT#*'] } });
  });

  it('gives it a minute at most, and no event source or route', () => {
    const id = logicalId(synth.stack, synth.stack.functions['waiver-expiry'].function);
    expect(synth.template.toJSON().Resources[id].Properties.Timeout).toBeLessThanOrEqual(60);
    const mappings = Object.values(synth.template.findResources('AWS::Lambda::EventSourceMapping')) as { Properties: { FunctionName: { Ref: string } } }[];
    expect(mappings.some((mapping) => mapping.Properties.FunctionName.Ref === id)).toBe(false);
  });
});
