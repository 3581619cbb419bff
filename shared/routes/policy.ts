/** The policy rules engine: configuration, violations, status, evaluations on demand. */
import * as z from 'zod';
import { DetailErrorSchema, FieldErrorsSchema, pageQuery, paginated } from '../schemas/common.ts';
import {
  BulkEvaluationSchema,
  EvaluateQuery,
  PolicyConfigSchema,
  PolicyRuleSchema,
  PolicyStatusSchema,
  PolicyViolationSchema,
  ViolationPackageSchema,
} from '../schemas/policy.ts';
import { forbidden, invalid, notFound, unauthorized, type Route } from './route.ts';

const rules = { description: 'Every rule type with its effective configuration', schema: z.array(PolicyRuleSchema) };
const configErrors = { description: 'Errors by key path, e.g. vulnerability_stale.parameters.max_days', schema: FieldErrorsSchema };
const queued = { description: '{"status": "evaluation queued"}', schema: z.object({ status: z.string(), products: z.int().optional() }) };

export const POLICY_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/policy_rules/',
    function: 'policy',
    operationId: 'list_policy_rules',
    summary: "The dataspace's policy rules and their configuration (superusers)",
    auth: 'api-key',
    listName: 'policy_rules',
    responses: { 200: rules, 401: unauthorized, 403: forbidden },
  },
  {
    method: 'PUT',
    path: '/api/v2/policy_rules/',
    function: 'policy',
    operationId: 'update_policy_rules',
    summary: 'Replace the rule configuration (rule type → options); re-evaluates every product of the dataspace',
    auth: 'api-key',
    body: PolicyConfigSchema,
    responses: { 200: rules, 400: configErrors, 401: unauthorized, 403: forbidden },
  },
  {
    method: 'PATCH',
    path: '/api/v2/policy_rules/',
    function: 'policy',
    operationId: 'partial_update_policy_rules',
    summary: 'Merge rule options into the configuration; re-evaluates every product of the dataspace',
    auth: 'api-key',
    body: PolicyConfigSchema,
    responses: { 200: rules, 400: configErrors, 401: unauthorized, 403: forbidden },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/policy_violations/',
    function: 'policy',
    operationId: 'list_product_policy_violations',
    summary: "The product's active violations, errors first (needs view_product)",
    auth: 'api-key',
    responses: { 200: { description: 'Active violations', schema: z.array(PolicyViolationSchema) }, 401: unauthorized, 404: notFound('product') },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/policy_violations/{rule_type}/packages/',
    function: 'policy',
    operationId: 'list_policy_violation_packages',
    summary: 'The packages behind an active violation, with the license keys or vulnerability ids that put each there',
    auth: 'api-key',
    query: pageQuery({}),
    responses: {
      200: { description: 'A page of packages', schema: paginated(ViolationPackageSchema, 'ViolationPackagePage') },
      401: unauthorized,
      404: { description: 'No such product, or no active violation of that rule', schema: DetailErrorSchema },
    },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/policy_status/',
    function: 'policy',
    operationId: 'product_policy_status',
    summary: 'fail (an error violation), warn (only warnings) or pass: a release gate in one call',
    auth: 'api-key',
    responses: { 200: { description: 'The status', schema: PolicyStatusSchema }, 401: unauthorized, 404: notFound('product') },
  },
  {
    method: 'POST',
    path: '/api/v2/products/{uuid}/evaluate_policy_rules/',
    function: 'policy',
    operationId: 'evaluate_product_policy_rules',
    summary: 'Re-evaluate the product (change_product or superuser): 202 queued, or ?wait=true for the violations',
    auth: 'api-key',
    query: EvaluateQuery,
    responses: {
      200: { description: 'With ?wait=true: the active violations', schema: z.array(PolicyViolationSchema) },
      202: queued,
      401: unauthorized,
      403: forbidden,
      404: notFound('product'),
    },
  },
  {
    method: 'POST',
    path: '/api/v2/products/evaluate_policy_rules/',
    function: 'policy',
    operationId: 'evaluate_products_policy_rules',
    summary: 'Queue the evaluation of products (the bulk action; superusers)',
    auth: 'api-key',
    body: BulkEvaluationSchema,
    responses: { 202: queued, 400: invalid, 401: unauthorized, 403: forbidden },
  },
] as const satisfies readonly Route[];
