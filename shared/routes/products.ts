/** Products and their object permissions. */
import * as z from 'zod';
import { DetailErrorSchema, FieldErrorsSchema, paginated } from '../schemas/common.ts';
import {
  PermissionChangeSchema,
  PermissionListingSchema,
  ProductCreateSchema,
  ProductListQuery,
  ProductPatchSchema,
  ProductSchema,
  ProductUpdateSchema,
  StatusSchema,
} from '../schemas/product.ts';
import { forbidden, invalid, invalidPage, notFound as notFoundOf, unauthorized, type Route } from './route.ts';

const notFound = notFoundOf('product');
const ProductPageSchema = paginated(ProductSchema, 'ProductPage');
const WrappedErrorsSchema = z.object({ errors: FieldErrorsSchema }).meta({ id: 'WrappedFieldErrors' });

export const PRODUCT_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/products/',
    function: 'products',
    operationId: 'list_products',
    summary: 'Products the caller can see, by name and version; filters name, version and gate (exact), search (name, version)',
    auth: 'api-key',
    listName: 'products',
    query: ProductListQuery,
    responses: {
      200: { description: 'A page of products', schema: ProductPageSchema },
      400: { description: 'A search with too many or too long terms, or a gate that is none of fail, warn, pass, none', schema: FieldErrorsSchema },
      401: unauthorized,
      404: invalidPage,
    },
  },
  {
    method: 'POST',
    path: '/api/v2/products/',
    function: 'products',
    operationId: 'create_product',
    summary: 'Create a product; its creator is granted view, change and delete',
    auth: 'api-key',
    body: ProductCreateSchema,
    responses: { 201: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'retrieve_product',
    summary: 'One product (needs view_product)',
    auth: 'api-key',
    responses: { 200: { description: 'The product', schema: ProductSchema }, 401: unauthorized, 404: notFound },
  },
  {
    method: 'PUT',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'update_product',
    summary: 'Replace name and version (needs change_product)',
    auth: 'api-key',
    body: ProductUpdateSchema,
    responses: { 200: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'PATCH',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'partial_update_product',
    summary: 'Change some fields (needs change_product)',
    auth: 'api-key',
    body: ProductPatchSchema,
    responses: { 200: { description: 'The product', schema: ProductSchema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'DELETE',
    path: '/api/v2/products/{uuid}/',
    function: 'products',
    operationId: 'destroy_product',
    summary: 'Delete a product (needs delete_product)',
    auth: 'api-key',
    responses: { 204: { description: 'Deleted' }, 401: unauthorized, 403: forbidden, 404: notFound },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'list_product_permissions',
    summary: "Users and groups holding permissions on the product (superusers and the product's creator)",
    auth: 'api-key',
    responses: {
      200: { description: 'Users and groups with their permissions', schema: PermissionListingSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
  {
    method: 'POST',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'assign_product_permissions',
    summary: 'Grant permissions to one user or one group (all or nothing)',
    auth: 'api-key',
    body: PermissionChangeSchema,
    wrapErrors: true,
    responses: {
      200: { description: '{"status": "permissions assigned"}', schema: StatusSchema },
      400: { description: 'Invalid body, errors by field inside `errors`', schema: WrappedErrorsSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
  {
    method: 'DELETE',
    path: '/api/v2/products/{uuid}/permissions/',
    function: 'product-permissions',
    operationId: 'remove_product_permissions',
    summary: 'Revoke permissions from one user or one group (all or nothing); same body as POST',
    auth: 'api-key',
    body: PermissionChangeSchema,
    wrapErrors: true,
    responses: {
      200: { description: '{"status": "permissions removed"}', schema: StatusSchema },
      400: { description: 'Invalid body, errors by field inside `errors`', schema: WrappedErrorsSchema },
      401: unauthorized,
      403: forbidden,
      404: notFound,
    },
  },
] as const satisfies readonly Route[];
