/**
 * Generates the OpenAPI 3.1 document from the route table and its zod schemas, so every endpoint is
 * documented by construction. Pure: the same routes always give the same document.
 */
import * as z from 'zod';
import type { Route } from './routes/index.ts';
import { CORRELATION_HEADER, VALID_CORRELATION_ID } from './observability/correlation.ts';
import { DetailErrorSchema, FieldErrorsSchema } from './schemas/common.ts';

type JsonObject = Record<string, unknown>;

const componentUri = (id: string) => `#/components/schemas/${id}`;

/**
 * Every request and response schema of the routes becomes a component: its own `.meta({ id })` name
 * or one made from the operation, and the operations refer to them. Request bodies are rendered as
 * zod input types, responses as output types.
 */
class Components {
  private readonly inputs = z.registry<{ id: string }>();
  private readonly outputs = z.registry<{ id: string }>();

  ref(schema: z.ZodType, io: 'input' | 'output', fallbackId: string): JsonObject {
    const registry = io === 'input' ? this.inputs : this.outputs;
    let id = registry.get(schema)?.id;
    if (id === undefined) {
      const named = z.globalRegistry.get(schema)?.id;
      id = named === undefined ? fallbackId : io === 'input' ? `${named}Input` : named;
      registry.add(schema, { id });
    }
    return { $ref: componentUri(id) };
  }

  render(): Record<string, JsonObject> {
    const schemas: Record<string, JsonObject> = {};
    for (const [registry, io, suffix] of [
      [this.outputs, 'output', ''],
      [this.inputs, 'input', 'Input'],
    ] as const) {
      const rendered = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: componentUri });
      // Named schemas nested in these ones come out under "__shared": they become components too.
      const { __shared: shared, ...own } = rendered.schemas as Record<string, JsonObject>;
      const nested = ((shared?.$defs ?? {}) as Record<string, JsonObject>);
      const text = JSON.stringify({ ...own, ...Object.fromEntries(Object.entries(nested).map(([id, schema]) => [`${id}${suffix}`, schema])) })
        .replaceAll(/#\/components\/schemas\/__shared#\/\$defs\/([^"]+)/g, (_, id: string) => componentUri(`${id}${suffix}`));
      for (const [id, schema] of Object.entries(JSON.parse(text) as Record<string, JsonObject>)) {
        delete schema.$schema;
        delete schema.$id;
        delete schema.id;
        schemas[id] = schema;
      }
    }
    return schemas;
  }
}

function inlineSchema(schema: z.ZodType): JsonObject {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonObject;
  delete generated.$schema;
  return generated;
}

function queryParameters(query: z.ZodObject | undefined): JsonObject[] {
  if (!query) return [];
  return Object.entries(query.shape).map(([name, schema]) => ({
    name,
    in: 'query',
    required: !(schema as z.ZodType).safeParse(undefined).success,
    schema: inlineSchema(schema as z.ZodType),
    ...((schema as z.ZodType).description ? { description: (schema as z.ZodType).description } : {}),
  }));
}

function pathParameters(path: string): JsonObject[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'uuid' ? { type: 'string', format: 'uuid' } : { type: 'string' },
  }));
}

type Method = Lowercase<Route['method']> | 'head';

/** The project's license, for info.license: package.json names none and the repository has no LICENSE file yet. */
export const API_LICENSE = { name: 'Proprietary (no license granted yet)', identifier: 'LicenseRef-Proprietary' } as const;

const detail = { 'application/json': { schema: { $ref: componentUri('DetailError') } } };
const headerUri = (id: string) => `#/components/headers/${id}`;
const responseUri = (id: string) => `#/components/responses/${id}`;

/** Response headers the answers carry: required where the error table always sets them. */
const HEADERS: Record<string, JsonObject> = {
  WWWAuthenticate: { description: 'The scheme to authenticate with', required: true, schema: { type: 'string', const: 'Token' } },
  RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  ETag: { description: 'The version of the object: send it back in If-Match to change or delete only that version', schema: { type: 'string' } },
  CorrelationId: {
    description:
      "The request's correlation id: the X-Correlation-Id it was sent with, else the gateway's request id (absent from the answers the gateway gives by itself: its own throttling, timeouts and bodies over 10 MiB)",
    schema: { type: 'string' },
  },
};

/** Every answer carries the request's correlation id. */
const CORRELATION = { [CORRELATION_HEADER]: { $ref: headerUri('CorrelationId') } };

