/**
 * The set-up of an HTTP-level test file: its own table, the real handlers behind the local gateway,
 * and a team of users with keys; the gateway stops after the file. Call it at the top of the file:
 * hooks run in the order they are registered, so the file's own `beforeAll` (more data) runs after it.
 */
import { afterAll, beforeAll } from 'vitest';
import { useTestTable } from './environment.ts';
import { aTeam, type Team } from './factories.ts';
import { startTestGateway } from './gateway.ts';
import { tableSnapshot } from './snapshot.ts';

export type TeamSpec = Parameters<typeof aTeam>[1];

export function useHttpTeam(spec: TeamSpec) {
  let env: Awaited<ReturnType<typeof useTestTable>> | undefined;
  let api: Awaited<ReturnType<typeof startTestGateway>> | undefined;
  let team: Team | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useHttpTeam: used before its beforeAll ran');
    return value;
  };

  beforeAll(async () => {
    env = await useTestTable();
    api = await startTestGateway();
    team = await aTeam(env, spec);
  });
  afterAll(async () => {
    await api?.stop();
  });

  return {
    get env() {
      return ready(env);
    },
    get api() {
      return ready(api);
    },
    get team() {
      return ready(team);
    },
    /** A call as `username` (no Authorization header when undefined), with a JSON body when one is given. */
    call: (username: string | undefined, method: string, path: string, body?: unknown) =>
      ready(api).call(method, path, { ...(username !== undefined ? { token: ready(team).keys[username] } : {}), ...(body !== undefined ? { body } : {}) }),
    /** The table's digest, to show that a refused write changed nothing. */
    snapshot: () => tableSnapshot(ready(env)),
  };
}
