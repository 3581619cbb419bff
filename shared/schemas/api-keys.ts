/** zod schemas of the API keys endpoints: validation at the edge, and OpenAPI. */
import * as z from 'zod';
import { API_KEY_SCOPES, MAX_API_KEY_NAME_LENGTH } from '../domain/api-keys.ts';
import { pageQuery, shown, uniqueName, writableObject } from './common.ts';

/** Unique per user: NFC, nothing invisible, no control characters (␁ separates it from the username in keys). */
const name = uniqueName(MAX_API_KEY_NAME_LENGTH).refine((value) => value.length > 0, 'This field may not be blank.');

const scope = z.enum(API_KEY_SCOPES, {
  error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${shown(issue.input)}" is not a valid choice.`),
});

/** Fields of the representation a client may send back, ignored. */
const READ_ONLY = ['uuid', 'api_url', 'created_date', 'last_used_at', 'secret'] as const;

export const ApiKeyCreateSchema = writableObject(
  {
    name: name.describe(`Unique among the user's keys; at most ${MAX_API_KEY_NAME_LENGTH} characters`),
    scope: scope.describe('read: GET and HEAD only (every other method is 403); write: whatever the user may do'),
    expires_at: z.iso
      .datetime({ offset: true, error: 'Enter a valid ISO 8601 date/time with a time zone.' })
      .nullable()
      .default(null)
      .describe('When the key stops working (401 from then on); in the future. Absent or null: never'),
    user: z
      .string({ error: (issue) => (issue.input === undefined ? 'This field is required.' : 'Not a valid string.') })
      .max(150, 'Ensure this field has no more than 150 characters.')
      .optional()
      .describe("Superusers: the username (of their dataspace) to make the key for; by default the caller's own"),
  },
  READ_ONLY,
).meta({ id: 'ApiKeyCreate' });

export const ApiKeySchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    name: z.string(),
    scope: z.enum(API_KEY_SCOPES),
    user: z.string().describe('The username of the key'),
    expires_at: z.iso.datetime({ offset: true }).nullable(),
    created_date: z.iso.datetime({ offset: true }),
    last_used_at: z.iso.datetime({ offset: true }).nullable().describe('The last request made with it, to the minute; null: never used'),
    secret: z.string().optional().describe('The key itself, for `Authorization: Token <secret>`: only in the answer to its creation, never again'),
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyListQuery = pageQuery({
  user: z
    .string()
    .max(150, 'Ensure this field has no more than 150 characters.')
    .optional()
    .describe("Exact username: that user's keys (superusers; anyone else sees only their own)"),
});
