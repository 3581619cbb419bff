/**
 * DATA_DIR/stack.json: written by a running local stack, read by the admin CLI to find it, and used
 * as a lock so two stacks never share one DATA_DIR (DynamoDB Local's database file is not shareable).
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processRuns } from './process-guard.ts';

export interface StackFile {
  readonly pid: number;
  readonly apiUrl: string;
  readonly dynamodbEndpoint: string;
  /** The S3 and SQS endpoint: the signed front of the emulator (signed-front.ts). */
  readonly sqsEndpoint: string;
  /** The secret the front verifies signatures with (shared/aws/local-credentials.ts): why this file is its user's only. */
  readonly localSecret: string;
  readonly tableName: string;
  readonly region: string;
  /** The stack process's start time (/proc, Linux): a pid reused by another process is not taken for it. */
  readonly startTime?: number | undefined;
  /** DynamoDB Local's Java process, so a start after a SIGKILL can make sure it is gone. */
  readonly dynamodbPid?: number | undefined;
  readonly dynamodbStartTime?: number | undefined;
}

export const DEFAULT_DATA_DIR = '.data';

export function stackFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'stack.json');
}

/** The stack file of DATA_DIR as written, whether its stack still runs or not. */
export function readStackFile(dataDir: string): StackFile | undefined {
  const path = stackFilePath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StackFile;
  } catch {
    // Cut short by a crash while it was written: no stack to speak of.
    return undefined;
  }
}

/** The running stack of this DATA_DIR, or undefined when none runs (a stale file is ignored). */
export function readRunningStack(dataDir: string): StackFile | undefined {
  const stack = readStackFile(dataDir);
  return stack && processRuns(stack.pid, stack.startTime) ? stack : undefined;
}

export function writeStackFile(dataDir: string, stack: StackFile): void {
  const path = stackFilePath(dataDir);
  // It holds the stack's secret: its user's alone (a file left by an earlier start is made so too).
  writeFileSync(path, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export function removeStackFile(dataDir: string): void {
  rmSync(stackFilePath(dataDir), { force: true });
}
