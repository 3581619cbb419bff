/**
 * Turns an API key into the Caller, with DRF's TokenAuthentication messages. Keys are checked on
 * every request, with no cache: a replaced or revoked key, an expired one or a deactivated user stops
 * working at once.
 */
import type { AuthenticatedCaller } from '../domain/caller.ts';
import { AuthenticationError } from '../domain/errors.ts';
import type { IdentityStore } from '../store/identity-store.ts';

export interface Authenticator {
  authenticate(token: string): Promise<AuthenticatedCaller>;
}

export const KEY_EXPIRED = 'Token has expired.';

export function storeAuthenticator(store: Pick<IdentityStore, 'authenticate'>, clock: () => Date = () => new Date()): Authenticator {
  return {
    async authenticate(token) {
      const result = await store.authenticate(token, clock());
      switch (result.outcome) {
        case 'invalid':
          throw new AuthenticationError('Invalid token.');
        case 'expired':
          throw new AuthenticationError(KEY_EXPIRED);
        case 'inactive':
          throw new AuthenticationError('User inactive or deleted.');
        case 'authenticated': {
          const { username, email, dataspace, isSuperuser, groups } = result.user;
          return { username, email, dataspace, isSuperuser, groups, apiKey: result.key };
        }
      }
    },
  };
}
