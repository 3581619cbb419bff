/**
 * The wiring of a function's dependencies, built once per cold start from the configuration:
 * clients, stores, services and the authenticator. Handlers import what they need from here.
 */
import { randomUUID } from 'node:crypto';
import { getDocumentClient } from './aws/clients.ts';
import { getConfig } from './config.ts';
import { storeAuthenticator } from './http/authenticator.ts';
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

let stores:
  | { identity: IdentityStore; products: ProductStore; requests: RequestStore; catalog: CatalogStore; productPackages: ProductPackageStore }
  | undefined;

function getStores() {
  if (!stores) {
    const config = getConfig();
    const doc = getDocumentClient(config);
    stores = {
      identity: new IdentityStore(doc, config.TABLE_NAME),
      products: new ProductStore(doc, config.TABLE_NAME),
      requests: new RequestStore(doc, config.TABLE_NAME),
      catalog: new CatalogStore(doc, config.TABLE_NAME),
      productPackages: new ProductPackageStore(doc, config.TABLE_NAME),
    };
  }
  return stores;
}

let deps: ApiFunctionDeps | undefined;

export function apiDeps(): ApiFunctionDeps {
  deps ??= { authenticator: storeAuthenticator(getStores().identity) };
  return deps;
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
