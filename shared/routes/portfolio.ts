/** The policy portfolio: products by gate, the most violated rules, violations over time (superusers). */
import { FieldErrorsSchema } from '../schemas/common.ts';
import { PortfolioQuery, PortfolioSchema } from '../schemas/portfolio.ts';
import { forbidden, unauthorized, type Route } from './route.ts';

export const PORTFOLIO_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/policy_portfolio/',
    function: 'policy',
    operationId: 'policy_portfolio',
    summary: "The dataspace's products by gate, the rules most violated, and violations detected, resolved and active per day (superusers)",
    auth: 'api-key',
    listName: 'policy_portfolio',
    query: PortfolioQuery,
    responses: {
      200: { description: 'The portfolio', schema: PortfolioSchema },
      400: { description: 'days is not a whole number from 1 to 365', schema: FieldErrorsSchema },
      401: unauthorized,
      403: { ...forbidden, description: 'Not a superuser' },
    },
  },
] as const satisfies readonly Route[];
