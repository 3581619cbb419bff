/**
 * The Lambda `Context` object the local pollers hand to a function, shaped as the Node.js runtime
 * builds it, so handlers (and Powertools, which reads it) behave as they do on AWS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The account the local stand-ins report in their ARNs (DynamoDB Local and fauxqs use the same). */
const LOCAL_ACCOUNT = '000000000000';

export interface LambdaContextOptions {
  region?: string;
  memoryLimitInMB?: number;
}

// One log stream per function and process, as one warm execution environment has on AWS.
const logStreams = new Map<string, string>();

function logStreamName(functionName: string): string {
  let name = logStreams.get(functionName);
  if (!name) {
    const day = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
    name = `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
    logStreams.set(functionName, name);
  }
  return name;
}

function callbackStyleUnsupported(method: string): never {
  throw new Error(`context.${method}() is not supported: the local runner invokes async handlers only`);
}

/** A fresh context for one invocation; the time budget starts now. */
export function lambdaContext(functionName: string, timeoutMs: number, options: LambdaContextOptions = {}): Context {
  const deadline = Date.now() + timeoutMs;
  const region = options.region ?? process.env['AWS_REGION'] ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 128),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: logStreamName(functionName),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => callbackStyleUnsupported('done'),
    fail: () => callbackStyleUnsupported('fail'),
    succeed: () => callbackStyleUnsupported('succeed'),
  };
}
