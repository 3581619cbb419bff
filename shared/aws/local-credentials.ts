/**
 * The credentials SDK clients sign with on the local stack (DynamoDB Local, and the S3 and SQS APIs of
 * its emulator behind the signed front, bin/local/signed-front.ts, which verifies every signature as
 * AWS does). The secret is the stack's own: `npm start` draws one at random for its process (and keeps
 * it in DATA_DIR/stack.json, readable by its user only, for other processes such as tests); a process
 * without one signs with the fixed `local`, which DynamoDB Local accepts and the signed front refuses.
 */
import { randomBytes } from 'node:crypto';

export const LOCAL_ACCESS_KEY_ID = 'local';
const SECRET_VARIABLE = 'LOCAL_STACK_SECRET_ACCESS_KEY';

export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** The credentials of this process's local stack (read when a client is made, at cold start). */
export function localCredentials(secret = process.env[SECRET_VARIABLE]): LocalCredentials {
  return { accessKeyId: LOCAL_ACCESS_KEY_ID, secretAccessKey: secret ?? 'local' };
}

/** This process's local stack secret, drawn once: every stack the process starts signs and verifies with it. */
export function ensureLocalSecret(): string {
  process.env[SECRET_VARIABLE] ??= randomBytes(24).toString('base64url');
  return process.env[SECRET_VARIABLE];
}
