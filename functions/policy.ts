/** The policy API: /api/v2/policy_rules/, a product's violations, status, evaluations and waivers, and the portfolio. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, policyService, policyWaiverService, portfolioService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, policy, waivers, portfolio }: Pick<Dependencies, 'api' | 'policy' | 'waivers' | 'portfolio'>) => apiFunction(api, {
  list_policy_rules: async ({ caller }) => ({ statusCode: 200, body: await policy.rules(caller) }),
  update_policy_rules: async (r) => ({ statusCode: 200, body: await policy.saveRules(r.caller, () => r.body, false) }),
  partial_update_policy_rules: async (r) => ({ statusCode: 200, body: await policy.saveRules(r.caller, () => r.body, true) }),
  preview_recommended_policy: async (r) => ({ statusCode: 200, body: await policy.recommended(r.caller) }),
  apply_recommended_policy: async (r) => ({ statusCode: 200, body: await policy.applyRecommended(r.caller, () => r.body, r.baseUrl) }),
  list_product_policy_violations: async (r) => ({ statusCode: 200, body: await policy.violations(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  list_policy_violation_packages: async (r) => ({
    statusCode: 200,
    body: await policy.violationPackages(r.caller, r.pathParameters.uuid, r.pathParameters.rule_type, r.query, r.url, r.baseUrl),
  }),
  product_policy_status: async (r) => ({ statusCode: 200, body: await policy.status(r.caller, r.pathParameters.uuid) }),
  evaluate_product_policy_rules: async (r) => policy.evaluateProduct(r.caller, r.pathParameters.uuid, r.query.wait === 'true', r.baseUrl),
  evaluate_products_policy_rules: async (r) => ({ statusCode: 202, body: await policy.evaluateProducts(r.caller, () => r.body) }),
  list_policy_waivers: async (r) => ({ statusCode: 200, body: await waivers.listDataspace(r.caller, r.query, r.url, r.baseUrl) }),
  list_product_policy_waivers: async (r) => ({ statusCode: 200, body: await waivers.list(r.caller, r.pathParameters.uuid, r.query, r.url, r.baseUrl) }),
  create_product_policy_waiver: async (r) => ({ statusCode: 201, body: await waivers.create(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl) }),
  retrieve_product_policy_waiver: async (r) => ({
    statusCode: 200,
    body: await waivers.retrieve(r.caller, r.pathParameters.uuid, r.pathParameters.waiver_uuid, r.baseUrl),
  }),
  destroy_product_policy_waiver: async (r) => (await waivers.revoke(r.caller, r.pathParameters.uuid, r.pathParameters.waiver_uuid), { statusCode: 204 }),
  policy_portfolio: async (r) => ({ statusCode: 200, body: await portfolio.portfolio(r.caller, r.query) }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), policy: policyService(c), waivers: policyWaiverService(c), portfolio: portfolioService(c) }));
