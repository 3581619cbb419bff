/**
 * Checks an HTTP answer against the OpenAPI document the service serves (GET /api/v2/schema/, built by
 * shared/openapi.ts from the route table), so the document and the service cannot drift: the operation
 * is found by method and path, its status must be documented, the documented headers that are required
 * must be there, and a JSON body must validate (Ajv, JSON Schema 2020-12, as OpenAPI 3.1 uses) against
 * the documented schema. A path the document does not list must answer 404, and a listed path with a
 * method it does not list 405 with Allow (OPTIONS: 200 with Allow), each in the `{"detail"}` format,
 * as the document's description says. startTestGateway's call() runs it on every answer.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { buildOpenApiDocument } from '../../shared/openapi.ts';
import { ROUTES } from '../../shared/routes/index.ts';

type Json = Record<string, any>;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const SCHEMAS_ID = 'https://openapi-check.invalid/components';
const METHODS = ['get', 'head', 'put', 'post', 'delete', 'options', 'patch', 'trace'] as const;
// ajv-formats is CommonJS: under Node's ESM loader its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as FormatsPlugin;

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: { template: string; pattern: RegExp; parameters: number; item: Json }[];

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    // The document's own keywords that JSON Schema does not know.
    this.ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: this.rewriteRefs(document.components?.schemas ?? {}) });
    this.paths = Object.entries(document.paths as Record<string, Json>)
      .map(([template, item]) => ({
        template,
        item,
        parameters: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(
          `^${template
            .replace(/\/+$/, '')
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
            .join('')}/?$`,
        ),
      }))
      // A literal segment wins over a parameter, as the gateway routes.
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** What in the answer the document does not describe; empty when it describes all of it. */
  problems(method: string, pathAndQuery: string, answer: Answer): string[] {
    const path = new URL(pathAndQuery, 'http://gateway.local').pathname;
    const verb = method.toLowerCase();
    const found = this.paths.find((entry) => entry.pattern.test(path));
    if (!found) {
      return [...this.expect(answer, 404, 'a path the document does not list'), ...this.detailBody(answer)];
    }
    const operation = found.item[verb] as Json | undefined;
    if (!operation) {
      const listed = METHODS.filter((m) => m in found.item).map((m) => m.toUpperCase());
      if (verb === 'options') return this.expect(answer, 200, `OPTIONS on ${found.template}`).concat(this.allow(answer, listed));
      return [...this.expect(answer, 405, `${method.toUpperCase()} on ${found.template}, which lists only ${listed.join(', ')}`), ...this.allow(answer, listed), ...this.detailBody(answer)];
    }
    const responses = operation.responses as Json;
    const documented = responses[String(answer.status)] ?? responses[`${String(answer.status)[0]}XX`] ?? responses.default;
    if (!documented) {
      return [`status ${answer.status} is not documented for ${operation.operationId} (documented: ${Object.keys(responses).join(', ')})`];
    }
    const response = this.deref(documented);
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if (this.deref(header).required && !answer.headers.has(name)) problems.push(`the documented header ${name} is missing`);
    }
    const content = response.content as Json | undefined;
    if (verb === 'head' || !content) {
      if (answer.text !== '') problems.push(`a body where the document describes none: ${excerpt(answer.text)}`);
      return problems;
    }
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const media = content[mediaType] as Json | undefined;
    if (!media) return [...problems, `Content-Type "${mediaType}", where the document gives ${Object.keys(content).join(', ')}`];
    if (!media.schema) return problems;
    // A text answer (text/html, text/plain, an XML document) is a string by what it is: only JSON is parsed and validated.
    if (/^text\/|[/+]xml$/.test(mediaType)) return problems;
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `a body that is not JSON: ${excerpt(answer.text)}`];
    }
    const validate = this.validator(media.schema as Json);
    if (!validate(body)) {
      problems.push(
        `a body that does not match the documented schema ${JSON.stringify(media.schema)}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}; body: ${excerpt(answer.text)}`,
      );
    }
    return problems;
  }

  /** Throws, naming what the document does not describe, unless it describes the whole answer. */
  check(method: string, pathAndQuery: string, answer: Answer): void {
    const problems = this.problems(method, pathAndQuery, answer);
    if (problems.length > 0) {
      throw new Error(
        `The OpenAPI document (GET /api/v2/schema/) does not describe the answer to ${method.toUpperCase()} ${pathAndQuery} (${answer.status}):\n- ${problems.join('\n- ')}`,
      );
    }
  }

  private expect(answer: Answer, status: number, what: string): string[] {
    return answer.status === status ? [] : [`status ${answer.status} for ${what}, where the document says ${status}`];
  }

  /**
   * The Allow header must name every method the document lists for the path. HEAD is left out: the
   * document gives it to every GET route, and the gateway's Allow header may not name it.
   */
  private allow(answer: Answer, listed: string[]): string[] {
    const allow = (answer.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    const missing = listed.filter((m) => m !== 'HEAD' && !allow.includes(m));
    return missing.length === 0 ? [] : [`an Allow header "${allow.join(', ')}" that lacks ${missing.join(', ')}`];
  }

  private detailBody(answer: Answer): string[] {
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [`a body that is not JSON: ${excerpt(answer.text)}`];
    }
    const validate = this.validator({ $ref: '#/components/schemas/DetailError' });
    return validate(body) ? [] : [`a body that is not {"detail": "..."}: ${excerpt(answer.text)}`];
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.rewriteRefs(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Points the document's schema references at the components registered with Ajv. */
  private rewriteRefs<T>(schema: T): T {
    return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMAS_ID}#/$defs/`)) as T;
  }

  /** Follows a local `$ref` (#/components/responses/..., #/components/headers/...) through the document. */
  private deref(value: Json): Json {
    let current = value;
    for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
      const pointer = (current.$ref as string).replace(/^#\//, '').split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
      current = pointer.reduce<Json>((node, segment) => node?.[segment] as Json, this.document);
      if (current === undefined) throw new Error(`Unresolved $ref ${value.$ref as string} in the OpenAPI document`);
    }
    return current;
  }
}

function excerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

let shared: OpenApiChecker | undefined;

/** The checker for the document the service serves (its server URL aside, which no answer depends on). */
export function openApiChecker(): OpenApiChecker {
  return (shared ??= new OpenApiChecker(buildOpenApiDocument(ROUTES, 'http://127.0.0.1')));
}
