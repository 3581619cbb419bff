/** Test data factories: valid defaults, overridden per test. */
import { generateApiKey } from '../../shared/auth/api-key.ts';
import type { User } from '../../shared/domain/identity.ts';
import { NO_PACKAGE_DETAILS, type Package } from '../../shared/domain/catalog.ts';
import { randomUUID } from 'node:crypto';
import type { LoadFile, LoadTarget } from '../../shared/admin/load-file.ts';
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

/** A catalog package of acme, as stored: an npm package by its purl's parts, without a license. */
export function aPackage(overrides: Partial<Package> & Pick<Package, 'name' | 'version'>): Package {
  const type = overrides.type ?? 'npm';
  const namespace = overrides.namespace ?? '';
  return {
    uuid: randomUUID(),
    dataspace: 'acme',
    rev: 0,
    type,
    namespace,
    qualifiers: {},
    subpath: '',
    purl: `pkg:${type}/${namespace ? `${namespace}/` : ''}${overrides.name}@${overrides.version}`,
    filename: '',
    downloadUrl: '',
    ...NO_PACKAGE_DETAILS,
    licenseExpression: '',
    licenseKeys: [],
    countedLicenseKeys: [],
    declaredLicenseExpression: '',
    unknownLicenses: [],
    usagePolicy: null,
    vulnerabilities: {},
    ...overrides,
  };
}

/** Loads a file through the same path as `npm run admin -- load`, failing loudly on a problem. */
export async function load(target: LoadTarget, file: Partial<Record<keyof LoadFile, unknown>>) {
  const validation = await validateLoadFile(file, target);
  if (!validation.ok) throw new Error(`test load file invalid: ${validation.problems.join('; ')}`);
  return applyLoadFile(validation.file, target, { now: new Date(), generateKey: generateApiKey, newUuid: randomUUID });
}

/** A dataspace with a user holding a known key; returns the key. */
export async function aUserWithKey(store: LoadTarget, user: Partial<User> = {}): Promise<{ user: User; apiKey: string }> {
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

export interface Team {
  /** API key by username. */
  readonly keys: Record<string, string>;
}

/**
 * Loads dataspaces with users and groups, every user with a fresh key:
 * `aTeam(store, { acme: { users: { root: { superuser: true }, alice: {} , carol: { groups: ['legal'] } } } })`.
 */
export async function aTeam(
  store: LoadTarget,
  spec: Record<string, { users: Record<string, { superuser?: boolean; groups?: string[]; active?: boolean }> }>,
): Promise<Team> {
  const keys: Record<string, string> = {};
  const file = { dataspaces: [] as unknown[], groups: [] as unknown[], users: [] as unknown[] };
  for (const [dataspace, { users }] of Object.entries(spec)) {
    file.dataspaces.push({ name: dataspace });
    const groups = new Set(Object.values(users).flatMap((user) => user.groups ?? []));
    for (const group of groups) file.groups.push({ name: group, dataspace });
    for (const [username, user] of Object.entries(users)) {
      keys[username] = generateApiKey();
      file.users.push({
        username,
        email: `${username}@example.com`,
        dataspace,
        is_superuser: user.superuser ?? false,
        is_active: user.active ?? true,
        groups: user.groups ?? [],
        api_key: keys[username],
      });
    }
  }
  await load(store, file);
  return { keys };
}
