/**
 * The wiring of a function's dependencies, built once per cold start from the configuration:
 * clients, stores, services and the authenticator. Handlers import what they need from here.
 */
import { randomUUID } from 'node:crypto';
import { getDocumentClient } from './aws/clients.ts';
import { eventBaseUrl, getAuthFailureConfig, getConfig, getRateLimitConfig } from './config.ts';
import { authFailureLimit } from './http/auth-failures.ts';
import { storeAuthenticator } from './http/authenticator.ts';
import { gcraRateLimiter } from './http/rate-limit.ts';
import { AUTH_FAILURE_SPACE, RateLimitStore } from './store/rate-limit-store.ts';
import type { ApiFunctionDeps } from './http/api-handler.ts';
import { IdentityStore } from './store/identity-store.ts';
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
import { PolicyService } from './services/policy.ts';
import { SqsEvaluationQueue, type EvaluationQueue } from './aws/evaluation-queue.ts';
import { getSqsClient } from './aws/clients.ts';
import { ChangeTargetResolver } from './store/change-targets.ts';
import { WebhookStore } from './store/webhook-store.ts';
import { WebhookService } from './services/webhooks.ts';
import { SqsDeliveryQueue } from './aws/delivery-queue.ts';

let stores:
  | {
      identity: IdentityStore;
      products: ProductStore;
      requests: RequestStore;
      catalog: CatalogStore;
      productPackages: ProductPackageStore;
      policy: PolicyStore;
      targets: ChangeTargetResolver;
    }
  | undefined;

export function getStores() {
  if (!stores) {
    const config = getConfig();
    const doc = getDocumentClient(config);
    stores = {
      identity: new IdentityStore(doc, config.TABLE_NAME),
      products: new ProductStore(doc, config.TABLE_NAME),
      requests: new RequestStore(doc, config.TABLE_NAME),
      catalog: new CatalogStore(doc, config.TABLE_NAME),
      productPackages: new ProductPackageStore(doc, config.TABLE_NAME),
      policy: new PolicyStore(doc, config.TABLE_NAME),
      targets: new ChangeTargetResolver(doc, config.TABLE_NAME),
    };
  }
  return stores;
}

let deps: ApiFunctionDeps | undefined;

export function apiDeps(): ApiFunctionDeps {
  const { PUBLIC_BASE_URL: publicBaseUrl } = getConfig();
  deps ??= {
    authenticator: storeAuthenticator(getStores().identity),
    ...keyRateLimiter(),
    ...authFailureLimiter(),
    ...(publicBaseUrl ? { publicBaseUrl } : {}),
  };
  return deps;
}

/** Failed authentications per source address, unless AUTH_FAILURES_PER_MINUTE is 0. */
function authFailureLimiter(): Pick<ApiFunctionDeps, 'authFailureLimiter'> {
  const { AUTH_FAILURES_PER_MINUTE: perMinute, AUTH_FAILURES_BURST: burst } = getAuthFailureConfig();
  if (perMinute === 0) return {};
  const config = getConfig();
  const store = new RateLimitStore(getDocumentClient(config), config.TABLE_NAME, AUTH_FAILURE_SPACE);
  return { authFailureLimiter: gcraRateLimiter(store, authFailureLimit(perMinute, burst), () => Date.now()) };
}

/** Per-key throttling, unless RATE_LIMIT_PER_SECOND is 0. */
function keyRateLimiter(): Pick<ApiFunctionDeps, 'rateLimiter'> {
  const { RATE_LIMIT_PER_SECOND: perSecond, RATE_LIMIT_BURST: burst } = getRateLimitConfig();
  if (perSecond === 0) return {};
  const config = getConfig();
  const store = new RateLimitStore(getDocumentClient(config), config.TABLE_NAME);
  return { rateLimiter: gcraRateLimiter(store, { perSecond, burst }, () => Date.now()) };
}

let productService: ProductService | undefined;

export function getProductService(): ProductService {
  const { identity, products } = getStores();
  productService ??= new ProductService({ products, identity, now: () => new Date(), newUuid: randomUUID });
  return productService;
}

let requestService: RequestService | undefined;

export function getRequestService(): RequestService {
  const { identity, requests } = getStores();
  requestService ??= new RequestService({
    requests,
    identity,
    products: getProductService(),
    now: () => new Date(),
    newUuid: randomUUID,
  });
  return requestService;
}

let catalogService: CatalogService | undefined;

export function getCatalogService(): CatalogService {
  const { catalog, productPackages } = getStores();
  catalogService ??= new CatalogService({ catalog, productPackages, now: () => new Date(), newUuid: randomUUID });
  return catalogService;
}

let productPackageService: ProductPackageService | undefined;

export function getProductPackageService(): ProductPackageService {
  const { catalog, productPackages } = getStores();
  productPackageService ??= new ProductPackageService({
    catalog,
    productPackages,
    products: getProductService(),
    now: () => new Date(),
    newUuid: randomUUID,
  });
  return productPackageService;
}

let evaluationService: EvaluationService | undefined;

export function getEvaluationService(): EvaluationService {
  const { policy, catalog } = getStores();
  evaluationService ??= new EvaluationService({
    policy,
    catalog,
    now: () => new Date(),
    newUuid: randomUUID,
    baseUrl: eventBaseUrl(getConfig()),
  });
  return evaluationService;
}

let evaluationQueue: EvaluationQueue | undefined;

export function getEvaluationQueue(): EvaluationQueue {
  if (!evaluationQueue) {
    const config = getConfig();
    if (!config.EVALUATION_QUEUE_URL) throw new Error('EVALUATION_QUEUE_URL is not set');
    evaluationQueue = new SqsEvaluationQueue(getSqsClient(config), config.EVALUATION_QUEUE_URL, config.EVALUATION_DELAY_SECONDS);
  }
  return evaluationQueue;
}

let policyService: PolicyService | undefined;

export function getPolicyService(): PolicyService {
  const { policy } = getStores();
  policyService ??= new PolicyService({
    policy,
    products: getProductService(),
    evaluation: getEvaluationService(),
    // The queue is resolved when first used, so a function without the queue still starts.
    queue: { send: (requests) => getEvaluationQueue().send(requests) },
    now: () => new Date(),
  });
  return policyService;
}

export function getChangeTargets(): ChangeTargetResolver {
  return getStores().targets;
}

let deliveryQueue: SqsDeliveryQueue | undefined;

export function getDeliveryQueue(): SqsDeliveryQueue {
  if (!deliveryQueue) {
    const config = getConfig();
    if (!config.WEBHOOK_DELIVERIES_QUEUE_URL) throw new Error('WEBHOOK_DELIVERIES_QUEUE_URL is not set');
    deliveryQueue = new SqsDeliveryQueue(getSqsClient(config), config.WEBHOOK_DELIVERIES_QUEUE_URL);
  }
  return deliveryQueue;
}

let webhookService: WebhookService | undefined;

export function getWebhookService(): WebhookService {
  if (!webhookService) {
    const config = getConfig();
    webhookService = new WebhookService({
      store: new WebhookStore(getDocumentClient(config), config.TABLE_NAME),
      queue: { send: (messages) => getDeliveryQueue().send(messages) },
      schedule: {
        baseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
        maxDelaySeconds: config.WEBHOOK_RETRY_MAX_DELAY_SECONDS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
      },
      allowPrivateTargets: config.ALLOW_PRIVATE_WEBHOOK_TARGETS,
      now: () => new Date(),
      random: Math.random,
    });
  }
  return webhookService;
}

export function getRequestStore(): RequestStore {
  return getStores().requests;
}
