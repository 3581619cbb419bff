/** Test data factories: valid defaults, overridden per test. */
import { generateApiKey } from '../../shared/auth/api-key.ts';
import type { User } from '../../shared/domain/identity.ts';
import type { IdentityStore } from '../../shared/store/identity-store.ts';
import type { LoadFile } from '../../shared/admin/load-file.ts';
import { applyLoadFile, validateLoadFile } from '../../shared/admin/load-file.ts';

let sequence = 0;

export function aUser(overrides: Partial<User> = {}): User {
  sequence += 1;
  return {
    username: `user${sequence}`,
    email: `user${sequence}@example.com`,
    dataspace: 'acme',
    isSuperuser: false,
    isActive: true,
    groups: [],
    ...overrides,
  };
}

/** Loads a file through the same path as `npm run admin -- load`, failing loudly on a problem. */
export async function load(store: IdentityStore, file: Partial<Record<keyof LoadFile, unknown>>) {
  const validation = await validateLoadFile(file, store);
  if (!validation.ok) throw new Error(`test load file invalid: ${validation.problems.join('; ')}`);
  return applyLoadFile(validation.file, store, new Date(), generateApiKey);
}

/** A dataspace with a user holding a known key; returns the key. */
export async function aUserWithKey(store: IdentityStore, user: Partial<User> = {}): Promise<{ user: User; apiKey: string }> {
  const full = aUser(user);
  const apiKey = generateApiKey();
  await load(store, {
    dataspaces: [{ name: full.dataspace }],
    groups: full.groups.map((name) => ({ name, dataspace: full.dataspace })),
    users: [
      {
        username: full.username,
        email: full.email,
        dataspace: full.dataspace,
        is_superuser: full.isSuperuser,
        is_active: full.isActive,
        groups: [...full.groups],
        api_key: apiKey,
      },
    ],
  });
  return { user: full, apiKey };
}
