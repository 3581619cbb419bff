/** GET /api/v2/products/{uuid}/cyclonedx/, /spdx/ and /attribution/: a product's inventory as an SBOM document or an attribution notice. */
import { apiFunction } from '../shared/http/api-handler.ts';
import { apiDependencies, lambdaHandler, type Dependencies } from '../shared/runtime.ts';
import { sbomExportService, type SbomDependencies } from '../shared/sbom-runtime.ts';
import { CYCLONEDX_XML_MEDIA_TYPE } from '../shared/sbom/media-types.ts';

const attachment = (filename: string) => `attachment; filename="${filename}"`;

export const makeHandler = ({ api, sbomExport: service }: Pick<Dependencies, 'api'> & Pick<SbomDependencies, 'sbomExport'>) => apiFunction(api, {
  product_cyclonedx: async (r) => {
    const options = { specVersion: r.query.spec_version, content: r.query.content };
    if (r.query.format === 'xml') {
      const { document, filename } = await service.cyclonedxXml(r.caller, r.pathParameters.uuid, options, r.baseUrl);
      return { statusCode: 200, body: document, headers: { 'Content-Type': CYCLONEDX_XML_MEDIA_TYPE, 'Content-Disposition': attachment(filename) } };
    }
    const { document, filename } = await service.cyclonedx(r.caller, r.pathParameters.uuid, options, r.baseUrl);
    return { statusCode: 200, body: document, headers: { 'Content-Type': 'application/vnd.cyclonedx+json', 'Content-Disposition': attachment(filename) } };
  },
  product_attribution: async (r) => {
    const { body, filename, contentType } = await service.attribution(r.caller, r.pathParameters.uuid, { format: r.query.format, include: r.query.include });
    return { statusCode: 200, body, headers: { 'Content-Type': contentType, 'Content-Disposition': attachment(filename) } };
  },
  product_spdx: async (r) => {
    const { document, filename } = await service.spdx(r.caller, r.pathParameters.uuid, r.baseUrl, r.query.spec_version);
    return { statusCode: 200, body: document, headers: { 'Content-Type': 'application/spdx+json', 'Content-Disposition': attachment(filename) } };
  },
});

export const handler = lambdaHandler((c) => makeHandler({ api: apiDependencies(c), sbomExport: sbomExportService(c) }));
