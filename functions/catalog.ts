/** The catalog: /api/v2/usage_policies/, licenses/, license_mappings/, packages/ and vulnerabilities/, and the reference_licenses/ and advisory_sources/ every dataspace reads. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, catalogService, lambdaHandler, type Dependencies } from '../shared/runtime.ts';

export const makeHandler = ({ api, catalog }: Pick<Dependencies, 'api' | 'catalog'>) => apiFunction(api, {
  list_usage_policies: async (r) => ({ statusCode: 200, body: await catalog.listUsagePolicies(r.caller, r.query, r.url, r.baseUrl) }),
  create_usage_policy: async (r) => ({ statusCode: 201, body: await catalog.saveUsagePolicy(r.caller, undefined, () => r.body, r.baseUrl) }),
  retrieve_usage_policy: async (r) => ({ statusCode: 200, body: await catalog.retrieveUsagePolicy(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_usage_policy: async (r) => ({ statusCode: 200, body: await catalog.saveUsagePolicy(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_usage_policy: async (r) => ({ statusCode: 200, body: await catalog.saveUsagePolicy(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_usage_policy: async (r) => (await catalog.deleteUsagePolicy(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),

  list_licenses: async (r) => ({ statusCode: 200, body: await catalog.listLicenses(r.caller, r.query, r.url, r.baseUrl) }),
  create_license: async (r) => ({ statusCode: 201, body: await catalog.saveLicense(r.caller, undefined, () => r.body, r.baseUrl) }),
  retrieve_license: async (r) => ({ statusCode: 200, body: await catalog.retrieveLicense(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_license: async (r) => ({ statusCode: 200, body: await catalog.saveLicense(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, { ifMatch: r.ifMatch }) }),
  partial_update_license: async (r) => ({ statusCode: 200, body: await catalog.saveLicense(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, { ifMatch: r.ifMatch }) }),
  list_license_mappings: async (r) => ({ statusCode: 200, body: await catalog.listLicenseMappings(r.caller, r.query, r.url, r.baseUrl) }),
  create_license_mapping: async (r) => ({ statusCode: 201, body: await catalog.saveLicenseMapping(r.caller, undefined, () => r.body, r.baseUrl) }),
  retrieve_license_mapping: async (r) => ({ statusCode: 200, body: await catalog.retrieveLicenseMapping(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_license_mapping: async (r) => ({ statusCode: 200, body: await catalog.saveLicenseMapping(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_license_mapping: async (r) => ({ statusCode: 200, body: await catalog.saveLicenseMapping(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_license_mapping: async (r) => (await catalog.deleteLicenseMapping(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),

  list_reference_licenses: async (r) => ({ statusCode: 200, body: await catalog.listReferenceLicenses(r.query, r.url) }),
  list_advisory_sources: async (r) => ({ statusCode: 200, body: await catalog.listAdvisorySources(r.query, r.url) }),
  retrieve_reference_license: async (r) => ({ statusCode: 200, body: catalog.retrieveReferenceLicense(r.pathParameters.key) }),
  destroy_license: async (r) => (await catalog.deleteLicense(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),

  list_packages: async (r) => ({ statusCode: 200, body: await catalog.listPackages(r.caller, r.query, r.url, r.baseUrl) }),
  create_package: async (r) => ({ statusCode: 201, body: await catalog.savePackage(r.caller, undefined, () => r.body, r.baseUrl) }),
  retrieve_package: async (r) => ({ statusCode: 200, body: await catalog.retrievePackage(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_package: async (r) => ({ statusCode: 200, body: await catalog.savePackage(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  partial_update_package: async (r) => ({ statusCode: 200, body: await catalog.savePackage(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, r.ifMatch) }),
  destroy_package: async (r) => (await catalog.deletePackage(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),

  list_vulnerabilities: async (r) => ({ statusCode: 200, body: await catalog.listVulnerabilities(r.caller, r.query, r.url, r.baseUrl) }),
  create_vulnerability: async (r) => ({ statusCode: 201, body: await catalog.saveVulnerability(r.caller, undefined, () => r.body, r.baseUrl) }),
  retrieve_vulnerability: async (r) => ({ statusCode: 200, body: await catalog.retrieveVulnerability(r.caller, r.pathParameters.uuid, r.baseUrl) }),
  update_vulnerability: async (r) => ({ statusCode: 200, body: await catalog.saveVulnerability(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, { ifMatch: r.ifMatch }) }),
  partial_update_vulnerability: async (r) => ({ statusCode: 200, body: await catalog.saveVulnerability(r.caller, r.pathParameters.uuid, () => r.body, r.baseUrl, { ifMatch: r.ifMatch }) }),
  destroy_vulnerability: async (r) => (await catalog.deleteVulnerability(r.caller, r.pathParameters.uuid, r.ifMatch), { statusCode: 204 }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), catalog: catalogService(c) }));
