import { beforeAll, describe, expect, it } from 'vitest';
import { nagFindings, synthesize, type Synthesized } from './helpers.ts';
import { webhookDestinations } from '../../lib/webhook-destinations.ts';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize({
    webhookDestinations: webhookDestinations([
      { name: 'security-team', endpoint: 'https://hooks.example.com/compliance', events: ['policy.violation_detected'], secretName: 'compliance/security-team' },
    ]),
  });
});

describe('static webhook destinations from cdk.json context', () => {
  it('become a connection with the header from Secrets Manager, an API destination, and a rule with retries and a DLQ', () => {
    synth.template.hasResourceProperties('AWS::Events::Connection', {
      AuthorizationType: 'API_KEY',
      AuthParameters: { ApiKeyAuthParameters: { ApiKeyName: 'Authorization', ApiKeyValue: '{{resolve:secretsmanager:compliance/security-team:SecretString:::}}' } },
    });
    synth.template.hasResourceProperties('AWS::Events::ApiDestination', {
      InvocationEndpoint: 'https://hooks.example.com/compliance',
      HttpMethod: 'POST',
      InvocationRateLimitPerSecond: 10,
    });
    const rules = Object.values(synth.template.findResources('AWS::Events::Rule'));
    // Scheduled rules (the waiver expiry) have no event pattern.
    const rule = rules.find((r) => JSON.stringify(r.Properties.EventPattern ?? {}).includes('policy.violation_detected'))!;
    expect(rule.Properties.EventPattern).toEqual({ source: ['compliance-service'], 'detail-type': ['policy.violation_detected'] });
    const [target] = rule.Properties.Targets as Record<string, any>[];
    expect(target).toMatchObject({ InputPath: '$.detail', RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 } });
    expect(target!.DeadLetterConfig).toBeDefined();
  });

  it('pass cdk-nag with no unacknowledged finding', () => {
    expect(nagFindings(synth.stack)).toEqual([]);
  });

  it('refuse a bad declaration, naming its path', () => {
    expect(() => webhookDestinations([{ name: 'x', endpoint: 'http://insecure.example.com', events: [], secretName: 's' }])).toThrow(
      /webhookDestinations\[0\]\.endpoint[\s\S]*webhookDestinations\[0\]\.events/,
    );
  });
});
