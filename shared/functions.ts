/**
 * The catalog of Lambda functions: entry file, sizing and what each may touch. The CDK function
 * construct creates one function per entry with the project's defaults and grants exactly the access
 * listed; the local runner imports the same entry files.
 */
export interface FunctionDefinition {
  /** Path of the entry file from the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly table: 'none' | 'read' | 'read-write';
  readonly sendsTo: readonly ('evaluation' | 'webhookDeliveries' | 'advisoryLinks' | 'licenseReresolution')[];
  readonly publishesEvents: boolean;
  /** Writes absolute URLs into events, so needs PUBLIC_BASE_URL: the public origin of the API. */
  readonly buildsEventUrls?: true;
  /**
   * The SBOM upload bucket: `presign` signs PUT URLs for uploads (s3:PutObject under uploads/, which the
   * URL's holder then uses), `read` reads and deletes uploaded documents. Sets SBOM_UPLOADS_BUCKET.
   */
  readonly uploads?: 'presign' | 'read';
  /**
   * Reads SBOM documents: its package gets the CycloneDX JSON schemas beside the bundle (read at run
   * time: shared/sbom/schema-validation.ts), and its bundle holds the validators (Ajv, the CycloneDX
   * library's models), so its size budget is larger (test/infra/bundling.test.ts).
   */
  readonly readsSboms?: true;
  /**
   * Matches published advisories (the linker, the sync): its bundle holds the ecosystems' version
   * libraries and the OSV record checks (shared/advisory-runtime.ts), so its size budget is larger
   * (test/infra/bundling.test.ts).
   */
  readonly matchesAdvisories?: true;
  /**
   * Serves reference license texts (GET /api/v2/reference_licenses/{key}/): its package gets the texts
   * file beside the bundle (4.8 MB, shared/reference/scancode-texts.ts); the other functions' do not.
   */
  readonly servesLicenseTexts?: true;
  /** Its /tmp, when Lambda's 512 MB is not enough (the advisory sync streams an ecosystem's whole archive there). */
  readonly ephemeralStorageMb?: number;
  /** Writes the audit trail's records and exports them to the audit bucket (s3:PutObject): sets AUDIT_EXPORT_BUCKET and AUDIT_RETENTION_DAYS. */
  readonly auditExport?: true;
  /**
   * UpdateItem on the items of products' partitions (PRODUCT#*), beside `table: 'read'`: the waiver
   * expiry job marks waivers expired and may write nothing else.
   */
  readonly updatesWaivers?: true;
}

