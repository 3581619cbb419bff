/**
 * Generates the OpenAPI 3.1 document from the route table and its zod schemas, so every endpoint is
 * documented by construction. Pure: the same routes always give the same document.
 */
import * as z from 'zod';
import type { Route } from './routes/index.ts';

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

export function buildOpenApiDocument(routes: readonly Route[], serverUrl: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const components = new Components();
  for (const route of routes) {
    const responses: JsonObject = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema ? { content: { 'application/json': { schema: components.ref(response.schema, 'output', `${route.operationId}_${status}`) } } }
          : {}),
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      security: [{ TokenAuth: [] }],
      parameters: [...pathParameters(route.path), ...queryParameters(route.query)],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: components.ref(route.body, 'input', `${route.operationId}_request`) } },
            },
          }
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
      schemas: components.render(),
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
