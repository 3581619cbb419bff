/** zod schemas of the products and product-permissions endpoints: validation at the edge, and OpenAPI. */
import * as z from 'zod';
import { PRODUCT_PERMISSIONS, isProductPermission } from '../domain/product.ts';
import { pageQuery, searchQuery, shown, uniqueName, writableObject } from './common.ts';
import { SEARCH_FIELDS } from '../domain/search.ts';
import { GATES, GATE_FILTERS } from '../domain/portfolio.ts';

/**
 * Name and version are unique together in a dataspace: NFC, nothing invisible, no control characters
 * (they are separators in keys).
 */
const name = uniqueName(70).refine((value) => value.length > 0, 'This field may not be blank.');
const version = uniqueName(50);

/** Fields of the product representation that a client may send back and that are ignored. */
const READ_ONLY = ['uuid', 'api_url', 'created_by', 'dataspace', 'created_date', 'last_modified_date', 'gate', 'user_permissions'] as const;

const writable = <T extends z.ZodRawShape>(shape: T) => writableObject(shape, READ_ONLY);

export const ProductCreateSchema = writable({ name, version: version.default('') }).meta({ id: 'ProductCreate' });
export const ProductUpdateSchema = writable({ name, version }).meta({ id: 'ProductUpdate' });
export const ProductPatchSchema = writable({ name: name.optional(), version: version.optional() }).meta({ id: 'ProductPatch' });

export const ProductSchema = z
  .object({
    uuid: z.uuid(),
    api_url: z.url(),
    name: z.string(),
    version: z.string(),
    created_by: z.string().describe('Username of the creator'),
    dataspace: z.string(),
    created_date: z.iso.datetime({ offset: true }),
    last_modified_date: z.iso.datetime({ offset: true }),
    gate: z.enum(GATES).nullable().describe("The policy status of the product's last evaluation (GET .../policy_status/), written with it; null until it is first evaluated"),
    user_permissions: z
      .array(z.enum(PRODUCT_PERMISSIONS))
      .describe("The caller's object permissions on the product, directly or through a group (a superuser holds all three): what a client may offer the caller to do"),
  })
  .meta({ id: 'Product' });

export const ProductListQuery = pageQuery({
  name: z.string().optional().describe('Exact name'),
  version: z.string().optional().describe('Exact version'),
  search: searchQuery(SEARCH_FIELDS.products),
  gate: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || (GATE_FILTERS as readonly string[]).includes(value), {
      error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices.`,
    })
    .describe('Exact: fail, warn, pass, or none (never evaluated)'),
});

// A type guard: the body's type holds ProductPermission, not any string.
const codename = z.string().refine(isProductPermission, {
  error: (issue) => `"${shown(issue.input)}" is not a valid permission; choose from ${PRODUCT_PERMISSIONS.join(', ')}.`,
});

export const PermissionChangeSchema = z
  .object({
    user: z.string().normalize('NFC').min(1, 'This field may not be blank.').max(150, 'Ensure this field has no more than 150 characters.').optional(),
    group: z.string().normalize('NFC').min(1, 'This field may not be blank.').max(150, 'Ensure this field has no more than 150 characters.').optional(),
    permissions: z
      .array(codename)
      .min(1, 'This list may not be empty.'),
  })
  .catchall(z.never({ error: 'Unknown field.' }))
  // Like DRF, the whole-body rules run only once every field is valid.
  .refine((body) => !(body.user !== undefined && body.group !== undefined), {
    message: "Only one of 'user' or 'group' can be provided, not both.",
    when: (payload) => payload.issues.length === 0,
  })
  .refine((body) => body.user !== undefined || body.group !== undefined, {
    message: "Either 'user' or 'group' must be provided.",
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ id: 'PermissionChange' });

const permissionList = z.array(z.enum(PRODUCT_PERMISSIONS));

export const PermissionListingSchema = z
  .object({
    users: z.array(z.object({ dataspace: z.string(), username: z.string(), object_permissions: permissionList })),
    groups: z.array(z.object({ name: z.string(), object_permissions: permissionList })),
  })
  .meta({ id: 'ProductPermissions' });

export const StatusSchema = z.object({ status: z.string() }).meta({ id: 'Status' });
