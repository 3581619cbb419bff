/** zod schemas of the requests, request templates and comments endpoints: validation at the edge, and OpenAPI. */
import * as z from 'zod';
import { COMMENTS_SHOWN, CONTENT_TYPES, INPUT_TYPES, REQUEST_STATUSES } from '../domain/request.ts';
import { pageQuery, searchQuery, shown, writableObject } from './common.ts';
import { SEARCH_FIELDS } from '../domain/search.ts';
import { TOO_DEEP, UNPAIRED_SURROGATE, jsonObject, jsonProblem } from './json-input.ts';

const noControl = (value: string) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value);

const title = z
  .string()
  .trim()
  .min(1, 'This field may not be blank.')
  .max(255, 'Ensure this field has no more than 255 characters.')
  .refine(noControl, 'Control characters are not allowed.');
/** An optional reference (username, label, URL or uuid): "" and null both mean none. In NFC, as names are stored. */
const reference = z
  .string()
  .normalize('NFC')
  .trim()
  .max(255, 'Ensure this field has no more than 255 characters.')
  .nullable()
  .transform((value) => (value === '' ? null : value));

const NOT_AN_OBJECT = 'Must be a JSON object, or a string holding one.';

/** Answers by question label: an object, or a string holding one (checked as a body is: depth, surrogates). */
const serializedData = z
  .union([jsonObject(NOT_AN_OBJECT), z.string()], { error: NOT_AN_OBJECT })
  .transform((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (value.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: NOT_AN_OBJECT });
      return z.NEVER;
    }
    const problem = jsonProblem(parsed);
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', message: problem === TOO_DEEP ? `The JSON in this string is ${TOO_DEEP}.` : `The JSON in this string has ${UNPAIRED_SURROGATE.replace(/^a string holds /, '')}.` });
      return z.NEVER;
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    ctx.addIssue({ code: 'custom', message: NOT_AN_OBJECT });
    return z.NEVER;
  });

const FIELDS = {
  title,
  request_template: z.string().trim().min(1, 'This field may not be blank.').max(300, 'Ensure this field has no more than 300 characters.'),
  status: z.enum(REQUEST_STATUSES, {
    error: (issue) => (issue.input === undefined ? 'This field is required.' : `"${shown(issue.input)}" is not a valid choice.`),
  }),
  assignee: reference,
  priority: reference,
  product_context: reference,
  content_object: reference,
  // Bounded so a page of 100 requests stays well inside Lambda's 6 MB response.
  notes: z
    .string()
    .max(10_000, 'Ensure this field has no more than 10000 characters.')
    .refine(noControl, 'Control characters are not allowed (tabs and line breaks are).'),
  serialized_data: serializedData.refine(
    (data) => Buffer.byteLength(JSON.stringify(data)) <= 20_000,
    'Ensure the answers take no more than 20000 bytes as JSON.',
  ),
  is_private: z.boolean(),
  cc_emails: z.array(z.email({ error: (issue) => `Enter a valid email address: "${shown(issue.input)}".` })).max(50),
};

/** Fields of the request representation a client may send back; they are ignored. */
const READ_ONLY = [
  'uuid',
  'api_url',
  'request_template_name',
  'requester',
  'content_type',
  'last_modified_by',
  'created_date',
  'last_modified_date',
  'comment_count',
  'comments_url',
  'comments',
] as const;

const withReadOnly = <T extends z.ZodRawShape>(shape: T) => writableObject(shape, READ_ONLY);

export const RequestCreateSchema = withReadOnly({
  title: FIELDS.title,
  request_template: FIELDS.request_template,
  status: FIELDS.status.default('open'),
  assignee: FIELDS.assignee.default(null),
  priority: FIELDS.priority.default(null),
  product_context: FIELDS.product_context.default(null),
  content_object: FIELDS.content_object.default(null),
  notes: FIELDS.notes.default(''),
  serialized_data: FIELDS.serialized_data.default({}),
  is_private: FIELDS.is_private.default(false),
  cc_emails: FIELDS.cc_emails.default([]),
}).meta({ id: 'RequestCreate' });

