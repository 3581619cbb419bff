/**
 * What a route is: one entry of the route table (shared/routes/index.ts), as plain data, with the
 * responses most routes share. The route modules declare their entries `as const satisfies readonly
 * Route[]`, so each keeps its literal operationId and path and its own schemas: the handlers are typed
 * from them (shared/http/api-handler.ts).
 */
import type { z } from 'zod';
import type { FunctionName } from '../functions.ts';
import { DetailErrorSchema, FieldErrorsSchema } from '../schemas/common.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteResponse {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** The answer's media type when it is not application/json (an SBOM export: application/spdx+json). */
  readonly mediaType?: string;
  /** Its media types when the answer has several, chosen by a parameter (an attribution: text/html, text/plain). */
  readonly mediaTypes?: readonly string[];
  /** A schema for each media type, when they differ (a CycloneDX export: a JSON object, or an XML document). */
  readonly schemas?: Readonly<Record<string, z.ZodType>>;
}

export interface Route {
  readonly method: HttpMethod;
  /** API Gateway path syntax, with DRF's trailing slash: /api/v2/products/{uuid}/ */
  readonly path: string;
  readonly function: FunctionName;
  readonly operationId: string;
  readonly summary: string;
  /** Who may call it. Every route of the API needs an API key; finer checks live in the services. */
  readonly auth: 'api-key';
  /** Set on list endpoints: the name under which GET /api/v2/ lists it. */
  readonly listName?: string;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /**
   * A body the handler reads itself (not JSON parsed by the stack): its media types and schemas, for
   * the OpenAPI document. Exclusive with `body`.
   */
  readonly rawBody?: { readonly description: string; readonly content: Readonly<Record<string, z.ZodType>> };
  /** Body errors answered inside an `errors` object, as DejaCode's permissions endpoint does. */
  readonly wrapErrors?: boolean;
  readonly responses: Readonly<Record<number, RouteResponse>>;
}

/** The names of a path's parameters: '/api/v2/products/{uuid}/policy_violations/{rule_type}/' gives 'uuid' | 'rule_type'. */
export type PathParameterName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterName<Rest> : never;

export const unauthorized: RouteResponse = { description: 'Missing, malformed or unknown API key', schema: DetailErrorSchema };
export const forbidden: RouteResponse = { description: 'Visible, but the caller may not do this', schema: DetailErrorSchema };
export const invalid: RouteResponse = { description: 'Invalid body: errors by field', schema: FieldErrorsSchema };
export const invalidPage: RouteResponse = { description: 'Invalid page.', schema: DetailErrorSchema };

export const notFound = (what: string): RouteResponse => ({ description: `No such ${what}, or not visible to the caller`, schema: DetailErrorSchema });
