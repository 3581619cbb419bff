/** The catalog the policy rules read, and what products hold: packages and vulnerability analyses. */
import type * as z from 'zod';
import { DetailErrorSchema, FieldErrorsSchema, pageQuery, paginated } from '../schemas/common.ts';
import {
  AdvisorySourceListQuery,
  AdvisorySourceSchema,
  AnalysisBodies,
  AnalysisListQuery,
  AnalysisSchema,
  LicenseBodies,
  LicenseDetailSchema,
  LicenseListQuery,
  LicenseMappingBodies,
  LicenseMappingSchema,
  LicenseSchema,
  ReferenceLicenseListQuery,
  ReferenceLicenseSchema,
  ReferenceLicenseDetailSchema,
  PackageBodies,
  PackageListQuery,
  PackageSchema,
  ProductInventoryPackageSchema,
  ProductInventoryQuery,
  ProductPackageBodies,
  ProductPackageListQuery,
  ProductPackageSchema,
  UsagePolicyBodies,
  UsagePolicySchema,
  VulnerabilityBodies,
  VulnerabilityListQuery,
  VulnerabilitySchema,
} from '../schemas/catalog.ts';
import type { FunctionName } from '../functions.ts';
import { forbidden, invalid, invalidPage, notFound, unauthorized, type Route } from './route.ts';

interface CrudSpec<C extends string, O extends string, S extends z.ZodType, B extends CrudBodies, Q extends z.ZodObject> {
  /** Path segment and list name: usage_policies */
  readonly collection: C;
  /** Operation id stem: usage_policy */
  readonly one: O;
  readonly label: string;
  readonly fn: FunctionName;
  readonly schema: S;
  /** The answer of one object (retrieve and writes), when it holds more than a list's entries. */
  readonly detailSchema?: z.ZodType;
  readonly bodies: B;
  readonly query: Q;
  readonly writers: string;
  /** Other catalog objects name it: deleting or renaming it while they do is a 409. */
  readonly referable?: boolean;
}

/** The bodies of create, PUT and PATCH. */
interface CrudBodies {
  readonly create: z.ZodType;
  readonly update: z.ZodType;
  readonly patch: z.ZodType;
}

/**
 * The routes of one collection: list, create, retrieve, update, partial update, destroy. Generic so
 * that each route keeps its literal operationId and path and the collection's own schemas.
 */
function crud<const C extends string, const O extends string, S extends z.ZodType, B extends CrudBodies, Q extends z.ZodObject>(spec: CrudSpec<C, O, S, B, Q>) {
  const list = `/api/v2/${spec.collection}/` as const;
  const detail = `/api/v2/${spec.collection}/{uuid}/` as const;
  const missing = notFound(spec.label);
  const inUse = { description: `Still used by other catalog objects (the detail counts them); nothing changed`, schema: DetailErrorSchema };
  /** A write's responses, with the 409 that only a referable collection answers. */
  const orInUse = <T extends object>(responses: T) => (spec.referable ? { ...responses, 409: inUse } : responses);
  const page = paginated(spec.schema, `${spec.schema.meta()?.id as string}Page`);
  const one = { description: `The ${spec.label}`, schema: spec.detailSchema ?? spec.schema };
  // Annotated: a property read through the type parameter would be typed as its constraint (z.ZodType).
  const create: B['create'] = spec.bodies.create;
  const update: B['update'] = spec.bodies.update;
  const patch: B['patch'] = spec.bodies.patch;
  const write = <const M extends 'PUT' | 'PATCH', const P extends string, W extends z.ZodType>(method: M, prefix: P, body: W) =>
    ({
      method,
      path: detail,
      function: spec.fn,
      operationId: `${prefix}_${spec.one}`,
      summary: `${method === 'PUT' ? 'Replace' : 'Change some fields of'} a ${spec.label} (${spec.writers})`,
      auth: 'api-key',
      body,
      responses: orInUse({ 200: one, 400: invalid, 401: unauthorized, 403: forbidden, 404: missing }),
    }) as const;
  return [
    {
      method: 'GET',
      path: list,
      function: spec.fn,
      operationId: `list_${spec.collection}`,
      summary: `The ${spec.label}s the caller can see`,
      auth: 'api-key',
      listName: spec.collection,
      query: spec.query,
      responses: { 200: { description: `A page of ${spec.label}s`, schema: page }, 400: invalid, 401: unauthorized, 404: invalidPage },
    },
    {
      method: 'POST',
      path: list,
      function: spec.fn,
      operationId: `create_${spec.one}`,
      summary: `Create a ${spec.label} (${spec.writers})`,
      auth: 'api-key',
      body: create,
      responses: { 201: one, 400: invalid, 401: unauthorized, 403: forbidden },
    },
    {
      method: 'GET',
      path: detail,
      function: spec.fn,
      operationId: `retrieve_${spec.one}`,
      summary: `One ${spec.label}`,
      auth: 'api-key',
      responses: { 200: one, 401: unauthorized, 404: missing },
    },
    write('PUT', 'update', update),
    write('PATCH', 'partial_update', patch),
    {
      method: 'DELETE',
      path: detail,
      function: spec.fn,
      operationId: `destroy_${spec.one}`,
      summary: `Delete a ${spec.label} (${spec.writers})`,
      auth: 'api-key',
      responses: orInUse({ 204: { description: 'Deleted' }, 400: { description: 'Still in use', schema: FieldErrorsSchema }, 401: unauthorized, 403: forbidden, 404: missing }),
    },
  ] as const satisfies readonly Route[];
}

