/**
 * The composition of the functions: one factory per part (clients, stores, services, queues, the event
 * publisher), each making its part once per Composition from the configuration and the other parts.
 * Lambda's composition root is lambdaHandler: a function's module makes its handler from a Composition
 * of its environment's configuration, with just the factories it needs (so its bundle holds no other
 * part). The local stack composes the same factories, with its stand-ins provided for the clients and
 * the bus (bin/local/composition.ts).
 */
import { UserService } from './services/users.ts';
import { randomUUID } from 'node:crypto';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { tracedClient } from './observability/tracer.ts';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient, createSqsClient } from './aws/clients.ts';
import { eventBaseUrl, getConfig, isLocal, type ServiceConfig } from './config.ts';
import { EventBridgePublisher, type PutEventsClient } from './events/eventbridge-publisher.ts';
import type { EventPublisher } from './events/publisher.ts';
import { authFailureLimit } from './http/auth-failures.ts';
import { storeAuthenticator } from './http/authenticator.ts';
import { gcraRateLimiter } from './http/rate-limit.ts';
import { AUTH_FAILURE_SPACE, DATASPACE_RATE_SPACE, RateLimitStore } from './store/rate-limit-store.ts';
import type { ApiFunctionDeps } from './http/api-handler.ts';
import { IdentityStore } from './store/identity-store.ts';
import { AuditStore } from './store/audit-store.ts';
import { AdvisorySources } from './store/advisory-sources.ts';
import { AuditService } from './services/audit.ts';
import { ProductStore } from './store/product-store.ts';
import { ProductService } from './services/products.ts';
import { RequestStore } from './store/request-store.ts';
import { RequestService } from './services/requests.ts';
import { CatalogStore } from './store/catalog-store.ts';
import { ProductPackageStore } from './store/product-package-store.ts';
import { CatalogService } from './services/catalog.ts';
import { ProductPackageService } from './services/product-packages.ts';
import { PolicyStore } from './store/policy-store.ts';
import { EvaluationService } from './services/evaluation.ts';
import { EvaluationFanOut } from './services/evaluation-fan-out.ts';
import { PolicyService } from './services/policy.ts';
import { PolicyWaiverStore } from './store/policy-waiver-store.ts';
import { PolicyWaiverService } from './services/policy-waivers.ts';
import { SqsEvaluationQueue, type EvaluationQueue } from './aws/evaluation-queue.ts';
import { ChangeTargetResolver } from './store/change-targets.ts';
import { WebhookStore } from './store/webhook-store.ts';
import { WebhookService } from './services/webhooks.ts';
import { SqsDeliveryQueue } from './aws/delivery-queue.ts';
import { ApiKeyStore } from './store/api-key-store.ts';
import { ApiKeyService } from './services/api-keys.ts';
import { ViolationDayStore } from './store/violation-day-store.ts';
import { PortfolioService } from './services/portfolio.ts';
import { AdvisoryStore } from './store/advisory-store.ts';
import { SqsAdvisoryLinkQueue, type AdvisoryLinkQueue } from './aws/advisory-link-queue.ts';
import { applyMapping, type MappingApplier } from './store/license-reresolution.ts';
import { SqsLicenseReresolutionQueue, type LicenseReresolutionQueue } from './aws/license-reresolution-queue.ts';

/** A factory of one part: it makes the part from a composition's configuration and other parts. */
export type Factory<T> = (composition: Composition) => T;

/**
 * One composition of the service: its configuration, and each part made once, when first asked for.
 * Nothing in it is shared with another composition (the local stack of a test, a Lambda container).
 */
export class Composition {
  readonly #parts = new Map<Factory<unknown>, unknown>();

  constructor(readonly config: ServiceConfig) {}

  /** Uses `part` wherever `factory`'s part is asked for (the local stack's stand-ins). */
  provide<T>(factory: Factory<T>, part: T): this {
    this.#parts.set(factory, part);
    return this;
  }

