/**
 * The CDK app: one ComplianceStack, checked against the cdk-nag AWS Solutions rules on every synth
 * (an unacknowledged finding stops the synth). Context: `stackName` (default ComplianceService) and
 * `alarmTopicArn` (optional SNS topic for the dead-letter-queue alarms).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ComplianceStack } from '../lib/compliance-stack.ts';
import { webhookDestinations } from '../lib/webhook-destinations.ts';

const app = new App();

const stackName = contextString('stackName') ?? 'ComplianceService';
const alarmTopicArn = contextString('alarmTopicArn');
const destinations = webhookDestinations(app.node.tryGetContext('webhookDestinations'));
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

new ComplianceStack(app, stackName, {
  stackName,
  description: 'Compliance service: products, permissions, requests and the policy rules engine',
  // Environment-agnostic unless the CLI knows an account and region (it does when credentials exist).
  ...(account && region ? { env: { account, region } } : {}),
  ...(alarmTopicArn ? { alarmTopicArn } : {}),
  webhookDestinations: destinations,
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

function contextString(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context '${key}' must be a string`);
  return value;
}
