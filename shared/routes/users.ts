/** The caller, the users of their dataspace and its request priorities (what request forms choose from). */
import { FieldErrorsSchema, pageQuery } from '../schemas/common.ts';
import { CurrentUserSchema, RequestPriorityPageSchema, UserListQuery, UserPageSchema } from '../schemas/users.ts';
import { invalidPage, unauthorized, type Route } from './route.ts';

export const USER_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/users/me/',
    function: 'users',
    operationId: 'retrieve_current_user',
    summary: 'The caller: username, dataspace, whether a superuser, groups, and the API key in use',
    auth: 'api-key',
    responses: { 200: { description: 'The caller', schema: CurrentUserSchema }, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/users/',
    function: 'users',
    operationId: 'list_users',
    summary: "The active users of the caller's dataspace, by username; filters username, search",
    auth: 'api-key',
    listName: 'users',
    query: UserListQuery,
    responses: {
      200: { description: 'A page of users', schema: UserPageSchema },
      400: { description: 'A search with too many or too long terms', schema: FieldErrorsSchema },
      401: unauthorized,
      404: invalidPage,
    },
  },
  {
    method: 'GET',
    path: '/api/v2/request_priorities/',
    function: 'users',
    operationId: 'list_request_priorities',
    summary: "The dataspace's request priorities, by label",
    auth: 'api-key',
    listName: 'request_priorities',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of priorities', schema: RequestPriorityPageSchema }, 401: unauthorized, 404: invalidPage },
  },
] as const satisfies readonly Route[];
