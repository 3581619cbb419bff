/** The catalog the policy rules read, and what products hold: packages and vulnerability analyses. */
import type * as z from 'zod';
import { DetailErrorSchema, FieldErrorsSchema, pageQuery, paginated } from '../schemas/common.ts';
import {
  AnalysisBodies,
  AnalysisListQuery,
  AnalysisSchema,
  LicenseBodies,
  LicenseListQuery,
  LicenseSchema,
  ReferenceLicenseListQuery,
  ReferenceLicenseSchema,
  PackageBodies,
  PackageListQuery,
  PackageSchema,
  ProductPackageBodies,
  ProductPackageListQuery,
  ProductPackageSchema,
  UsagePolicyBodies,
  UsagePolicySchema,
  VulnerabilityBodies,
  VulnerabilitySchema,
} from '../schemas/catalog.ts';
import type { FunctionName } from '../functions.ts';
import { forbidden, invalid, invalidPage, notFound, unauthorized, type Route, type RouteResponse } from './route.ts';

interface CrudSpec {
  /** Path segment and list name: usage_policies */
  readonly collection: string;
  /** Operation id stem: usage_policy */
  readonly one: string;
  readonly label: string;
  readonly fn: FunctionName;
  readonly schema: z.ZodType;
  readonly bodies: { create: z.ZodType; update?: z.ZodType; patch?: z.ZodType };
  readonly query?: z.ZodObject;
  readonly writers: string;
  /** Other catalog objects name it: deleting or renaming it while they do is a 409. */
  readonly referable?: boolean;
}

/** The routes of one collection: list, create, retrieve, (update, partial update,) destroy. */
function crud(spec: CrudSpec): Route[] {
  const list = `/api/v2/${spec.collection}/`;
  const detail = `/api/v2/${spec.collection}/{uuid}/`;
  const missing = notFound(spec.label);
  const inUse: Record<number, RouteResponse> = spec.referable ? { 409: { description: `Still used by other catalog objects (the detail counts them); nothing changed`, schema: DetailErrorSchema } } : {};
  const page = paginated(spec.schema, `${spec.schema.meta()?.id as string}Page`);
  const routes: Route[] = [
    {
      method: 'GET',
      path: list,
      function: spec.fn,
      operationId: `list_${spec.collection}`,
      summary: `The ${spec.label}s the caller can see`,
      auth: 'api-key',
      listName: spec.collection,
      query: spec.query ?? pageQuery({}),
      responses: { 200: { description: `A page of ${spec.label}s`, schema: page }, 400: invalid, 401: unauthorized, 404: invalidPage },
    },
    {
      method: 'POST',
      path: list,
      function: spec.fn,
      operationId: `create_${spec.one}`,
      summary: `Create a ${spec.label} (${spec.writers})`,
      auth: 'api-key',
      body: spec.bodies.create,
      responses: { 201: { description: `The ${spec.label}`, schema: spec.schema }, 400: invalid, 401: unauthorized, 403: forbidden },
    },
    {
      method: 'GET',
      path: detail,
      function: spec.fn,
      operationId: `retrieve_${spec.one}`,
      summary: `One ${spec.label}`,
      auth: 'api-key',
      responses: { 200: { description: `The ${spec.label}`, schema: spec.schema }, 401: unauthorized, 404: missing },
    },
  ];
  if (spec.bodies.update && spec.bodies.patch) {
    for (const [method, body, prefix] of [
      ['PUT', spec.bodies.update, 'update'],
      ['PATCH', spec.bodies.patch, 'partial_update'],
    ] as const) {
      routes.push({
        method,
        path: detail,
        function: spec.fn,
        operationId: `${prefix}_${spec.one}`,
        summary: `${method === 'PUT' ? 'Replace' : 'Change some fields of'} a ${spec.label} (${spec.writers})`,
        auth: 'api-key',
        body,
        responses: { 200: { description: `The ${spec.label}`, schema: spec.schema }, 400: invalid, 401: unauthorized, 403: forbidden, 404: missing, ...inUse },
      });
    }
  }
  routes.push({
    method: 'DELETE',
    path: detail,
    function: spec.fn,
    operationId: `destroy_${spec.one}`,
    summary: `Delete a ${spec.label} (${spec.writers})`,
    auth: 'api-key',
    responses: { 204: { description: 'Deleted' }, 400: { description: 'Still in use', schema: FieldErrorsSchema }, 401: unauthorized, 403: forbidden, 404: missing, ...inUse },
  });
  return routes;
}

