/**
 * The set-up of an HTTP-level test file: its own table, the real handlers behind the local gateway,
 * and a team of users with keys; the gateway stops after the file. Call it at the top of the file:
 * hooks run in the order they are registered, so the file's own `beforeAll` (more data) runs after it.
 */
import { afterAll, beforeAll } from 'vitest';
import { useTestTable } from './environment.ts';
import { aTeam, type Team } from './factories.ts';
import { startTestGateway } from './gateway.ts';
import { watchTable, type TableChange, type TableWatch } from './table-changes.ts';

export type TeamSpec = Parameters<typeof aTeam>[1];

export function useHttpTeam(spec: TeamSpec) {
  let env: Awaited<ReturnType<typeof useTestTable>> | undefined;
  let api: Awaited<ReturnType<typeof startTestGateway>> | undefined;
  let team: Team | undefined;
  let watch: TableWatch | undefined;
  /** Every write to the table since the team was made, as the table's stream tells them. */
  const written: TableChange[] = [];
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useHttpTeam: used before its beforeAll ran');
    return value;
  };

  beforeAll(async () => {
    env = await useTestTable();
    api = await startTestGateway();
    team = await aTeam(env, spec);
    watch = await watchTable(env);
  });
  afterAll(async () => {
    watch?.stop();
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
    /**
     * Where the table is, to show that a refused write changed nothing: two snapshots are equal when
     * nothing was written between them (read from the table's stream, not a Scan of every item).
     */
    snapshot: async () => {
      written.push(...(await ready(watch).changes()));
      const last = written.at(-1);
      return `${written.length} writes since the set-up${last ? `, the last ${last.event} ${last.key}: ${JSON.stringify(last.after ?? last.before)}` : ''}`;
    },
    /** The writes since the last call (or the set-up), in stream order. */
    changes: () => ready(watch).changes().then((changes) => (written.push(...changes), changes)),
  };
}