const CORRELATION_PARAMETER = {
  name: CORRELATION_HEADER,
  in: 'header',
  required: false,
  description:
    "An id of the caller's choosing that the service carries through everything the request causes (its log lines, the events and webhook deliveries that follow from its change); answered back in the same header",
  schema: { type: 'string', pattern: VALID_CORRELATION_ID.source },
};

/**
 * The answers every operation can give, in the error format of every other answer (`{"detail"}`), or
 * only some: 413 and 415 judge a request body, 409 and 412 a change to one object.
 */
const SHARED_RESPONSES: Record<string, JsonObject> = {
  Unauthorized: {
    description: 'Missing, malformed or unknown API key, or an inactive user',
    headers: { 'WWW-Authenticate': { $ref: headerUri('WWWAuthenticate') }, ...CORRELATION },
    content: detail,
  },
  PayloadTooLarge: { description: 'A body over 1 MiB (the gateway itself refuses any request over 10 MiB)', headers: CORRELATION, content: detail },
  UnsupportedMediaType: { description: 'A body whose Content-Type is not application/json (or +json)', headers: CORRELATION, content: detail },
  Throttled: {
    description: "Too many requests: this key's allowance is spent, or too many failed authentications came from this source",
    headers: { 'Retry-After': { $ref: headerUri('RetryAfter') }, ...CORRELATION },
    content: detail,
  },
  Unavailable: {
    description: 'Busy (throttled or conflicting storage, a timeout): nothing was written; try again after Retry-After',
    headers: { 'Retry-After': { $ref: headerUri('RetryAfter') }, ...CORRELATION },
    content: detail,
  },
  ReadScope: {
    description: 'The API key has the read scope: it may only use GET and HEAD, whatever its user may do (checked before the body is read)',
    headers: CORRELATION,
    content: detail,
  },
  InUse: { description: 'Still used by other objects: nothing was deleted or changed; the detail says by how many', headers: CORRELATION, content: detail },
  PreconditionFailed: { description: "If-Match does not name the object's current ETag: nothing was changed", headers: CORRELATION, content: detail },
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The ETag of the version the change is meant for: answered 412 when the object has changed since',
  schema: { type: 'string' },
};

const MALFORMED_CASES = 'JSON that does not parse, a body that is not UTF-8, a malformed header (Host, X-Correlation-Id)';

/** A route's own 400, merged with the `{"detail"}` answer that any request can get. */
function badRequest(route: Route, components: Components): JsonObject {
  const own = route.responses[400];
  const fields = own?.schema ?? (route.body || route.query ? FieldErrorsSchema : undefined);
  if (!fields || fields === DetailErrorSchema) {
    return { description: own?.description ?? `A malformed request: ${MALFORMED_CASES}`, headers: CORRELATION, content: detail };
  }
  const description = own?.description ?? (route.body ? 'Invalid body: errors by field' : 'Invalid query parameters: errors by field');
  return {
    description: `${description}; or \`{"detail": ...}\` when the request itself is malformed: ${MALFORMED_CASES}`,
    headers: CORRELATION,
    content: { 'application/json': { schema: { oneOf: [components.ref(fields, 'output', `${route.operationId}_400`), { $ref: componentUri('DetailError') }] } } },
  };
}

