/**
 * SBOMs in and out of a product, without the DOM where it can be: which way a file goes (straight to
 * load_sboms, or to the presigned upload URL), the media type a file is sent as, the upload's PUT with
 * its progress (XMLHttpRequest: fetch reports no upload progress), reading purls and license
 * expressions for display, and the file name of a download.
 */

/**
 * Files up to this size go straight to POST load_sboms (whose own limit is 4 MB and 1,000 components);
 * larger ones to POST sbom_uploads and the presigned URL, with progress bars for the upload and the import.
 */
export const DIRECT_UPLOAD_MAX_BYTES = 1_000_000;

/**
 * The product page's route may lower (or raise) that threshold for this page view:
 * `#/products/<uuid>/packages?direct_upload_max_bytes=100000` sends any file above 100 KB through the
 * upload URL (how the browser test shows the large path with a real fixture, none of which is over 1 MB).
 */
export const DIRECT_UPLOAD_SETTING = 'direct_upload_max_bytes';

export function directUploadLimit(query: URLSearchParams): number {
  const raw = query.get(DIRECT_UPLOAD_SETTING);
  const value = raw === null || !/^\d+$/.test(raw) ? NaN : Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : DIRECT_UPLOAD_MAX_BYTES;
}

export type UploadRoute = 'direct' | 'upload-url';

export function uploadRoute(size: number, limit: number): UploadRoute {
  return size <= limit ? 'direct' : 'upload-url';
}

/**
 * The media type a file is sent as, by its name: XML as CycloneDX XML, `.spdx` as SPDX tag-value, the
 * formats' JSON names as theirs, anything else as JSON (the API reads the format from the document
 * whatever the type, as long as the type names no other format).
 */
export function sbomMediaType(fileName: string): string {
  const name = fileName.toLowerCase();
  if (name.endsWith('.xml')) return 'application/vnd.cyclonedx+xml';
  if (name.endsWith('.spdx') || name.endsWith('.spdx.txt')) return 'text/spdx';
  if (name.endsWith('.spdx.json') || name.endsWith('.spdx3.json')) return 'application/spdx+json';
  if (name.endsWith('.openvex.json')) return 'application/openvex+json';
  if (name.endsWith('.cdx.json') || name.endsWith('.bom.json')) return 'application/vnd.cyclonedx+json';
  return 'application/json';
}

/** The media type of the upload URL's PUT: sbom_uploads takes the same types as load_sboms. */
export function uploadMediaType(fileName: string): string {
  return sbomMediaType(fileName);
}

/** The file picker's `accept`: the names and types of every format the import reads. */
export const SBOM_FILE_ACCEPT = [
  '.json',
  '.xml',
  '.spdx',
  'application/json',
  'application/vnd.cyclonedx+json',
  'application/vnd.cyclonedx+xml',
  'application/xml',
  'text/xml',
  'application/spdx+json',
  'text/spdx',
  'application/openvex+json',
].join(',');

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part; // a stray % stays as written
  }
}

export interface EffectiveLicense {
  /** With ScanCode keys, as stored. */
  readonly expression: string;
  /** With SPDX ids (LicenseRef-… for keys without one), as the console shows it; '' when the API gave none. */
  readonly spdx: string;
  /** `concluded`: the product's own conclusion; `declared`: the package's license; `none`: neither. */
  readonly source: 'concluded' | 'declared' | 'none';
}

export function effectiveLicense(pkg: {
  readonly license_expression: string;
  readonly license_expression_spdx?: string;
  readonly concluded_license_expression: string;
  readonly concluded_license_expression_spdx?: string;
}): EffectiveLicense {
  if (pkg.concluded_license_expression) return { expression: pkg.concluded_license_expression, spdx: pkg.concluded_license_expression_spdx ?? '', source: 'concluded' };
  if (pkg.license_expression) return { expression: pkg.license_expression, spdx: pkg.license_expression_spdx ?? '', source: 'declared' };
  return { expression: '', spdx: '', source: 'none' };
}

/** The file name of a download: the API's Content-Disposition name, else the product's name and version. */
export function downloadFileName(disposition: string | null, product: { readonly name: string; readonly version: string }, format: DownloadKind): string {
  const named = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
  if (named) return decodePart(named.trim());
  const stem = [product.name, product.version].filter(Boolean).join('-').replace(/[^A-Za-z0-9._-]+/g, '_') || 'product';
  return `${stem}.${DOWNLOAD_SUFFIXES[format]}`;
}

/** What the product page downloads: an SBOM (CycloneDX, SPDX) or the attribution notice (HTML, text). */
export type DownloadKind = 'cyclonedx' | 'cyclonedx-xml' | 'spdx' | 'spdx3' | 'attribution-html' | 'attribution-text';
const DOWNLOAD_SUFFIXES: Record<DownloadKind, string> = {
  cyclonedx: 'cdx.json',
  'cyclonedx-xml': 'cdx.xml',
  spdx: 'spdx.json',
  spdx3: 'spdx3.json',
  'attribution-html': 'attribution.html',
  'attribution-text': 'attribution.txt',
};

/** The SBOM downloads the product page offers: what each is called, and the export that answers it. */
export const SBOM_DOWNLOADS = [
  { kind: 'cyclonedx', label: 'CycloneDX 1.6 JSON', path: 'cyclonedx/' },
  { kind: 'cyclonedx-xml', label: 'CycloneDX 1.6 XML', path: 'cyclonedx/?format=xml' },
  { kind: 'spdx', label: 'SPDX 2.3 JSON', path: 'spdx/' },
  { kind: 'spdx3', label: 'SPDX 3.0.1 JSON-LD', path: 'spdx/?spec_version=3.0' },
] as const satisfies readonly { kind: DownloadKind; label: string; path: string }[];
export type SbomDownloadKind = (typeof SBOM_DOWNLOADS)[number]['kind'];

/** What the import's progress bar shows for a status (queued, running, completed, failed). */
export function importProgress(status: string): { value: number; text: string } {
  switch (status) {
    case 'queued':
      return { value: 1, text: 'Import queued' };
    case 'running':
      return { value: 2, text: 'Importing' };
    case 'completed':
      return { value: 3, text: 'Import completed' };
    case 'failed':
      return { value: 3, text: 'Import failed' };
    default:
      return { value: 0, text: `Import ${status}` };
  }
}
export const IMPORT_STEPS = 3;

/**
 * PUTs a file to a presigned URL with the headers it was signed with, reporting progress (bytes sent,
 * bytes in all). Resolves on 2xx; rejects with a message otherwise. No credentials go with it: the
 * URL is its own authorization.
 */
export function putWithProgress(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: Blob,
  onProgress: (sent: number, total: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    // The browser sends the body's own Content-Length (a script may not set it): the size the URL was
    // signed for, since the upload was asked for with this file's size.
    for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'content-length') xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : body.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(body.size, body.size);
        resolve();
      } else reject(new Error(`The upload was refused (${xhr.status}).`));
    };
    xhr.onerror = () => reject(new Error('The upload could not reach the storage. Check your connection and try again.'));
    xhr.send(body);
  });
}
