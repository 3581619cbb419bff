/** The policy API: /api/v2/policy_rules/ and a product's violations, status and evaluations. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, policyService, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, policy }: Pick<Dependencies, 'api' | 'policy'>) => apiFunction(api, {
  list_policy_rules: async ({ caller }) => ({ statusCode: 200, body: await policy.rules(caller) }),
  update_policy_rules: async (r) => ({ statusCode: 200, body: await policy.saveRules(r.caller, () => r.body, false) }),
  partial_update_policy_rules: async (r) => ({ statusCode: 200, body: await policy.saveRules(r.caller, () => r.body, true) }),
  list_product_policy_violations: async (r) => ({ statusCode: 200, body: await policy.violations(r.caller, r.pathParameters.uuid) }),
  list_policy_violation_packages: async (r) => ({
    statusCode: 200,
    body: await policy.violationPackages(r.caller, r.pathParameters.uuid, r.pathParameters.rule_type, r.query, r.url, r.baseUrl),
  }),
  product_policy_status: async (r) => ({ statusCode: 200, body: await policy.status(r.caller, r.pathParameters.uuid) }),
  evaluate_product_policy_rules: async (r) => policy.evaluateProduct(r.caller, r.pathParameters.uuid, r.query.wait === 'true', r.baseUrl),
  evaluate_products_policy_rules: async (r) => ({ statusCode: 202, body: await policy.evaluateProducts(r.caller, () => r.body) }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), policy: policyService(c) }));
