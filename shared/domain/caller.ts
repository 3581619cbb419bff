/** The authenticated caller, as every API handler receives it. */
export interface Caller {
  readonly username: string;
  readonly email: string;
  readonly dataspace: string;
  readonly isSuperuser: boolean;
  /** Names of the caller's groups, all in the caller's dataspace. */
  readonly groups: readonly string[];
}
