/** SBOM export: a product's inventory as CycloneDX (SBOM, VEX or both) or SPDX. */
import * as z from 'zod';
import { CYCLONEDX_CONTENTS, CYCLONEDX_FORMATS, CYCLONEDX_SPEC_VERSIONS, SPDX_SPEC_VERSIONS } from '../sbom/export-options.ts';
import { shown } from '../schemas/common.ts';
import { ATTRIBUTION_FORMATS, ATTRIBUTION_INCLUDES } from '../domain/attribution.ts';
import { notFound, unauthorized, type Route } from './route.ts';

const choice = <T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z
    .enum(values, { error: (issue) => `Select a valid choice. ${shown(issue.input)} is not one of the available choices (${values.join(', ')}).` })
    .default(fallback);

export const AttributionQuery = z.object({
  format: choice(ATTRIBUTION_FORMATS, 'html').describe('html (a self-contained, printable page; the default) or text (for a NOTICE file)'),
  include: choice(ATTRIBUTION_INCLUDES, 'deployed').describe('deployed (the packages deployed with the product; the default) or all'),
});

export const CycloneDxExportQuery = z.object({
  spec_version: choice(CYCLONEDX_SPEC_VERSIONS, '1.6').describe('CycloneDX specification version (default 1.6)'),
  content: choice(CYCLONEDX_CONTENTS, 'combined').describe('sbom (components), vex (vulnerabilities and analyses) or combined (default)'),
  format: choice(CYCLONEDX_FORMATS, 'json').describe('json (application/vnd.cyclonedx+json; the default) or xml (application/vnd.cyclonedx+xml)'),
});

export const SpdxExportQuery = z.object({
  spec_version: choice(SPDX_SPEC_VERSIONS, '2.3').describe('2.3 (SPDX 2.3 JSON; the default) or 3.0 (SPDX 3.0.1 JSON-LD)'),
});

/** The documents are validated against their official schemas by the tests; here they are opaque JSON objects. */
const CycloneDxDocument = z.looseObject({ bomFormat: z.literal('CycloneDX'), specVersion: z.string() }).meta({ id: 'CycloneDxDocument' });
const SpdxDocument = z
  .union([z.looseObject({ spdxVersion: z.literal('SPDX-2.3'), SPDXID: z.string() }), z.looseObject({ '@context': z.string(), '@graph': z.array(z.unknown()) })])
  .meta({ id: 'SpdxDocument', description: 'SPDX 2.3 JSON, or SPDX 3.0.1 JSON-LD (spec_version=3.0)' });
const CycloneDxXmlDocument = z.string().meta({ id: 'CycloneDxXmlDocument', description: 'A CycloneDX XML document (format=xml)' });

export const SBOM_EXPORT_ROUTES = [
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/cyclonedx/',
    function: 'sbom-export',
    operationId: 'product_cyclonedx',
    summary: "The product's inventory as a CycloneDX JSON or XML document (1.4 to 1.6): components, dependencies, vulnerabilities with the product's analyses (VEX)",
    auth: 'api-key',
    query: CycloneDxExportQuery,
    responses: {
      200: {
        description: 'The document, with a Content-Disposition file name',
        schemas: { 'application/vnd.cyclonedx+json': CycloneDxDocument, 'application/vnd.cyclonedx+xml': CycloneDxXmlDocument },
      },
      400: { description: 'An unknown spec_version, content or format' },
      401: unauthorized,
      404: notFound('product'),
    },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/spdx/',
    function: 'sbom-export',
    operationId: 'product_spdx',
    summary: "The product's inventory as an SPDX 2.3 JSON document (or SPDX 3.0.1 JSON-LD with spec_version=3.0): packages, licenses, dependencies, and in 3.0 vulnerabilities with VEX assessments",
    auth: 'api-key',
    query: SpdxExportQuery,
    responses: {
      200: { description: 'The document, with a Content-Disposition file name', schema: SpdxDocument, mediaType: 'application/spdx+json' },
      400: { description: 'An unknown spec_version' },
      401: unauthorized,
      404: notFound('product'),
    },
  },
  {
    method: 'GET',
    path: '/api/v2/products/{uuid}/attribution/',
    function: 'sbom-export',
    operationId: 'product_attribution',
    summary:
      "The product's attribution notice: each package (deployed ones by default) with its version, home page, copyright and license (the concluded one when set), then each license's full text once; unknown licenses as written",
    auth: 'api-key',
    query: AttributionQuery,
    responses: {
      200: { description: 'The notice, with a Content-Disposition file name', schema: z.string().meta({ id: 'AttributionNotice' }), mediaTypes: ['text/html', 'text/plain'] },
      400: { description: 'An unknown format or include, naming the choices' },
      401: unauthorized,
      404: notFound('product'),
    },
  },
] as const satisfies readonly Route[];
