/** /api/v2/products/{uuid}/load_sboms/, /api/v2/products/{uuid}/sbom_uploads/ and /api/v2/sbom_imports/{uuid}/. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { readSbomRequest } from '../shared/http/sbom-request.ts';
import { apiDependencies, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import { sbomImportService, type SbomDependencies } from '../shared/sbom-runtime.ts';

export const makeHandler = ({ api, sbomImports: imports }: Pick<Dependencies, 'api'> & Pick<SbomDependencies, 'sbomImports'>) => apiFunction(api, {
  // The body is read here, not by the stack: a form or a document, not a JSON body (shared/http/sbom-request.ts).
  load_sboms: async ({ caller, pathParameters, event, baseUrl }) => ({
    statusCode: 200,
    body: await imports.load(caller, pathParameters.uuid, () => readSbomRequest(event, pathParameters.uuid), baseUrl),
  }),
  create_sbom_upload: async (request) => {
    const body = request.body;
    return {
      statusCode: 201,
      body: await imports.createUpload(
        request.caller,
        request.pathParameters.uuid,
        { mode: body.mode, updateExistingPackages: body.update_existing_packages, contentType: body.content_type, size: body.size },
        request.baseUrl,
      ),
    };
  },
  retrieve_sbom_import: async ({ caller, pathParameters, baseUrl }) => ({
    statusCode: 200,
    body: await imports.retrieve(caller, pathParameters.uuid, baseUrl),
  }),
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), sbomImports: sbomImportService(c) }));