/** Every answer of a route: its own (from the table), and the shared ones. */
function responsesOf(route: Route, components: Components): Record<string, JsonObject> {
  const single = route.path.endsWith('/{uuid}/');
  const responses: Record<string, JsonObject> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      headers: single && status === '200' && route.method !== 'DELETE' ? { ETag: { $ref: headerUri('ETag') }, ...CORRELATION } : CORRELATION,
      ...(response.schemas
        ? { content: Object.fromEntries(Object.entries(response.schemas).map(([type, schema], index) => [type, { schema: components.ref(schema, 'output', `${route.operationId}_${status}_${index}`) }])) }
        : response.schema
          ? {
              content: Object.fromEntries(
                (response.mediaTypes ?? [response.mediaType ?? 'application/json']).map((type) => [type, { schema: components.ref(response.schema!, 'output', `${route.operationId}_${status}`) }]),
              ),
            }
          : {}),
    };
  }
  // A read key is refused every method but GET (and HEAD): any write route may answer 403.
  if (route.method !== 'GET') {
    const own = route.responses[403];
    responses[403] = own ? { ...responses[403], description: `${own.description}; or the API key has the read scope (only GET and HEAD)` } : { $ref: responseUri('ReadScope') };
  }
  responses[400] = badRequest(route, components);
  responses[401] = { $ref: responseUri('Unauthorized') };
  // Only the objects others may still name (licenses, usage policies) answer 409: the route table says which.
  if (route.responses[409]) responses[409] = { $ref: responseUri('InUse') };
  // Every single-object write honours If-Match (its service checks the ETag): 412, from the path alone.
  if (single && route.method !== 'GET') responses[412] = { $ref: responseUri('PreconditionFailed') };
  // A route with its own limit (the SBOM import) documents its own 413.
  if (!route.responses[413]) responses[413] = { $ref: responseUri('PayloadTooLarge') };
  if (route.body || route.rawBody) responses[415] = { $ref: responseUri('UnsupportedMediaType') };
  responses[429] = { $ref: responseUri('Throttled') };
  responses[503] = { $ref: responseUri('Unavailable') };
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** HEAD on a GET route: the same statuses and headers as GET, without a body. */
function headOf(get: JsonObject): JsonObject {
  const responses = Object.fromEntries(
    Object.entries(get.responses as Record<string, JsonObject>).map(([status, response]) => {
      const shared = typeof response.$ref === 'string' ? SHARED_RESPONSES[response.$ref.slice(responseUri('').length)] : undefined;
      const { content: _content, ...rest } = shared ?? response;
      return [status, rest];
    }),
  );
  return {
    ...get,
    operationId: `head_${get.operationId as string}`,
    summary: `The headers of: ${get.summary as string}`,
    responses,
  };
}

/** The document, typed as far as GET /api/v2/schema/ answers it (OpenApiDocument in shared/routes/core.ts). */
export type OpenApiDocument = {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description: string; readonly license: typeof API_LICENSE };
  readonly servers: { readonly url: string }[];
  readonly components: JsonObject;
  readonly paths: Readonly<Record<string, JsonObject>>;
};

export function buildOpenApiDocument(routes: readonly Route[], serverUrl: string): OpenApiDocument {
  const paths: Record<string, Partial<Record<Method, JsonObject>>> = {};
  const components = new Components();
  components.ref(DetailErrorSchema, 'output', 'DetailError');
  for (const route of routes) {
    const single = route.path.endsWith('/{uuid}/');
    (paths[route.path] ??= {})[route.method.toLowerCase() as Method] = {
      operationId: route.operationId,
      summary: route.summary,
      security: [{ TokenAuth: [] }],
      parameters: [
        ...pathParameters(route.path),
        ...queryParameters(route.query),
        ...(single && route.method !== 'GET' ? [IF_MATCH] : []),
        CORRELATION_PARAMETER,
      ],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: components.ref(route.body, 'input', `${route.operationId}_request`) } },
            },
          }
        : {}),
      ...(route.rawBody
        ? {
            requestBody: {
              required: true,
              description: route.rawBody.description,
              content: Object.fromEntries(
                Object.entries(route.rawBody.content).map(([mediaType, schema]) => [mediaType, { schema: components.ref(schema, 'input', `${route.operationId}_request`) }]),
              ),
            },
          }
        : {}),
      responses: responsesOf(route, components),
    };
  }
  for (const item of Object.values(paths)) {
    if (item.get) item.head ??= headOf(item.get);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Compliance Management Service API',
      version: '2',
      description:
        'REST API v2: products with object permissions, requests, and the policy rules engine. ' +
        'Authenticate every call with the header `Authorization: Token <API key>`. ' +
        'Every error answer is DRF-style: `{"detail": "..."}`, or errors by field `{"field": ["..."]}`. ' +
        'A path not listed here answers 404, and a listed path called with a method it does not list answers 405 ' +
        'with an `Allow` header naming its methods, both as `{"detail": "..."}` and before authentication; ' +
        'OPTIONS on a listed path answers 200 with that `Allow` header.',
      license: API_LICENSE,
    },
    servers: [{ url: serverUrl }],
    components: {
      schemas: components.render(),
      responses: SHARED_RESPONSES,
      headers: HEADERS,
      securitySchemes: {
        TokenAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'The word Token, one space, then the API key: `Token 3vXo...`. Keys are made and revoked at /api/v2/api_keys/; ' +
            'a key with the read scope may only use GET and HEAD (any other method answers 403), and an expired or revoked key answers 401.',
        },
      },
    },
    paths,
  };
}