export const FUNCTIONS = {
  'api-root': {
    entry: 'functions/api-root.ts',
    description: 'GET /api/v2/: the map of the list endpoints',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
  },
  'api-schema': {
    entry: 'functions/api-schema.ts',
    description: 'GET /api/v2/schema/: the OpenAPI 3.1 document',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
  },
  products: {
    entry: 'functions/products.ts',
    description: 'Products: list, create, retrieve, update, delete',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'product-permissions': {
    entry: 'functions/product-permissions.ts',
    description: "A product's object permissions: list, assign, remove",
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  requests: {
    entry: 'functions/requests.ts',
    description: 'Requests: list, create, retrieve, update, add a comment',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'request-templates': {
    entry: 'functions/request-templates.ts',
    description: 'Request templates: list, retrieve',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
  },
  catalog: {
    entry: 'functions/catalog.ts',
    description: 'The catalog: usage policies, licenses, packages, vulnerabilities',
    memoryMb: 512,
    timeoutSeconds: 15,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
    servesLicenseTexts: true,
  },
  'product-packages': {
    entry: 'functions/product-packages.ts',
    description: 'Product packages, vulnerability analyses, and the packages of a product',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'sbom-export': {
    entry: 'functions/sbom-export.ts',
    description: "SBOM export: a product's inventory as CycloneDX (SBOM, VEX) or SPDX",
    // A 10,000-package product renders in under a second into about 10-15 MB of JSON.
    memoryMb: 1024,
    timeoutSeconds: 29,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
    servesLicenseTexts: true,
  },
  policy: {
    entry: 'functions/policy.ts',
    description: 'Policy rules configuration, product violations and status, evaluations on demand',
    memoryMb: 1024,
    timeoutSeconds: 29,
    table: 'read-write',
    sendsTo: ['evaluation'],
    publishesEvents: false,
  },
  'stream-router': {
    entry: 'functions/stream-router.ts',
    description:
      'Table stream: products to evaluate, onto the evaluation queue; packages and advisories to match, onto the advisory link queue; license mappings made or changed, onto the re-resolution queue; audited changes to the audit trail and its bucket',
    memoryMb: 512,
    timeoutSeconds: 60,
    // Writes the audit records (and reads deletion markers and a comment's request).
    table: 'read-write',
    sendsTo: ['evaluation', 'advisoryLinks', 'licenseReresolution'],
    publishesEvents: false,
    auditExport: true,
  },
  'advisory-linker': {
    entry: 'functions/advisory-linker.ts',
    description: "Advisory link queue: packages matched against the published advisories of their key, and an advisory's key against the packages of every dataspace; links written as vulnerabilities",
    memoryMb: 512,
    timeoutSeconds: 120,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
    matchesAdvisories: true,
  },
  'license-reresolver': {
    entry: 'functions/license-reresolver.ts',
    description:
      'License re-resolution queue: a license mapping made or changed, applied to the packages of its dataspace whose unknown licenses hold its text (each package written is evaluated again through the stream)',
    memoryMb: 1024,
    timeoutSeconds: 300,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'advisory-sync': {
    entry: 'functions/advisory-sync.ts',
    description: "EventBridge Scheduler: the published advisories of the configured ecosystems brought up to date from OSV's bucket or a mirror",
    // An ecosystem's first run streams its whole archive to /tmp and loads it (npm's: tens of thousands of records).
    memoryMb: 1024,
    ephemeralStorageMb: 4096,
    timeoutSeconds: 900,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
    matchesAdvisories: true,
  },
  evaluator: {
    entry: 'functions/evaluator.ts',
    description: 'Evaluation queue: runs the policy rules on a product and records its violations and events',
    // Memory for the CPU share (1,024 MB is about 0.6 vCPU) more than for the heap: the README's
    // Benchmarks give a large product's heap growth per package. The batch stops starting products
    // at half the timeout and hands the rest back (functions/evaluator.ts). 300 s: one evaluation of a
    // 50,000-package product took 91 s on DynamoDB Local (561 calls), more than the 60 s it had.
    memoryMb: 1024,
    timeoutSeconds: 300,
    table: 'read-write',
    // Hands back what a batch cannot evaluate, and queues the products of a dataspace's pages.
    sendsTo: ['evaluation'],
    publishesEvents: false,
    buildsEventUrls: true,
  },
  'outbox-publisher': {
    entry: 'functions/outbox-publisher.ts',
    description: 'Table stream: the events evaluations committed, and request events, onto the event bus',
    memoryMb: 256,
    timeoutSeconds: 30,
    table: 'read',
    sendsTo: [],
    publishesEvents: true,
    buildsEventUrls: true,
  },
  webhooks: {
    entry: 'functions/webhooks.ts',
    description: 'Webhook subscriptions, delivery log, redelivery and ping',
    memoryMb: 512,
    timeoutSeconds: 20,
    table: 'read-write',
    sendsTo: ['webhookDeliveries'],
    publishesEvents: false,
  },
  'webhook-fanout': {
    entry: 'functions/webhook-fanout.ts',
    description: 'Events from the bus: one delivery per active subscription',
    memoryMb: 512,
    timeoutSeconds: 30,
    table: 'read-write',
    sendsTo: ['webhookDeliveries'],
    publishesEvents: false,
  },
  migrate: {
    entry: 'functions/migrate.ts',
    description: "Brings items an earlier version wrote to this version's layout; run by a trigger after each deployment",
    memoryMb: 512,
    timeoutSeconds: 900,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'webhook-delivery': {
    entry: 'functions/webhook-delivery.ts',
    description: 'One signed delivery attempt per message, retried with backoff, then the DLQ',
    memoryMb: 512,
    timeoutSeconds: 30,
    table: 'read-write',
    sendsTo: ['webhookDeliveries'],
    publishesEvents: false,
  },
  'sbom-imports': {
    entry: 'functions/sbom-imports.ts',
    description: 'SBOM imports: load a document within the call, start an upload, read an import',
    // A document of up to 4 MB and 1,000 components is read and imported within API Gateway's 29 s.
    memoryMb: 1024,
    timeoutSeconds: 29,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
    uploads: 'presign',
    readsSboms: true,
  },
  'sbom-import': {
    entry: 'functions/sbom-import.ts',
    description: 'Upload events (S3 → SQS): imports an uploaded SBOM of up to 10,000 components',
    // A 50 MB document parsed, and its 10,000 components planned, stay well under this (the bench measures the peak).
    memoryMb: 2048,
    timeoutSeconds: 300,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
    uploads: 'read',
    readsSboms: true,
  },
  'api-keys': {
    entry: 'functions/api-keys.ts',
    description: 'Named API keys with scopes: list, create, retrieve, revoke',
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read-write',
    sendsTo: [],
    publishesEvents: false,
  },
  'audit-events': {
    entry: 'functions/audit-events.ts',
    description: "The dataspace's audit trail, for its superusers",
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
  },
  users: {
    entry: 'functions/users.ts',
    description: "The caller, the dataspace's users and its request priorities",
    memoryMb: 512,
    timeoutSeconds: 10,
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
  },
  'waiver-expiry': {
    entry: 'functions/waiver-expiry.ts',
    description: 'Every minute: marks the policy waivers whose expiry has passed as expired (the stream re-evaluates their products)',
    memoryMb: 256,
    timeoutSeconds: 60,
    // Read: the expiry index; write: UpdateItem on waiver items only (lib/compliance-stack.ts narrows it).
    table: 'read',
    sendsTo: [],
    publishesEvents: false,
    updatesWaivers: true,
  },
  'not-found': {
    entry: 'functions/not-found.ts',
    description: 'Default route: 404 for unknown paths, 405 for a known path with another method',
    memoryMb: 256,
    timeoutSeconds: 5,
    table: 'none',
    sendsTo: [],
    publishesEvents: false,
  },
} as const satisfies Record<string, FunctionDefinition>;

export type FunctionName = keyof typeof FUNCTIONS;
