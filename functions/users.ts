/** /api/v2/users/me/, /api/v2/users/ and /api/v2/request_priorities/: who is calling, and what request forms choose from. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, userService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, users }: Pick<Dependencies, 'api' | 'users'>) =>
  apiFunction(api, {
    retrieve_current_user: async ({ caller }) => ({ statusCode: 200, body: users.me(caller) }),
    list_users: async (r) => ({ statusCode: 200, body: await users.list(r.caller, r.query, r.url) }),
    list_request_priorities: async (r) => ({ statusCode: 200, body: await users.priorities(r.caller, r.query, r.url) }),
  });

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), users: userService(c) }));
