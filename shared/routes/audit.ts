/** The audit trail: who changed what, for the superusers of the dataspace. */
import { AuditListQuery, AuditPageSchema } from '../schemas/audit.ts';
import { DetailErrorSchema } from '../schemas/common.ts';
import { forbidden, invalid, unauthorized, type Route } from './route.ts';

export const AUDIT_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/audit_events/',
    function: 'audit-events',
    operationId: 'list_audit_events',
    summary: "The dataspace's audit trail, newest first, a cursor page at a time (superusers)",
    auth: 'api-key',
    listName: 'audit_events',
    query: AuditListQuery,
    responses: {
      200: { description: 'A page of audit records', schema: AuditPageSchema },
      400: { ...invalid, description: 'Invalid filters: errors by field' },
      401: unauthorized,
      403: { ...forbidden, description: 'Not a superuser' },
      404: { description: 'Invalid cursor', schema: DetailErrorSchema },
    },
  },
] as const satisfies readonly Route[];