/** PUT: every writable field must be sent (null where a field allows none). */
export const RequestUpdateSchema = withReadOnly(FIELDS).meta({ id: 'RequestUpdate' });

export const RequestPatchSchema = withReadOnly({
  title: FIELDS.title.optional(),
  request_template: FIELDS.request_template.optional(),
  status: FIELDS.status.optional(),
  assignee: FIELDS.assignee.optional(),
  priority: FIELDS.priority.optional(),
  product_context: FIELDS.product_context.optional(),
  content_object: FIELDS.content_object.optional(),
  notes: FIELDS.notes.optional(),
  serialized_data: FIELDS.serialized_data.optional(),
  is_private: FIELDS.is_private.optional(),
  cc_emails: FIELDS.cc_emails.optional(),
}).meta({ id: 'RequestPatch' });

export type RequestWrite = Partial<z.output<typeof RequestUpdateSchema>>;

export const CommentSchema = z
  .object({ uuid: z.uuid(), username: z.string(), text: z.string(), created_date: z.iso.datetime({ offset: true }) })
  .meta({ id: 'Comment' });

export const RequestSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    title: z.string(),
    request_template: z.url(),
    request_template_name: z.string(),
    status: z.enum(REQUEST_STATUSES),
    priority: z.string().nullable(),
    assignee: z.string().nullable(),
    requester: z.string(),
    product_context: z.url().nullable(),
    content_object: z.url().nullable(),
    content_type: z.enum(CONTENT_TYPES),
    notes: z.string(),
    serialized_data: z.record(z.string(), z.union([z.string(), z.boolean()])),
    is_private: z.boolean(),
    cc_emails: z.array(z.string()),
    last_modified_by: z.string(),
    created_date: z.iso.datetime({ offset: true }),
    last_modified_date: z.iso.datetime({ offset: true }),
    comment_count: z.int().min(0).describe('How many comments the request has'),
    comments_url: z.url().describe('All its comments, oldest first, a page at a time'),
    comments: z.array(CommentSchema).describe(`Its latest comments (at most ${COMMENTS_SHOWN}), oldest first`),
  })
  .meta({ id: 'Request' });

/** A request as the list shows it: its own fields, without its comments. */
export const RequestListItemSchema = RequestSchema.omit({ comment_count: true, comments_url: true, comments: true });

export const RequestListQuery = pageQuery({
  ordering: z
    .string()
    .optional()
    .describe('title, request_template, status, priority, assignee, requester, created_date or last_modified_date; - for descending'),
  request_template: z.string().optional().describe('Template name or uuid'),
  status: z.string().optional(),
  requester: z.string().optional().describe('Username'),
  assignee: z.string().optional().describe('Username'),
  priority: z.string().optional().describe('Priority label'),
  content_type: z.string().optional(),
  last_modified_date: z.string().optional().describe('On or after: YYYY-MM-DD or an ISO 8601 timestamp'),
  search: searchQuery(SEARCH_FIELDS.requests),
});

export const CommentCreateSchema = z
  .object({
    text: z
      .string()
      .refine((value) => value.trim().length > 0, 'This field may not be blank.')
      .refine((value) => value.length <= 10_000, 'Ensure this field has no more than 10000 characters.')
      .refine(noControl, 'Control characters are not allowed (tabs and line breaks are).'),
  })
  .catchall(z.never({ error: 'Unknown field.' }))
  .meta({ id: 'CommentCreate' });

export const QuestionSchema = z.object({
  label: z.string(),
  input_type: z.enum(INPUT_TYPES),
  is_required: z.boolean(),
});

export const RequestTemplateSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    name: z.string(),
    description: z.string(),
    content_type: z.enum(CONTENT_TYPES),
    is_active: z.boolean(),
    questions: z.array(QuestionSchema),
    form_data_layout: z
      .record(z.string(), z.string())
      .describe('One key per question label, in question order: the type of answer serialized_data expects'),
  })
  .meta({ id: 'RequestTemplate' });
