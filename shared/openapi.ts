/**
 * Generates the OpenAPI 3.1 document from the route table and its zod schemas, so every endpoint is
 * documented by construction. Pure: the same routes always give the same document.
 */
import { z } from 'zod';
import type { Route } from './routes.ts';

type JsonObject = Record<string, unknown>;

const componentUri = (id: string) => `#/components/schemas/${id}`;

/**
 * A schema named with `.meta({ id })` becomes a $ref into components.schemas; others are inlined,
 * with any named schema inside them referenced.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const id = z.globalRegistry.get(schema)?.id;
  if (id !== undefined) return { $ref: componentUri(id) };
  const generated = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    external: { registry: z.globalRegistry, uri: componentUri, defs: {} },
  }) as JsonObject;
  delete generated.$schema;
  return generated;
}

/** Every named schema, as OpenAPI components. */
function components(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: componentUri,
  }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.id;
  }
  return schemas;
}

function queryParameters(query: z.ZodObject | undefined): JsonObject[] {
  if (!query) return [];
  return Object.entries(query.shape).map(([name, schema]) => ({
    name,
    in: 'query',
    required: !(schema as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(schema as z.ZodType, 'input'),
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

export function buildOpenApiDocument(routes: readonly Route[], serverUrl: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const responses: JsonObject = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema ? { content: { 'application/json': { schema: jsonSchema(response.schema, 'output') } } } : {}),
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      security: [{ TokenAuth: [] }],
      parameters: [...pathParameters(route.path), ...queryParameters(route.query)],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Compliance Management Service API',
      version: '2',
      description:
        'REST API v2: products with object permissions, requests, and the policy rules engine. ' +
        'Authenticate every call with the header `Authorization: Token <API key>`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      schemas: components(),
      securitySchemes: {
        TokenAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The word Token, one space, then the API key: `Token 3vXo...`',
        },
      },
    },
    paths,
  };
}
