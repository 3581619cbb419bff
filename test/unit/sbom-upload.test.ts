/**
 * The product page's DOM-free SBOM logic (web/src/lib/sbom-upload.ts): which way a file goes and the
 * documented setting that moves the threshold, the media types sent, purls decoded per component for
 * reading, license keys and the concluded/declared choice, usage policy tones, download file names,
 * and the ApiClient's document calls (the key in the Authorization header only).
 */
import { SBOM_MEDIA_TYPES } from '../../shared/sbom/media-types.ts';
import { describe, expect, it } from 'vitest';
import { ApiClient, ApiError, type Fetch } from '../../web/src/lib/api-client.ts';
import {
  DIRECT_UPLOAD_MAX_BYTES,
  directUploadLimit,
  downloadFileName,
  effectiveLicense,
  importProgress,
  sbomMediaType,
  uploadMediaType,
  uploadRoute,
} from '../../web/src/lib/sbom-upload.ts';

describe('the way an SBOM file goes', () => {
  it('is load_sboms up to 1 MB, the upload URL above; the route query may move the threshold', () => {
    expect(DIRECT_UPLOAD_MAX_BYTES).toBe(1_000_000);
    expect(uploadRoute(1_000_000, DIRECT_UPLOAD_MAX_BYTES)).toBe('direct');
    expect(uploadRoute(1_000_001, DIRECT_UPLOAD_MAX_BYTES)).toBe('upload-url');
    expect(directUploadLimit(new URLSearchParams())).toBe(1_000_000);
    expect(directUploadLimit(new URLSearchParams('direct_upload_max_bytes=100000'))).toBe(100_000);
    expect(directUploadLimit(new URLSearchParams('direct_upload_max_bytes=0'))).toBe(0);
    for (const bad of ['-1', 'abc', '1.5', '']) expect(directUploadLimit(new URLSearchParams(`direct_upload_max_bytes=${bad}`)), bad).toBe(1_000_000);
  });

  it('is sent with the media type of its name; the upload URL only takes JSON types', () => {
    expect(sbomMediaType('bom.cdx.json')).toBe('application/vnd.cyclonedx+json');
    expect(sbomMediaType('npm-sbom-prod.spdx.json')).toBe('application/spdx+json');
    expect(sbomMediaType('BOM.XML')).toBe('application/vnd.cyclonedx+xml');
    expect(sbomMediaType('bom.json')).toBe('application/json');
    expect(sbomMediaType('alpine.spdx')).toBe('text/spdx');
    expect(sbomMediaType('shop.spdx3.json')).toBe('application/spdx+json');
    expect(sbomMediaType('scan.openvex.json')).toBe('application/openvex+json');
    // sbom_uploads takes every type load_sboms takes.
    expect(uploadMediaType('bom.xml')).toBe('application/vnd.cyclonedx+xml');
    expect(uploadMediaType('a.spdx.json')).toBe('application/spdx+json');
    for (const name of ['bom.xml', 'alpine.spdx', 'scan.openvex.json', 'bom.json']) expect(SBOM_MEDIA_TYPES).toContain(uploadMediaType(name));
  });

  it('reports the import as steps of a progress bar', () => {
    expect(['queued', 'running', 'completed', 'failed'].map((status) => importProgress(status).value)).toEqual([1, 2, 3, 3]);
    expect(importProgress('failed').text).toBe('Import failed');
  });
});

describe('what the inventory shows', () => {
  it('takes the concluded license before the declared one', () => {
    expect(effectiveLicense({ license_expression: 'mit', concluded_license_expression: 'apache-2.0', concluded_license_expression_spdx: 'Apache-2.0' })).toEqual({
      expression: 'apache-2.0',
      spdx: 'Apache-2.0',
      source: 'concluded',
    });
    expect(effectiveLicense({ license_expression: 'mit', license_expression_spdx: 'MIT', concluded_license_expression: '' })).toEqual({ expression: 'mit', spdx: 'MIT', source: 'declared' });
    expect(effectiveLicense({ license_expression: '', concluded_license_expression: '' })).toEqual({ expression: '', spdx: '', source: 'none' });
  });


  it("names a download as the API's Content-Disposition does, else after the product", () => {
    expect(downloadFileName('attachment; filename="Shop-1.0.0.cdx.json"', { name: 'Shop', version: '1.0.0' }, 'cyclonedx')).toBe('Shop-1.0.0.cdx.json');
    expect(downloadFileName(null, { name: 'My shop/web', version: '' }, 'spdx')).toBe('My_shop_web.spdx.json');
    expect(downloadFileName(null, { name: 'Shop', version: '2' }, 'attribution-text')).toBe('Shop-2.attribution.txt');
  });
});

describe('the ApiClient document calls', () => {
  it('POST a document as it is and GET one as text, with the key in the Authorization header only', async () => {
    const seen: { url: string; method: string; headers: Record<string, string>; body?: string }[] = [];
    const answers = [
      { status: 200, body: '{"status":"completed"}', headers: {} },
      { status: 200, body: '{"bomFormat":"CycloneDX"}', headers: { 'content-type': 'application/vnd.cyclonedx+json', 'content-disposition': 'attachment; filename="a.cdx.json"' } },
      { status: 415, body: '{"detail":"Unsupported media type."}', headers: {} },
    ];
    const fetcher: Fetch = async (url, init) => {
      seen.push({ url, ...init });
      const answer = answers.shift()!;
      return { status: answer.status, headers: { get: (name: string) => (answer.headers as Record<string, string>)[name] ?? null }, text: async () => answer.body };
    };
    const client = new ApiClient('secret-key', fetcher);
    await expect(client.postDocument('/api/v2/products/p/load_sboms/?mode=merge', '{"bomFormat":"CycloneDX"}', 'application/vnd.cyclonedx+json')).resolves.toEqual({ status: 'completed' });
    await expect(client.getDocument('/api/v2/products/p/cyclonedx/')).resolves.toEqual({
      text: '{"bomFormat":"CycloneDX"}',
      contentType: 'application/vnd.cyclonedx+json',
      disposition: 'attachment; filename="a.cdx.json"',
    });
    const refused = await client.postDocument('/api/v2/products/p/load_sboms/', '<bom/>', 'application/vnd.cyclonedx+xml').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(415);
    expect(seen[0]).toEqual({
      url: '/api/v2/products/p/load_sboms/?mode=merge',
      method: 'POST',
      headers: { Authorization: 'Token secret-key', 'Content-Type': 'application/vnd.cyclonedx+json' },
      body: '{"bomFormat":"CycloneDX"}',
    });
    expect(seen.every((request) => !request.url.includes('secret-key'))).toBe(true);
  });
});
