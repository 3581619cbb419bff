/** /api/v2/audit_events/: the dataspace's audit trail (superusers). */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, auditService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, audit }: Pick<Dependencies, 'api' | 'audit'>) =>
  apiFunction(api, {
    list_audit_events: async (r) => ({ statusCode: 200, body: await audit.list(r.caller, r.query, r.url) }),
  });

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), audit: auditService(c) }));
