/**
 * Every key of the single table is built here, and only here.
 *
 * Entities and the access patterns they serve (docs/data-model.md has the full table):
 *   Dataspace    PK=DATASPACES            SK=DS#<name>          list dataspaces; get one
 *   User         PK=USER#<username>       SK=USER               get a user (auth, admin)
 *                GSI1PK=DS#<ds>#USERS     GSI1SK=USER#<username> list the users of a dataspace
 *   Group        PK=DS#<ds>               SK=GROUP#<name>       get a group; list groups of a dataspace
 *   Membership   PK=GROUP#<ds>#<name>     SK=MEMBER#<username>  list the members of a group
 *   API key      PK=APIKEY#<keyId>        SK=APIKEY             authenticate a request (one GetItem)
 *
 * Usernames are global, as in DejaCode (one user belongs to exactly one dataspace); group names are
 * unique within their dataspace. Names never contain '#': the load file and the services reject it.
 */
export type Key = { PK: string; SK: string };

export const keys = {
  dataspace: (name: string): Key => ({ PK: 'DATASPACES', SK: `DS#${name}` }),
  dataspacesPartition: 'DATASPACES',

  user: (username: string): Key => ({ PK: `USER#${username}`, SK: 'USER' }),
  userInDataspace: (dataspace: string, username: string) => ({
    GSI1PK: `DS#${dataspace}#USERS`,
    GSI1SK: `USER#${username}`,
  }),
  usersOfDataspace: (dataspace: string) => ({ index: 'GSI1' as const, GSI1PK: `DS#${dataspace}#USERS` }),

  group: (dataspace: string, name: string): Key => ({ PK: `DS#${dataspace}`, SK: `GROUP#${name}` }),
  groupsOfDataspace: (dataspace: string) => ({ PK: `DS#${dataspace}`, skPrefix: 'GROUP#' }),

  membership: (dataspace: string, group: string, username: string): Key => ({
    PK: `GROUP#${dataspace}#${group}`,
    SK: `MEMBER#${username}`,
  }),
  membersOfGroup: (dataspace: string, group: string) => ({ PK: `GROUP#${dataspace}#${group}`, skPrefix: 'MEMBER#' }),

  apiKey: (keyId: string): Key => ({ PK: `APIKEY#${keyId}`, SK: 'APIKEY' }),
} as const;

/** The entity type stored on every item, so stream consumers can tell records apart without parsing keys. */
export type EntityType = 'Dataspace' | 'User' | 'Group' | 'Membership' | 'ApiKey';
