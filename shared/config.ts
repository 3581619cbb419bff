/**
 * Service configuration, validated once with its defaults. On Lambda it is the function's environment,
 * which getConfig() reads once per container (shared/runtime.ts composes the function from it); the
 * local stack builds it with parseConfig() from its own settings (bin/local/stack.ts). Nothing reads
 * process.env inside a request.
 */
import * as z from 'zod';

/** Days an audit record stays in the table by default (the CDK context auditRetentionDays changes it). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

const ConfigSchema = z.object({
  TABLE_NAME: z.string().min(3),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Set only on the local stack: the DynamoDB Local endpoint. */
  DYNAMODB_ENDPOINT: z.url().optional(),
  /** Set only on the local stack: the SQS emulator endpoint. */
  SQS_ENDPOINT: z.url().optional(),
  EVENT_BUS_NAME: z.string().min(1).default('compliance-events'),
  /** The bucket SBOM documents are uploaded to (functions that presign or read uploads). */
  SBOM_UPLOADS_BUCKET: z.string().optional(),
  /** Set only on the local stack: the S3 API endpoint (the SQS emulator's). */
  S3_ENDPOINT: z.url().optional(),
  EVALUATION_QUEUE_URL: z.string().optional(),
  /** The advisory link queue (shared/aws/advisory-link-queue.ts): the stream router sends to it. */
  ADVISORY_LINKS_QUEUE_URL: z.string().optional(),
  /** The license re-resolution queue (shared/aws/license-reresolution-queue.ts): the stream router sends to it. */
  LICENSE_RERESOLUTION_QUEUE_URL: z.string().optional(),
  /**
   * Where the advisory sync reads OSV records (shared/services/advisory-sync.ts): OSV's bucket, or a mirror
   * laid out as it is. Unset: the sync does nothing (the local stack's default; the CDK stack sets it).
   */
  OSV_SOURCE_URL: z.union([z.url({ protocol: /^https?$/ }), z.literal('')]).optional(),
  /** The OSV ecosystems the sync keeps up to date, comma-separated (`npm,PyPI,Go`). */
  OSV_ECOSYSTEMS: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((name) => name.trim()).filter(Boolean)),
  /** How long an evaluation request waits in the queue, so a burst of changes becomes one evaluation. */
  EVALUATION_DELAY_SECONDS: z.coerce.number().int().min(0).max(900).default(2),
  /** Products one page of a dataspace-wide re-evaluation queues (shared/services/evaluation-fan-out.ts). */
  EVALUATION_FAN_OUT_PAGE_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /**
   * Packages one evaluator invocation evaluates before it hands the rest of its batch back to the
   * queue: a batch is sized by the packages it holds, not by its message count (functions/evaluator.ts).
   */
  EVALUATION_PACKAGES_PER_INVOCATION: z.coerce.number().int().min(1).default(100_000),
  /**
   * The public origin of the API (scheme, host, port), on which every absolute URL is built: api_url,
   * next and previous in answers, and the URLs in events. Set by the CDK stack and by the local stack;
   * when unset, API functions use the request context's own domain. Never taken from request headers.
   */
  PUBLIC_BASE_URL: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value === '') return undefined;
      const origin = publicOrigin(value);
      if (origin === undefined) {
        context.issues.push({ code: 'custom', input: value, message: 'must be an http(s) origin such as https://api.example.com, without a path, query or credentials' });
        return z.NEVER;
      }
      return origin;
    }),
  /** Lifts the private-address rule for webhook targets and allows http: the local stack and tests only. */
  ALLOW_PRIVATE_WEBHOOK_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * The local stack only: how often its scheduler runs the waiver expiry job (shared/resources.ts
   * SCHEDULES). On AWS an EventBridge rule runs it every minute, whatever this says.
   */
  WAIVER_EXPIRY_INTERVAL_SECONDS: z.coerce.number().min(0.1).max(3_600).default(60),
  WEBHOOK_DELIVERIES_QUEUE_URL: z.string().optional(),
  /** The retry schedule of webhook deliveries (defaults: about 24 hours, as on AWS). */
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().positive().default(60),
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: z.coerce.number().positive().default(4 * 3600),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(14),
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number().positive().default(24 * 3600),
  /** Days an audit record is kept in the table (its TTL); exported copies are kept by the bucket's lifecycle. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).default(DEFAULT_AUDIT_RETENTION_DAYS),
  /** The bucket the audit writer exports each batch's records to, as JSON lines (unset: no export). */
  AUDIT_EXPORT_BUCKET: z.string().optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  // Per-API-key throttling (shared/http/rate-limit.ts): only the API functions read it, and the CDK stack
  // sets it on them alone.
  /** Steady requests a second per API key; 0 turns throttling off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(0),
  /** Requests a key may make at once before the steady rate applies. */
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(20),
  /** Steady requests a second per dataspace, across all its keys (its quota of the stage); 0 turns it off. */
  DATASPACE_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(0),
  /** Requests a dataspace's keys may make at once before its steady rate applies. */
  DATASPACE_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  // Throttling of failed authentication per source address (shared/http/auth-failures.ts): on by
  // default, locally as on AWS, where the CDK stack sets it on the API functions.
  /** Steady failed authentications a minute per source address; 0 turns the throttle off. */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().min(0).default(30),
  /** Failures a source may make at once before the steady rate applies. */
  AUTH_FAILURES_BURST: z.coerce.number().int().min(1).default(10),
});

export type ServiceConfig = z.infer<typeof ConfigSchema>;
/** What parseConfig() reads: the environment's strings, or values of the right type; omitted ones take their defaults. */
export type ConfigInput = Partial<Record<keyof ServiceConfig, unknown>>;
export type RateLimitConfig = Pick<
  ServiceConfig,
  'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST' | 'DATASPACE_RATE_LIMIT_PER_SECOND' | 'DATASPACE_RATE_LIMIT_BURST'
>;
export type AuthFailureConfig = Pick<ServiceConfig, 'AUTH_FAILURES_PER_MINUTE' | 'AUTH_FAILURES_BURST'>;

/** `value` as a bare origin (https://host[:port]), or undefined when it is anything more or less. */
export function publicOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  return (url.protocol === 'https:' || url.protocol === 'http:') && bare ? url.origin : undefined;
}

/**
 * The base of the URLs in events, written by functions with no request to take a domain from. The CDK
 * stack and the local stack always set PUBLIC_BASE_URL; the fallback serves tests that start no stack.
 */
export function eventBaseUrl(config: ServiceConfig): string {
  return config.PUBLIC_BASE_URL ?? 'http://127.0.0.1:8000';
}

/** The configuration in `input` (unknown names are ignored), or an error naming every problem. */
export function parseConfig(input: ConfigInput | NodeJS.ProcessEnv): ServiceConfig {
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid service configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

// The one configuration of a Lambda container: its environment does not change while it runs.
let cached: ServiceConfig | undefined;

/** The function's environment as configuration, read once per container (the Lambda composition root's input). */
export function getConfig(): ServiceConfig {
  cached ??= parseConfig(process.env);
  return cached;
}

/** True when the service talks to local stand-ins rather than AWS. */
export function isLocal(config: ServiceConfig): boolean {
  return config.DYNAMODB_ENDPOINT !== undefined;
}
