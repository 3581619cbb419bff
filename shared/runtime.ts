/**
 * The wiring of a function's dependencies, built once per cold start from the configuration:
 * clients, stores and the authenticator. Handlers import what they need from here.
 */
import { getDocumentClient } from './aws/clients.ts';
import { getConfig } from './config.ts';
import { storeAuthenticator } from './http/authenticator.ts';
import type { ApiFunctionDeps } from './http/api-handler.ts';
import { IdentityStore } from './store/identity-store.ts';

let deps: ApiFunctionDeps | undefined;

export function apiDeps(): ApiFunctionDeps {
  if (!deps) {
    const config = getConfig();
    const identity = new IdentityStore(getDocumentClient(config), config.TABLE_NAME);
    deps = { authenticator: storeAuthenticator(identity) };
  }
  return deps;
}