const SUPERUSERS = 'superusers of the dataspace';
const CHANGERS = 'needs change_product on the product';

export const CATALOG_ROUTES: readonly Route[] = [
  ...crud({ collection: 'usage_policies', one: 'usage_policy', label: 'usage policy', fn: 'catalog', schema: UsagePolicySchema, bodies: UsagePolicyBodies, writers: SUPERUSERS, referable: true }),
  ...crud({
    collection: 'licenses',
    one: 'license',
    label: 'license',
    fn: 'catalog',
    schema: LicenseSchema,
    bodies: LicenseBodies,
    query: LicenseListQuery,
    writers: SUPERUSERS,
    referable: true,
  }),
  {
    method: 'GET',
    path: '/api/v2/reference_licenses/',
    // Served from the data the function ships: the catalog function has it already, to adopt licenses.
    function: 'catalog',
    operationId: 'list_reference_licenses',
    summary:
      'The reference license library (the ScanCode LicenseDB), the same for every dataspace; a license of the dataspace with the same key shadows its reference in license expressions',
    auth: 'api-key',
    listName: 'reference_licenses',
    query: ReferenceLicenseListQuery,
    responses: {
      200: { description: 'A page of reference licenses, in key order', schema: paginated(ReferenceLicenseSchema, 'ReferenceLicensePage') },
      400: { description: 'Invalid filter: errors by parameter', schema: FieldErrorsSchema },
      401: unauthorized,
      404: invalidPage,
    },
  },
  {
    method: 'GET',
    path: '/api/v2/reference_licenses/{key}/',
    function: 'catalog',
    operationId: 'retrieve_reference_license',
    summary: 'One reference license, by key in any letter case',
    auth: 'api-key',
    responses: { 200: { description: 'The reference license', schema: ReferenceLicenseSchema }, 401: unauthorized, 404: notFound('reference license') },
  },
  ...crud({ collection: 'packages', one: 'package', label: 'package', fn: 'catalog', schema: PackageSchema, bodies: PackageBodies, query: PackageListQuery, writers: SUPERUSERS }),
  ...crud({ collection: 'vulnerabilities', one: 'vulnerability', label: 'vulnerability', fn: 'catalog', schema: VulnerabilitySchema, bodies: VulnerabilityBodies, writers: SUPERUSERS }),
  ...crud({
    collection: 'product_packages',
    one: 'product_package',
    label: 'product package',
    fn: 'product-packages',
    schema: ProductPackageSchema,
    bodies: ProductPackageBodies,
    query: ProductPackageListQuery,
    writers: CHANGERS,
  }),
  ...crud({
    collection: 'vulnerability_analyses',
    one: 'vulnerability_analysis',
    label: 'vulnerability analysis',
    fn: 'product-packages',
    schema: AnalysisSchema,
    bodies: AnalysisBodies,
    query: AnalysisListQuery,
    writers: CHANGERS,
  }),
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/packages/',
    function: 'product-packages',
    operationId: 'list_product_package_packages',
    summary: "A product's packages, by purl (needs view_product)",
    auth: 'api-key',
    query: pageQuery({}),
    responses: { 200: { description: 'A page of packages', schema: paginated(PackageSchema, 'ProductPackagesPage') }, 401: unauthorized, 404: notFound('product') },
  },
];