const SUPERUSERS = 'superusers of the dataspace';
const CHANGERS = 'needs change_product on the product';

export const CATALOG_ROUTES = [
  ...crud({ collection: 'usage_policies', one: 'usage_policy', label: 'usage policy', fn: 'catalog', schema: UsagePolicySchema, bodies: UsagePolicyBodies, query: pageQuery({}), writers: SUPERUSERS, referable: true }),
  ...crud({
    collection: 'licenses',
    one: 'license',
    label: 'license',
    fn: 'catalog',
    schema: LicenseSchema,
    detailSchema: LicenseDetailSchema,
    bodies: LicenseBodies,
    query: LicenseListQuery,
    writers: SUPERUSERS,
    referable: true,
  }),
  ...crud({
    collection: 'license_mappings',
    one: 'license_mapping',
    label: 'license mapping',
    fn: 'catalog',
    schema: LicenseMappingSchema,
    bodies: LicenseMappingBodies,
    query: pageQuery({}),
    writers: SUPERUSERS,
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
    responses: { 200: { description: 'The reference license, with its full text', schema: ReferenceLicenseDetailSchema }, 401: unauthorized, 404: notFound('reference license') },
  },
  ...crud({ collection: 'packages', one: 'package', label: 'package', fn: 'catalog', schema: PackageSchema, bodies: PackageBodies, query: PackageListQuery, writers: SUPERUSERS }),
  {
    method: 'GET',
    path: '/api/v2/advisory_sources/',
    function: 'catalog',
    operationId: 'list_advisory_sources',
    summary:
      'The published advisories (OSV) this deployment holds, by ecosystem: how many records, when last loaded and synced. The same for every dataspace; loaded by `npm run admin -- vulnerabilities load` and the scheduled sync',
    auth: 'api-key',
    listName: 'advisory_sources',
    query: AdvisorySourceListQuery,
    responses: {
      200: { description: 'A page of ecosystems, by name', schema: paginated(AdvisorySourceSchema, 'AdvisorySourcePage') },
      401: unauthorized,
      404: invalidPage,
    },
  },
  ...crud({ collection: 'vulnerabilities', one: 'vulnerability', label: 'vulnerability', fn: 'catalog', schema: VulnerabilitySchema, bodies: VulnerabilityBodies, query: VulnerabilityListQuery, writers: SUPERUSERS }),
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
    summary: "A product's packages, by purl (needs view_product), filtered by search, license, usage_policy, has_unknown_license and vulnerable",
    auth: 'api-key',
    query: ProductInventoryQuery,
    responses: { 200: { description: 'A page of packages', schema: paginated(ProductInventoryPackageSchema, 'ProductPackagesPage') }, 400: invalid, 401: unauthorized, 404: notFound('product') },
  },
] as const satisfies readonly Route[];
