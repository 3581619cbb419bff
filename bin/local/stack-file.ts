/**
 * DATA_DIR/stack.json: written by a running local stack, read by the admin CLI to find it, and used
 * as a lock so two stacks never share one DATA_DIR (DynamoDB Local's database file is not shareable).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface StackFile {
  readonly pid: number;
  readonly apiUrl: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tableName: string;
  readonly region: string;
}

export const DEFAULT_DATA_DIR = '.data';

export function stackFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'stack.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running stack of this DATA_DIR, or undefined when none runs (a stale file is ignored). */
export function readRunningStack(dataDir: string): StackFile | undefined {
  const path = stackFilePath(dataDir);
  if (!existsSync(path)) return undefined;
  const stack = JSON.parse(readFileSync(path, 'utf8')) as StackFile;
  return alive(stack.pid) ? stack : undefined;
}

export function writeStackFile(dataDir: string, stack: StackFile): void {
  writeFileSync(stackFilePath(dataDir), `${JSON.stringify(stack, null, 2)}\n`);
}

export function removeStackFile(dataDir: string): void {
  rmSync(stackFilePath(dataDir), { force: true });
}
