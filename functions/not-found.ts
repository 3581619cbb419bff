/**
 * API Gateway's $default route: a path no route serves is 404, a served path with another method is
 * 405 with Allow, both in the API's error format (a path with dot segments or %2f names no route: 404). Like Django, it answers before authentication:
 * it reveals nothing but the public route table.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MethodNotAllowedError, NotFoundError } from '../shared/domain/errors.ts';
import { errorMapper } from '../shared/http/api-handler.ts';
import { matchPath } from '../shared/routes/index.ts';

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(errorMapper())
  .handler(async (event) => {
    const method = event.requestContext.http.method.toUpperCase();
    const methods = matchPath(event.rawPath).map((match) => match.route.method);
    // Every GET route also answers HEAD (shared/routes gatewayRouteKeys).
    const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    if (allowed.length === 0) throw new NotFoundError();
    if (method === 'OPTIONS') {
      return { statusCode: 200, headers: { Allow: [...allowed, 'OPTIONS'].join(', ') }, body: '' };
    }
    throw new MethodNotAllowedError(method, [...allowed, 'OPTIONS']);
  });
