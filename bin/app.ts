/**
 * The CDK app: one ComplianceStack, checked against the cdk-nag AWS Solutions rules on every synth
 * (an unacknowledged finding stops the synth). Context: `stackName` (default ComplianceService) and
 * `alarmTopicArn` (optional SNS topic for the dead-letter-queue alarms), `webConsole` (false: no console
 * distribution; the API's links are then built on its own endpoint), and the limits: `apiRateLimit` and
 * `apiBurstLimit` (the stage), `keyRateLimitPerSecond`/`keyRateLimitBurst` (each key),
 * `dataspaceRateLimitPerSecond`/`dataspaceRateLimitBurst` (each dataspace), `authFailuresPerMinute`/`authFailuresBurst`.
 * The stack reads `alarmEmail` and `requestIndexProjection` (ALL for a table made by an earlier version) itself.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ComplianceStack, DEFAULT_AUTH_FAILURE_LIMIT, DEFAULT_DATASPACE_RATE_LIMIT, DEFAULT_KEY_RATE_LIMIT } from '../lib/compliance-stack.ts';
import { DEFAULT_THROTTLE } from '../lib/constructs/http-api.ts';
import { webhookDestinations } from '../lib/webhook-destinations.ts';

const app = new App();

const stackName = contextString('stackName') ?? 'ComplianceService';
const alarmTopicArn = contextString('alarmTopicArn');
const destinations = webhookDestinations(app.node.tryGetContext('webhookDestinations'));
const keyRatePerSecond = contextNumber('keyRateLimitPerSecond');
const keyRateBurst = contextNumber('keyRateLimitBurst');
const dataspaceRatePerSecond = contextNumber('dataspaceRateLimitPerSecond');
const dataspaceRateBurst = contextNumber('dataspaceRateLimitBurst');
const apiRateLimit = contextNumber('apiRateLimit');
const apiBurstLimit = contextNumber('apiBurstLimit');
const authFailuresPerMinute = contextNumber('authFailuresPerMinute');
const authFailuresBurst = contextNumber('authFailuresBurst');
const webConsole = contextBoolean('webConsole') ?? true;
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

new ComplianceStack(app, stackName, {
  stackName,
  description: 'Compliance service: products, permissions, requests and the policy rules engine',
  // Environment-agnostic unless the CLI knows an account and region (it does when credentials exist).
  ...(account && region ? { env: { account, region } } : {}),
  ...(alarmTopicArn ? { alarmTopicArn } : {}),
  webhookDestinations: destinations,
  authFailureLimit: {
    perMinute: authFailuresPerMinute ?? DEFAULT_AUTH_FAILURE_LIMIT.perMinute,
    burst: authFailuresBurst ?? DEFAULT_AUTH_FAILURE_LIMIT.burst,
  },
  webConsole,
  keyRateLimit: { perSecond: keyRatePerSecond ?? DEFAULT_KEY_RATE_LIMIT.perSecond, burst: keyRateBurst ?? DEFAULT_KEY_RATE_LIMIT.burst },
  dataspaceRateLimit: {
    perSecond: dataspaceRatePerSecond ?? DEFAULT_DATASPACE_RATE_LIMIT.perSecond,
    burst: dataspaceRateBurst ?? DEFAULT_DATASPACE_RATE_LIMIT.burst,
  },
  apiThrottle: { rateLimit: apiRateLimit ?? DEFAULT_THROTTLE.rateLimit, burstLimit: apiBurstLimit ?? DEFAULT_THROTTLE.burstLimit },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

function contextString(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context '${key}' must be a string`);
  return value;
}

/** A number from context: `-c key=2.5` arrives as a string, cdk.json may hold a number. */
function contextNumber(key: string): number | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) throw new Error(`Context '${key}' must be a number`);
  return number;
}

/** A boolean from context: `-c key=false` arrives as a string, cdk.json may hold a boolean. */
function contextBoolean(key: string): boolean | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context '${key}' must be true or false`);
}