  /** The part of `factory`: the one provided or made before, or the one `make` makes now. */
  once<T>(factory: Factory<T>, make: () => T): T {
    if (!this.#parts.has(factory)) this.#parts.set(factory, make());
    return this.#parts.get(factory) as T;
  }
}

/**
 * A function's Lambda entry, the Lambda composition root: the handler `make` makes from a Composition
 * of the function's environment, on the first invocation, kept for the container's life. Made then,
 * rather than when the module loads, because the local stack imports the same module with no Lambda
 * environment, and makes the handler from its own parts through the module's makeHandler.
 */
export function lambdaHandler<H extends (...args: never[]) => unknown>(make: (composition: Composition) => H): (...args: Parameters<H>) => ReturnType<H> {
  let handler: H | undefined;
  return (...args) => (handler ??= make(new Composition(getConfig())))(...args) as ReturnType<H>;
}

// ---- clients ------------------------------------------------------------------------------------

export function dynamoClient(c: Composition): DynamoDBDocumentClient {
  return c.once(dynamoClient, () => createDocumentClient(createDynamoClient({ region: c.config.AWS_REGION, endpoint: c.config.DYNAMODB_ENDPOINT })));
}

export function sqsClient(c: Composition): SQSClient {
  return c.once(sqsClient, () => createSqsClient({ region: c.config.AWS_REGION, endpoint: c.config.SQS_ENDPOINT }));
}

/** EventBridge's PutEvents: the SDK client on AWS; the local stack provides its in-process bus. */
export function eventBridgeClient(c: Composition): PutEventsClient {
  return c.once(eventBridgeClient, () => {
    // Falling through to AWS from the local stack would fail later with a confusing credentials error.
    if (isLocal(c.config)) throw new Error('No EventBridge on the local stack: its composition (bin/local/composition.ts) provides the in-process bus.');
    return tracedClient(new EventBridgeClient({ region: c.config.AWS_REGION }));
  });
}

// ---- stores and services ------------------------------------------------------------------------

// One factory per store, so a function's bundle holds the stores it uses and no other.

export function identityStore(c: Composition): IdentityStore {
  return c.once(identityStore, () => new IdentityStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function productStore(c: Composition): ProductStore {
  return c.once(productStore, () => new ProductStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function requestStore(c: Composition): RequestStore {
  return c.once(requestStore, () => new RequestStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function catalogStore(c: Composition): CatalogStore {
  return c.once(catalogStore, () => new CatalogStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function productPackageStore(c: Composition): ProductPackageStore {
  return c.once(productPackageStore, () => new ProductPackageStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function policyStore(c: Composition): PolicyStore {
  return c.once(policyStore, () => new PolicyStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function policyWaiverStore(c: Composition): PolicyWaiverStore {
  return c.once(policyWaiverStore, () => new PolicyWaiverStore(dynamoClient(c), c.config.TABLE_NAME));
}

/** The products a change record affects (the stream router's). */
export function changeTargetResolver(c: Composition): ChangeTargetResolver {
  return c.once(changeTargetResolver, () => new ChangeTargetResolver(dynamoClient(c), c.config.TABLE_NAME));
}

export function webhookStore(c: Composition): WebhookStore {
  return c.once(webhookStore, () => new WebhookStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function apiKeyStore(c: Composition): ApiKeyStore {
  return c.once(apiKeyStore, () => new ApiKeyStore(dynamoClient(c), c.config.TABLE_NAME));
}

/**
 * The API functions' authentication, throttling and public origin (shared/http/api-handler.ts): failed
 * authentications per source address unless AUTH_FAILURES_PER_MINUTE is 0, per-key throttling unless
 * RATE_LIMIT_PER_SECOND is 0, the per-dataspace quota unless DATASPACE_RATE_LIMIT_PER_SECOND is 0.
 */
export function apiDependencies(c: Composition): ApiFunctionDeps {
  return c.once(apiDependencies, () => {
    const { config } = c;
    const doc = dynamoClient(c);
    const clock = () => Date.now();
    const { RATE_LIMIT_PER_SECOND: perSecond, RATE_LIMIT_BURST: burst, AUTH_FAILURES_PER_MINUTE: perMinute } = config;
    return {
      authenticator: storeAuthenticator(identityStore(c)),
      ...(perSecond === 0 ? {} : { rateLimiter: gcraRateLimiter(new RateLimitStore(doc, config.TABLE_NAME), { perSecond, burst }, clock) }),
      ...(config.DATASPACE_RATE_LIMIT_PER_SECOND === 0
        ? {}
        : {
            dataspaceRateLimiter: gcraRateLimiter(
              new RateLimitStore(doc, config.TABLE_NAME, DATASPACE_RATE_SPACE),
              { perSecond: config.DATASPACE_RATE_LIMIT_PER_SECOND, burst: config.DATASPACE_RATE_LIMIT_BURST },
              clock,
            ),
          }),
      ...(perMinute === 0
        ? {}
        : {
            authFailureLimiter: gcraRateLimiter(
              new RateLimitStore(doc, config.TABLE_NAME, AUTH_FAILURE_SPACE),
              authFailureLimit(perMinute, config.AUTH_FAILURES_BURST),
              clock,
            ),
          }),
      ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    };
  });
}

const now = () => new Date();

export function productService(c: Composition): ProductService {
  return c.once(productService, () => new ProductService({ products: productStore(c), identity: identityStore(c), now, newUuid: randomUUID }));
}

export function requestService(c: Composition): RequestService {
  return c.once(
    requestService,
    () => new RequestService({ requests: requestStore(c), identity: identityStore(c), products: productService(c), now, newUuid: randomUUID }),
  );
}

export function catalogService(c: Composition): CatalogService {
  return c.once(
    catalogService,
    () =>
      new CatalogService({
        catalog: catalogStore(c),
        productPackages: productPackageStore(c),
        advisorySources: new AdvisorySources(dynamoClient(c), c.config.TABLE_NAME),
        now,
        newUuid: randomUUID,
      }),
  );
}

export function productPackageService(c: Composition): ProductPackageService {
  return c.once(
    productPackageService,
    () =>
      new ProductPackageService({
        catalog: catalogStore(c),
        productPackages: productPackageStore(c),
        products: productService(c),
        now,
        newUuid: randomUUID,
      }),
  );
}

export function evaluationService(c: Composition): EvaluationService {
  return c.once(
    evaluationService,
    () => new EvaluationService({ policy: policyStore(c), catalog: catalogStore(c), now, newUuid: randomUUID, baseUrl: eventBaseUrl(c.config) }),
  );
}

export function evaluationQueue(c: Composition): EvaluationQueue {
  return c.once(
    evaluationQueue,
    () => new SqsEvaluationQueue(sqsClient(c), requiredSetting(c.config.EVALUATION_QUEUE_URL, 'EVALUATION_QUEUE_URL'), c.config.EVALUATION_DELAY_SECONDS),
  );
}

export function advisoryStore(c: Composition): AdvisoryStore {
  return c.once(advisoryStore, () => new AdvisoryStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function licenseReresolutionQueue(c: Composition): LicenseReresolutionQueue {
  return c.once(
    licenseReresolutionQueue,
    () => new SqsLicenseReresolutionQueue(sqsClient(c), requiredSetting(c.config.LICENSE_RERESOLUTION_QUEUE_URL, 'LICENSE_RERESOLUTION_QUEUE_URL')),
  );
}

/** A license mapping applied to the packages of its dataspace (the license re-resolver's work). */
export function licenseMappingApplier(c: Composition): MappingApplier {
  return (dataspace, mapping) => applyMapping(dynamoClient(c), c.config.TABLE_NAME, dataspace, mapping);
}

export function advisoryLinkQueue(c: Composition): AdvisoryLinkQueue {
  return c.once(advisoryLinkQueue, () => new SqsAdvisoryLinkQueue(sqsClient(c), requiredSetting(c.config.ADVISORY_LINKS_QUEUE_URL, 'ADVISORY_LINKS_QUEUE_URL')));
}

export function evaluationFanOut(c: Composition): EvaluationFanOut {
  return c.once(
    evaluationFanOut,
    () => new EvaluationFanOut({ products: productStore(c), queue: evaluationQueue(c), pageSize: c.config.EVALUATION_FAN_OUT_PAGE_SIZE }),
  );
}

export function violationDayStore(c: Composition): ViolationDayStore {
  return c.once(violationDayStore, () => new ViolationDayStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function portfolioService(c: Composition): PortfolioService {
  return c.once(portfolioService, () => new PortfolioService({ products: productStore(c), violationDays: violationDayStore(c), now }));
}

export function policyService(c: Composition): PolicyService {
  return c.once(
    policyService,
    () =>
      new PolicyService({
        policy: policyStore(c),
        catalog: catalogService(c),
        products: productService(c),
        evaluation: evaluationService(c),
        // The queue is made when first used, so a function without the queue still starts.
        queue: { send: (requests) => evaluationQueue(c).send(requests) },
        now,
      }),
  );
}

export function policyWaiverService(c: Composition): PolicyWaiverService {
  return c.once(
    policyWaiverService,
    () => new PolicyWaiverService({ waivers: policyWaiverStore(c), catalog: catalogStore(c), products: productService(c), now, newUuid: randomUUID }),
  );
}

export function deliveryQueue(c: Composition): SqsDeliveryQueue {
  return c.once(deliveryQueue, () => new SqsDeliveryQueue(sqsClient(c), requiredSetting(c.config.WEBHOOK_DELIVERIES_QUEUE_URL, 'WEBHOOK_DELIVERIES_QUEUE_URL')));
}

export function webhookService(c: Composition): WebhookService {
  return c.once(webhookService, () => {
    const { config } = c;
    return new WebhookService({
      store: webhookStore(c),
      queue: { send: (messages) => deliveryQueue(c).send(messages) },
      schedule: {
        baseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
        maxDelaySeconds: config.WEBHOOK_RETRY_MAX_DELAY_SECONDS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
      },
      allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
      now,
      random: Math.random,
    });
  });
}

export function apiKeyService(c: Composition): ApiKeyService {
  return c.once(apiKeyService, () => new ApiKeyService({ store: apiKeyStore(c), users: identityStore(c), now, newUuid: randomUUID }));
}

export function auditStore(c: Composition): AuditStore {
  return c.once(auditStore, () => new AuditStore(dynamoClient(c), c.config.TABLE_NAME));
}

export function auditService(c: Composition): AuditService {
  return c.once(auditService, () => new AuditService({ store: auditStore(c) }));
}

export function userService(c: Composition): UserService {
  return c.once(userService, () => new UserService({ identity: identityStore(c), requests: requestStore(c) }));
}

export function eventPublisher(c: Composition): EventPublisher {
  return c.once(eventPublisher, () => new EventBridgePublisher(c.config.EVENT_BUS_NAME, eventBridgeClient(c)));
}

/** A setting only some functions need, checked when the part that needs it is made. */
export function requiredSetting(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// ---- every part at once -------------------------------------------------------------------------

/** Every part, by the name a function's makeHandler takes it under. */
export interface Dependencies {
  readonly config: ServiceConfig;
  readonly requestStore: RequestStore;
  readonly changeTargetResolver: ChangeTargetResolver;
  readonly api: ApiFunctionDeps;
  readonly products: ProductService;
  readonly requests: RequestService;
  readonly catalog: CatalogService;
  readonly productPackages: ProductPackageService;
  readonly evaluation: EvaluationService;
  readonly evaluationQueue: EvaluationQueue;
  readonly evaluationFanOut: EvaluationFanOut;
  readonly advisoryLinkQueue: AdvisoryLinkQueue;
  readonly licenseReresolutionQueue: LicenseReresolutionQueue;
  readonly licenseMappingApplier: MappingApplier;
  readonly policy: PolicyService;
  readonly portfolio: PortfolioService;
  readonly violationDays: ViolationDayStore;
  readonly waivers: PolicyWaiverService;
  readonly waiverStore: PolicyWaiverStore;
  readonly deliveryQueue: SqsDeliveryQueue;
  readonly webhooks: WebhookService;
  readonly apiKeys: ApiKeyService;
  readonly audit: AuditService;
  readonly users: UserService;
  readonly publisher: EventPublisher;
}

/** The makers of every part of `c` (for the local stack, which makes every function). */
export function dependencyFactories(c: Composition): { readonly [K in keyof Dependencies]: () => Dependencies[K] } {
  return {
    config: () => c.config,
    requestStore: () => requestStore(c),
    changeTargetResolver: () => changeTargetResolver(c),
    api: () => apiDependencies(c),
    products: () => productService(c),
    requests: () => requestService(c),
    catalog: () => catalogService(c),
    productPackages: () => productPackageService(c),
    evaluation: () => evaluationService(c),
    evaluationQueue: () => evaluationQueue(c),
    evaluationFanOut: () => evaluationFanOut(c),
    advisoryLinkQueue: () => advisoryLinkQueue(c),
    licenseReresolutionQueue: () => licenseReresolutionQueue(c),
    licenseMappingApplier: () => licenseMappingApplier(c),
    policy: () => policyService(c),
    portfolio: () => portfolioService(c),
    violationDays: () => violationDayStore(c),
    waivers: () => policyWaiverService(c),
    waiverStore: () => policyWaiverStore(c),
    deliveryQueue: () => deliveryQueue(c),
    webhooks: () => webhookService(c),
    apiKeys: () => apiKeyService(c),
    audit: () => auditService(c),
    users: () => userService(c),
    publisher: () => eventPublisher(c),
  };
}

/**
 * An object whose properties are made by their factories when first read: destructuring one
 * (`({ api, products }) => ...`) makes just those parts.
 */
export function lazy<T extends object>(factories: { readonly [K in keyof T]: () => T[K] }): T {
  const object = {} as T;
  for (const key of Object.keys(factories) as (keyof T & string)[]) {
    Object.defineProperty(object, key, { enumerable: true, get: factories[key] });
  }
  return object;
}
