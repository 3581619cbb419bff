/** zod schemas of the caller, user and request priority endpoints: validation at the edge, and OpenAPI. */
import * as z from 'zod';
import { API_KEY_SCOPES } from '../domain/api-keys.ts';
import { pageQuery, paginated, searchQuery } from './common.ts';

export const CurrentUserSchema = z
  .object({
    username: z.string(),
    email: z.string(),
    dataspace: z.string(),
    is_superuser: z.boolean(),
    groups: z.array(z.string()).describe("The caller's groups, by name"),
    api_key: z
      .object({ name: z.string().nullable(), scope: z.enum(API_KEY_SCOPES) })
      .optional()
      .describe('The API key of this request'),
  })
  .meta({ id: 'CurrentUser' });

export const UserSchema = z
  .object({ username: z.string(), email: z.string(), dataspace: z.string(), is_superuser: z.boolean() })
  .meta({ id: 'User' });

export const UserListQuery = pageQuery({
  username: z.string().optional().describe('Exact username'),
  search: searchQuery(['username', 'email']),
});

export const UserPageSchema = paginated(UserSchema, 'UserPage');

export const RequestPrioritySchema = z.object({ label: z.string() }).meta({ id: 'RequestPriority' });
export const RequestPriorityPageSchema = paginated(RequestPrioritySchema, 'RequestPriorityPage');
