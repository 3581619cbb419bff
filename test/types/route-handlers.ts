/**
 * Type-level tests of the seams between the route table and its handlers (shared/http/api-handler.ts).
 * Checked by `npm run typecheck` (tsc --noEmit -p . includes test/), never run: vitest only runs
 * *.test.ts. Each `@ts-expect-error` fails the type check when the line under it stops being an
 * error, so a seam that loosens (an operationId that is any string, a body that is unknown, an answer
 * that is any status) fails here.
 */
import type * as z from 'zod';
import { apiFunction, type ApiFunctionDeps, type ApiRequest, type HandlerOf } from '../../shared/http/api-handler.ts';
import type { OperationId, RouteOf } from '../../shared/routes/index.ts';
import type { ProductSchema } from '../../shared/schemas/product.ts';

declare const deps: ApiFunctionDeps;
declare const product: z.output<typeof ProductSchema>;

/** True when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

// --- operationIds: only the table's -----------------------------------------------------------

export const known = apiFunction(deps, { retrieve_product: async () => ({ statusCode: 200, body: product }) });
// @ts-expect-error a misspelt operationId is not a key apiFunction takes
export const misspelt = apiFunction(deps, { retrieve_prodcut: async () => ({ statusCode: 200, body: product }) });
// @ts-expect-error nor is an operationId the table does not have
export const unknownOperation: OperationId = 'export_everything';

// --- the request: typed from the route -----------------------------------------------------------

export const reads: HandlerOf<'create_product'> = async (r) => {
  expectType<Equal<typeof r.body, { name: string; version: string }>>();
  // @ts-expect-error the create body has no such field
  void r.body.description;
  return { statusCode: 201, body: product };
};

export const pathParameters: HandlerOf<'list_policy_violation_packages'> = async (r) => {
  // `{uuid}` and `{rule_type}` in the path: strings, without `!`.
  expectType<Equal<typeof r.pathParameters, { readonly uuid: string; readonly rule_type: string }>>();
  // @ts-expect-error no `{id}` in this path
  void r.pathParameters.id;
  return { statusCode: 200, body: { count: 0, next: null, previous: null, results: [] } };
};

// The query is the output of the route's query schema: the export's defaults make its fields required.
expectType<Equal<ApiRequest<RouteOf<'product_cyclonedx'>>['query'], { spec_version: '1.4' | '1.5' | '1.6'; content: 'sbom' | 'vex' | 'combined'; format: 'json' | 'xml' }>>();
// A route that reads its raw body (load_sboms) gets no parsed body type; a route without a body schema neither.
expectType<Equal<ApiRequest<RouteOf<'load_sboms'>>['body'], unknown>>();
expectType<Equal<ApiRequest<RouteOf<'retrieve_product'>>['body'], unknown>>();

// --- the answer: a documented success status with its schema's body -----------------------------

export const answers: HandlerOf<'retrieve_product'> = async () => ({ statusCode: 200, body: product });
// @ts-expect-error a body field of the wrong type
export const wrongField: HandlerOf<'retrieve_product'> = async () => ({ statusCode: 200, body: { ...product, name: 42 } });
// @ts-expect-error a body without a field the schema requires
export const missingField: HandlerOf<'retrieve_product'> = async () => ({ statusCode: 200, body: { uuid: product.uuid } });
// @ts-expect-error a status the route does not document (retrieve answers 200 only)
export const undocumentedStatus: HandlerOf<'retrieve_product'> = async () => ({ statusCode: 201, body: product });
// @ts-expect-error an error status is thrown (the error table answers it), never returned
export const errorStatus: HandlerOf<'retrieve_product'> = async () => ({ statusCode: 404, body: { detail: 'Not found.' } });

// A route with two success statuses takes either, each with its own body.
export const evaluated: HandlerOf<'evaluate_product_policy_rules'> = async (r) =>
  r.query.wait === 'true' ? { statusCode: 200, body: [] } : { statusCode: 202, body: { status: 'evaluation queued' } };
// @ts-expect-error the 202 body under the 200 status
export const swapped: HandlerOf<'evaluate_product_policy_rules'> = async () => ({ statusCode: 200, body: { status: 'evaluation queued' } });

// A 204 has no body.
export const deleted: HandlerOf<'destroy_product'> = async () => ({ statusCode: 204 });
// @ts-expect-error a body on a 204
export const deletedWithBody: HandlerOf<'destroy_product'> = async () => ({ statusCode: 204, body: product });
