/**
 * Serves the real handlers through the local API Gateway stand-in on a free port, for HTTP-level tests.
 * Every answer of call() is checked against the served OpenAPI document (openapi-check.ts): an answer
 * the document does not describe fails the test that got it.
 */
import { startHttpGateway } from '../../bin/local/http-gateway.ts';
import { loadHandler } from '../../bin/local/functions.ts';
import { lambdaContext } from '../../bin/local/lambda-context.ts';
import { openApiChecker } from './openapi-check.ts';
import { FUNCTIONS } from '../../shared/functions.ts';
import { tracked } from './pending-work.ts';

export async function startTestGateway() {
  const gateway = await startHttpGateway({
    host: '127.0.0.1',
    port: 0,
    invoke: async (name, event) => (await loadHandler(name))(event, lambdaContext(name, FUNCTIONS[name].timeoutSeconds * 1000)),
    init: loadHandler,
  });
  // As the local stack does: links are built on the gateway's own address unless the test configured
  // one (before the first call, when the functions read their configuration).
  process.env.PUBLIC_BASE_URL ??= gateway.url;
  const call = async (method: string, path: string, init: { token?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.authorization = `Token ${init.token}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const { response, text } = await tracked(`the answer to ${method} ${path}`, async () => {
      const response = await fetch(`${gateway.url}${path}`, { method, headers, body });
      return { response, text: await response.text() };
    });
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    openApiChecker().check(method, path, { status: response.status, headers: response.headers, text });
    return { status: response.status, headers: response.headers, json: json as any, text };
  };
  return { url: gateway.url, call, stop: gateway.stop };
}
