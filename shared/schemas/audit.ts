/** zod schemas of the audit trail's endpoint: validation at the edge, and OpenAPI. */
import * as z from 'zod';
import { AUDIT_ACTIONS, AUDITED_OBJECT_TYPES } from '../domain/audit.ts';
import { shown } from './common.ts';

const dateTime = (meaning: string) =>
  z.iso.datetime({ offset: true, local: false, error: 'Enter a valid ISO 8601 date/time with a time zone.' }).optional().describe(meaning);

export const AuditListQuery = z.object({
  object: z
    .string()
    .max(150, 'Ensure this field has no more than 150 characters.')
    .regex(/^[^#\u0000-\u001f]+$/, 'Enter an object uuid, or the dataspace name for the policy rules.')
    .optional()
    .describe("An object's uuid (a product's also gives its permissions' changes); the dataspace's name: its policy rules' changes"),
  object_type: z
    .enum(AUDITED_OBJECT_TYPES, { error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices.` })
    .optional()
    .describe('One kind of object: product, product_permission, policy_waiver, …'),
  user: z.string().max(150, 'Ensure this field has no more than 150 characters.').optional().describe('Exact username: the changes that user made'),
  action: z
    .enum(AUDIT_ACTIONS, { error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices.` })
    .optional()
    .describe('create, update or delete'),
  since: dateTime('Records at or after this time'),
  until: dateTime('Records at or before this time'),
  cursor: z.string().max(400).optional().describe("The next or previous link's cursor (opaque)"),
  page_size: z.string().optional().describe('Records per page: 10 by default, at most 100'),
});

export const AuditRecordSchema = z
  .object({
    uuid: z.uuid(),
    date: z.iso.datetime({ offset: true }).describe('When the change was made (the table stream saw it), to the second'),
    dataspace: z.string(),
    action: z.enum(AUDIT_ACTIONS),
    object_type: z.enum(AUDITED_OBJECT_TYPES),
    object: z.string().describe("The object's uuid (a permission: its product's; the rule configuration: the dataspace's name)"),
    object_repr: z.string(),
    user: z.string().nullable().describe('Who made the change; null for the service itself (an SBOM import from an upload, a webhook disabled after failures, a migration)'),
    api_key: z.string().nullable().describe('The name of the API key the change was made with'),
    changes: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])).describe('{field: [old, new]}; never a secret'),
  })
  .meta({ id: 'AuditRecord' });

export const AuditPageSchema = z
  .object({
    next: z.url().nullable().describe('Older records'),
    previous: z.url().nullable().describe('Newer records'),
    results: z.array(AuditRecordSchema),
  })
  .meta({ id: 'AuditRecordPage' });
